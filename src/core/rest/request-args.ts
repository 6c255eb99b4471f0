import { RestException } from '../errors/rest.exception';
import type { RestRequest } from './rest-request';
import type { RouteEndpoint } from './route-types';
import type { RouteArg } from '../json-schema/json-schema';
import { sanitizeArg, validateArg } from '../json-schema/validate';
import { textBytes } from '../text/text-limits';

/*
 * A request's arguments against its endpoint's declarations (the reference's WP_REST_Request::has_valid_params and
 * sanitize_params): required ones present, sent values valid, every value coerced; defaults checked once per endpoint.
 */

/** Validates the request's parameters; a default in `checked` was validated once, and only a sent value is. */
export function validateArgs(
  req: RestRequest,
  args: ReadonlyArray<[string, RouteArg]>,
  checked: ReadonlySet<string>,
): void {
  const missing = args.filter(([name, arg]) => arg.required === true && !req.has(name)).map(([name]) => name);
  if (missing.length) {
    throw new RestException('rest_missing_callback_param', `Missing parameter(s): ${missing.join(', ')}`, 400, {
      params: missing,
    });
  }
  const invalid: Record<string, string> = {};
  for (const [name, arg] of args) {
    if (checked.has(name) ? !req.sent(name) : !req.has(name)) continue;
    const value = req.get(name);
    if (arg.maxBytes !== undefined && textBytes(value, arg.maxBytes) > arg.maxBytes) {
      invalid[name] = `${name} must be at most ${arg.maxBytes} bytes long.`;
      continue;
    }
    const message = validateArg(value, arg, name);
    if (message) invalid[name] = message;
  }
  if (Object.keys(invalid).length) {
    throw new RestException('rest_invalid_param', `Invalid parameter(s): ${Object.keys(invalid).join(', ')}`, 400, {
      params: invalid,
    });
  }
}

/** Sanitizes the request's parameters; a default in `checked` is sanitized already, and only a sent value is. */
export function sanitizeArgs(
  req: RestRequest,
  args: ReadonlyArray<[string, RouteArg]>,
  checked: ReadonlySet<string>,
): void {
  for (const [name, arg] of args) {
    if (checked.has(name) ? req.sent(name) : req.has(name)) req.set(name, sanitizeArg(req.get(name), arg, name));
  }
}

const ARG_LISTS = new WeakMap<Record<string, RouteArg>, ReadonlyArray<[string, RouteArg]>>();

/**
 * An endpoint's default values, each validated and sanitized once when that gives the same result for every request:
 * a schema default that validates (`checked`: its value here is the sanitized one). A default with its own validate or
 * sanitize callback, or one that does not validate, is checked with each request, as a sent value is.
 */
export function checkedDefaults(
  argsObject: Record<string, RouteArg>,
  args: ReadonlyArray<[string, RouteArg]>,
): { values: Record<string, unknown>; checked: ReadonlySet<string> } {
  let prepared = CHECKED_DEFAULTS.get(argsObject);
  if (!prepared) {
    const values: Record<string, unknown> = {};
    const checked = new Set<string>();
    for (const [name, arg] of args) {
      const value = arg.default;
      if (value === undefined || value === null) continue;
      if (arg.validate || arg.sanitize || validateArg(value, arg, name) !== null) {
        values[name] = value;
        continue;
      }
      values[name] = sanitizeArg(typeof value === 'object' ? copyOf(value) : value, arg, name);
      checked.add(name);
    }
    prepared = { values, checked };
    CHECKED_DEFAULTS.set(argsObject, prepared);
  }
  return prepared;
}

const CHECKED_DEFAULTS = new WeakMap<
  Record<string, RouteArg>,
  { values: Record<string, unknown>; checked: ReadonlySet<string> }
>();

/** An endpoint's arguments as a list, made once per set of arguments (endpoints get theirs when the table freezes). */
export function argList(endpoint: RouteEndpoint): ReadonlyArray<[string, RouteArg]> {
  let list = ARG_LISTS.get(endpoint.args);
  if (!list) {
    list = Object.entries(endpoint.args);
    ARG_LISTS.set(endpoint.args, list);
  }
  return list;
}

/** A copy of a default value: lists of plain values (the usual `[]` or `['publish']`) by slicing, others deeply. */
export function copyOf<T>(value: T): T {
  if (Array.isArray(value) && value.every((item) => item === null || typeof item !== 'object'))
    return value.slice() as T;
  return structuredClone(value);
}
