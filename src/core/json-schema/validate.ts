import { escUrlRaw } from '../formatting/esc-url';
import { isEmail } from '../formatting/is-email';
import { JsonSchema, JsonSchemaType, RouteArg } from './json-schema';
import { textOf } from '../formatting/php-serialize';

/**
 * Schema validation and coercion of request values, following the reference's `rest_validate_request_arg`
 * and `rest_sanitize_request_arg`: values arrive as strings from query strings and forms and are coerced to
 * the declared type after they validate. Messages are the reference's.
 */

const INTEGER_RE = /^[+-]?\d+$/;
const NUMERIC_RE = /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/;
const DATE_TIME_RE = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|z|[+-]\d{2}(:?\d{2})?)?$/;
const IPV4_RE = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/** `true` for the boolean-like values the reference accepts. */
export function isBooleanLike(value: unknown): boolean {
  if (typeof value === 'boolean') return true;
  if (typeof value === 'number') return value === 0 || value === 1;
  if (typeof value === 'string') return ['true', 'false', '1', '0'].includes(value.toLowerCase());
  return false;
}

/** The reference's `rest_sanitize_boolean`. */
export function toBoolean(value: unknown): boolean {
  if (typeof value === 'string') {
    const v = value.toLowerCase();
    return !(v === 'false' || v === '0' || v === '');
  }
  return Boolean(value);
}

/** `true` for numbers and numeric strings (PHP `is_numeric`). */
export function isNumeric(value: unknown): boolean {
  if (typeof value === 'number') return Number.isFinite(value);
  return typeof value === 'string' && NUMERIC_RE.test(value);
}

/** Splits a list given as an array or a comma/space separated string (`wp_parse_list`). */
export function parseList(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  if (value === undefined || value === null || value === '') return [];
  if (typeof value === 'object') return Object.values(value as Record<string, unknown>);
  return textOf(value)
    .split(/[\s,]+/)
    .filter((part) => part !== '');
}

/** WordPress's `wp_parse_id_list()`: whole, non-negative ids from a list, a comma-separated string or one value, once each. */
export function parseIdList(value: unknown): number[] {
  const ids = parseList(value)
    .map((v) => Math.abs(Math.trunc(Number(v))))
    .filter((n) => Number.isFinite(n));
  return [...new Set(ids)];
}

/** Parses a date-time the way `rest_parse_date` does; returns the timestamp in ms or `null`. */
export function parseDateTime(value: string, forceUtc = false): number | null {
  const m = DATE_TIME_RE.exec(value);
  if (!m) return null;
  const [, y, mo, d, h, mi, s, , tz] = m;
  const month = Number(mo);
  const day = Number(d);
  if (month < 1 || month > 12 || day < 1 || day > 31 || Number(h) > 23 || Number(mi) > 59 || Number(s) > 59)
    return null;
  const base = Date.UTC(Number(y), month - 1, day, Number(h), Number(mi), Number(s));
  const probe = new Date(base);
  if (probe.getUTCDate() !== day) return null;
  if (!tz || forceUtc || tz === 'Z' || tz === 'z') return base;
  const sign = tz[0] === '-' ? -1 : 1;
  const digits = tz.slice(1).replace(':', '');
  const offset = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || 0);
  return base - sign * offset * 60_000;
}

function primaryType(schema: JsonSchema): JsonSchemaType | undefined {
  return Array.isArray(schema.type) ? schema.type[0] : schema.type;
}

function typeMatches(value: unknown, type: JsonSchemaType): boolean {
  switch (type) {
    case 'integer':
      return typeof value === 'number'
        ? Number.isInteger(value)
        : typeof value === 'string' && INTEGER_RE.test(value.trim());
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

function rangeMessage(name: string, schema: JsonSchema): string {
  const min = schema.minimum;
  const max = schema.maximum;
  const minKind = schema.exclusiveMinimum ? 'exclusive' : 'inclusive';
  const maxKind = schema.exclusiveMaximum ? 'exclusive' : 'inclusive';
  if (min !== undefined && max !== undefined)
    return `${name} must be between ${min} (${minKind}) and ${max} (${maxKind})`;
  if (min !== undefined) return `${name} must be greater than ${min} (${minKind})`;
  return `${name} must be less than ${max} (${maxKind})`;
}

/**
 * Validates `value` against `schema`. Returns `null` when valid, otherwise the message the reference gives.
 * `name` is the parameter name used in messages (`tags[0]` for array items).
 */
export function validateValue(value: unknown, schema: JsonSchema, name: string): string | null {
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (types.length > 1) {
    const ok = types.some((t) => validateValue(value, { ...schema, type: t }, name) === null);
    return ok ? null : `${name} is not of type ${types.join(',')}.`;
  }
  const type = types[0];
  if (schema.enum && schema.enum.length && !(type === 'array')) {
    // Loose comparison, like PHP's in_array: '1' matches 1.
    if (!schema.enum.some((option) => String(option) === String(value))) {
      return `${name} is not one of ${schema.enum.join(', ')}.`;
    }
  }
  if (type && !typeMatches(value, type)) {
    return type === 'boolean' ? `${String(value)} is not of type boolean` : `${name} is not of type ${type}`;
  }
  if (type === 'array' && schema.items) {
    const items = parseList(value);
    for (let i = 0; i < items.length; i++) {
      const message = validateValue(items[i], schema.items, `${name}[${i}]`);
      if (message) return message;
    }
    if (schema.minItems !== undefined && items.length < schema.minItems)
      return `${name} must contain at least ${schema.minItems} items.`;
    if (schema.maxItems !== undefined && items.length > schema.maxItems)
      return `${name} must contain at most ${schema.maxItems} items.`;
  }
  if (type === 'object' && schema.properties && typeof value === 'object' && value !== null) {
    for (const [key, sub] of Object.entries(schema.properties)) {
      const v = (value as Record<string, unknown>)[key];
      if (v === undefined || v === null) continue;
      const message = validateValue(v, sub, `${name}[${key}]`);
      if (message) return message;
    }
  }
  if (type === 'string' || (!type && typeof value === 'string')) {
    const text = String(value);
    switch (schema.format) {
      case 'date-time':
        if (parseDateTime(text) === null) return 'The date you provided is invalid.';
        break;
      case 'email':
        // WordPress's is_email(): at least 6 characters, a dotted domain of valid labels.
        if (!isEmail(text)) return 'The email address you provided is invalid.';
        break;
      case 'ip':
      case 'ipv4':
        if (!IPV4_RE.test(text) && !isIpv6(text)) return `${text} is not a valid IP address.`;
        break;
      // `uri` is not validated (as in the reference and WordPress): sanitizing gives it esc_url_raw's form.
      case 'uuid':
        if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(text))
          return `${name} is not a valid UUID.`;
        break;
    }
    if (typeof schema.pattern === 'string' && !safePattern(schema.pattern).test(text)) {
      return `${name} does not match pattern ${schema.pattern}.`;
    }
    if (schema.minLength !== undefined && [...text].length < schema.minLength) {
      return `${name} must be at least ${schema.minLength} character${schema.minLength === 1 ? '' : 's'} long.`;
    }
    if (schema.maxLength !== undefined && [...text].length > schema.maxLength) {
      return `${name} must be at most ${schema.maxLength} character${schema.maxLength === 1 ? '' : 's'} long.`;
    }
  }
  if ((type === 'integer' || type === 'number') && (schema.minimum !== undefined || schema.maximum !== undefined)) {
    const n = Number(value);
    const belowMin =
      schema.minimum !== undefined && (schema.exclusiveMinimum ? n <= schema.minimum : n < schema.minimum);
    const aboveMax =
      schema.maximum !== undefined && (schema.exclusiveMaximum ? n >= schema.maximum : n > schema.maximum);
    if (belowMin || aboveMax) return rangeMessage(name, schema);
  }
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

/** Validates with the argument's own callback if it has one, else with its schema. */
export function validateArg(value: unknown, arg: RouteArg, name: string): string | null {
  if (arg.validate) {
    const result = arg.validate(value, name);
    if (result === true) return null;
    return result === false ? 'Invalid parameter.' : result;
  }
  return validateValue(value, arg, name);
}

/** Sanitises with the argument's own callback if it has one, else coerces by its schema. */
export function sanitizeArg(value: unknown, arg: RouteArg, name: string): unknown {
  return arg.sanitize ? arg.sanitize(value, name) : sanitizeValue(value, arg);
}
