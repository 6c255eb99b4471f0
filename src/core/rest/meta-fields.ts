import type { MetaKeyDefinition, RegisteredFields } from '../registry/field-types';
import type { EntityManager, FindOptionsWhere, Repository } from 'typeorm';
import { maybeSerialize } from '../formatting/php-serialize';
import { RestException } from '../errors/rest.exception';
import type { JsonSchema } from '../json-schema/json-schema';
import { checkValue, sanitizeValue, validateValue } from '../json-schema/validate';
import {
  wordpress61DetailData,
  wordpress61ValidationCode,
  type ValidationWords,
} from '../dialect/wordpress-61-validation';

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
export function exposedMetaKeys(extensions: RegisteredFields, objectType: string, subtype?: string): ExposedMetaKey[] {
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
      return [
        name,
        {
          ...type,
          description: d.description ?? '',
          default: d.default ?? null,
          context: ['view', 'edit'],
          ...extra,
        },
      ];
    }),
  );
}

/**
 * The `meta` field of one object: single keys give their first stored value (or the default), others the list.
 * Each value is cast to its schema type as WordPress's `prepare_value` does (`''` is the empty value of a boolean or
 * number, and a value that does not fit the schema is `null`).
 */
export function metaResponse(
  keys: ExposedMetaKey[],
  stored: Record<string, unknown[] | undefined>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const schemas = metaSchemaProperties(keys);
  for (const { key, name, definition } of keys) {
    const values = stored[key] ?? [];
    const schema = schemas[name];
    const itemSchema = definition.single ? schema : (schema.items ?? { type: definition.type });
    if (definition.single)
      out[name] = values.length ? castMetaValue(values[0], itemSchema) : (definition.default ?? null);
    else out[name] = values.map((v) => castMetaValue(v, itemSchema));
  }
  return out;
}

const EMPTY_VALUES: Record<string, unknown> = { boolean: false, integer: 0, number: 0 };

function castMetaValue(value: unknown, schema: JsonSchema): unknown {
  const type = Array.isArray(schema.type) ? undefined : schema.type;
  const input = value === '' && type && type in EMPTY_VALUES ? EMPTY_VALUES[type] : value;
  if (validateValue(input, schema, 'meta') !== null) return null;
  return sanitizeValue(input, schema);
}

/**
 * The values sent in a request's `meta` object for exposed keys, sanitised, by stored key. Unknown keys are ignored.
 * With `checks` (the dialect's words when it checks meta as it is written) each value is first checked against its
 * schema (see {@link writtenMetaValue}).
 */
export function metaInput(
  keys: ExposedMetaKey[],
  input: unknown,
  checks: ValidationWords | null = null,
): Record<string, unknown> {
  if (!input || typeof input !== 'object' || Array.isArray(input)) return {};
  const sent = input as Record<string, unknown>;
  const written = writtenValues(keys, checks);
  const out: Record<string, unknown> = {};
  for (const { key, name, definition } of keys) {
    if (!(name in sent)) continue;
    const value = written(name, sent[name]);
    out[key] = definition.sanitize ? definition.sanitize(value) : value;
  }
  return out;
}

/** The words to check meta values with as they are written, when the dialect checks them so; else `null`. */
export function metaWriteChecks(dialect: {
  metaChecks: 'argument' | 'when-written';
  validation: ValidationWords;
}): ValidationWords | null {
  return dialect.metaChecks === 'when-written' ? dialect.validation : null;
}

/** A sent value as it is to be written: as sent, or with `checks` checked and coerced (see {@link writtenMetaValue}). */
function writtenValues(
  keys: ExposedMetaKey[],
  checks: ValidationWords | null,
): (name: string, value: unknown) => unknown {
  if (!checks) return (_name, value) => value;
  const schemas = metaSchemaProperties(keys);
  return (name, value) => (value === null ? null : writtenMetaValue(name, value, schemas[name], checks));
}

/**
 * A meta value checked as WordPress 6.1's WP_REST_Meta_Fields::update_value checks it when it is written: against its
 * key's schema, named `meta.<name>`; a failure is `400` with its own code (`rest_invalid_type`…) and the failure's
 * data (`{ param }`) in `additional_data`. Answers the value coerced to its schema.
 */
function writtenMetaValue(name: string, value: unknown, schema: JsonSchema, words: ValidationWords): unknown {
  const failure = checkValue(value, schema, `meta.${name}`, words);
  if (failure !== null) {
    const data = wordpress61DetailData(failure.kind, failure.input);
    throw new RestException(
      wordpress61ValidationCode(failure.kind, failure.input) ?? 'rest_invalid_param',
      failure.message,
      400,
      {},
      [],
      data ? [data] : [],
    );
  }
  return sanitizeValue(value, schema);
}

/** One change to the values of a meta key (the reference's `WP_REST_Meta_Fields::update_value` steps). */
export type MetaOp =
  | { key: string; action: 'delete' }
  | { key: string; action: 'single'; value: string }
  | { key: string; action: 'multi'; values: string[] };

/** Capability check of a meta write: `(cap, key)` → allowed. */
export type MetaCan = (cap: string, key: string) => Promise<boolean>;

/**
 * Plans the writes asked for by a request's `meta` object, checking each key's capability first (so that a refusal
 * leaves everything unwritten): `null` deletes the key (`delete_<type>_meta`), a list replaces the values of a
 * multi-valued key and anything else sets a single value (`edit_<type>_meta`). Values are sanitised and converted
 * to their stored form. Keys that are not exposed are ignored. With `checks` each value is checked against its
 * schema before its capability (see {@link writtenMetaValue}).
 */
export async function planMetaWrites(
  keys: ExposedMetaKey[],
  input: unknown,
  objectType: string,
  can: MetaCan,
  /** The status of a refusal: the request's `authorizationRequiredCode` (401 anonymous, 403 logged in). */
  deniedStatus: 401 | 403 = 403,
  checks: ValidationWords | null = null,
): Promise<MetaOp[]> {
  if (!input || typeof input !== 'object' || Array.isArray(input)) return [];
  const sent = input as Record<string, unknown>;
  const written = writtenValues(keys, checks);
  const ops: MetaOp[] = [];
  for (const { key, name, definition } of keys) {
    if (!(name in sent)) continue;
    const value = written(name, sent[name]);
    const sanitize = (v: unknown) => storedMetaValue(definition.sanitize ? definition.sanitize(v) : v);
    if (value === null) {
      if (!(await can(`delete_${objectType}_meta`, key))) throw metaForbidden('rest_cannot_delete', name, deniedStatus);
      ops.push({ key, action: 'delete' });
      continue;
    }
    if (!(await can(`edit_${objectType}_meta`, key))) throw metaForbidden('rest_cannot_update', name, deniedStatus);
    if (!definition.single && Array.isArray(value)) ops.push({ key, action: 'multi', values: value.map(sanitize) });
    else ops.push({ key, action: 'single', value: sanitize(value) });
  }
  return ops;
}

function metaForbidden(code: string, name: string, status: 401 | 403): RestException {
  return new RestException(code, `You do not have permission to edit the ${name} custom field.`, status, { key: name });
}

/** A meta value as WordPress stores it (`maybe_serialize()`; booleans as `'1'`/`''`). */
export function storedMetaValue(value: unknown): string {
  return maybeSerialize(value);
}

/**
 * Applies planned meta writes to one object, as WordPress does: a single value replaces every stored value (nothing
 * is written when the one stored value is already equal); a list keeps the values already stored once, removes the
 * others and adds the new ones; `delete` removes every value.
 */
export async function applyMetaWrites<E extends object>(
  em: EntityManager,
  entity: new () => E,
  objectColumn: keyof E & string,
  objectId: number,
  ops: MetaOp[],
): Promise<void> {
  if (!ops.length) return;
  const repo = em.getRepository(entity) as unknown as Repository<MetaRow>;
  const where = (key: string, extra: Record<string, unknown> = {}) =>
    ({ [objectColumn]: objectId, key, ...extra }) as FindOptionsWhere<MetaRow>;
  for (const op of ops) {
    if (op.action === 'delete') {
      await repo.delete(where(op.key));
      continue;
    }
    const stored = await repo.find({ where: where(op.key), order: { id: 'ASC' } });
    if (op.action === 'single') {
      if (stored.length === 1 && stored[0].value === op.value) continue;
      if (stored.length) await repo.update(where(op.key), { value: op.value });
      else await repo.insert({ [objectColumn]: objectId, key: op.key, value: op.value });
      continue;
    }
    // Values stored once and sent again stay; duplicates are removed and added back, as WordPress does.
    const current = stored.map((r) => r.value ?? '');
    const kept = new Set<string>();
    const toAdd: string[] = [];
    for (const value of op.values) {
      if (current.filter((v) => v === value).length === 1) kept.add(value);
      else toAdd.push(value);
    }
    for (const value of new Set(current.filter((v) => !kept.has(v)))) await repo.delete(where(op.key, { value }));
    for (const value of toAdd) await repo.insert({ [objectColumn]: objectId, key: op.key, value });
  }
}

interface MetaRow {
  id: number;
  key: string | null;
  value: string | null;
}
