import { timingSafeEqual } from 'node:crypto';
import { PostEntity } from '../../core/database/entities/post.entity';
import { RestRequest } from '../../core/rest/rest-request';
import { filterText } from '../../core/text/text-filter-pool';
import { RENDERED } from './render-cache';

/** Whether a password sent matches a post's, compared in constant time. */
export function samePassword(stored: string, given: string): boolean {
  const a = Buffer.from(stored);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Password-protected content is hidden unless the right password is sent (or the caller edits). */
export function isLocked(post: PostEntity, req: RestRequest): boolean {
  return (
    Boolean(post.password) && req.context !== 'edit' && !samePassword(post.password, req.get<string>('password') ?? '')
  );
}

/**
 * Whether a password-protected post's text and password stay out of an edit-context answer: a collection in the
 * edit context (open to every caller with the type's `edit_posts`) holds posts its caller may not edit.
 */
export async function isSealed(post: PostEntity, req: RestRequest): Promise<boolean> {
  return Boolean(post.password) && req.context === 'edit' && !(await req.ctx.can('edit_post', post));
}

/**
 * A post's `title`, `content` and `excerpt` as far as its type `supports` them: the HTML rendered from each (kept
 * while its source is unchanged), none for the content and excerpt while `locked`, no raw text while `sealed`.
 */
export async function renderedTexts(
  post: PostEntity,
  supports: (feature: string) => boolean,
  locked: boolean,
  sealed: boolean,
): Promise<Record<string, unknown>> {
  const data: Record<string, unknown> = {};
  if (supports('title')) {
    const prefix = post.status === 'private' && !post.password ? 'p' : 't';
    const rendered =
      RENDERED.peek(`${post.id}:t`, `${prefix}${post.title}`) ??
      (await RENDERED.render(`${post.id}:t`, `${prefix}${post.title}`, () =>
        filterText('renderTitle', post.title, post.status, post.password),
      ));
    data.title = { raw: post.title, rendered };
  }
  if (supports('editor')) {
    const rendered = locked
      ? ''
      : (RENDERED.peek(`${post.id}:c`, post.content) ??
        (await RENDERED.render(`${post.id}:c`, post.content, () => filterText('renderContent', post.content))));
    data.content = { raw: sealed ? '' : post.content, rendered, protected: Boolean(post.password) };
  }
  if (supports('excerpt')) {
    // An excerpt is rendered from the excerpt, or generated from the content when there is none.
    const key = post.excerpt ? `${post.id}:e` : `${post.id}:g`;
    const source = post.excerpt || post.content;
    const rendered = locked
      ? ''
      : (RENDERED.peek(key, source) ??
        (await RENDERED.render(key, source, () => filterText('renderExcerpt', post.excerpt, post.content))));
    data.excerpt = { raw: sealed ? '' : post.excerpt, rendered, protected: Boolean(post.password) };
  }
  return data;
}
