import { SEARCH_COUNTS_CACHE } from '../../core/memory/cache-limits';
import { Inject, Injectable, Optional } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { CMS_DATA_SOURCE } from '../../core/database/cms-data-source';
import { TermTaxonomyEntity } from '../../core/database/entities/term-taxonomy.entity';
import { TermEntity } from '../../core/database/entities/term.entity';
import { containsPattern } from '../../core/database/query-helpers';
import { countWithin, limitClause, placeholders, rawQuery, Where } from '../../core/database/raw-query';
import { clearOnWrites, ShortCache } from '../../core/database/short-cache';
import { VersionStamps } from '../../core/database/version-stamps';
import { textOf } from '../../core/formatting/php-serialize';

/** A term a search found: what its result and links show. */
export interface FoundTerm {
  termId: number;
  name: string;
  slug: string;
  taxonomy: string;
  parent: number;
}

/** A term search (the term search handler's `WP_Term_Query` arguments), as `rest_term_search_query` filters it. */
export interface TermSearchQuery {
  /** `taxonomy`: the taxonomies searched. */
  taxonomies: string[];
  /** `include`: only these term ids (`exclude` is then ignored, as `WP_Term_Query` ignores it). */
  include: number[];
  exclude: number[];
  /** Found in the name or the slug (`WP_Term_Query`'s `search`). */
  search?: string;
  /** `number`. */
  limit: number;
  offset: number;
}

const SELECT =
  'SELECT t.term_id AS term_id, t.name AS name, t.slug AS slug, tt.taxonomy AS taxonomy, tt.parent AS parent';

/** The SQL of the `search` route's term and post format handlers (post searches go through the posts' query). */
@Injectable()
export class SearchService {
  private readonly counts = new ShortCache<number>(undefined, SEARCH_COUNTS_CACHE.entries, SEARCH_COUNTS_CACHE.bytes);

  constructor(
    @Inject(CMS_DATA_SOURCE) private readonly dataSource: DataSource,
    @Optional() stamps?: VersionStamps,
  ) {
    clearOnWrites(dataSource, this.counts);
    stamps?.validate(this.counts);
  }

  private from(): string {
    const terms = this.dataSource.getMetadata(TermEntity).tableName;
    const taxonomies = this.dataSource.getMetadata(TermTaxonomyEntity).tableName;
    return `FROM ${terms} t INNER JOIN ${taxonomies} tt ON tt.term_id = t.term_id`;
  }

  /**
   * A page of the terms a search finds, by name (`WP_Term_Query`'s default order; ties by id, as MySQL returns them),
   * and how many it finds (`wp_count_terms()` with the same arguments): two queries, the total kept a moment.
   */
  async terms(q: TermSearchQuery): Promise<{ terms: FoundTerm[]; total: number }> {
    if (!q.taxonomies.length) return { terms: [], total: 0 };
    const w = new Where();
    w.in('tt.taxonomy', q.taxonomies);
    if (q.include.length) w.in('t.term_id', q.include);
    else if (q.exclude.length) w.in('t.term_id', q.exclude, true);
    if (q.search) {
      const like = containsPattern(q.search);
      w.add("(t.name LIKE ? ESCAPE '!' OR t.slug LIKE ? ESCAPE '!')", like, like);
    }
    const [rows, total] = await Promise.all([
      rawQuery(
        this.dataSource,
        `${SELECT} ${this.from()} WHERE ${w.sql} ORDER BY t.name ASC, t.term_id ASC ${limitClause(q.limit, q.offset)}`,
        w.params,
      ),
      countWithin(this.counts, this.dataSource, `SELECT COUNT(*) AS n ${this.from()} WHERE ${w.sql}`, w.params),
    ]);
    return { terms: rows.map(toFoundTerm), total };
  }

  /** Terms of the given taxonomies by id (the ancestors of hierarchical terms, for their links). */
  async termsByIds(taxonomies: string[], ids: readonly number[]): Promise<FoundTerm[]> {
    if (!ids.length || !taxonomies.length) return [];
    const rows = await rawQuery(
      this.dataSource,
      `${SELECT} ${this.from()} WHERE tt.taxonomy IN (${placeholders(taxonomies.length)}) AND t.term_id IN (${placeholders(ids.length)})`,
      [...taxonomies, ...ids],
    );
    return rows.map(toFoundTerm);
  }

  /** The slugs of the `post_format` terms among `slugs` (`post-format-aside`, …): the formats that have a term. */
  async postFormatTerms(slugs: readonly string[]): Promise<Set<string>> {
    if (!slugs.length) return new Set();
    const rows = await rawQuery<{ slug: string }>(
      this.dataSource,
      `SELECT t.slug AS slug ${this.from()} WHERE tt.taxonomy = ? AND t.slug IN (${placeholders(slugs.length)})`,
      ['post_format', ...slugs],
    );
    return new Set(rows.map((r) => textOf(r.slug)));
  }
}

function toFoundTerm(row: Record<string, unknown>): FoundTerm {
  return {
    termId: Number(row.term_id),
    name: textOf(row.name),
    slug: textOf(row.slug),
    taxonomy: textOf(row.taxonomy),
    parent: Number(row.parent ?? 0),
  };
}
