import { ObjectLiteral, SelectQueryBuilder } from 'typeorm';

/** Escapes `!`, `%` and `_` for a LIKE pattern used with `ESCAPE '!'` (one escape character both databases read alike). */
export function escapeLike(text: string): string {
  return text.replace(/[!%_]/g, (c) => `!${c}`);
}

/** `%text%` for a "contains" LIKE with `ESCAPE '!'`. */
export function containsPattern(text: string): string {
  return `%${escapeLike(text)}%`;
}

/**
 * Orders rows by the position of `column` in `values` (the reference's `orderby=include`), with bound parameters.
 *
 * @example orderByList(qb, 'p.ID', [7, 3, 9], 'inc')
 */
export function orderByList<T extends ObjectLiteral>(qb: SelectQueryBuilder<T>, column: string, values: readonly unknown[], name: string): void {
  values.forEach((value, i) => qb.setParameter(`${name}${i}`, value));
  qb.orderBy(`CASE ${values.map((_, i) => `WHEN ${column} = :${name}${i} THEN ${i}`).join(' ')} ELSE ${values.length} END`, 'ASC');
}
