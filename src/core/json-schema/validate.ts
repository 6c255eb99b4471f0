import { escUrlRaw } from '../formatting/esc-url';
import { isEmail } from '../formatting/is-email';
import { JsonSchema, JsonSchemaType, RouteArg } from './json-schema';
import { checkOneOf } from './one-of';
import {
  SEED_VALIDATION_WORDS,
  type ValidationMessageInputs,
  type ValidationMessageKind,
  type ValidationOrder,
  type ValidationWords,
} from '../dialect/wordpress-61-validation';
import { isBooleanLike, isInteger, isNumeric, parseDateTime, parseList, toBoolean } from './schema-values';

export { isBooleanLike, isNumeric, parseDateTime, parseIdList, parseList, toBoolean } from './schema-values';

/**
 * Schema validation and coercion of request values, following the reference's `rest_validate_request_arg`
 * and `rest_sanitize_request_arg`: values arrive as strings from query strings and forms and are coerced to
 * the declared type after they validate. Messages and the order of the checks are the dialect's
 * ({@link ValidationWords}: the spec's, the reference's, unless given, or WordPress 6.1's); a failure keeps its kind
 * and inputs, from which request-args.ts makes WordPress's `data.details`.
 */

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const IPV4_RE = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

function primaryType(schema: JsonSchema): JsonSchemaType | undefined {
  return Array.isArray(schema.type) ? schema.type[0] : schema.type;
}

function typeMatches(value: unknown, type: JsonSchemaType, order: ValidationOrder): boolean {
  switch (type) {
    case 'integer':
      return isInteger(value, order.wholeNumbers);
    case 'number':
      return isNumeric(value);
    case 'boolean':
      return isBooleanLike(value);
    case 'string':
      return typeof value === 'string';
    case 'array':
      return Array.isArray(value) || typeof value === 'string' || (typeof value === 'object' && value !== null);
    case 'object':
      return (
        (typeof value === 'object' && value !== null && !Array.isArray(value)) ||
        value === '' ||
        (Array.isArray(value) && value.length === 0)
      );
    case 'null':
      return value === null || value === '';
  }
}

/**
 * A failed check: its kind (so its WordPress code, see WORDPRESS_61_VALIDATION_CODES), what its message was made of,
 * and the message in the dialect's words.
 */
export type ValidationFailure = {
  [K in ValidationMessageKind]: { kind: K; input: ValidationMessageInputs[K]; message: string };
}[ValidationMessageKind];

function fail<K extends ValidationMessageKind>(
  words: ValidationWords,
  kind: K,
  input: ValidationMessageInputs[K],
): ValidationFailure {
  const build = words.messages[kind] as (input: ValidationMessageInputs[K]) => string;
  return { kind, input, message: build(input) } as ValidationFailure;
}

/** The range failure of a number, or `null` when within `minimum`..`maximum`. */
function rangeFailure(
  value: unknown,
  schema: JsonSchema,
  name: string,
  words: ValidationWords,
): ValidationFailure | null {
  const min = schema.minimum;
  const max = schema.maximum;
  if (min === undefined && max === undefined) return null;
  const n = Number(value);
  const exclusiveMinimum = schema.exclusiveMinimum === true;
  const exclusiveMaximum = schema.exclusiveMaximum === true;
  const belowMin = min !== undefined && (exclusiveMinimum ? n <= min : n < min);
  const aboveMax = max !== undefined && (exclusiveMaximum ? n >= max : n > max);
  if (!belowMin && !aboveMax) return null;
  if (min !== undefined && max !== undefined)
    return fail(words, 'between', { param: name, minimum: min, maximum: max, exclusiveMinimum, exclusiveMaximum });
  if (min !== undefined)
    return exclusiveMinimum
      ? fail(words, 'exclusiveMinimum', { param: name, minimum: min })
      : fail(words, 'minimum', { param: name, minimum: min });
  return exclusiveMaximum
    ? fail(words, 'exclusiveMaximum', { param: name, maximum: max as number })
    : fail(words, 'maximum', { param: name, maximum: max as number });
}

/**
 * Validates `value` against `schema`. Returns `null` when valid, otherwise the message the reference gives (the
 * dialect's `words`: the spec's unless given). `name` is the parameter name used in messages (`tags[0]` for items).
 */
export function validateValue(
  value: unknown,
  schema: JsonSchema,
  name: string,
  words: ValidationWords = SEED_VALIDATION_WORDS,
): string | null {
  const failure = checkValue(value, schema, name, words);
  return failure === null ? null : failure.message;
}

/** Validates `value` against `schema` in the dialect's words and order: `null` when valid, else the failure. */
export function checkValue(
  value: unknown,
  schema: JsonSchema,
  name: string,
  words: ValidationWords,
): ValidationFailure | null {
  if (Array.isArray(schema.oneOf)) {
    const failure = checkOneOf(value, schema, name, words, checkValue);
    if (failure) return failure;
  }
  const type = schema.type;
  if (!Array.isArray(type)) return checkTyped(value, schema, type, name, words);
  if (type.length < 2) return checkTyped(value, schema, type[0], name, words);
  if (words.order.typeLists === 'any-valid') {
    for (const t of type) if (checkTyped(value, schema, t, name, words) === null) return null;
    return fail(words, 'types', { param: name, types: type });
  }
  // rest_get_best_type_for_value(): an empty string is a string when it may be one, else the first type it is.
  let best: JsonSchemaType | undefined = value === '' && type.includes('string') ? 'string' : undefined;
  for (let i = 0; best === undefined && i < type.length; i++)
    if (typeMatches(value, type[i], words.order)) best = type[i];
  if (best === undefined) return fail(words, 'types', { param: name, types: type });
  return checkTyped(value, schema, best, name, words);
}

/** `enum`'s failure, or `null` when the value is one of them (loosely, like PHP's in_array: '1' matches 1). */
function enumFailure(
  value: unknown,
  schema: JsonSchema,
  name: string,
  words: ValidationWords,
): ValidationFailure | null {
  const values = schema.enum as readonly unknown[];
  for (const option of values) if (String(option) === String(value)) return null;
  return fail(words, 'enum', { param: name, values });
}

/** Validates `value` as of one `type` (or none), in the order `words` gives. */
function checkTyped(
  value: unknown,
  schema: JsonSchema,
  type: JsonSchemaType | undefined,
  name: string,
  words: ValidationWords,
): ValidationFailure | null {
  const order = words.order;
  const hasEnum = schema.enum !== undefined && schema.enum.length > 0 && type !== 'array';
  if (hasEnum && !order.enumAfterType) {
    const failure = enumFailure(value, schema, name, words);
    if (failure) return failure;
  }
  let failure: ValidationFailure | null = null;
  if (type === 'integer' && order.integers === 'numeric-range-integer') {
    // rest_validate_integer_value_from_schema(): numeric, within its range, then whole.
    if (!isNumeric(value)) return fail(words, 'type', { param: name, type, value });
    failure = rangeFailure(value, schema, name, words);
    if (failure) return failure;
    if (!isInteger(value, order.wholeNumbers)) return fail(words, 'type', { param: name, type, value });
  } else if (type && !typeMatches(value, type, order)) {
    return fail(words, 'type', { param: name, type, value });
  } else if (type === 'integer' || type === 'number') {
    failure = rangeFailure(value, schema, name, words);
  } else if (type === 'array' && schema.items) {
    failure = checkArray(value, schema, schema.items, name, words);
  } else if (type === 'object' && schema.properties && typeof value === 'object' && value !== null) {
    failure = checkProperties(value as Record<string, unknown>, schema.properties, name, words);
    // rest_validate_object_value_from_schema(): a property not declared, where `additionalProperties` is false.
    const extra = Object.keys(value).find((key) => !(key in schema.properties!));
    if (!failure && extra !== undefined && schema.additionalProperties === false)
      failure = fail(words, 'additionalProperties', { param: name, property: extra });
  }
  if (failure) return failure;
  const isString = type === 'string' || (!type && typeof value === 'string');
  const formatFirst = order.strings === 'format-pattern-lengths';
  if (isString) {
    const text = value as string;
    if (formatFirst) failure = formatFailure(text, schema, name, words);
    failure ??= patternOrLengthFailure(text, schema, name, words, formatFirst);
    if (failure) return failure;
  }
  if (hasEnum && order.enumAfterType) {
    failure = enumFailure(value, schema, name, words);
    if (failure) return failure;
  }
  return isString && !formatFirst ? formatFailure(value as string, schema, name, words) : null;
}

/** An array's items, then its counts. */
function checkArray(
  value: unknown,
  schema: JsonSchema,
  itemSchema: JsonSchema,
  name: string,
  words: ValidationWords,
): ValidationFailure | null {
  const items = parseList(value);
  for (let i = 0; i < items.length; i++) {
    const failure = checkValue(items[i], itemSchema, `${name}[${i}]`, words);
    if (failure) return failure;
  }
  if (schema.minItems !== undefined && items.length < schema.minItems)
    return fail(words, 'minItems', { param: name, limit: schema.minItems });
  if (schema.maxItems !== undefined && items.length > schema.maxItems)
    return fail(words, 'maxItems', { param: name, limit: schema.maxItems });
  return null;
}

/** An object's declared properties that are set (neither missing nor null). */
function checkProperties(
  value: Record<string, unknown>,
  properties: Record<string, JsonSchema>,
  name: string,
  words: ValidationWords,
): ValidationFailure | null {
  for (const key in properties) {
    const v = value[key];
    if (v === undefined || v === null) continue;
    const failure = checkValue(v, properties[key], `${name}[${key}]`, words);
    if (failure) return failure;
  }
  return null;
}

/** A string's `format` (`uri` is not validated, as in the reference and WordPress: sanitizing gives esc_url_raw's). */
function formatFailure(
  text: string,
  schema: JsonSchema,
  name: string,
  words: ValidationWords,
): ValidationFailure | null {
  switch (schema.format) {
    case 'date-time':
      return parseDateTime(text) === null ? fail(words, 'dateTime', { param: name, value: text }) : null;
    case 'email':
      // WordPress's is_email(): at least 6 characters, a dotted domain of valid labels.
      return isEmail(text) ? null : fail(words, 'email', { param: name, value: text });
    case 'ip':
    case 'ipv4':
      return IPV4_RE.test(text) || isIpv6(text) ? null : fail(words, 'ip', { param: name, value: text });
    case 'uuid':
      return UUID_RE.test(text) ? null : fail(words, 'uuid', { param: name, value: text });
    default:
      return null;
  }
}

/** A string's `pattern` then its lengths (the spec's), or its lengths then its `pattern` (WordPress's). */
function patternOrLengthFailure(
  text: string,
  schema: JsonSchema,
  name: string,
  words: ValidationWords,
  patternFirst: boolean,
): ValidationFailure | null {
  const pattern = schema.pattern;
  const checksPattern = typeof pattern === 'string';
  if (patternFirst && checksPattern && !safePattern(pattern).test(text))
    return fail(words, 'pattern', { param: name, pattern });
  if (schema.minLength !== undefined || schema.maxLength !== undefined) {
    const length = [...text].length;
    if (schema.minLength !== undefined && length < schema.minLength)
      return fail(words, 'minLength', { param: name, limit: schema.minLength });
    if (schema.maxLength !== undefined && length > schema.maxLength)
      return fail(words, 'maxLength', { param: name, limit: schema.maxLength });
  }
  if (!patternFirst && checksPattern && !safePattern(pattern).test(text))
    return fail(words, 'pattern', { param: name, pattern });
  return null;
}

const patterns = new Map<string, RegExp>();

/** A schema `pattern` as a regular expression (unanchored, like the reference's `preg_match('#…#u')`), cached. */
function safePattern(pattern: string): RegExp {
  let re = patterns.get(pattern);
  if (!re) {
    re = new RegExp(pattern, 'u');
    patterns.set(pattern, re);
  }
  return re;
}

function isIpv6(text: string): boolean {
  return /^[0-9a-fA-F:]+$/.test(text) && text.includes(':') && text.split(':').length <= 8;
}

/** Coerces a validated value to its schema type (`rest_sanitize_request_arg`). */
export function sanitizeValue(value: unknown, schema: JsonSchema): unknown {
  const type = primaryType(schema);
  switch (type) {
    case 'integer':
      return Math.trunc(Number(value));
    case 'number':
      return Number(value);
    case 'boolean':
      return toBoolean(value);
    case 'string':
      // rest_sanitize_value_from_schema(): a `uri` is stored as esc_url_raw() leaves it (allowed protocols only).
      if (schema.format === 'uri' && typeof value === 'string') return escUrlRaw(value);
      return typeof value === 'number' ? String(value) : value;
    case 'array': {
      const items = parseList(value);
      return schema.items ? items.map((item) => sanitizeValue(item, schema.items as JsonSchema)) : items;
    }
    case 'object':
      if (value === '' || (Array.isArray(value) && value.length === 0)) return {};
      if (schema.properties && typeof value === 'object' && value !== null) {
        const out: Record<string, unknown> = { ...(value as Record<string, unknown>) };
        for (const [key, sub] of Object.entries(schema.properties)) {
          if (out[key] !== undefined && out[key] !== null) out[key] = sanitizeValue(out[key], sub);
        }
        return out;
      }
      return value;
    default:
      return value;
  }
}

/** Validates with the argument's own callback if it has one, else with its schema; the message, or `null`. */
export function validateArg(
  value: unknown,
  arg: RouteArg,
  name: string,
  words: ValidationWords = SEED_VALIDATION_WORDS,
): string | null {
  const failure = checkArg(value, arg, name, words);
  return failure === null ? null : failure.message;
}

/** Validates with the argument's own callback if it has one, else with its schema; the failure, or `null`. */
export function checkArg(
  value: unknown,
  arg: RouteArg,
  name: string,
  words: ValidationWords,
): ValidationFailure | null {
  if (arg.validate) {
    const result = arg.validate(value, name);
    if (result === true) return null;
    if (result === false) return fail(words, 'invalid', { param: name });
    return typeof result === 'string'
      ? fail(words, 'callback', { param: name, message: result })
      : fail(words, 'callback', { param: name, message: result.message, code: result.code });
  }
  return checkValue(value, arg, name, words);
}

/** Sanitises with the argument's own callback if it has one, else coerces by its schema. */
export function sanitizeArg(value: unknown, arg: RouteArg, name: string): unknown {
  return arg.sanitize ? arg.sanitize(value, name) : sanitizeValue(value, arg);
}
