import { EntityManager } from 'typeorm';
import { PostEntity } from '../../core/database/entities/post.entity';
import { PostMetaEntity } from '../../core/database/entities/post-meta.entity';
import { ZERO_DATE } from '../../core/database/mysql-date';
import { sanitizeTitle } from '../../core/formatting';
import { RestException } from '../../core/errors/rest.exception';
import { PostTypeObject } from '../../core/registry/content-types';
import { permalink, PLAIN_LINK_STATUSES } from '../../core/rest/permalink';
import { isOwnAncestor, uniquePostSlug } from './post-slugs';
import type { PostFields, WriteContext } from './post-writer.service';

// The row of a post as wp_insert_post() makes it: its dates and status, slug, comment statuses and guid.

/** Statuses whose date floats at "now" until one is given (and that get no slug from their title). */
export const FLOATING = ['draft', 'pending', 'auto-draft'];
/** The length of the `guid` column (`varchar(255)`). */
export const GUID_LENGTH = 255;
/** Columns without a default in WordPress's schema, written explicitly on insert. */
export const EMPTY_COLUMNS: Partial<PostEntity> = {
  toPing: '',
  pinged: '',
  contentFiltered: '',
  guid: '',
  mimeType: '',
  commentCount: 0,
};

/** The row `wp_insert_post()` writes for a new post (`before`: `null`) or over an existing one, from what was sent. */
export async function postRow(
  em: EntityManager,
  type: PostTypeObject,
  before: PostEntity | null,
  f: PostFields,
  ctx: WriteContext,
): Promise<Partial<PostEntity>> {
  const now = ctx.clock.now();
  const title = f.title ?? before?.title ?? '';
  const contentText = f.content ?? before?.content ?? '';
  const excerpt = f.excerpt ?? before?.excerpt ?? '';
  const supports = (feature: string) => type.supports[feature] !== undefined;
  if (!contentText && !title && !excerpt && supports('editor') && supports('title') && supports('excerpt')) {
    throw new RestException('empty_content', 'Content, title, and excerpt are empty.', 400);
  }
  let status = f.status || before?.status || 'draft';
  let parent = f.parent ?? before?.parent ?? 0;
  // wp_check_post_hierarchy_for_loops(): a post cannot become its own ancestor.
  if (before && f.parent !== undefined && parent > 0 && (await isOwnAncestor(em, before.id, parent))) parent = 0;

  // Dates: a draft that never had a GMT date keeps floating at "now" until it is given one.
  let date: string;
  let dateGmt: string;
  if (f.date) {
    [date, dateGmt] = f.date;
  } else if (before && !(f.date === null) && !(FLOATING.includes(before.status) && before.dateGmt === ZERO_DATE)) {
    [date, dateGmt] = [before.date, before.dateGmt];
  } else {
    date = now.local;
    dateGmt = '';
  }
  if (!dateGmt || dateGmt === ZERO_DATE) dateGmt = FLOATING.includes(status) ? ZERO_DATE : ctx.clock.gmtFromLocal(date);
  const modified = before || date === ZERO_DATE ? now : { local: date, gmt: dateGmt };

  // Scheduling: a post published with a date at least a minute ahead waits as `future`, and the other way round.
  if (dateGmt !== ZERO_DATE) {
    const ahead = Date.parse(`${dateGmt.replace(' ', 'T')}Z`) - Date.parse(`${now.gmt.replace(' ', 'T')}Z`);
    if (status === 'publish' && ahead >= 60_000) status = 'future';
    else if (status === 'future' && ahead < 60_000) status = 'publish';
  }

  // Slug: sanitised when sent, generated from the title when published, unique among its siblings.
  let name = f.name !== undefined ? sanitizeTitle(f.name) : (before?.name ?? '');
  if (status === 'pending' && !ctx.canPublish) name = '';
  if (!name) name = FLOATING.includes(status) ? '' : sanitizeTitle(title);
  if (before?.status === 'trash' && status !== 'trash') {
    const desired = await em
      .getRepository(PostMetaEntity)
      .findOne({ where: { postId: before.id, key: '_wp_desired_post_slug' } });
    if (desired) {
      await em.getRepository(PostMetaEntity).delete({ postId: before.id, key: '_wp_desired_post_slug' });
      name = desired.value ?? name;
    }
  }
  const draft = { id: before?.id ?? 0, type: type.name, parent, status, name } as PostEntity;
  // A slug sent for a draft is made unique as if it were published (the reference's REST rule).
  const uniqueAs =
    f.name !== undefined && name && ['draft', 'pending'].includes(status) ? { ...draft, status: 'publish' } : draft;
  if (name) name = await uniquePostSlug(em, name, uniqueAs, type, ctx.permalinkStructure);

  const commentDefault = (kind: 'comment' | 'ping'): string => {
    if (before) return 'closed';
    if (type.name === 'page') return 'closed';
    return supports(kind === 'comment' ? 'comments' : 'trackbacks') ? '' : 'closed';
  };
  const commentStatus =
    f.commentStatus || before?.commentStatus || commentDefault('comment') || ctx.defaultCommentStatus;
  const pingStatus = f.pingStatus || before?.pingStatus || commentDefault('ping') || ctx.defaultPingStatus;

  return {
    author: f.author ?? before?.author ?? ctx.actor,
    date,
    dateGmt,
    content: contentText,
    title,
    excerpt,
    status,
    type: type.name,
    commentStatus,
    pingStatus,
    password: status === 'private' ? '' : (f.password ?? before?.password ?? ''),
    name,
    modified: modified.local,
    modifiedGmt: modified.gmt,
    parent,
    menuOrder: f.menuOrder ?? before?.menuOrder ?? 0,
    ...(f.mimeType !== undefined ? { mimeType: f.mimeType } : {}),
  };
}

/** The permalink a new post gets as its `guid`, its ancestors read through the transaction. */
export async function guidPermalink(
  em: EntityManager,
  type: PostTypeObject,
  post: PostEntity,
  home: string,
): Promise<string> {
  const pretty = !PLAIN_LINK_STATUSES.includes(post.status) && Boolean(post.name);
  const parents = new Map<number, PostEntity>();
  for (
    let id = post.parent, depth = 0;
    pretty && type.hierarchical && id > 0 && depth < 20 && !parents.has(id);
    depth++
  ) {
    const parent = await em.getRepository(PostEntity).findOne({ where: { id } });
    if (!parent) break;
    parents.set(id, parent);
    id = parent.parent;
  }
  return permalink(post, type, home, parents, pretty);
}
