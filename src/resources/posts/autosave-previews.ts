import { SessionService } from '../../core/auth/session.service';
import { PostEntity } from '../../core/database/entities/post.entity';
import { textOf } from '../../core/formatting/php-serialize';
import { HookRegistry } from '../../core/hooks/hook-registry.service';
import { OptionsService } from '../../core/options/options.service';
import { ContentRegistry } from '../../core/registry/content-registry.service';
import { PostTypeObject } from '../../core/registry/content-types';
import { permalink } from '../../core/rest/permalink';
import { RestRequest } from '../../core/rest/rest-request';
import { PostsService } from './posts.service';

/** Ancestors followed for a hierarchical post's address at most (as the posts' presenter does). */
const MAX_DEPTH = 20;

/**
 * The `preview_link` of an autosave (WordPress's `get_preview_post_link()` as the autosaves controller calls it):
 * the address of the post with `preview=true`, and for an autosave revision `preview_id` (the post) and
 * `preview_nonce` (the caller's nonce of the action `post_preview_<post>`) before it; empty for a type that is not
 * viewable. A headless front end shows the post's newest autosave for such an address (see docs/autosaves.md).
 */
export class AutosavePreviews {
  constructor(
    private readonly posts: PostsService,
    private readonly content: ContentRegistry,
    private readonly options: OptionsService,
    private readonly sessions: SessionService,
    private readonly hooks: HookRegistry,
  ) {}

  /** The preview link of an autosave (or of the post an autosave saved); `parent`: its post, when loaded. */
  async linkOf(item: PostEntity, req: RestRequest, parent?: PostEntity): Promise<string> {
    const parentId = isAutosave(item) ? item.parent : 0;
    const post = parentId ? (parent?.id === parentId ? parent : await this.posts.findById(parentId)) : item;
    if (!post) return '';
    const type = this.content.postType(post.type);
    let link = '';
    // is_post_type_viewable()
    if (type && (type.publicly_queryable || (type._builtin && type.public))) {
      const args: Array<[string, string]> = [];
      if (parentId) args.push(['preview_id', String(parentId)], ['preview_nonce', await this.nonce(req, parentId)]);
      args.push(['preview', 'true']);
      link = withQueryArgs(await this.permalinkOf(post, type, req), args);
    }
    return this.hooks.applyFilters('preview_post_link', link, post);
  }

  /**
   * The caller's preview nonce of a post: `wp_create_nonce( 'post_preview_<post>' )`, made like the API's `wp_rest`
   * nonces (the half-day tick, the user, the site's secret) without a session token, as WordPress makes it for a
   * caller without a login cookie.
   */
  private nonce(req: RestRequest, postId: number): Promise<string> {
    return this.sessions.createNonce(req.ctx.user.id, '', Date.now(), `post_preview_${postId}`);
  }

  /** The post's address, as the posts' `link` shows it. */
  private async permalinkOf(post: PostEntity, type: PostTypeObject, req: RestRequest): Promise<string> {
    const home = textOf((await this.options.get<unknown>('home', undefined)) ?? req.ctx.baseUrl).replace(/\/+$/, '');
    const parents = new Map<number, PostEntity>();
    if (type.hierarchical) {
      let next = post.parent;
      for (let depth = 0; next > 0 && !parents.has(next) && depth < MAX_DEPTH; depth++) {
        const parent = await this.posts.findById(next);
        if (!parent) break;
        parents.set(parent.id, parent);
        next = parent.parent;
      }
    }
    return permalink(post, type, home, parents, post.status === 'publish' || post.status === 'private');
  }
}

/** `wp_is_post_autosave()`: a revision whose slug holds `{parent}-autosave`. */
function isAutosave(post: PostEntity): boolean {
  return post.type === 'revision' && post.name.includes(`${post.parent}-autosave`);
}

/** `add_query_arg()`: the arguments appended to the address's query, in order. */
function withQueryArgs(url: string, args: Array<[string, string]>): string {
  const query = args.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
  return `${url}${url.includes('?') ? '&' : '?'}${query}`;
}
