import type { MetaKeyDefinition } from '../../extensions/extension.types';
import type { CmsExtensionRegistry } from '../../extensions/extension-registry.service';
import type { JsonSchema } from '../schema/json-schema';

/** A meta key exposed in a resource's `meta` field: its stored key, its name in the API and its definition. */
export interface ExposedMetaKey {
  key: string;
  name: string;
  definition: MetaKeyDefinition;
}

/**
 * The meta keys an object type exposes (registered with `showInRest`), for one subtype (post type, taxonomy) if
 * given. Shared by every resource with a `meta` field.
 */
export function exposedMetaKeys(extensions: CmsExtensionRegistry, objectType: string, subtype?: string): ExposedMetaKey[] {
  return extensions
    .metaKeys(objectType, subtype)
    .filter(([, d]) => d.showInRest)
    .map(([key, definition]) => ({
      key,
      name: typeof definition.showInRest === 'object' && definition.showInRest.name ? definition.showInRest.name : key,
      definition,
    }));
}

/** The `meta` schema properties: single keys typed by their type, multi keys as arrays of it. */
export function metaSchemaProperties(keys: ExposedMetaKey[]): Record<string, JsonSchema> {
  return Object.fromEntries(
    keys.map(({ name, definition: d }) => {
      const extra = typeof d.showInRest === 'object' ? (d.showInRest.schema ?? {}) : {};
      const type = d.single ? { type: d.type } : { type: 'array' as const, items: { type: d.type } };
      return [name, { ...type, description: d.description ?? '', default: d.default ?? null, context: ['view', 'edit'], ...extra } as JsonSchema];
    }),
  );
}

/** The `meta` field of one object: single keys give their first stored value (or the default), others the list. */
export function metaResponse(keys: ExposedMetaKey[], stored: Record<string, unknown[] | undefined>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { key, name, definition } of keys) {
    const values = stored[key] ?? [];
    out[name] = definition.single ? (values.length ? values[0] : (definition.default ?? null)) : values;
  }
  return out;
}

/** The values sent in a request's `meta` object for exposed keys, sanitised, by stored key. Unknown keys are ignored. */
export function metaInput(keys: ExposedMetaKey[], input: unknown): Record<string, unknown> {
  if (!input || typeof input !== 'object' || Array.isArray(input)) return {};
  const sent = input as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const { key, name, definition } of keys) {
    if (!(name in sent)) continue;
    out[key] = definition.sanitize ? definition.sanitize(sent[name]) : sent[name];
  }
  return out;
}
