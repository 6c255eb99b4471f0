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
  const plan = planFor(properties, context);
  const out: Record<string, unknown> = {};
  for (const key in data) {
    if (plan.dropped.has(key)) continue;
    const value = data[key];
    const nested = plan.nested.get(key);
    if (nested && value && typeof value === 'object' && !Array.isArray(value)) {
      const inner: Record<string, unknown> = {};
      for (const k in value as Record<string, unknown>)
        if (!nested.has(k)) inner[k] = (value as Record<string, unknown>)[k];
      out[key] = inner;
      continue;
    }
    out[key] = value;
  }
  return out;
}

/** Which keys a context drops, worked out once per schema and context. */
interface ContextPlan {
  dropped: Set<string>;
  /** Object properties → their keys the context drops. */
  nested: Map<string, Set<string>>;
}

const PLANS = new WeakMap<Record<string, JsonSchema>, Map<string, ContextPlan>>();

function planFor(properties: Record<string, JsonSchema>, requested: string): ContextPlan {
  // A context no schema lists drops the same keys as any other such context: one plan for all of them (kept by name,
  // the plans could grow with whatever contexts requests send to routes that do not check it).
  const context = requested === 'view' || requested === 'edit' || requested === 'embed' ? requested : '';
  let byContext = PLANS.get(properties);
  if (!byContext) PLANS.set(properties, (byContext = new Map<string, ContextPlan>()));
  let plan = byContext.get(context);
  if (plan) return plan;
  const hides = (schema: JsonSchema | undefined) =>
    Boolean(schema?.context && schema.context.length && !schema.context.includes(context as RestContext));
  plan = { dropped: new Set(), nested: new Map() };
  for (const [key, prop] of Object.entries(properties)) {
    if (hides(prop)) plan.dropped.add(key);
    else if (prop.properties)
      plan.nested.set(
        key,
        new Set(
          Object.entries(prop.properties)
            .filter(([, sub]) => hides(sub))
            .map(([k]) => k),
        ),
      );
  }
  byContext.set(context, plan);
  return plan;
}

/** The `context` enum of a schema: the union of its properties' contexts, in reverse alphabetical order. */
export function contextsOfSchema(properties: Record<string, JsonSchema>): RestContext[] {
  const all = new Set<RestContext>();
  for (const prop of Object.values(properties)) for (const c of prop.context ?? []) all.add(c);
  return [...all].sort().reverse();
}
