import { recordEvent } from '../../core/webhooks/outbox';
import { commentStatusEvent, type WebhookEvent } from '../../core/webhooks/webhook-events';
import { Inject, Injectable, Optional } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { CMS_DATA_SOURCE } from '../../core/database/cms-data-source';
import { CommentMetaEntity } from '../../core/database/entities/comment-meta.entity';
import { CommentEntity } from '../../core/database/entities/comment.entity';
import { PostEntity } from '../../core/database/entities/post.entity';
import { UserEntity } from '../../core/database/entities/user.entity';
import {
  countWithin,
  limitClause,
  metaOfObjects,
  placeholders,
  rawEntities,
  rawQuery,
  Where,
} from '../../core/database/raw-query';
import { clearOnWrites, ShortCache } from '../../core/database/short-cache';
import { VersionStamps } from '../../core/database/version-stamps';
import { writeTransaction } from '../../core/database/write-transaction';
import { applyMetaWrites, MetaOp } from '../../core/rest/meta-fields';
import { textOf } from '../../core/formatting/php-serialize';
import { commentComparator, commentOrderBy, CommentQuery, commentWhere } from './comment-query';

/** A page of comments and the number of comments matching. */
export interface CommentPage {
  comments: CommentEntity[];
  total: number;
}

/** What a new comment is made of (columns of `comments`), after every filter. */
export type CommentFields = Omit<CommentEntity, 'id'>;

/** The status names of `wp_get_comment_status()`. */
export function commentStatusName(approved: string): string {
  if (approved === '1') return 'approved';
  if (approved === '0') return 'unapproved';
  return approved;
}

/** The meta keys WordPress keeps a trashed or spammed comment's earlier status under. */
const TRASH_STATUS = '_wp_trash_meta_status';
const TRASH_TIME = '_wp_trash_meta_time';

/** Database access of the comments resource: lists, batched loads, and writes the way `wp-includes/comment.php` does them. */
@Injectable()
export class CommentsService {
  private readonly counts = new ShortCache<number>();

  constructor(
    @Inject(CMS_DATA_SOURCE) private readonly dataSource: DataSource,
    @Optional() stamps?: VersionStamps,
  ) {
    clearOnWrites(dataSource, this.counts);
    stamps?.validate(this.counts);
  }

  private table<T>(entity: new () => T): string {
    return this.dataSource.getMetadata(entity).tableName;
  }

  /** One page of comments and the total. */
  async list(q: CommentQuery): Promise<CommentPage> {
    const w = commentWhere(q);
    const order = commentOrderBy(q);
    const from = `FROM ${this.table(CommentEntity)} c WHERE ${w.sql}`;
    const [comments, total] = await Promise.all([
      rawEntities<CommentEntity>(
        this.dataSource,
        this.dataSource.getMetadata(CommentEntity),
        `SELECT c.* ${from} ORDER BY ${order.sql} ${limitClause(q.limit, q.offset)}`,
        [...w.params, ...order.params],
      ),
      countWithin(this.counts, this.dataSource, `SELECT COUNT(*) AS n ${from}`, w.params),
    ]);
    return { comments, total };
  }

  /**
   * The same page of the same query for each of many posts (`posts?_embed` embeds the comments of a page of posts),
   * in two statements whatever the number of posts: each post's page as its own ordered, limited select (read from
   * the post's key, stopping at the page's end, however long the thread), joined with UNION ALL; and the totals,
   * counted per post.
   */
  async pagesOfPosts(q: Omit<CommentQuery, 'postIn'>, postIds: readonly number[]): Promise<Map<number, CommentPage>> {
    const ids = [...new Set(postIds)];
    const out = new Map<number, CommentPage>(ids.map((id) => [id, { comments: [], total: 0 }]));
    if (!ids.length) return out;
    const table = this.table(CommentEntity);
    const order = commentOrderBy(q);
    const selects: string[] = [];
    const params: unknown[] = [];
    // MySQL takes parenthesized selects in a union as they are; SQLite needs each one as a subquery.
    const sqlite = this.dataSource.options.type === 'better-sqlite3' || this.dataSource.options.type === 'sqlite';
    for (const id of ids) {
      const w = commentWhere({ ...q, postIn: [id] });
      const select = `SELECT c.* FROM ${table} c WHERE ${w.sql} ORDER BY ${order.sql} ${limitClause(q.limit, q.offset)}`;
      selects.push(sqlite ? `SELECT * FROM (${select}) p${selects.length}` : `(${select})`);
      params.push(...w.params, ...order.params);
    }
    const all = commentWhere({ ...q, postIn: ids });
    const [comments, totals] = await Promise.all([
      rawEntities<CommentEntity>(
        this.dataSource,
        this.dataSource.getMetadata(CommentEntity),
        selects.join(' UNION ALL '),
        params,
      ),
      rawQuery(
        this.dataSource,
        `SELECT c.comment_post_ID AS post, COUNT(*) AS n FROM ${table} c WHERE ${all.sql} GROUP BY c.comment_post_ID`,
        all.params,
      ),
    ]);
    for (const comment of comments) out.get(comment.postId)?.comments.push(comment);
    // UNION ALL keeps each select's rows together; their order within is made sure of here.
    const compare = commentComparator(q);
    for (const page of out.values()) page.comments.sort(compare);
    for (const row of totals) {
      const page = out.get(Number(row.post));
      if (page) page.total = Number(row.n);
    }
    return out;
  }

  async findByIds(ids: readonly number[]): Promise<CommentEntity[]> {
    const wanted = ids.filter((id) => Number.isInteger(id) && id > 0);
    if (!wanted.length) return [];
    return rawEntities<CommentEntity>(
      this.dataSource,
      this.dataSource.getMetadata(CommentEntity),
      `SELECT * FROM ${this.table(CommentEntity)} WHERE comment_ID IN (${placeholders(wanted.length)})`,
      wanted,
    );
  }

  /** Which of the comments have a child that is approved or held (the `children` link). */
  async withChildren(ids: readonly number[]): Promise<Set<number>> {
    if (!ids.length) return new Set();
    const rows = await rawQuery(
      this.dataSource,
      `SELECT DISTINCT comment_parent AS parent FROM ${this.table(CommentEntity)} WHERE comment_parent IN (${placeholders(ids.length)}) AND comment_approved IN ('0', '1')`,
      [...ids],
    );
    return new Set(rows.map((r) => Number(r.parent)));
  }

  /** The given meta keys of many comments, in one query: commentId → key → values. */
  metaOf(ids: number[], keys: string[]): Promise<Map<number, Record<string, unknown[]>>> {
    return metaOfObjects(this.dataSource, CommentMetaEntity, 'comment_id', ids, keys);
  }

  /** A user's name, e-mail and URL (the author of a comment written while logged in). */
  async userFacts(id: number): Promise<{ displayName: string; email: string; url: string } | null> {
    const [row] = await rawQuery(
      this.dataSource,
      `SELECT display_name, user_email, user_url FROM ${this.table(UserEntity)} WHERE ID = ?`,
      [id],
    );
    return row
      ? {
          displayName: textOf(row.display_name),
          email: textOf(row.user_email),
          url: textOf(row.user_url),
        }
      : null;
  }

  /** A user id by e-mail address (`get_user_by('email')`). */
  async userIdByEmail(email: string): Promise<number> {
    const [row] = await rawQuery(
      this.dataSource,
      `SELECT ID FROM ${this.table(UserEntity)} WHERE user_email = ? LIMIT 1`,
      [email],
    );
    return row ? Number(row.ID) : 0;
  }

  /** `wp_allow_comment()`'s duplicate check: the same text by the same author in the same place, not trashed. */
  async duplicateOf(
    c: Pick<CommentFields, 'postId' | 'parent' | 'author' | 'authorEmail' | 'content'>,
  ): Promise<number> {
    const w = new Where()
      .add('comment_post_ID = ?', c.postId)
      .add('comment_parent = ?', c.parent)
      .add("comment_approved != 'trash'")
      .add('comment_author = ?', c.author)
      .add('comment_content = ?', c.content);
    if (c.authorEmail) w.add('comment_author_email = ?', c.authorEmail);
    const [row] = await rawQuery(
      this.dataSource,
      `SELECT comment_ID FROM ${this.table(CommentEntity)} WHERE ${w.sql} LIMIT 1`,
      w.params,
    );
    return row ? Number(row.comment_ID) : 0;
  }

  /** The newest comment date (GMT) of a user, or of an IP address for anonymous callers, since `since` (the flood check). */
  async lastCommentSince(by: { userId: number } | { ip: string }, since: string): Promise<string | null> {
    const [column, value] = 'userId' in by ? ['user_id', by.userId] : ['comment_author_IP', by.ip];
    const [row] = await rawQuery(
      this.dataSource,
      `SELECT comment_date_gmt FROM ${this.table(CommentEntity)} WHERE comment_date_gmt >= ? AND ${column} = ? ORDER BY comment_date_gmt DESC LIMIT 1`,
      [since, value],
    );
    return row ? String(row.comment_date_gmt) : null;
  }

  /** Whether the author (a user, or a name and e-mail) has an approved comment already (`comment_previously_approved`). */
  async hasApproved(by: { userId: number } | { name: string; email: string }): Promise<boolean> {
    const [sql, params] =
      'userId' in by
        ? ["user_id = ? AND comment_approved = '1'", [by.userId]]
        : ["comment_author = ? AND comment_author_email = ? AND comment_approved = '1'", [by.name, by.email]];
    const rows = await rawQuery(
      this.dataSource,
      `SELECT comment_ID FROM ${this.table(CommentEntity)} WHERE ${sql} LIMIT 1`,
      params,
    );
    return rows.length > 0;
  }

  /** The author of a post (`wp_allow_comment()` approves the post author's own comments). */
  async postAuthor(postId: number): Promise<number> {
    const [row] = await rawQuery(this.dataSource, `SELECT post_author FROM ${this.table(PostEntity)} WHERE ID = ?`, [
      postId,
    ]);
    return row ? Number(row.post_author) : 0;
  }

  /**
   * Inserts a comment (`wp_insert_comment()`), applies the requested status change and the meta writes, and
   * recounts the post's comments, in one transaction. Returns the new id.
   */
  async create(fields: CommentFields, status: string | undefined, meta: MetaOp[]): Promise<number> {
    return writeTransaction(this.dataSource, async (em) => {
      const inserted = await em.getRepository(CommentEntity).insert(fields);
      const id = Number(inserted.identifiers[0].comment_ID ?? inserted.identifiers[0].id);
      const comment = { ...fields, id };
      if (status !== undefined) await this.changeStatus(em, comment, status);
      await applyMetaWrites(em, CommentMetaEntity, 'commentId', id, meta);
      await this.recount(em, [fields.postId]);
      await recordEvent(em, { event: 'comment.created', objectType: 'comment', id });
      return id;
    });
  }

  /**
   * Updates a comment (`wp_update_comment()`) with the given columns, then the status change (when asked) and the
   * meta, recounting the posts concerned, in one transaction. With no columns, only the status changes: the result
   * says whether it did (`false` for an unknown status or the current one).
   */
  async update(
    current: CommentEntity,
    fields: Partial<CommentFields>,
    status: string | undefined,
    meta: MetaOp[],
  ): Promise<boolean> {
    return writeTransaction(this.dataSource, async (em) => {
      let changed = true;
      if (Object.keys(fields).length) await em.getRepository(CommentEntity).update({ id: current.id }, fields);
      const comment = { ...current, ...fields };
      if (status !== undefined) changed = await this.changeStatus(em, comment, status);
      await applyMetaWrites(em, CommentMetaEntity, 'commentId', current.id, meta);
      await this.recount(em, [current.postId, comment.postId]);
      const events: WebhookEvent[] = [];
      if (Object.keys(fields).length || meta.length)
        events.push({ event: 'comment.updated', objectType: 'comment', id: current.id });
      const statusEvent = status !== undefined && changed ? commentStatusEvent(comment.approved) : null;
      if (statusEvent) events.push({ event: statusEvent, objectType: 'comment', id: current.id });
      await recordEvent(em, ...events);
      return changed;
    });
  }

  /** Moves a comment to the trash (`wp_trash_comment()`). */
  async trash(comment: CommentEntity): Promise<void> {
    await writeTransaction(this.dataSource, async (em) => {
      await this.changeStatus(em, { ...comment }, 'trash');
      await this.recount(em, [comment.postId]);
      await recordEvent(em, { event: 'comment.trash', objectType: 'comment', id: comment.id });
    });
  }

  /** Deletes a comment for good (`wp_delete_comment()`): its replies move up to its parent, its meta goes. */
  async delete(comment: CommentEntity): Promise<void> {
    await writeTransaction(this.dataSource, async (em) => {
      await em.getRepository(CommentEntity).update({ parent: comment.id }, { parent: comment.parent });
      await em.getRepository(CommentMetaEntity).delete({ commentId: comment.id });
      await em.getRepository(CommentEntity).delete({ id: comment.id });
      await this.recount(em, [comment.postId]);
      await recordEvent(em, { event: 'comment.deleted', objectType: 'comment', id: comment.id });
    });
  }

  /**
   * The reference's `handle_status_param()`: `approved`/`approve`/`1`, `hold`/`0`, `spam`, `unspam`, `trash`,
   * `untrash`. The current status, an unknown value, or a change that writes nothing, gives `false`. Trash and spam
   * keep the earlier status in meta, and untrash/unspam bring it back (`0` when none was kept).
   */
  private async changeStatus(em: EntityManager, comment: CommentEntity, requested: string): Promise<boolean> {
    if (requested === commentStatusName(comment.approved)) return false;
    const meta = em.getRepository(CommentMetaEntity);
    const set = async (approved: string): Promise<boolean> => {
      if (comment.approved === approved) return false;
      await em.getRepository(CommentEntity).update({ id: comment.id }, { approved });
      comment.approved = approved;
      return true;
    };
    const keep = async () => {
      await meta.delete({ commentId: comment.id, key: TRASH_STATUS });
      await meta.delete({ commentId: comment.id, key: TRASH_TIME });
      await meta.insert([
        { commentId: comment.id, key: TRASH_STATUS, value: comment.approved },
        { commentId: comment.id, key: TRASH_TIME, value: String(Math.floor(Date.now() / 1000)) },
      ]);
    };
    const restore = async (): Promise<boolean> => {
      const kept = await meta.findOne({ where: { commentId: comment.id, key: TRASH_STATUS } });
      await meta.delete({ commentId: comment.id, key: TRASH_STATUS });
      await meta.delete({ commentId: comment.id, key: TRASH_TIME });
      return set(kept?.value || '0');
    };
    switch (requested) {
      case 'approved':
      case 'approve':
      case '1':
        return set('1');
      case 'hold':
      case '0':
        return set('0');
      case 'spam':
      case 'trash':
        if (comment.approved === requested) return false;
        await keep();
        return set(requested);
      case 'unspam':
      case 'untrash':
        return restore();
      default:
        return false;
    }
  }

  /** `wp_update_comment_count_now()`: a post's `comment_count` is its number of approved comments. */
  private async recount(em: EntityManager, postIds: number[]): Promise<void> {
    const posts = this.table(PostEntity);
    const comments = this.table(CommentEntity);
    for (const id of new Set(postIds.filter((p) => p > 0))) {
      await em.query(
        `UPDATE ${posts} SET comment_count = (SELECT COUNT(*) FROM ${comments} WHERE comment_post_ID = ? AND comment_approved = '1') WHERE ID = ?`,
        [id, id],
      );
    }
  }
}
