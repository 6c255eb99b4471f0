import { recordEvent } from '../../core/webhooks/outbox';
import { Inject, Injectable, Optional } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { CMS_DATA_SOURCE } from '../../core/database/cms-data-source';
import { TermMetaEntity } from '../../core/database/entities/term-meta.entity';
import { TermRelationshipEntity } from '../../core/database/entities/term-relationship.entity';
import { TermTaxonomyEntity } from '../../core/database/entities/term-taxonomy.entity';
import { TermEntity } from '../../core/database/entities/term.entity';
import { containsPattern, escapeLike } from '../../core/database/query-helpers';
import { countWithin, limitClause, metaOfObjects, placeholders, rawQuery, Where } from '../../core/database/raw-query';
import { findPostsByIds } from '../../core/database/post-rows';
import { postsLoader } from '../../core/rest/posts-loader';
import type { RestRequest } from '../../core/rest/rest-request';
import { clearOnWrites, ShortCache } from '../../core/database/short-cache';
import { VersionStamps } from '../../core/database/version-stamps';
import { takeWriteTurn, writeTransaction } from '../../core/database/write-transaction';
import { taxonomyTerms } from '../../core/database/term-queries';
import { RestException } from '../../core/errors/rest.exception';
import { applyMetaWrites, MetaOp } from '../../core/rest/meta-fields';
import { ContentRegistry } from '../../core/registry/content-registry.service';
import { recountTerms } from './term-counts';
import { sanitizeTitle } from '../../core/formatting';
import { textOf } from '../../core/formatting/php-serialize';

/** A term of one taxonomy: the `terms` row joined with its `term_taxonomy` row. */
export interface TermRow {
  termId: number;
  termTaxonomyId: number;
  name: string;
  slug: string;
  group: number;
  taxonomy: string;
  description: string;
  parent: number;
  count: number;
}

/** Filters of a terms collection, validated and coerced. */
export interface TermQuery {
  taxonomy: string;
  include: number[];
  exclude: number[];
  search?: string;
  slugs: string[];
  /** Only terms with this parent (hierarchical taxonomies). */
  parent?: number;
  hideEmpty: boolean;
  orderby: string;
  order: 'ASC' | 'DESC';
  limit: number;
  offset: number;
}

const ORDER_COLUMNS: Record<string, string> = {
  id: 't.term_id',
  name: 't.name',
  slug: 't.slug',
  term_group: 't.term_group',
  description: 'tt.description',
  count: 'tt.count',
};

const SELECT = `SELECT t.term_id AS term_id, tt.term_taxonomy_id AS term_taxonomy_id, t.name AS name, t.slug AS slug,
  t.term_group AS term_group, tt.taxonomy AS taxonomy, tt.description AS description, tt.parent AS parent, tt.count AS count`;

/** Database access of the terms resource: lists, batched loads, and writes the way `wp_insert_term()` does them. */
@Injectable()
export class TermsService {
  private readonly counts = new ShortCache<number>();

  constructor(
    @Inject(CMS_DATA_SOURCE) private readonly dataSource: DataSource,
    private readonly content: ContentRegistry,
    @Optional() stamps?: VersionStamps,
  ) {
    clearOnWrites(dataSource, this.counts);
    stamps?.validate(this.counts);
  }

  private table<T>(entity: new () => T): string {
    return this.dataSource.getMetadata(entity).tableName;
  }

  /**
   * Posts by id, batched across a request and its embedded sub-requests through the request's shared `posts` loader
   * (the posts resource fills it with the same rows).
   */
  postLoader(req: RestRequest) {
    return postsLoader(req, (ids) => findPostsByIds(this.dataSource, ids));
  }

  private from(): string {
    return `FROM ${this.table(TermEntity)} t INNER JOIN ${this.table(TermTaxonomyEntity)} tt ON tt.term_id = t.term_id`;
  }

  /** One page of terms and the total. */
  async list(q: TermQuery): Promise<{ terms: TermRow[]; total: number }> {
    const w = new Where().add('tt.taxonomy = ?', q.taxonomy);
    if (q.include.length) w.in('t.term_id', q.include);
    if (q.exclude.length) w.in('t.term_id', q.exclude, true);
    if (q.slugs.length) w.in('t.slug', q.slugs);
    if (q.parent !== undefined) w.add('tt.parent = ?', q.parent);
    if (q.hideEmpty) w.add('tt.count > 0');
    if (q.search)
      w.add(
        "(t.name LIKE ? ESCAPE '!' OR t.slug LIKE ? ESCAPE '!')",
        containsPattern(q.search),
        containsPattern(q.search),
      );
    let order: string;
    const params = [...w.params];
    if (q.orderby === 'include' && q.include.length) {
      order = `CASE ${q.include.map((_, i) => `WHEN t.term_id = ? THEN ${i}`).join(' ')} ELSE ${q.include.length} END ${q.order}`;
      params.push(...q.include);
    } else if (q.orderby === 'include_slugs' && q.slugs.length) {
      order = `CASE ${q.slugs.map((_, i) => `WHEN t.slug = ? THEN ${i}`).join(' ')} ELSE ${q.slugs.length} END ${q.order}`;
      params.push(...q.slugs);
    } else {
      // Ties keep term id order, as MySQL returns them for WordPress's single-column ORDER BY.
      order = `${ORDER_COLUMNS[q.orderby] ?? 't.name'} ${q.order}, t.term_id ASC`;
    }
    const sql = `${SELECT} ${this.from()} WHERE ${w.sql} ORDER BY ${order} ${limitClause(q.limit, q.offset)}`;
    const [rows, total] = await Promise.all([
      rawQuery(this.dataSource, sql, params),
      countWithin(this.counts, this.dataSource, `SELECT COUNT(*) AS n ${this.from()} WHERE ${w.sql}`, w.params),
    ]);
    return { terms: rows.map(toTermRow), total };
  }

  /** Terms of a taxonomy by term id (those of other taxonomies are left out). */
  async findByIds(taxonomy: string, ids: readonly number[]): Promise<TermRow[]> {
    const wanted = ids.filter((id) => Number.isInteger(id) && id > 0);
    if (!wanted.length) return [];
    const rows = await rawQuery(
      this.dataSource,
      `${SELECT} ${this.from()} WHERE tt.taxonomy = ? AND t.term_id IN (${placeholders(wanted.length)})`,
      [taxonomy, ...wanted],
    );
    return rows.map(toTermRow);
  }

  /** The terms of a taxonomy assigned to each of the posts, ordered by name (as `wp_get_object_terms()`), in one query. */
  async ofPosts(taxonomy: string, postIds: readonly number[]): Promise<Map<number, TermRow[]>> {
    const out = new Map<number, TermRow[]>(postIds.map((id) => [id, []]));
    if (!postIds.length) return out;
    const rows = await rawQuery(
      this.dataSource,
      `${SELECT}, r.object_id AS object_id ${this.from()} INNER JOIN ${this.table(TermRelationshipEntity)} r ON r.term_taxonomy_id = tt.term_taxonomy_id
       WHERE tt.taxonomy = ? AND r.object_id IN (${placeholders(postIds.length)}) ORDER BY t.name ASC, t.term_id ASC`,
      [taxonomy, ...postIds],
    );
    for (const row of rows) out.get(Number(row.object_id))?.push(toTermRow(row));
    return out;
  }

  /** The given meta keys of many terms, in one query: termId → key → values. */
  metaOf(termIds: number[], keys: string[]): Promise<Map<number, Record<string, unknown[]>>> {
    return metaOfObjects(this.dataSource, TermMetaEntity, 'term_id', termIds, keys);
  }

  /**
   * Creates a term (`wp_insert_term()`): the name must be new at its level (`term_exists`), the slug unique in the
   * taxonomy (`-2`, `-3`, ...), meta written in the same transaction. Returns the new term id.
   */
  async create(
    taxonomy: string,
    hierarchical: boolean,
    input: { name: string; slug: string; description: string; parent: number; slugGiven: boolean },
    meta: MetaOp[],
  ): Promise<number> {
    return writeTransaction(this.dataSource, async (em) => {
      // Names and slugs are checked against what other writers committed: one after the other (see takeWriteTurn).
      await takeWriteTurn(em);
      // A name already used at that level is refused, unless a new slug tells the two apart (wp_insert_term()).
      const sameName = await this.sameName(em, taxonomy, hierarchical, input.name, input.parent, 0);
      if (
        sameName &&
        (!input.slugGiven || sameName.slug === input.slug || (await this.slugTaken(em, taxonomy, input.slug, 0)))
      ) {
        const message = hierarchical
          ? 'A term with the name provided already exists with this parent.'
          : 'A term with the name provided already exists in this taxonomy.';
        throw new RestException('term_exists', message, 400, { term_id: sameName.id });
      }
      const slug = await this.uniqueSlug(em, taxonomy, input.slug, 0, hierarchical ? input.parent : 0);
      const term = await em.getRepository(TermEntity).insert({ name: input.name, slug, group: 0 });
      const termId = Number(term.identifiers[0].id);
      await em
        .getRepository(TermTaxonomyEntity)
        .insert({ termId, taxonomy, description: input.description, parent: input.parent, count: 0 });
      await applyMetaWrites(em, TermMetaEntity, 'termId', termId, meta);
      await recordEvent(em, { event: 'term.created', objectType: 'term', id: termId, subtype: taxonomy });
      return termId;
    });
  }

  /** Updates a term (`wp_update_term()`): a slug taken by another term of the taxonomy is refused. */
  async update(
    current: TermRow,
    hierarchical: boolean,
    input: { name?: string; slug?: string; description?: string; parent?: number },
    meta: MetaOp[],
  ): Promise<void> {
    await writeTransaction(this.dataSource, async (em) => {
      await takeWriteTurn(em);
      const name = input.name ?? current.name;
      let parent = input.parent ?? current.parent;
      // wp_check_term_hierarchy_for_loops(): a term cannot become its own ancestor.
      if (
        hierarchical &&
        input.parent !== undefined &&
        parent > 0 &&
        (await this.wouldLoop(em, current.taxonomy, current.termId, parent))
      )
        parent = 0;
      let slug = current.slug;
      if (input.slug !== undefined && input.slug !== current.slug) {
        // An empty slug is made again from the name (wp_update_term()).
        const emptySlug = input.slug === '';
        slug = emptySlug ? sanitizeTitle(name) : input.slug;
        if (await this.slugTaken(em, current.taxonomy, slug, current.termId)) {
          if (!emptySlug && parent === current.parent)
            throw new RestException(
              'duplicate_term_slug',
              `The slug “${slug}” is already in use by another term.`,
              400,
            );
          slug = await this.uniqueSlug(em, current.taxonomy, slug, current.termId, hierarchical ? parent : 0);
        }
      }
      await em.getRepository(TermEntity).update({ id: current.termId }, { name, slug });
      await em
        .getRepository(TermTaxonomyEntity)
        .update({ id: current.termTaxonomyId }, { description: input.description ?? current.description, parent });
      await applyMetaWrites(em, TermMetaEntity, 'termId', current.termId, meta);
      await recordEvent(em, {
        event: 'term.updated',
        objectType: 'term',
        id: current.termId,
        subtype: current.taxonomy,
      });
    });
  }

  /**
   * Deletes a term (`wp_delete_term()`): its children move to its parent, its posts lose it (and a post left without
   * a category gets the default one), its meta goes.
   */
  async delete(term: TermRow, defaultCategory: number): Promise<void> {
    await writeTransaction(this.dataSource, async (em) => {
      await recordEvent(em, { event: 'term.deleted', objectType: 'term', id: term.termId, subtype: term.taxonomy });
      // Its posts' relationships and the default category's count change: in the writers' turn, as post writes.
      await takeWriteTurn(em);
      const tts = em.getRepository(TermTaxonomyEntity);
      await tts.update({ parent: term.termId, taxonomy: term.taxonomy }, { parent: term.parent });
      const rel = em.getRepository(TermRelationshipEntity);
      const objects = (
        await rel.find({ select: { objectId: true }, where: { termTaxonomyId: term.termTaxonomyId } })
      ).map((r) => r.objectId);
      await rel.delete({ termTaxonomyId: term.termTaxonomyId });
      if (term.taxonomy === 'category' && defaultCategory > 0 && defaultCategory !== term.termId && objects.length) {
        const fallback = await tts.findOne({ where: { termId: defaultCategory, taxonomy: 'category' } });
        if (fallback) {
          const stillFiled = await em
            .getRepository(TermRelationshipEntity)
            .createQueryBuilder('r')
            .innerJoin(TermTaxonomyEntity, 'tt', 'tt.id = r.termTaxonomyId')
            .select('r.objectId', 'id')
            .where('r.objectId IN (:...objects)', { objects })
            .andWhere("tt.taxonomy = 'category'")
            .getRawMany<{ id: number }>();
          const filed = new Set(stillFiled.map((r) => Number(r.id)));
          const orphans = objects.filter((id) => !filed.has(id));
          if (orphans.length)
            await rel.insert(orphans.map((objectId) => ({ objectId, termTaxonomyId: fallback.id, termOrder: 0 })));
          await recountTerms(em, this.content, [fallback.id]);
        }
      }
      await tts.delete({ id: term.termTaxonomyId });
      await em.getRepository(TermMetaEntity).delete({ termId: term.termId });
      // A term row shared with another taxonomy (old split terms) stays.
      if (!(await tts.count({ where: { termId: term.termId } })))
        await em.getRepository(TermEntity).delete({ id: term.termId });
    });
  }

  /** A term of the taxonomy with this name (at this level for hierarchical taxonomies), other than `self`. */
  private async sameName(
    em: EntityManager,
    taxonomy: string,
    hierarchical: boolean,
    name: string,
    parent: number,
    self: number,
  ): Promise<{ id: number; slug: string } | null> {
    const qb = taxonomyTerms(em, taxonomy)
      .select(['t.id AS id', 't.slug AS slug'])
      .andWhere('t.name = :name', { name })
      .andWhere('t.id != :self', { self });
    if (hierarchical) qb.andWhere('tt.parent = :parent', { parent });
    const found = await qb.getRawOne<{ id: number; slug: string }>();
    return found ? { id: Number(found.id), slug: String(found.slug) } : null;
  }

  /** Whether `parent` is the term itself or one of its descendants. */
  private async wouldLoop(em: EntityManager, taxonomy: string, termId: number, parent: number): Promise<boolean> {
    const seen = new Set<number>();
    for (let id = parent; id > 0 && !seen.has(id);) {
      if (id === termId) return true;
      seen.add(id);
      const row = await em
        .getRepository(TermTaxonomyEntity)
        .findOne({ select: { parent: true }, where: { termId: id, taxonomy } });
      id = row ? Number(row.parent) : 0;
    }
    return false;
  }

  private async slugTaken(em: EntityManager, taxonomy: string, slug: string, self: number): Promise<boolean> {
    const found = await taxonomyTerms(em, taxonomy)
      .andWhere('t.slug = :slug', { slug })
      .andWhere('t.id != :self', { self })
      .getCount();
    return found > 0;
  }

  /**
   * `wp_unique_term_slug()`: the slug; when taken, in a hierarchical taxonomy, the slug followed by its ancestors'
   * slugs (`leaf-branch`, `leaf-branch-root`); else the first free `-N` suffix within the taxonomy.
   */
  private async uniqueSlug(
    em: EntityManager,
    taxonomy: string,
    slug: string,
    self: number,
    parent = 0,
  ): Promise<string> {
    if (!(await this.slugTaken(em, taxonomy, slug, self))) return slug;
    let candidate = slug;
    for (let id = parent, depth = 0; id > 0 && depth < 20; depth++) {
      const row = await em
        .getRepository(TermEntity)
        .createQueryBuilder('t')
        .innerJoin(TermTaxonomyEntity, 'tt', 'tt.termId = t.id')
        .select(['t.slug AS slug', 'tt.parent AS parent'])
        .where('t.id = :id', { id })
        .andWhere('tt.taxonomy = :taxonomy', { taxonomy })
        .getRawOne<{ slug: string; parent: number }>();
      if (!row) break;
      candidate = `${candidate}-${row.slug}`;
      if (!(await this.slugTaken(em, taxonomy, candidate, self))) return candidate;
      id = Number(row.parent);
    }
    return this.numberedSlug(em, taxonomy, candidate, self);
  }

  private async numberedSlug(em: EntityManager, taxonomy: string, slug: string, self: number): Promise<string> {
    const rows = await taxonomyTerms(em, taxonomy)
      .select('t.slug', 'slug')
      .andWhere("(t.slug = :slug OR t.slug LIKE :like ESCAPE '!')", { slug, like: `${escapeLike(slug)}-%` })
      .andWhere('t.id != :self', { self })
      .getRawMany<{ slug: string }>();
    const taken = new Set(rows.map((r) => r.slug));
    if (!taken.has(slug)) return slug;
    for (let n = 2; ; n++) if (!taken.has(`${slug}-${n}`)) return `${slug}-${n}`;
  }
}

function toTermRow(row: Record<string, unknown>): TermRow {
  return {
    termId: Number(row.term_id),
    termTaxonomyId: Number(row.term_taxonomy_id),
    name: textOf(row.name),
    slug: textOf(row.slug),
    group: Number(row.term_group ?? 0),
    taxonomy: textOf(row.taxonomy),
    description: textOf(row.description),
    parent: Number(row.parent ?? 0),
    count: Number(row.count ?? 0),
  };
}
