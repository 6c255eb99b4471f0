import { Inject, Injectable, Optional } from '@nestjs/common';
import { DataSource, EntityManager, In } from 'typeorm';
import { CMS_DATA_SOURCE } from '../../core/database/cms-data-source';
import { CommentEntity } from '../../core/database/entities/comment.entity';
import { CommentMetaEntity } from '../../core/database/entities/comment-meta.entity';
import { OptionEntity } from '../../core/database/entities/option.entity';
import { PostEntity } from '../../core/database/entities/post.entity';
import { PostMetaEntity } from '../../core/database/entities/post-meta.entity';
import { TermRelationshipEntity } from '../../core/database/entities/term-relationship.entity';
import { UserEntity } from '../../core/database/entities/user.entity';
import { UserMetaEntity } from '../../core/database/entities/user-meta.entity';
import { maybeUnserialize } from '../../core/formatting/php-serialize';
import { containsPattern, escapeLike, orderByPosition } from '../../core/database/query-helpers';
import { TablePrefix } from '../../core/database/table-prefix';
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

/** Filters of the users collection, already validated and coerced. */
export interface UserQuery {
  include: number[];
  exclude: number[];
  search?: string;
  slugs: string[];
  roles: string[];
  /** Only users whose roles grant at least one of these capabilities (or who hold one directly). */
  capabilities: string[];
  /** Only users who published at least one post of these types. */
  publishedIn?: string[];
  /** Search only ID, login, slug and display name (callers without `list_users` may not probe e-mails or URLs). */
  restrictedSearch: boolean;
  /** Only users with a non-zero user level (authors). */
  authorsOnly: boolean;
  orderby: 'id' | 'include' | 'name' | 'registered_date' | 'slug' | 'include_slugs' | 'email' | 'url';
  order: 'asc' | 'desc';
  limit: number;
  offset: number;
}

const ORDER_COLUMNS: Record<string, string> = {
  id: 'u.ID',
  name: 'u.display_name',
  registered_date: 'u.user_registered',
  slug: 'u.user_nicename',
  email: 'u.user_email',
  url: 'u.user_url',
};

/** Database access of the users resource: the collection query and batched loads of users and their meta. */
@Injectable()
export class UsersService {
  private readonly authors = new ShortCache<number[]>();
  private readonly counts = new ShortCache<number>();

  constructor(
    @Inject(CMS_DATA_SOURCE) private readonly dataSource: DataSource,
    private readonly prefix: TablePrefix,
    @Optional() stamps?: VersionStamps,
  ) {
    clearOnWrites(dataSource, this.authors);
    clearOnWrites(dataSource, this.counts);
    stamps?.validate(this.authors);
    stamps?.validate(this.counts);
  }

  /**
   * One page of users and the total, in prepared statements: the total is counted once for the same filters within
   * a moment (see {@link ShortCache}).
   */
  async list(q: UserQuery): Promise<{ users: UserEntity[]; total: number }> {
    const w = new Where();
    if (q.include.length) w.in('u.ID', q.include);
    if (q.exclude.length) w.in('u.ID', q.exclude, true);
    if (q.slugs.length) w.in('u.user_nicename', q.slugs);
    if (q.search) {
      // Wildcards on both sides, over the columns WordPress picks for the shape of the term.
      const columns = q.restrictedSearch
        ? ['CAST(u.ID AS CHAR)', 'u.user_login', 'u.user_nicename', 'u.display_name']
        : q.search.includes('@')
          ? ['u.user_email']
          : /^\d+$/.test(q.search)
            ? ['u.user_login', 'CAST(u.ID AS CHAR)']
            : /^https?:\/\//.test(q.search)
              ? ['u.user_url']
              : ['u.user_login', 'u.user_url', 'u.user_email', 'u.user_nicename', 'u.display_name'];
      const term = containsPattern(q.search);
      w.add(`(${columns.map((c) => `${c} LIKE ? ESCAPE '!'`).join(' OR ')})`, ...columns.map(() => term));
    }
    const meta = this.dataSource.getMetadata(UserMetaEntity).tableName;
    const capabilitiesKey = this.prefix.capabilitiesKey;
    const withMeta = (condition: string) =>
      `u.ID IN (SELECT m.user_id FROM ${meta} m WHERE m.meta_key = ? AND (${condition}))`;
    if (q.roles.length) {
      w.add(
        withMeta(q.roles.map(() => `m.meta_value LIKE ? ESCAPE '!'`).join(' OR ')),
        capabilitiesKey,
        ...q.roles.map((r) => `%"${escapeLike(r)}"%`),
      );
    }
    if (q.capabilities.length) {
      const roleDefs = (
        await this.dataSource.getRepository(OptionEntity).findOne({ where: { name: `${this.prefix.value}user_roles` } })
      )?.value;
      const roles = maybeUnserialize(roleDefs ?? '') as
        Record<string, { capabilities?: Record<string, boolean> }> | false;
      const names = [...q.capabilities];
      for (const [role, def] of Object.entries(roles || {}))
        if (q.capabilities.some((c) => def.capabilities?.[c])) names.push(role);
      w.add(
        withMeta(names.map(() => `m.meta_value LIKE ? ESCAPE '!'`).join(' OR ')),
        capabilitiesKey,
        ...names.map((r) => `%"${escapeLike(r)}";b:1%`),
      );
    }
    if (q.authorsOnly) w.add(withMeta(`m.meta_value <> '0'`), `${this.prefix.value}user_level`);
    if (q.publishedIn) {
      const authors = q.publishedIn.length ? await this.publishedAuthors(q.publishedIn) : [];
      if (!authors.length) return { users: [], total: 0 };
      w.in('u.ID', authors);
    }
    const { sql: order, params: orderParams } = this.orderOf(q);
    const users = this.usersTable;
    const total = countWithin(
      this.counts,
      this.dataSource,
      `SELECT COUNT(*) AS n FROM ${users} u WHERE ${w.sql}`,
      w.params,
    );
    const found = await rawEntities<UserEntity>(
      this.dataSource,
      this.dataSource.getMetadata(UserEntity),
      `SELECT u.* FROM ${users} u WHERE ${w.sql} ORDER BY ${order} ${limitClause(q.limit, q.offset)}`,
      [...w.params, ...orderParams],
    );
    return { users: found, total: await total };
  }

  private orderOf(q: UserQuery): { sql: string; params: unknown[] } {
    const byList = (column: string, values: readonly unknown[]) => ({
      sql: orderByPosition(column, values.length),
      params: [...values],
    });
    if (q.orderby === 'include' && q.include.length) return byList('u.ID', q.include);
    if (q.orderby === 'include_slugs' && q.slugs.length) return byList('u.user_nicename', q.slugs);
    const direction = q.order === 'desc' ? 'DESC' : 'ASC';
    const column = ORDER_COLUMNS[q.orderby] ?? 'u.display_name';
    if (column === 'u.ID') return { sql: `u.ID ${direction}`, params: [] };
    // MySQL's collation (WordPress's) sorts text case-insensitively; SQLite needs to be told. Ties keep the table's
    // order (by id), as MySQL gives them to WordPress.
    const key =
      column !== 'u.user_registered' && this.dataSource.options.type === 'better-sqlite3' ? `LOWER(${column})` : column;
    return { sql: `${key} ${direction}, u.ID ASC`, params: [] };
  }

  /** Forgets cached totals (after writes). */
  clearCounts(): void {
    this.counts.clear();
  }

  /** Users by id, in one prepared statement. */
  async findByIds(ids: number[]): Promise<UserEntity[]> {
    const wanted = ids.filter((id) => Number.isInteger(id) && id > 0);
    if (!wanted.length) return [];
    return rawEntities<UserEntity>(
      this.dataSource,
      this.dataSource.getMetadata(UserEntity),
      `SELECT * FROM ${this.usersTable} WHERE ID IN (${placeholders(wanted.length)})`,
      wanted,
    );
  }

  async findById(id: number): Promise<UserEntity | null> {
    return Number.isInteger(id) && id > 0 ? ((await this.findByIds([id]))[0] ?? null) : null;
  }

  private get usersTable(): string {
    return this.dataSource.getMetadata(UserEntity).tableName;
  }

  findBy(where: Partial<Pick<UserEntity, 'email' | 'nicename' | 'login'>>): Promise<UserEntity | null> {
    return this.dataSource.getRepository(UserEntity).findOne({ where });
  }

  /** The given meta keys of many users, in one query: userId → key → values. */
  metaOf(userIds: number[], keys: string[]): Promise<Map<number, Record<string, unknown[]>>> {
    return metaOfObjects(this.dataSource, UserMetaEntity, 'user_id', userIds, keys);
  }

  /**
   * The ids of users who published posts of the given types, collected once within a moment: the list of authors is
   * small, while finding it means walking the published posts.
   */
  private publishedAuthors(types: string[]): Promise<number[]> {
    return this.authors.get(types.join(','), async () => {
      const rows = await rawQuery<{ author: number | string }>(
        this.dataSource,
        `SELECT DISTINCT post_author AS author FROM ${this.dataSource.getMetadata(PostEntity).tableName}
         WHERE post_type IN (${placeholders(types.length)}) AND post_status = 'publish'`,
        types,
      );
      return rows.map((r) => Number(r.author));
    });
  }

  /** Runs `work` in one transaction. */
  transaction(work: (em: EntityManager) => Promise<void>): Promise<void> {
    return writeTransaction(this.dataSource, work);
  }

  /** Of the given users, those who published at least one post of the types, in one query. */
  async withPublishedPosts(userIds: number[], types: string[]): Promise<Set<number>> {
    if (!userIds.length || !types.length) return new Set();
    // One probe per user that stops at the first published post: DISTINCT, or an EXISTS MariaDB turns into a
    // semi-join, walked all of an author's posts (4 ms for six authors of 10,000 posts, against 0.4 ms).
    const rows = await rawQuery<{ author: number | string }>(
      this.dataSource,
      `SELECT u.ID AS author FROM ${this.usersTable} u WHERE u.ID IN (${placeholders(userIds.length)}) AND (
         SELECT 1 FROM ${this.dataSource.getMetadata(PostEntity).tableName} p
         WHERE p.post_author = u.ID AND p.post_status = 'publish' AND p.post_type IN (${placeholders(types.length)}) LIMIT 1) IS NOT NULL`,
      [...userIds, ...types],
    );
    return new Set(rows.map((r) => Number(r.author)));
  }

  /** Writes user meta values (one row per key, updated in place when present). */
  async setMeta(em: EntityManager, userId: number, values: Record<string, string>): Promise<void> {
    const repo = em.getRepository(UserMetaEntity);
    for (const [key, value] of Object.entries(values)) {
      const row = await repo.findOne({ where: { userId, key } });
      if (row) await repo.update({ id: row.id }, { value });
      else await repo.insert({ userId, key, value });
    }
  }

  /**
   * Deletes a user in one transaction: their posts go to `reassign`, or are deleted (with their meta, term links and
   * comments) for the post types deleted with their author; then their meta and the user row.
   */
  async delete(userId: number, reassign: number | null, typesDeletedWithUser: string[]): Promise<void> {
    await writeTransaction(this.dataSource, (em) => this.deleteWithin(em, userId, reassign, typesDeletedWithUser));
  }

  /** {@link delete} in the given transaction. */
  async deleteWithin(
    em: EntityManager,
    userId: number,
    reassign: number | null,
    typesDeletedWithUser: string[],
  ): Promise<void> {
    const posts = em.getRepository(PostEntity);
    if (reassign) {
      await posts.update({ author: userId }, { author: reassign });
    } else if (typesDeletedWithUser.length) {
      const ids = (
        await posts.find({ select: { id: true }, where: { author: userId, type: In(typesDeletedWithUser) } })
      ).map((p) => p.id);
      for (let i = 0; i < ids.length; i += 500) {
        const chunk = ids.slice(i, i + 500);
        const commentIds = (
          await em.getRepository(CommentEntity).find({ select: { id: true }, where: { postId: In(chunk) } })
        ).map((c) => c.id);
        if (commentIds.length) await em.getRepository(CommentMetaEntity).delete({ commentId: In(commentIds) });
        await em.getRepository(CommentEntity).delete({ postId: In(chunk) });
        await em.getRepository(PostMetaEntity).delete({ postId: In(chunk) });
        await em.getRepository(TermRelationshipEntity).delete({ objectId: In(chunk) });
        await posts.delete({ id: In(chunk) });
      }
    }
    await em.getRepository(UserMetaEntity).delete({ userId });
    await em.getRepository(UserEntity).delete({ id: userId });
  }
}
