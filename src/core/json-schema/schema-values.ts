import { textOf } from '../formatting/php-serialize';

/*
 * What the reference counts as a boolean, a number, an integer, a list and a date-time in a request value, which
 * arrives as a string from query strings and forms (rest_is_boolean, is_numeric, rest_is_integer, wp_parse_list,
 * rest_parse_date).
 */

const INTEGER_RE = /^[+-]?\d+$/;
const NUMERIC_RE = /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/;
const DATE_TIME_RE = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|z|[+-]\d{2}(:?\d{2})?)?$/;

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

/** An integer: written in digits (the spec's), or any whole number (WordPress's rest_is_integer()). */
export function isInteger(value: unknown, wholeNumbers: boolean): boolean {
  if (typeof value === 'number') return Number.isInteger(value);
  if (typeof value !== 'string') return false;
  return wholeNumbers ? NUMERIC_RE.test(value) && Number.isInteger(Number(value)) : INTEGER_RE.test(value.trim());
}
