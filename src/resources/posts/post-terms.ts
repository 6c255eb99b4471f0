import { DataSource, EntityManager, In } from 'typeorm';
import { TermRelationshipEntity } from '../../core/database/entities/term-relationship.entity';
import { TermTaxonomyEntity } from '../../core/database/entities/term-taxonomy.entity';
import { TermEntity } from '../../core/database/entities/term.entity';
import { taxonomyTerms } from '../../core/database/term-queries';

/** Term ids of a taxonomy by slug. */
export async function termIdsBySlug(
  db: DataSource | EntityManager,
  taxonomy: string,
  slugs: string[],
): Promise<number[]> {
  if (!slugs.length) return [];
  const rows = await taxonomyTerms(db, taxonomy)
    .select('tt.termId', 'term_id')
    .andWhere('t.slug IN (:...slugs)', { slugs })
    .getRawMany<{ term_id: number }>();
  return rows.map((r) => Number(r.term_id));
}

/** The term id of a term (by slug) in a taxonomy, created when missing. */
export async function ensureTerm(em: EntityManager, taxonomy: string, slug: string): Promise<number> {
  const [found] = await termIdsBySlug(em, taxonomy, [slug]);
  if (found !== undefined) return found;
  const term = await em.getRepository(TermEntity).insert({ name: slug, slug, group: 0 });
  const termId = Number(term.identifiers[0].id);
  await em.getRepository(TermTaxonomyEntity).insert({ termId, taxonomy, description: '', parent: 0, count: 0 });
  return termId;
}

/**
 * Replaces a post's terms of one taxonomy by term ids (`wp_set_object_terms()`; ids that are not terms of the
 * taxonomy are skipped). Returns the term-taxonomy ids whose counts change.
 */
export async function replacePostTerms(
  em: EntityManager,
  postId: number,
  taxonomy: string,
  termIds: number[],
): Promise<number[]> {
  const tts = termIds.length
    ? await em
        .getRepository(TermTaxonomyEntity)
        .find({ select: { id: true, termId: true }, where: { taxonomy, termId: In([...new Set(termIds)]) } })
    : [];
  const wanted = new Set(tts.map((t) => t.id));
  const have = new Set((await postTermsOf(em, postId, taxonomy)).map((t) => t.termTaxonomyId));
  const removed = [...have].filter((id) => !wanted.has(id));
  const added = [...wanted].filter((id) => !have.has(id));
  if (removed.length)
    await em.getRepository(TermRelationshipEntity).delete({ objectId: postId, termTaxonomyId: In(removed) });
  if (added.length)
    await em
      .getRepository(TermRelationshipEntity)
      .insert(added.map((id) => ({ objectId: postId, termTaxonomyId: id, termOrder: 0 })));
  return [...removed, ...added];
}

/**
 * `FROM … WHERE` of the term relationships of the post `post` (a column, or `?`) in the taxonomy `taxonomy` (a
 * quoted name, or `?`), their term taxonomies joined as `tt`.
 */
export function postTermsFrom(em: EntityManager, post: string, taxonomy: string): string {
  const relationships = em.connection.getMetadata(TermRelationshipEntity).tableName;
  const taxonomies = em.connection.getMetadata(TermTaxonomyEntity).tableName;
  return `FROM ${relationships} r INNER JOIN ${taxonomies} tt ON tt.term_taxonomy_id = r.term_taxonomy_id WHERE r.object_id = ${post} AND tt.taxonomy = ${taxonomy}`;
}

/** A post's terms of one taxonomy, read through the transaction: their term ids and term-taxonomy ids. */
async function postTermsOf(
  em: EntityManager,
  postId: number,
  taxonomy: string,
): Promise<Array<{ termId: number; termTaxonomyId: number }>> {
  const rows = await em.query<
    Array<{
      term_id: number | string;
      tt_id: number | string;
    }>
  >(`SELECT tt.term_id AS term_id, tt.term_taxonomy_id AS tt_id ${postTermsFrom(em, '?', '?')}`, [postId, taxonomy]);
  return rows.map((r) => ({ termId: Number(r.term_id), termTaxonomyId: Number(r.tt_id) }));
}

export async function postTermTaxonomyIds(em: EntityManager, postId: number): Promise<number[]> {
  const rows = await em
    .getRepository(TermRelationshipEntity)
    .find({ select: { termTaxonomyId: true }, where: { objectId: postId } });
  return rows.map((r) => r.termTaxonomyId);
}
