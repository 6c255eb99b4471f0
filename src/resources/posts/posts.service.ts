import { Inject, Injectable } from '@nestjs/common';
import { DataSource, In } from 'typeorm';
import { CMS_DATA_SOURCE } from '../../core/database/cms-data-source';
import { PostEntity } from '../../core/database/entities/post.entity';
import { PostMetaEntity } from '../../core/database/entities/post-meta.entity';
import { TermRelationshipEntity } from '../../core/database/entities/term-relationship.entity';
import { TermTaxonomyEntity } from '../../core/database/entities/term-taxonomy.entity';
import { TermEntity } from '../../core/database/entities/term.entity';
import { UserEntity } from '../../core/database/entities/user.entity';
import { containsPattern } from '../../core/database/query-helpers';
import { clearOnWrites, ShortCache } from '../../core/database/short-cache';
import { maybeUnserialize } from '../../core/database/php-serialize';
import { hydrate, metaOfObjects, placeholders, rawQuery, Where } from '../../core/database/raw-query';

/** Filters of a posts collection, validated and coerced. */
export interface PostQuery {
  type: string;
  statuses: string[];
  /** Statuses readable only by their author (private posts of the caller, when it lacks read_private_posts). */
  ownStatuses?: { statuses: string[]; author: number };
  include: number[];
  exclude: number[];
  authors: number[];
  authorsExclude: number[];
  parents: number[];
  parentsExclude: number[];
  slugs: string[];
  search?: string;
  after?: string;
  before?: string;
  modifiedAfter?: string;
  modifiedBefore?: string;
  menuOrder?: number;
  /** Term-taxonomy filters: posts in any of the terms, per taxonomy. */
  terms: Array<{ taxonomy: string; termIds: number[]; exclude: boolean }>;
  taxRelation: 'AND' | 'OR';
  /** `true`: only these ids; `false`: not these ids. */
  sticky?: { ids: number[]; only: boolean };
  orderby: string;
  order: 'ASC' | 'DESC';
  limit: number;
  offset: number;
}

/** Published posts above which a term filter probes posts in date order instead of listing the term's posts. */
const DENSE_TERM_POSTS = 200;

const ORDER_COLUMNS: Record<string, string> = {
  date: 'p.post_date',
  id: 'p.ID',
  title: 'p.post_title',
  slug: 'p.post_name',
  modified: 'p.post_modified',
  parent: 'p.post_parent',
  menu_order: 'p.menu_order',
  author: 'p.post_author',
};

/** Database access of the posts resource: the collection query and batched loads for preparing items. */
@Injectable()
export class PostsService {
  private readonly counts = new ShortCache<number>();

  constructor(@Inject(CMS_DATA_SOURCE) private readonly dataSource: DataSource) {
    clearOnWrites(dataSource, this.counts);
  }

  private table<T>(entity: new () => T): string {
    return this.dataSource.getMetadata(entity).tableName;
  }

  /**
   * One page of posts and the total: plain parameterised SQL on the covering index, the total counted once for
   * the same filters within a moment (see {@link ShortCache}).
   */
  async list(q: PostQuery): Promise<{ posts: PostEntity[]; total: number }> {
    const where = this.whereOf(q, await this.denseTermFilters(q));
    if (!where) return { posts: [], total: 0 };
    const posts = this.table(PostEntity);
    const page = `ORDER BY ${this.orderOf(q, where)} LIMIT ${Math.max(0, Math.trunc(q.limit))} OFFSET ${Math.max(0, Math.trunc(q.offset))}`;
    const params = [...where.params, ...this.orderParams(q)];
    const countSql = `SELECT COUNT(*) AS n FROM ${posts} p WHERE ${where.sql}`;
    const total = this.counts.get(`${countSql}\0${JSON.stringify(where.params)}`, async () => {
      const result = await rawQuery<{ n: number | string }>(this.dataSource, countSql, where.params);
      return Number(result[0]?.n ?? 0);
    });
    if (this.dataSource.options.type === 'better-sqlite3' || this.dateIndexOrders(q)) {
      const rows = await rawQuery(this.dataSource, `SELECT p.* FROM ${posts} p WHERE ${where.sql} ${page}`, params);
      return { posts: hydrate<PostEntity>(this.postMeta, rows), total: await total };
    }
    // MySQL sorts whole rows (contents included) when the order cannot come from an index: the page's ids are
    // sorted in a derived table (a temporary table, which costs more than reading rows in index order), then
    // joined to their rows and put back in order.
    const rows = await rawQuery(
      this.dataSource,
      `SELECT p.* FROM ${posts} p INNER JOIN (SELECT p.ID FROM ${posts} p WHERE ${where.sql} ${page}) page ON page.ID = p.ID
       ORDER BY ${this.orderOf(q, where)}`,
      [...params, ...this.orderParams(q)],
    );
    return { posts: hydrate<PostEntity>(this.postMeta, rows), total: await total };
  }

  /**
   * Whether the `type_status_date` index (post_type, post_status, post_date, ID) gives the page in order: date
   * order within one type and one status. With a term filter MySQL may turn the subquery into a join and sort
   * whole rows, so those pages go through the derived table.
   */
  private dateIndexOrders(q: PostQuery): boolean {
    const dateOrder = q.orderby === 'date' || (q.orderby === 'relevance' && Boolean(q.search));
    return dateOrder && q.statuses.length === 1 && !q.ownStatuses?.statuses.length && !q.terms.length;
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

  /** The WHERE clause of a posts query, or `null` when it can match nothing. */
  private whereOf(q: PostQuery, denseTerms: Set<number> = new Set()): Where | null {
    const w = new Where().add('p.post_type = ?', q.type);
    const own = q.ownStatuses;
    if (own && own.statuses.length) {
      const mine = `(p.post_status IN (${placeholders(own.statuses.length)}) AND p.post_author = ?)`;
      if (q.statuses.length) w.add(`(p.post_status IN (${placeholders(q.statuses.length)}) OR ${mine})`, ...q.statuses, ...own.statuses, own.author);
      else w.add(mine, ...own.statuses, own.author);
    } else {
      w.in('p.post_status', q.statuses);
    }
    if (q.include.length) w.in('p.ID', q.include);
    if (q.exclude.length) w.in('p.ID', q.exclude, true);
    if (q.authors.length) w.in('p.post_author', q.authors);
    if (q.authorsExclude.length) w.in('p.post_author', q.authorsExclude, true);
    if (q.parents.length) w.in('p.post_parent', q.parents);
    if (q.parentsExclude.length) w.in('p.post_parent', q.parentsExclude, true);
    if (q.slugs.length) w.in('p.post_name', q.slugs);
    if (q.menuOrder !== undefined) w.add('p.menu_order = ?', q.menuOrder);
    if (q.after) w.add('p.post_date > ?', q.after);
    if (q.before) w.add('p.post_date < ?', q.before);
    if (q.modifiedAfter) w.add('p.post_modified > ?', q.modifiedAfter);
    if (q.modifiedBefore) w.add('p.post_modified < ?', q.modifiedBefore);
    if (q.sticky) {
      if (q.sticky.only) {
        if (!q.sticky.ids.length) return null;
        w.in('p.ID', q.sticky.ids);
      } else if (q.sticky.ids.length) {
        w.in('p.ID', q.sticky.ids, true);
      }
    }
    if (q.search) {
      // Every word must appear in the title, the excerpt or the content (WordPress's search).
      for (const word of q.search.split(/\s+/).filter(Boolean).slice(0, 9)) {
        const term = containsPattern(word);
        w.add("(p.post_title LIKE ? ESCAPE '!' OR p.post_excerpt LIKE ? ESCAPE '!' OR p.post_content LIKE ? ESCAPE '!')", term, term, term);
      }
    }
    this.termsWhere(w, q, denseTerms);
    return w;
  }

  private termsWhere(w: Where, q: PostQuery, dense: Set<number>): void {
    if (!q.terms.length) return;
    const rel = this.table(TermRelationshipEntity);
    const tt = this.table(TermTaxonomyEntity);
    const clause = (t: (typeof q.terms)[number], i: number) => {
      const ids = t.termIds.length ? t.termIds : [0];
      const termTaxonomies = `SELECT tt.term_taxonomy_id FROM ${tt} tt WHERE tt.taxonomy = ? AND tt.term_id IN (${placeholders(ids.length)})`;
      const sql = dense.has(i)
        ? `EXISTS (SELECT 1 FROM ${rel} r WHERE r.object_id = p.ID AND r.term_taxonomy_id IN (${termTaxonomies}))`
        : `p.ID IN (SELECT r.object_id FROM ${rel} r WHERE r.term_taxonomy_id IN (${termTaxonomies}))`;
      return { sql, params: [t.taxonomy, ...ids] };
    };
    const clauses = q.terms.map((t, i) => ({ ...clause(t, i), exclude: t.exclude }));
    const includes = clauses.filter((c) => !c.exclude);
    if (includes.length) {
      w.add(`(${includes.map((c) => c.sql).join(q.taxRelation === 'OR' ? ' OR ' : ' AND ')})`, ...includes.flatMap((c) => c.params));
    }
    for (const c of clauses.filter((x) => x.exclude)) w.add(`NOT ${c.sql}`, ...c.params);
  }

  private orderOf(q: PostQuery, _where: Where): string {
    if (q.orderby === 'include' && q.include.length) {
      return `CASE ${q.include.map((_, i) => `WHEN p.ID = ? THEN ${i}`).join(' ')} ELSE ${q.include.length} END ASC`;
    }
    if (q.orderby === 'relevance' && q.search) return 'p.post_date DESC';
    const column = ORDER_COLUMNS[q.orderby] ?? 'p.post_date';
    return q.orderby === 'id' ? `${column} ${q.order}` : `${column} ${q.order}, p.ID ${q.order}`;
  }

  private orderParams(q: PostQuery): unknown[] {
    return q.orderby === 'include' && q.include.length ? [...q.include] : [];
  }

  /** Forgets cached totals (after writes). */
  clearCounts(): void {
    this.counts.clear();
  }

  /** Term ids of a taxonomy by slug. */
  async termIdsBySlug(taxonomy: string, slugs: string[]): Promise<number[]> {
    if (!slugs.length) return [];
    const rows = await this.dataSource
      .getRepository(TermTaxonomyEntity)
      .createQueryBuilder('tt')
      .innerJoin(TermEntity, 't', 't.id = tt.termId')
      .select('tt.termId', 'term_id')
      .where('tt.taxonomy = :taxonomy', { taxonomy })
      .andWhere('t.slug IN (:...slugs)', { slugs })
      .getRawMany<{ term_id: number }>();
    return rows.map((r) => Number(r.term_id));
  }

  /** Which of the given term ids are terms of the taxonomy. */
  async termIdsIn(taxonomy: string, termIds: number[]): Promise<number[]> {
    const ids = termIds.filter((id) => Number.isInteger(id) && id > 0);
    if (!ids.length) return [];
    const rows = await this.dataSource.getRepository(TermTaxonomyEntity).find({ select: { termId: true }, where: { taxonomy, termId: In(ids) } });
    return rows.map((r) => Number(r.termId));
  }

  /** User ids by nicename (author slug). */
  async userIdsByNicename(names: string[]): Promise<number[]> {
    if (!names.length) return [];
    const rows = await this.dataSource.getRepository(UserEntity).find({ select: { id: true }, where: { nicename: In(names) } });
    return rows.map((r) => r.id);
  }

  findById(id: number): Promise<PostEntity | null> {
    return id > 0 ? this.dataSource.getRepository(PostEntity).findOne({ where: { id } }) : Promise.resolve(null);
  }

  async findByIds(ids: readonly number[]): Promise<PostEntity[]> {
    if (!ids.length) return [];
    const rows = await rawQuery(this.dataSource, `SELECT * FROM ${this.table(PostEntity)} WHERE ID IN (${placeholders(ids.length)})`, [...ids]);
    return hydrate<PostEntity>(this.postMeta, rows);
  }

  /** The given meta keys of many posts, in one query: postId → key → values. */
  metaOf(postIds: number[], keys: string[]): Promise<Map<number, Record<string, unknown[]>>> {
    return metaOfObjects(this.dataSource, PostMetaEntity, 'post_id', postIds, keys);
  }

  /** Which of the given user ids exist. */
  async existingUsers(ids: number[]): Promise<Set<number>> {
    if (!ids.length) return new Set();
    const rows = await rawQuery<{ ID: number }>(this.dataSource, `SELECT ID FROM ${this.table(UserEntity)} WHERE ID IN (${placeholders(ids.length)})`, ids);
    return new Set(rows.map((r) => Number(r.ID)));
  }

  /**
   * What preparing posts needs besides their rows, in one query of one row per post: their term ids for the given
   * taxonomies (ordered by term name, like get_the_terms()), their post format when asked, whether the author
   * exists, the featured image and page template (first stored values), and the revision count and latest
   * revision id. Terms come as one `taxonomy:term_id` list per post: turning rows into JavaScript values costs
   * more than the lookups themselves, so one row per post beats one row per term.
   */
  async extrasOf(postIds: number[], taxonomies: string[] = [], withFormats = false): Promise<Map<number, PostExtras>> {
    const out = new Map<number, PostExtras>();
    if (!postIds.length) return out;
    const posts = this.table(PostEntity);
    const meta = this.table(PostMetaEntity);
    const mysql = this.dataSource.options.type !== 'better-sqlite3';
    const firstMeta = `SELECT m.meta_value FROM ${meta} m WHERE m.post_id = p.ID AND m.meta_key = ? ORDER BY m.meta_id LIMIT 1`;
    const revisions = `FROM ${posts} r WHERE r.post_parent = p.ID AND r.post_type = 'revision' AND r.post_status = 'inherit'`;
    const termsOfPost = `FROM ${this.table(TermRelationshipEntity)} tr
      INNER JOIN ${this.table(TermTaxonomyEntity)} tt ON tt.term_taxonomy_id = tr.term_taxonomy_id
      INNER JOIN ${this.table(TermEntity)} t ON t.term_id = tt.term_id WHERE tr.object_id = p.ID`;
    // Taxonomies by position in the list, so no name has to survive the separators.
    const position = `CASE tt.taxonomy ${taxonomies.map((_, i) => `WHEN ? THEN '${i}'`).join(' ')} END`;
    const termList = mysql
      ? `GROUP_CONCAT(CONCAT(${position}, ':', tt.term_id) ORDER BY t.name ASC, tt.term_id ASC SEPARATOR ',')`
      : `group_concat(${position} || ':' || tt.term_id, ',' ORDER BY t.name ASC, tt.term_id ASC)`;
    const columns = [
      `p.ID AS id`,
      `EXISTS (SELECT 1 FROM ${this.table(UserEntity)} u WHERE u.ID = p.post_author) AS author`,
      `(${firstMeta}) AS thumbnail`,
      `(${firstMeta}) AS template`,
      `(SELECT COUNT(*) ${revisions}) AS revisions`,
      `(SELECT MAX(r.ID) ${revisions}) AS last`,
      taxonomies.length ? `(SELECT ${termList} ${termsOfPost} AND tt.taxonomy IN (${placeholders(taxonomies.length)})) AS terms` : `NULL AS terms`,
      withFormats ? `(SELECT t.slug ${termsOfPost} AND tt.taxonomy = 'post_format' ORDER BY t.name ASC, tt.term_id ASC LIMIT 1) AS format` : `NULL AS format`,
    ];
    const rows = await rawQuery<ExtrasRow>(
      this.dataSource,
      `SELECT ${columns.join(', ')} FROM ${posts} p WHERE p.ID IN (${placeholders(postIds.length)})`,
      ['_thumbnail_id', '_wp_page_template', ...(taxonomies.length ? [...taxonomies, ...taxonomies] : []), ...postIds],
    );
    const cut: number[] = [];
    for (const row of rows) {
      const id = Number(row.id);
      const count = Number(row.revisions);
      const terms: Record<string, number[]> = {};
      for (const taxonomy of taxonomies) terms[taxonomy] = [];
      const list = row.terms === null ? '' : String(row.terms);
      // MySQL cuts GROUP_CONCAT at group_concat_max_len (1,024 bytes by default): such posts are read term by term.
      if (list.length >= GROUP_CONCAT_DEFAULT_MAX) cut.push(id);
      else if (list) {
        for (const entry of list.split(',')) {
          const colon = entry.indexOf(':');
          terms[taxonomies[Number(entry.slice(0, colon))]].push(Number(entry.slice(colon + 1)));
        }
      }
      out.set(id, {
        authorExists: Number(row.author) === 1,
        thumbnail: row.thumbnail === null ? undefined : maybeUnserialize(row.thumbnail),
        template: row.template === null ? undefined : maybeUnserialize(row.template),
        revisions: count ? { count, last: Number(row.last) } : undefined,
        terms,
        format: row.format === null ? undefined : String(row.format).replace(/^post-format-/, ''),
      });
    }
    if (cut.length) {
      for (const [id, terms] of await this.termRowsOf(cut, taxonomies)) out.get(id)!.terms = terms;
    }
    return out;
  }

  /** Term ids of the given posts for the given taxonomies, a row per term (postId → taxonomy → term ids, by name). */
  private async termRowsOf(postIds: number[], taxonomies: string[]): Promise<Map<number, Record<string, number[]>>> {
    const terms = new Map<number, Record<string, number[]>>(postIds.map((id) => [id, Object.fromEntries(taxonomies.map((t) => [t, []]))]));
    const rows = await rawQuery<{ post_id: number; term_id: number; taxonomy: string }>(
      this.dataSource,
      `SELECT r.object_id AS post_id, tt.term_id AS term_id, tt.taxonomy AS taxonomy
       FROM ${this.table(TermRelationshipEntity)} r
       INNER JOIN ${this.table(TermTaxonomyEntity)} tt ON tt.term_taxonomy_id = r.term_taxonomy_id
       INNER JOIN ${this.table(TermEntity)} t ON t.term_id = tt.term_id
       WHERE r.object_id IN (${placeholders(postIds.length)}) AND tt.taxonomy IN (${placeholders(taxonomies.length)})
       ORDER BY t.name ASC, tt.term_id ASC`,
      [...postIds, ...taxonomies],
    );
    for (const row of rows) terms.get(Number(row.post_id))?.[row.taxonomy]?.push(Number(row.term_id));
    return terms;
  }
}

/** MySQL's default `group_concat_max_len`; a list this long may have been cut. */
const GROUP_CONCAT_DEFAULT_MAX = 1024;

interface ExtrasRow {
  id: number;
  author: number | string;
  thumbnail: unknown;
  template: unknown;
  revisions: number | string;
  last: number | null;
  terms: string | null;
  format: string | null;
}

/** See {@link PostsService.extrasOf}. */
export interface PostExtras {
  authorExists: boolean;
  thumbnail: unknown;
  template: unknown;
  revisions: { count: number; last: number } | undefined;
  /** Taxonomy → term ids, by term name. */
  terms: Record<string, number[]>;
  /** The post format (`aside`, ...) when asked and set. */
  format: string | undefined;
}
