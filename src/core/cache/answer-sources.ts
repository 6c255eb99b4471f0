import type { RouteEndpoint } from '../rest/route-types';

/** Past this many posts shown, an answer is kept as depending on all posts' content (its check would cost more). */
export const MAX_SHOWN_POSTS = 500;

/**
 * What an answer is made from, as far as the response cache needs to know, noted while it is built — its `_embed`
 * sub-requests included, as they share the request's context:
 * - the posts it shows (of any type: each is noted as the post presenter prepares it);
 * - whether an endpoint it went through reads posts' content otherwise (`readsPostContent`: a search, an order by
 *   title), or may not be cached at all (`cacheable: false`).
 *
 * An answer that does not read posts' content otherwise stays valid after an edit that keeps every post in its
 * place (`VersionStamps.narrow`) as long as none of the posts it shows was written.
 */
export class AnswerSources {
  /** The ids of the posts shown. */
  readonly posts = new Set<number>();
  /** Depends on the content of posts other than those shown. */
  content = false;
  /** Went through an endpoint whose answers may not be cached. */
  uncacheable = false;

  /** Notes an endpoint a GET went through, with its query. */
  noteEndpoint(endpoint: Pick<RouteEndpoint, 'cacheable' | 'readsPostContent'>, query: Record<string, unknown>): void {
    if (!endpoint.cacheable) this.uncacheable = true;
    const reads = endpoint.readsPostContent;
    if (typeof reads === 'function' ? reads(query) : reads !== false) this.content = true;
  }

  /** Notes posts shown. */
  notePosts(posts: ReadonlyArray<{ id: number }>): void {
    for (const post of posts) this.posts.add(post.id);
  }

  /** Notes what a sub-request's answer (`_embed`) was made from. */
  merge(other: AnswerSources): void {
    for (const id of other.posts) this.posts.add(id);
    if (other.content) this.content = true;
    if (other.uncacheable) this.uncacheable = true;
  }

  /**
   * Notes an answer kept by the response cache and used in this one (`_embed`): the posts it shows, or `null` when it
   * depends on every post's content.
   */
  noteKept(posts: ReadonlySet<number> | null): void {
    if (!posts) this.content = true;
    else for (const id of posts) this.posts.add(id);
  }

  /** Whether the answer depends on posts' content beyond the posts it shows (or shows too many to check). */
  get readsAllContent(): boolean {
    return this.content || this.posts.size > MAX_SHOWN_POSTS;
  }
}
