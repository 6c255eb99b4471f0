import { EntityManager, In } from 'typeorm';
import { PostEntity } from '../../core/database/entities/post.entity';
import { TermRelationshipEntity } from '../../core/database/entities/term-relationship.entity';
import { TermTaxonomyEntity } from '../../core/database/entities/term-taxonomy.entity';
import { placeholders } from '../../core/database/raw-query';
import { ContentRegistry } from '../../core/registry/content-registry.service';

/**
 * `_update_post_term_count()`: a term's `count` is the number of published objects of its taxonomy's types (and
 * attachments of published posts). Recounts the given term-taxonomy ids inside the caller's transaction.
 */
export async function recountTerms(em: EntityManager, content: ContentRegistry, ttIds: number[]): Promise<void> {
  if (!ttIds.length) return;
  const tts = await em.getRepository(TermTaxonomyEntity).find({ where: { id: In([...new Set(ttIds)]) } });
  const posts = em.getRepository(PostEntity).metadata.tableName;
  const rel = em.getRepository(TermRelationshipEntity).metadata.tableName;
  // One grouped count per taxonomy (its terms share the object types counted).
  const byTaxonomy = new Map<string, TermTaxonomyEntity[]>();
  for (const tt of tts) byTaxonomy.set(tt.taxonomy, [...(byTaxonomy.get(tt.taxonomy) ?? []), tt]);
  for (const [taxonomy, group] of byTaxonomy) {
    // A taxonomy no code registered (terms imported for a host's types) counts its published objects of any type.
    const registered = content.taxonomy(taxonomy);
    const types = registered?.object_type ?? [];
    if (registered && !types.length) continue;
    const typeFilter = registered ? `AND p1.post_type IN (${placeholders(types.length)})` : '';
    const rows = await em.query<Array<{ id: number | string; n: number | string }>>(
      `SELECT r.term_taxonomy_id AS id, COUNT(*) AS n FROM ${rel} r INNER JOIN ${posts} p1 ON p1.ID = r.object_id
       WHERE r.term_taxonomy_id IN (${placeholders(group.length)}) ${typeFilter}
         AND (p1.post_status = 'publish' OR (p1.post_status = 'inherit' AND p1.post_parent > 0
           AND (SELECT p2.post_status FROM ${posts} p2 WHERE p2.ID = p1.post_parent) = 'publish'))
       GROUP BY r.term_taxonomy_id`,
      [...group.map((tt) => tt.id), ...types],
    );
    const counts = new Map(rows.map((r) => [Number(r.id), Number(r.n)]));
    for (const tt of group) {
      const count = counts.get(tt.id) ?? 0;
      if (count !== Number(tt.count)) await em.getRepository(TermTaxonomyEntity).update({ id: tt.id }, { count });
    }
  }
}
