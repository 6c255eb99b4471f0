import { type SlugWanted, uniquePostSlugs } from './post-slugs';
import { Inject, Injectable, Optional } from '@nestjs/common';
import { DataSource, In } from 'typeorm';
import { CMS_DATA_SOURCE } from '../../core/database/cms-data-source';
import { PostEntity } from '../../core/database/entities/post.entity';
import { PostMetaEntity } from '../../core/database/entities/post-meta.entity';
import { findPostsByIds } from '../../core/database/post-rows';
import { TermRelationshipEntity } from '../../core/database/entities/term-relationship.entity';
import { TermTaxonomyEntity } from '../../core/database/entities/term-taxonomy.entity';
import { UserEntity } from '../../core/database/entities/user.entity';
import { clearOnWrites, ShortCache } from '../../core/database/short-cache';
import { STAMP_GROUPS, VersionStamps } from '../../core/database/version-stamps';
import {
  countWithin,
  hydrate,
  limitClause,
  metaOfObjects,
  placeholders,
  rawEntities,
  rawQuery,
} from '../../core/database/raw-query';
import { extrasColumns, ExtrasWanted, PostExtras, readExtras } from './post-extras';
import { ExtrasMemo, wantedKey } from './post-extras-memo';
import {
  dateIndexOrders,
  mergedStatusesPage,
  PostQuery,
  postsOrder,
  postsOrderParams,
  postsWhere,
  PostTables,
} from './post-query';
import { termIdsBySlug } from './post-terms';

export type { PostQuery } from './post-query';

/** Published posts above which a term filter probes posts in date order instead of listing the term's posts. */
const DENSE_TERM_POSTS = 200;

/**
 * What an edit in place may change (see `VersionStamps.narrow`): a filter that reads one of these counts again after
 * any such edit, on every node (a search's total follows the titles).
 */
const CONTENT_COLUMNS =
  /post_title|post_content|post_excerpt|post_modified|comment_status|ping_status|to_ping|pinged|postmeta|guid/i;

/**
 * From this many posts skipped, a page in date order finds its ids first (MySQL): reading the skipped posts' rows
 * costs more than the derived table. Measured on MariaDB 10.11, mysqld CPU per page of 10, rows read against ids
 * first: at offset 200, 433 against 517 µs; at 300, 600 against 550; at 590, 1,033 against 683; at 1,500, 3,233
 * against 1,167.
 */
const DEEP_PAGE_OFFSET = 250;

/** Database access of the posts resource: the collection query (its SQL: `post-query.ts`) and batched loads. */
@Injectable()
export class PostsService {
  private readonly counts = new ShortCache<number>();
  /** Totals of filters on what an edit in place may change (see {@link CONTENT_COLUMNS}). */
  private readonly contentCounts = new ShortCache<number>();
  private readonly extrasMemo = new ExtrasMemo();

  constructor(
    @Inject(CMS_DATA_SOURCE) private readonly dataSource: DataSource,
    @Optional() stamps?: VersionStamps,
  ) {
    clearOnWrites(dataSource, this.counts, this.contentCounts);
    stamps?.validate(this.counts);
    stamps?.validate(this.contentCounts, [...STAMP_GROUPS, 'content']);
    // Extras hold the author's existence, meta, revisions and terms. An edit in place changes those of the posts it
    // wrote alone (their meta and revisions).
    stamps?.validate(this.extrasMemo, ['posts', 'terms', 'users']);
    stamps?.onPostsWritten((postIds) => (postIds ? this.extrasMemo.dropPosts(postIds) : this.extrasMemo.clear()));
  }

  private readonly tables = new Map<unknown, string>();

  /** An entity's table name (looked up once: the data source searches its entities on every call). */
  private table<T>(entity: new () => T): string {
    let name = this.tables.get(entity);
    if (name === undefined) this.tables.set(entity, (name = this.dataSource.getMetadata(entity).tableName));
    return name;
  }

  private sqlTables?: PostTables;

  /** The tables the collection query reads (see {@link postsWhere}). */
  private get tablesOfQuery(): PostTables {
    return (this.sqlTables ??= {
      posts: this.table(PostEntity),
      termRelationships: this.table(TermRelationshipEntity),
      termTaxonomies: this.table(TermTaxonomyEntity),
    });
  }

  /**
   * One page of posts and the total: plain parameterised SQL on the covering index, the total counted once for
   * the same filters within a moment (see {@link ShortCache}). With `wanted`, the page's extras (see
   * {@link extrasColumns}) come too: on MySQL in the same query (a round trip less), on SQLite in a second one.
   */
  async list(
    q: PostQuery,
    wanted?: ExtrasWanted,
  ): Promise<{ posts: PostEntity[]; total: number; extras?: Map<number, PostExtras> }> {
    if (q.terms.some((t) => t.includeChildren)) q = { ...q, terms: await this.withChildTerms(q.terms) };
    const page = await this.page(q, wanted);
    return q.stickyFirst?.length ? this.floatSticky(page, q.stickyFirst, q, wanted) : page;
  }

  /** See {@link PostQuery.stickyFirst}: one query for the sticky posts not on the page, and their extras. */
  private async floatSticky(
    page: { posts: PostEntity[]; total: number; extras?: Map<number, PostExtras> },
    sticky: number[],
    q: PostQuery,
    wanted?: ExtrasWanted,
  ): Promise<{ posts: PostEntity[]; total: number; extras?: Map<number, PostExtras> }> {
    const ids = new Set(sticky);
    const onPage = new Set(page.posts.map((p) => p.id));
    const missing = sticky.filter((id) => !onPage.has(id) && !q.exclude.includes(id));
    const fetched = (await this.findByIds(missing))
      .filter((p) => p.type === q.type && p.status === 'publish')
      .sort((a, b) => (a.date < b.date ? 1 : a.date > b.date ? -1 : b.id - a.id));
    const extras =
      page.extras && fetched.length && wanted
        ? new Map([
            ...page.extras,
            ...(await this.extrasOf(
              fetched.map((p) => p.id),
              wanted,
            )),
          ])
        : page.extras;
    const posts = [...page.posts.filter((p) => ids.has(p.id)), ...fetched, ...page.posts.filter((p) => !ids.has(p.id))];
    return { posts, total: page.total, extras };
  }

  private async page(
    q: PostQuery,
    wanted?: ExtrasWanted,
  ): Promise<{ posts: PostEntity[]; total: number; extras?: Map<number, PostExtras> }> {
    const where = postsWhere(q, this.tablesOfQuery, await this.denseTermFilters(q));
    if (!where) return { posts: [], total: 0, extras: wanted && new Map() };
    const posts = this.table(PostEntity);
    const order = postsOrder(q);
    const page = `ORDER BY ${order} ${limitClause(q.limit, q.offset)}`;
    const params = [...where.params, ...postsOrderParams(q)];
    const counts = CONTENT_COLUMNS.test(where.sql) ? this.contentCounts : this.counts;
    const total = countWithin(
      counts,
      this.dataSource,
      `SELECT COUNT(*) AS n FROM ${posts} p WHERE ${where.sql}`,
      where.params,
    );
    const merged = mergedStatusesPage(q, this.tablesOfQuery);
    if (this.dataSource.options.type === 'better-sqlite3') {
      // A second query for the extras costs less than one query for both: SQLite would compute them before sorting,
      // or copy the page's rows (contents included) to a temporary table first.
      const found = merged
        ? await rawEntities<PostEntity>(
            this.dataSource,
            this.postMeta,
            `SELECT p.* FROM ${posts} p INNER JOIN (${merged.sql}) page ON page.ID = p.ID ORDER BY ${order}`,
            merged.params,
          )
        : await rawEntities<PostEntity>(
            this.dataSource,
            this.postMeta,
            `SELECT p.* FROM ${posts} p WHERE ${where.sql} ${page}`,
            params,
          );
      return {
        posts: found,
        total: await total,
        extras:
          wanted &&
          (await this.extrasOf(
            found.map((p) => p.id),
            wanted,
          )),
      };
    }
    // Extras kept from earlier requests (see ExtrasMemo): the page's rows alone, then the extras not kept.
    const reuse = wanted !== undefined && this.extrasMemo.validated;
    const extras = wanted && !reuse ? extrasColumns(this.dataSource, wanted) : { sql: '', params: [] };
    const more = wanted && !reuse ? `, ${extras.sql}` : '';
    let rows: Array<Record<string, unknown>>;
    if (merged) {
      rows = await rawQuery(
        this.dataSource,
        `SELECT p.*${more} FROM ${posts} p INNER JOIN (${merged.sql}) page ON page.ID = p.ID ORDER BY ${order}`,
        [...extras.params, ...merged.params],
      );
    } else if (dateIndexOrders(q) && q.offset < DEEP_PAGE_OFFSET) {
      // Rows come in index order and stop at the limit: the extras are computed for the page's rows only.
      rows = await rawQuery(this.dataSource, `SELECT p.*${more} FROM ${posts} p WHERE ${where.sql} ${page}`, [
        ...extras.params,
        ...params,
      ]);
    } else {
      // MySQL sorts whole rows (contents included) when the order cannot come from an index, and reads the whole row
      // of every post a deep page skips: the page's ids are found in a derived table (from the index alone; a
      // temporary table, which costs more than reading a first page's rows in index order), then joined to their
      // rows and put back in order. WordPress too finds a page's ids first.
      rows = await rawQuery(
        this.dataSource,
        `SELECT p.*${more} FROM ${posts} p INNER JOIN (SELECT p.ID FROM ${posts} p WHERE ${where.sql} ${page}) page ON page.ID = p.ID
         ORDER BY ${order}`,
        [...extras.params, ...params, ...postsOrderParams(q)],
      );
    }
    const found = hydrate<PostEntity>(this.postMeta, rows);
    return {
      posts: found,
      total: await total,
      extras:
        wanted &&
        (reuse
          ? await this.extrasOf(
              found.map((p) => p.id),
              wanted,
            )
          : await readExtras(this.dataSource, rows, wanted)),
    };
  }

  /** The properties of a post row (entity columns). */
  postColumns(): string[] {
    return this.postMeta.columns.map((c) => c.propertyName);
  }

  private get postMeta() {
    return this.dataSource.getMetadata(PostEntity);
  }

  /**
   * Which term filters match many posts. Both ways of filtering give the same rows; the one that is fast differs:
   * for a term with many posts, walking the date index and probing each post's terms stops after a page; for a
   * term with few posts, listing them first is faster. The stored term counts tell them apart.
   */
  private async denseTermFilters(q: PostQuery): Promise<Set<number>> {
    const dense = new Set<number>();
    for (const [i, t] of q.terms.entries()) {
      const ids = t.termIds.filter((id) => Number.isInteger(id) && id > 0);
      if (!ids.length) continue;
      const rows = await rawQuery<{ n: number | string | null }>(
        this.dataSource,
        `SELECT SUM(count) AS n FROM ${this.table(TermTaxonomyEntity)} WHERE taxonomy = ? AND term_id IN (${placeholders(ids.length)})`,
        [t.taxonomy, ...ids],
      );
      if (Number(rows[0]?.n ?? 0) > DENSE_TERM_POSTS) dense.add(i);
    }
    return dense;
  }

  /**
   * The term filters with `includeChildren` given their terms' descendants too (WP_Tax_Query's `include_children`,
   * get_term_children()): one recursive query for every such filter.
   */
  private async withChildTerms(terms: PostQuery['terms']): Promise<PostQuery['terms']> {
    const roots: string[] = [];
    const params: unknown[] = [];
    for (const [i, t] of terms.entries()) {
      const ids = t.termIds.filter((id) => Number.isInteger(id) && id > 0);
      if (!t.includeChildren || !ids.length) continue;
      roots.push(
        `SELECT ? AS f, term_id, taxonomy FROM ${this.table(TermTaxonomyEntity)} WHERE taxonomy = ? AND term_id IN (${placeholders(ids.length)})`,
      );
      params.push(i, t.taxonomy, ...ids);
    }
    if (!roots.length) return terms;
    const tt = this.table(TermTaxonomyEntity);
    const rows = await rawQuery<{ f: number | string; term_id: number | string }>(
      this.dataSource,
      `WITH RECURSIVE d (f, term_id, taxonomy) AS (SELECT f, term_id, taxonomy FROM (${roots.join(' UNION ALL ')}) r
       UNION SELECT d.f, c.term_id, c.taxonomy FROM ${tt} c INNER JOIN d ON c.taxonomy = d.taxonomy AND c.parent = d.term_id)
       SELECT f, term_id FROM d`,
      params,
    );
    const found = new Map<number, number[]>();
    for (const row of rows) {
      const list = found.get(Number(row.f)) ?? [];
      list.push(Number(row.term_id));
      found.set(Number(row.f), list);
    }
    return terms.map((t, i) => (found.has(i) ? { ...t, termIds: [...new Set([...t.termIds, ...found.get(i)!])] } : t));
  }

  /** Forgets cached totals (after writes). */
  clearCounts(): void {
    this.counts.clear();
    this.contentCounts.clear();
  }

  /** Term ids of a taxonomy by slug. */
  termIdsBySlug(taxonomy: string, slugs: string[]): Promise<number[]> {
    return termIdsBySlug(this.dataSource, taxonomy, slugs);
  }

  /** Which of the given term ids are terms of the taxonomy. */
  async termIdsIn(taxonomy: string, termIds: number[]): Promise<number[]> {
    const ids = termIds.filter((id) => Number.isInteger(id) && id > 0);
    if (!ids.length) return [];
    const rows = await this.dataSource
      .getRepository(TermTaxonomyEntity)
      .find({ select: { termId: true }, where: { taxonomy, termId: In(ids) } });
    return rows.map((r) => Number(r.termId));
  }

  /** User ids by nicename (author slug). */
  async userIdsByNicename(names: string[]): Promise<number[]> {
    if (!names.length) return [];
    const rows = await this.dataSource
      .getRepository(UserEntity)
      .find({ select: { id: true }, where: { nicename: In(names) } });
    return rows.map((r) => r.id);
  }

  /** A post by id, in one prepared statement. */
  async findById(id: number): Promise<PostEntity | null> {
    return Number.isInteger(id) && id > 0 ? ((await this.findByIds([id]))[0] ?? null) : null;
  }

  findByIds(ids: readonly number[]): Promise<PostEntity[]> {
    return findPostsByIds(this.dataSource, ids);
  }

  /** The given meta keys of many posts, in one query: postId → key → values. */
  metaOf(postIds: number[], keys: string[]): Promise<Map<number, Record<string, unknown[]>>> {
    return metaOfObjects(this.dataSource, PostMetaEntity, 'post_id', postIds, keys);
  }

  /** Which of the given user ids exist. */
  async existingUsers(ids: number[]): Promise<Set<number>> {
    if (!ids.length) return new Set();
    const rows = await rawQuery<{ ID: number }>(
      this.dataSource,
      `SELECT ID FROM ${this.table(UserEntity)} WHERE ID IN (${placeholders(ids.length)})`,
      ids,
    );
    return new Set(rows.map((r) => Number(r.ID)));
  }

  /**
   * What preparing the given posts needs besides their rows (see {@link extrasColumns}): with version stamps, those
   * read by earlier requests while posts, terms and users have not changed since (see {@link ExtrasMemo}), the
   * others in one query.
   */
  async extrasOf(postIds: number[], wanted: ExtrasWanted): Promise<Map<number, PostExtras>> {
    const memo = this.extrasMemo;
    if (!memo.validated) return this.readExtrasOf(postIds, wanted);
    const kind = wantedKey(wanted);
    const out = new Map<number, PostExtras>();
    const missing: number[] = [];
    for (const id of postIds) {
      const held = memo.get(kind, id);
      if (held) out.set(id, held);
      else missing.push(id);
    }
    if (missing.length) {
      const generation = memo.generation;
      for (const [id, extras] of await this.readExtrasOf(missing, wanted))
        out.set(id, memo.keep(kind, id, extras, generation));
    }
    return out;
  }

  private async readExtrasOf(postIds: number[], wanted: ExtrasWanted): Promise<Map<number, PostExtras>> {
    if (!postIds.length) return new Map();
    const extras = extrasColumns(this.dataSource, wanted);
    const rows = await rawQuery(
      this.dataSource,
      `SELECT p.ID, ${extras.sql} FROM ${this.table(PostEntity)} p WHERE p.ID IN (${placeholders(postIds.length)})`,
      [...extras.params, ...postIds],
    );
    return readExtras(this.dataSource, rows, wanted);
  }

  /** `wp_unique_post_slug()` of several posts at once, one query (see {@link uniquePostSlugs}). */
  uniqueSlugs(wanted: readonly SlugWanted[], permalinkStructure: string): Promise<string[]> {
    return uniquePostSlugs(this.dataSource.manager, wanted, permalinkStructure);
  }
}
