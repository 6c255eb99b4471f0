import { DataSource, EntityManager } from 'typeorm';
import { PostEntity } from '../../core/database/entities/post.entity';
import { PostMetaEntity } from '../../core/database/entities/post-meta.entity';
import { UserEntity } from '../../core/database/entities/user.entity';
import { insertRow, updateRow } from '../../core/database/query-helpers';
import { rawEntities, rawQuery } from '../../core/database/raw-query';
import { normalizeWhitespace } from '../../core/formatting';
import { EMPTY_COLUMNS } from './post-insert-rules';
import { deletePostRows } from './post-trash';
import type { WriteContext } from './post-writer.service';

/** The title, content and excerpt an autosave request sent (already filtered as saved), each `undefined` if not. */
export interface AutosaveTexts {
  title?: string;
  content?: string;
  excerpt?: string;
}

/** How long another user's `_edit_lock` holds a post (`wp_check_post_lock_window`, 150 s). */
const POST_LOCK_WINDOW_SECONDS = 150;
const TEXTS = ['title', 'content', 'excerpt'] as const;

/** The data source of a read, made on it or within a transaction. */
function sourceOf(db: DataSource | EntityManager): DataSource {
  return db instanceof DataSource ? db : db.connection;
}

/** `{parent}-autosave-v1`: the slug of every autosave of a post (`_wp_post_revision_data()`). */
export function autosaveName(parentId: number): string {
  return `${parentId}-autosave-v1`;
}

/**
 * `wp_get_post_autosave()`: the newest autosave of a post (by `post_date`), of one user when `userId` is given, else
 * anyone's.
 */
export async function findAutosave(
  db: DataSource | EntityManager,
  parentId: number,
  userId = 0,
): Promise<PostEntity | null> {
  const metadata = sourceOf(db).getMetadata(PostEntity);
  const byUser = userId ? ' AND post_author = ?' : '';
  const rows = await rawEntities<PostEntity>(
    db,
    metadata,
    `SELECT * FROM ${metadata.tableName} WHERE post_parent = ? AND post_type = 'revision' AND post_status = 'inherit' AND post_name = ?${byUser} ORDER BY post_date DESC LIMIT 1`,
    userId ? [parentId, autosaveName(parentId), userId] : [parentId, autosaveName(parentId)],
  );
  return rows[0] ?? null;
}

/**
 * The autosaves of a post, every user's, newest first: its revisions (`wp_get_post_revisions()`, by date and id)
 * whose slug holds `{parent}-autosave`.
 */
export function listAutosaves(db: DataSource, parentId: number): Promise<PostEntity[]> {
  const metadata = db.getMetadata(PostEntity);
  return rawEntities<PostEntity>(
    db,
    metadata,
    `SELECT * FROM ${metadata.tableName} WHERE post_parent = ? AND post_type = 'revision' AND post_status = 'inherit' AND post_name LIKE ? ORDER BY post_date DESC, ID DESC`,
    [parentId, `%${parentId}-autosave%`],
  );
}

/**
 * `wp_check_post_lock()`: whether another user than `userId` holds the post's `_edit_lock` (`time:user`, the user
 * from `_edit_last` when the lock names none), taken within the last 150 seconds by a user who exists.
 */
export async function lockedByAnother(
  db: DataSource,
  postId: number,
  userId: number,
  now = Date.now(),
): Promise<boolean> {
  const meta = db.getMetadata(PostMetaEntity).tableName;
  const rows = await rawQuery<{ meta_key: string; meta_value: string | null }>(
    db,
    `SELECT meta_key, meta_value FROM ${meta} WHERE post_id = ? AND meta_key IN ('_edit_lock', '_edit_last') ORDER BY meta_id`,
    [postId],
  );
  const first = (key: string) => rows.find((r) => r.meta_key === key)?.meta_value ?? '';
  const lock = first('_edit_lock');
  if (!lock) return false;
  const [time, named] = lock.split(':');
  const holder = Number(named ?? first('_edit_last'));
  if (!Number.isInteger(holder) || holder <= 0 || holder === userId) return false;
  if (!(Number(time) > Math.floor(now / 1000) - POST_LOCK_WINDOW_SECONDS)) return false;
  const users = db.getMetadata(UserEntity).tableName;
  return (await rawQuery(db, `SELECT ID FROM ${users} WHERE ID = ?`, [holder])).length > 0;
}

/**
 * The autosaves controller's `create_post_autosave()`: stores the caller's autosave of `post`, one per user. A new
 * one is a revision named `{parent}-autosave-v1` holding the texts sent (those not sent empty); an existing one is
 * overwritten with the texts sent, unless none differs from the post's: then it is deleted and `null` answered
 * (`rest_autosave_no_changes`). Its dates are the time of the save. Returns the autosave's id.
 */
export async function putAutosave(
  em: EntityManager,
  post: PostEntity,
  texts: AutosaveTexts,
  ctx: WriteContext,
): Promise<number | null> {
  const now = ctx.clock.now();
  const dates = { date: now.local, dateGmt: now.gmt, modified: now.local, modifiedGmt: now.gmt };
  const old = await findAutosave(em, post.id, ctx.actor);
  if (old) {
    const sent = TEXTS.filter((k) => texts[k] !== undefined);
    if (!sent.some((k) => normalizeWhitespace(texts[k]!) !== normalizeWhitespace(post[k]))) {
      await deletePostRows(em, [old.id]);
      return null;
    }
    const changes: Partial<PostEntity> = { author: ctx.actor, ...dates };
    for (const k of sent) changes[k] = texts[k];
    await updateRow(em, PostEntity, old.id, changes);
    return old.id;
  }
  const id = await insertRow(em, PostEntity, {
    ...EMPTY_COLUMNS,
    author: ctx.actor,
    ...dates,
    title: texts.title ?? '',
    content: texts.content ?? '',
    excerpt: texts.excerpt ?? '',
    status: 'inherit',
    type: 'revision',
    commentStatus: 'closed',
    pingStatus: 'closed',
    password: '',
    name: autosaveName(post.id),
    parent: post.id,
    menuOrder: 0,
  });
  await updateRow(em, PostEntity, id, { guid: `${ctx.home}/?p=${id}` });
  return id;
}
