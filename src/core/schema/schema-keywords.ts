import type { JsonSchema } from '../json-schema/json-schema';

/** Validation keywords JSON Schema draft 4 and 2020-12 spell alike: string lengths, pattern and item counts. */
export const LENGTH_AND_ITEM_KEYWORDS = [
  'minLength',
  'maxLength',
  'pattern',
  'minItems',
  'maxItems',
  'uniqueItems',
] as const;

/** The keywords among `keys` that `schema` sets (neither undefined nor null), in the order of `keys`. */
export function pickKeywords(schema: JsonSchema, keys: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of keys) if (schema[key] !== undefined && schema[key] !== null) out[key] = schema[key];
  return out;
}
