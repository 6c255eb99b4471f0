/** `map_meta_cap()` for terms: `edit_term`, `delete_term`, `assign_term`. */
import type { TaxonomyObject } from '../registry/content-types';
import { DO_NOT_ALLOW, getTerm, isset, looseEqualsId, MetaCapCall } from './meta-cap-lookups';

/**
 * `edit_term`, `delete_term`, `assign_term`: the taxonomy's `edit_terms`, `delete_terms` or `assign_terms`
 * capability, mapped in turn; nobody deletes the taxonomy's default term.
 */
export async function termCaps({ cap, args, lookups, recurse }: MetaCapCall): Promise<string[]> {
  if (!isset(args[0])) return [DO_NOT_ALLOW];
  const term = await getTerm(lookups, args[0]);
  if (!term) return [DO_NOT_ALLOW];
  const taxonomy = lookups.registry.taxonomy(term.taxonomy);
  if (!taxonomy) return [DO_NOT_ALLOW];
  const termId = Number(term.termId);
  if (
    cap === 'delete_term' &&
    (looseEqualsId(await lookups.option(`default_${term.taxonomy}`), termId) ||
      looseEqualsId(await lookups.option(`default_term_${term.taxonomy}`), termId))
  ) {
    return [DO_NOT_ALLOW];
  }
  const taxoCap = `${cap}s` as keyof TaxonomyObject['cap'];
  return recurse(taxonomy.cap[taxoCap], [termId]);
}
