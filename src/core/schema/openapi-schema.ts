import type { JsonSchema, RouteArg } from '../json-schema/json-schema';
import { LENGTH_AND_ITEM_KEYWORDS, pickKeywords } from './schema-keywords';

/** An OpenAPI 3.1 Schema Object (JSON Schema 2020-12). */
export type OpenApiSchema = Record<string, unknown>;

/**
 * What a schema describes, which decides how the reference's dialect maps: an answer (`readOnly` kept, the
 * properties of the default `view` context required), a request body (read-only properties left out, `required`
 * from the properties' `required: true`) or a query or path parameter.
 */
export type SchemaUse = 'response' | 'request' | 'parameter';

const JSON_TYPES = new Set(['string', 'integer', 'number', 'boolean', 'array', 'object', 'null']);

/** Keywords copied as they are (the rest of the reference's keywords are mapped below, or dropped). */
const PLAIN_KEYWORDS = ['title', 'description', 'minimum', 'maximum', ...LENGTH_AND_ITEM_KEYWORDS];

/**
 * The date-times the API reads and writes (`rest_parse_date`): the offset is optional, and the API's own dates have
 * none, so they are not RFC 3339 `date-time`s.
 */
export const DATE_TIME_PATTERN =
  '^\\d{4}-\\d{2}-\\d{2}[Tt ]\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?([Zz]|[+-]\\d{2}(:?\\d{2})?)?$';
const HEX_COLOR_PATTERN = '^#([A-Fa-f0-9]{3}){1,2}$';

/**
 * Converts a schema of the reference's dialect (JSON Schema draft 4 with WordPress's keywords) into an OpenAPI 3.1
 * schema:
 * - `readonly` becomes `readOnly` (request bodies leave those properties out: the API ignores them);
 * - `context` decides `required` in answers (the properties of the default `view` context are always there), and
 *   is dropped; `required: true` on a property becomes its parent's `required` list in request bodies;
 * - `arg_options`, callbacks and unknown keywords are dropped (an allow-list, so nothing internal leaks);
 * - draft 4's boolean `exclusiveMinimum`/`exclusiveMaximum` become 2020-12's numbers;
 * - formats: `email`, `uri`, `uuid` stay; `date-time` becomes a pattern (the API's dates have no offset), `ip`
 *   becomes IPv4 or IPv6, `hex-color` a pattern, others are dropped;
 * - `type` lists stay (2020-12 has them), with `null` added to an `enum` of a nullable type; PHP's empty property
 *   map (`[]`) becomes `{}`; a `null` default is dropped;
 * - in request bodies, an object with a `raw` property whose argument validates itself (titles, contents,
 *   excerpts, captions) also takes a plain string, as the API does.
 */
export function toOpenApiSchema(schema: JsonSchema | RouteArg, use: SchemaUse): OpenApiSchema {
  const out: OpenApiSchema = pickKeywords(schema, PLAIN_KEYWORDS);
  const types = (Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : []).filter((t) =>
    JSON_TYPES.has(t),
  );
  if (types.length) out.type = types.length === 1 ? types[0] : [...new Set(types)];
  if (Array.isArray(schema.enum) && schema.enum.length) {
    const values = schema.enum as unknown[];
    out.enum = types.includes('null') && !values.includes(null) ? [...values, null] : [...values];
  }
  if (schema.default !== undefined && schema.default !== null && typeof schema.default !== 'function')
    out.default = schema.default;
  if (schema.readonly === true && use === 'response') out.readOnly = true;
  mapBounds(schema, out);
  mapFormat(schema, out);
  if (schema.items && typeof schema.items === 'object' && !Array.isArray(schema.items))
    out.items = toOpenApiSchema(schema.items, use);
  if (schema.additionalProperties !== undefined) {
    out.additionalProperties =
      typeof schema.additionalProperties === 'object'
        ? toOpenApiSchema(schema.additionalProperties, use)
        : schema.additionalProperties;
  }
  if (schema.properties && typeof schema.properties === 'object') {
    const { properties, required } = toOpenApiProperties(
      Array.isArray(schema.properties) ? {} : schema.properties,
      use,
    );
    out.properties = properties;
    if (required.length) out.required = required;
  }
  for (const key of ['anyOf', 'oneOf'] as const) {
    const list = schema[key];
    if (Array.isArray(list)) out[key] = list.map((s) => toOpenApiSchema(s as JsonSchema, use));
  }
  if (use === 'request' && typeof schema.validate === 'function' && types.includes('object') && hasRaw(schema)) {
    return { ...pick(out, ['title', 'description']), anyOf: [{ type: 'string' }, omit(out, ['title', 'description'])] };
  }
  return out;
}

/**
 * Properties of an object schema as OpenAPI properties, and which of them are required: in answers those of the
 * default `view` context, in request bodies those marked `required: true`. Request bodies leave read-only ones out.
 */
export function toOpenApiProperties(
  properties: Record<string, JsonSchema | RouteArg>,
  use: SchemaUse,
): { properties: Record<string, OpenApiSchema>; required: string[] } {
  const out: Record<string, OpenApiSchema> = {};
  const required: string[] = [];
  for (const [name, property] of Object.entries(properties)) {
    if (!property || typeof property !== 'object') continue;
    if (use !== 'response' && property.readonly === true) continue;
    const merged = use === 'request' && property.arg_options ? { ...property, ...property.arg_options } : property;
    out[name] = toOpenApiSchema(merged, use);
    if (
      use === 'response'
        ? Array.isArray(property.context) && property.context.includes('view')
        : property.required === true
    )
      required.push(name);
  }
  return { properties: out, required };
}

function mapBounds(schema: JsonSchema, out: OpenApiSchema): void {
  for (const [bound, exclusive] of [
    ['minimum', 'exclusiveMinimum'],
    ['maximum', 'exclusiveMaximum'],
  ] as const) {
    const flag = schema[exclusive] as unknown;
    if (typeof flag === 'number') out[exclusive] = flag;
    else if (flag === true && typeof schema[bound] === 'number') {
      out[exclusive] = schema[bound];
      delete out[bound];
    }
  }
}

function mapFormat(schema: JsonSchema, out: OpenApiSchema): void {
  switch (schema.format) {
    case 'email':
    case 'uri':
    case 'uuid':
    case 'ipv4':
    case 'ipv6':
      out.format = schema.format;
      break;
    case 'date-time':
      if (out.pattern === undefined) out.pattern = DATE_TIME_PATTERN;
      break;
    case 'ip':
      out.anyOf = [{ format: 'ipv4' }, { format: 'ipv6' }];
      break;
    case 'hex-color':
      if (out.pattern === undefined) out.pattern = HEX_COLOR_PATTERN;
      break;
  }
}

function hasRaw(schema: JsonSchema): boolean {
  return !!schema.properties && !Array.isArray(schema.properties) && typeof schema.properties.raw === 'object';
}

function pick(o: OpenApiSchema, keys: string[]): OpenApiSchema {
  return Object.fromEntries(Object.entries(o).filter(([k]) => keys.includes(k)));
}

function omit(o: OpenApiSchema, keys: string[]): OpenApiSchema {
  return Object.fromEntries(Object.entries(o).filter(([k]) => !keys.includes(k)));
}

/** A route pattern's OpenAPI path and its path parameters, or `null` when the pattern has more than named groups. */
export interface PathTemplate {
  path: string;
  params: Array<{ name: string; pattern: string }>;
}

/**
 * The OpenAPI path of a route in the reference's pattern form: `/cms/v2/posts/(?P<id>[\d]+)` is
 * `/cms/v2/posts/{id}` with `id` matching `[\d]+`. A pattern with anything else than literal text and named groups
 * (an optional part, an alternative outside a group) has no OpenAPI path: `null`.
 */
export function toPathTemplate(route: string): PathTemplate | null {
  const params: PathTemplate['params'] = [];
  let path = '';
  for (let i = 0; i < route.length;) {
    if (route.startsWith('(?P<', i)) {
      const close = route.indexOf('>', i);
      const name = route.slice(i + 4, close);
      let depth = 1;
      let j = close + 1;
      for (; j < route.length && depth > 0; j++) {
        const c = route[j];
        if (c === '\\') j++;
        else if (c === '(') depth++;
        else if (c === ')') depth--;
      }
      if (depth !== 0) return null;
      params.push({ name, pattern: route.slice(close + 1, j - 1) });
      path += `{${name}}`;
      i = j;
      continue;
    }
    const c = route[i];
    if (c === '\\' && i + 1 < route.length && /[./\-_~]/.test(route[i + 1])) {
      path += route[i + 1];
      i += 2;
      continue;
    }
    if (/[\\^$|?*+()[\]{}]/.test(c)) return null;
    path += c;
    i++;
  }
  return { path: path || '/', params };
}

/** A path parameter's schema: an integer for digit patterns (`[\d]+`, `\d+`, `[0-9]+`), else a string with the pattern. */
export function pathParamSchema(pattern: string): OpenApiSchema {
  if (/^(\[\\d\]|\\d|\[0-9\])\+$/.test(pattern)) return { type: 'integer' };
  return { type: 'string', pattern: `^${pattern}$` };
}
