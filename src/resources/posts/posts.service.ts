import { Inject, Injectable } from '@nestjs/common';
import { Brackets, DataSource, In, SelectQueryBuilder } from 'typeorm';
import { CMS_DATA_SOURCE } from '../../core/database/cms-data-source';
import { PostEntity } from '../../core/database/entities/post.entity';
import { PostMetaEntity } from '../../core/database/entities/post-meta.entity';
import { TermRelationshipEntity } from '../../core/database/entities/term-relationship.entity';
import { TermTaxonomyEntity } from '../../core/database/entities/term-taxonomy.entity';
import { TermEntity } from '../../core/database/entities/term.entity';
import { UserEntity } from '../../core/database/entities/user.entity';
import { maybeUnserialize } from '../../core/database/php-serialize';
import { containsPattern, orderByList } from '../../core/database/query-helpers';

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

const ORDER_COLUMNS: Record<string, string> = {
  date: 'p.date',
  id: 'p.id',
  title: 'p.title',
  slug: 'p.name',
  modified: 'p.modified',
  parent: 'p.parent',
  menu_order: 'p.menuOrder',
  author: 'p.author',
};

/** Database access of the posts resource: the collection query and batched loads for preparing items. */
@Injectable()
export class PostsService {
  constructor(@Inject(CMS_DATA_SOURCE) private readonly dataSource: DataSource) {}

  private table<T>(entity: new () => T): string {
    return this.dataSource.getMetadata(entity).tableName;
  }

  /** One page of posts and the total, in two queries. */
  async list(q: PostQuery): Promise<{ posts: PostEntity[]; total: number }> {
    const qb = this.dataSource.getRepository(PostEntity).createQueryBuilder('p').where('p.type = :type', { type: q.type });
    this.applyStatus(qb, q);
    if (q.include.length) qb.andWhere('p.id IN (:...include)', { include: q.include });
    if (q.exclude.length) qb.andWhere('p.id NOT IN (:...exclude)', { exclude: q.exclude });
    if (q.authors.length) qb.andWhere('p.author IN (:...authors)', { authors: q.authors });
    if (q.authorsExclude.length) qb.andWhere('p.author NOT IN (:...authorsExclude)', { authorsExclude: q.authorsExclude });
    if (q.parents.length) qb.andWhere('p.parent IN (:...parents)', { parents: q.parents });
    if (q.parentsExclude.length) qb.andWhere('p.parent NOT IN (:...parentsExclude)', { parentsExclude: q.parentsExclude });
    if (q.slugs.length) qb.andWhere('p.name IN (:...slugs)', { slugs: q.slugs });
    if (q.menuOrder !== undefined) qb.andWhere('p.menuOrder = :menuOrder', { menuOrder: q.menuOrder });
    if (q.after) qb.andWhere('p.date > :after', { after: q.after });
    if (q.before) qb.andWhere('p.date < :before', { before: q.before });
    if (q.modifiedAfter) qb.andWhere('p.modified > :modifiedAfter', { modifiedAfter: q.modifiedAfter });
    if (q.modifiedBefore) qb.andWhere('p.modified < :modifiedBefore', { modifiedBefore: q.modifiedBefore });
    if (q.sticky) {
      if (q.sticky.only) {
        if (!q.sticky.ids.length) return { posts: [], total: 0 };
        qb.andWhere('p.id IN (:...stickyIds)', { stickyIds: q.sticky.ids });
      } else if (q.sticky.ids.length) {
        qb.andWhere('p.id NOT IN (:...stickyIds)', { stickyIds: q.sticky.ids });
      }
    }
    if (q.search) {
      // Every word must appear in the title, the excerpt or the content (WordPress's search).
      const words = q.search.split(/\s+/).filter(Boolean).slice(0, 9);
      words.forEach((word, i) => {
        qb.andWhere(
          new Brackets((w) => {
            const term = containsPattern(word);
            w.where(`p.title LIKE :s${i} ESCAPE '!'`, { [`s${i}`]: term })
              .orWhere(`p.excerpt LIKE :s${i} ESCAPE '!'`)
              .orWhere(`p.content LIKE :s${i} ESCAPE '!'`);
          }),
        );
      });
    }
    this.applyTerms(qb, q);
    const direction = q.order;
    if (q.orderby === 'include' && q.include.length) {
      orderByList(qb, 'p.ID', q.include, 'oi');
    } else if (q.orderby === 'relevance' && q.search) {
      qb.orderBy('p.date', 'DESC');
    } else {
      qb.orderBy(ORDER_COLUMNS[q.orderby] ?? 'p.date', direction);
      if (q.orderby !== 'id') qb.addOrderBy('p.id', direction);
    }
    const [posts, total] = await qb.skip(q.offset).take(q.limit).getManyAndCount();
    return { posts, total };
  }

  private applyStatus(qb: SelectQueryBuilder<PostEntity>, q: PostQuery): void {
    const own = q.ownStatuses;
    if (own && own.statuses.length) {
      qb.andWhere(
        new Brackets((w) => {
          if (q.statuses.length) w.where('p.status IN (:...statuses)', { statuses: q.statuses });
          else w.where('1 = 0');
          w.orWhere(new Brackets((o) => o.where('p.status IN (:...ownStatuses)', { ownStatuses: own.statuses }).andWhere('p.author = :me', { me: own.author })));
        }),
      );
    } else if (q.statuses.length) {
      qb.andWhere('p.status IN (:...statuses)', { statuses: q.statuses });
    } else {
      qb.andWhere('1 = 0');
    }
  }

  private applyTerms(qb: SelectQueryBuilder<PostEntity>, q: PostQuery): void {
    if (!q.terms.length) return;
    const rel = this.table(TermRelationshipEntity);
    const tt = this.table(TermTaxonomyEntity);
    const includes = q.terms.filter((t) => !t.exclude);
    const clause = (t: (typeof q.terms)[number], i: number) => {
      qb.setParameter(`tax${i}`, t.taxonomy);
      qb.setParameter(`terms${i}`, t.termIds.length ? t.termIds : [0]);
      return `p.ID IN (SELECT r.object_id FROM ${rel} r INNER JOIN ${tt} tt ON tt.term_taxonomy_id = r.term_taxonomy_id WHERE tt.taxonomy = :tax${i} AND tt.term_id IN (:...terms${i}))`;
    };
    if (includes.length) {
      const parts = includes.map((t) => clause(t, q.terms.indexOf(t)));
      qb.andWhere(`(${parts.join(q.taxRelation === 'OR' ? ' OR ' : ' AND ')})`);
    }
    for (const t of q.terms.filter((x) => x.exclude)) qb.andWhere(`NOT ${clause(t, q.terms.indexOf(t))}`);
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

  findByIds(ids: readonly number[]): Promise<PostEntity[]> {
    return ids.length ? this.dataSource.getRepository(PostEntity).findBy({ id: In([...ids]) }) : Promise.resolve([]);
  }

  /** Term ids of the given posts for the given taxonomies, in one query: postId → taxonomy → term ids. */
  async termsOf(postIds: number[], taxonomies: string[]): Promise<Map<number, Record<string, number[]>>> {
    const out = new Map<number, Record<string, number[]>>(postIds.map((id) => [id, Object.fromEntries(taxonomies.map((t) => [t, []]))]));
    if (!postIds.length || !taxonomies.length) return out;
    const rows = await this.dataSource
      .getRepository(TermRelationshipEntity)
      .createQueryBuilder('r')
      .innerJoin(TermTaxonomyEntity, 'tt', 'tt.id = r.termTaxonomyId')
      .innerJoin(TermEntity, 't', 't.id = tt.termId')
      .select(['r.objectId AS post_id', 'tt.termId AS term_id', 'tt.taxonomy AS taxonomy'])
      .where('r.objectId IN (:...ids)', { ids: postIds })
      .andWhere('tt.taxonomy IN (:...taxonomies)', { taxonomies })
      // get_the_terms() orders by term name.
      .orderBy('t.name', 'ASC')
      .addOrderBy('tt.termId', 'ASC')
      .getRawMany<{ post_id: number; term_id: number; taxonomy: string }>();
    for (const row of rows) out.get(Number(row.post_id))?.[row.taxonomy]?.push(Number(row.term_id));
    return out;
  }

  /** Post format slugs (`aside`, ...) of the given posts, from the `post_format` taxonomy. */
  async formatsOf(postIds: number[]): Promise<Map<number, string>> {
    const out = new Map<number, string>();
    if (!postIds.length) return out;
    const rows = await this.dataSource
      .getRepository(TermRelationshipEntity)
      .createQueryBuilder('r')
      .innerJoin(TermTaxonomyEntity, 'tt', 'tt.id = r.termTaxonomyId')
      .innerJoin(TermEntity, 't', 't.id = tt.termId')
      .select(['r.objectId AS post_id', 't.slug AS slug'])
      .where('r.objectId IN (:...ids)', { ids: postIds })
      .andWhere("tt.taxonomy = 'post_format'")
      .getRawMany<{ post_id: number; slug: string }>();
    for (const row of rows) out.set(Number(row.post_id), row.slug.replace(/^post-format-/, ''));
    return out;
  }

  /** The given meta keys of many posts, in one query: postId → key → values. */
  async metaOf(postIds: number[], keys: string[]): Promise<Map<number, Record<string, unknown[]>>> {
    const out = new Map<number, Record<string, unknown[]>>(postIds.map((id) => [id, {}]));
    if (!postIds.length || !keys.length) return out;
    const rows = await this.dataSource.getRepository(PostMetaEntity).find({ where: { postId: In(postIds), key: In(keys) }, order: { id: 'ASC' } });
    for (const row of rows) {
      const bucket = out.get(row.postId);
      if (!bucket || row.key === null) continue;
      (bucket[row.key] ??= []).push(maybeUnserialize(row.value));
    }
    return out;
  }

  /** Which of the given user ids exist. */
  async existingUsers(ids: number[]): Promise<Set<number>> {
    if (!ids.length) return new Set();
    const rows = await this.dataSource.getRepository(UserEntity).find({ select: { id: true }, where: { id: In(ids) } });
    return new Set(rows.map((r) => r.id));
  }

  /** Revision counts and latest revision ids of the given posts, in one query. */
  async revisionsOf(postIds: number[]): Promise<Map<number, { count: number; last: number }>> {
    const out = new Map<number, { count: number; last: number }>();
    if (!postIds.length) return out;
    const rows = await this.dataSource
      .getRepository(PostEntity)
      .createQueryBuilder('p')
      .select(['p.parent AS parent', 'COUNT(*) AS count', 'MAX(p.id) AS last'])
      .where('p.parent IN (:...ids)', { ids: postIds })
      .andWhere("p.type = 'revision'")
      .andWhere("p.status = 'inherit'")
      .groupBy('p.parent')
      .getRawMany<{ parent: number; count: number | string; last: number }>();
    for (const row of rows) out.set(Number(row.parent), { count: Number(row.count), last: Number(row.last) });
    return out;
  }
}
