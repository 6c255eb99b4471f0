import { JsonSchema, RestContext } from './json-schema';

/**
 * Drops the fields of `data` whose schema property does not list `context` (the reference's
 * `filter_response_by_context`): top-level keys, and the keys of object properties one level down.
 * Keys without a schema property or without a `context` list are kept.
 */
export function filterByContext(
  data: Record<string, unknown>,
  properties: Record<string, JsonSchema>,
  context: string,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(data)) {
    const prop = properties[key];
    if (prop?.context && prop.context.length && !prop.context.includes(context as RestContext)) continue;
    if (prop?.properties && value && typeof value === 'object' && !Array.isArray(value)) {
      const nested: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
        const sub = prop.properties[k];
        if (sub?.context && sub.context.length && !sub.context.includes(context as RestContext)) continue;
        nested[k] = v;
      }
      out[key] = nested;
      continue;
    }
    out[key] = value;
  }
  return out;
}

/** The `context` enum of a schema: the union of its properties' contexts, in reverse alphabetical order. */
export function contextsOfSchema(properties: Record<string, JsonSchema>): RestContext[] {
  const all = new Set<RestContext>();
  for (const prop of Object.values(properties)) for (const c of prop.context ?? []) all.add(c);
  return [...all].sort().reverse();
}
