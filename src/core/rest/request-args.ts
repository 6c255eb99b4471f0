import { RestException } from '../errors/rest.exception';
import type { RestRequest } from './rest-request';
import type { RouteEndpoint } from './route-types';
import type { RouteArg } from '../json-schema/json-schema';
import { checkArg, sanitizeArg, validateArg, type ValidationFailure } from '../json-schema/validate';
import {
  wordpress61ValidationCode,
  wordpress61DetailData,
  type ValidationDetail,
  type ValidationWords,
} from '../dialect/wordpress-61-validation';
import { textBytes } from '../text/text-limits';

/*
 * A request's arguments against its endpoint's declarations (the reference's WP_REST_Request::has_valid_params and
 * sanitize_params): required ones present, sent values valid, every value coerced; defaults checked once per endpoint.
 * Failures are worded, ordered and (with `invalidParamDetails`) detailed as the request's dialect says.
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
  if (req.ctx.wire.dialect.validationPasses === 'one') return checkArgs(req, args, checked);
  // WordPress's two passes: the arguments with a validate callback, in the route's order; then the others, in the
  // order the request sent them. The second runs only when the first found nothing.
  const first: Array<[string, RouteArg]> = [];
  const later = new Map<string, RouteArg>();
  for (const entry of args) {
    // A validate callback of its own is one too (an extension's `validate`, WordPress's `validate_callback`).
    if (entry[1].checkedFirst ?? entry[1].validate !== undefined) first.push(entry);
    else later.set(entry[0], entry[1]);
  }
  checkArgs(req, first, checked);
  checkArgs(req, inRequestOrder(req, later), checked);
}

/** The arguments in the order the request gives them: the JSON body's, the form body's, the query's, then the rest. */
function inRequestOrder(req: RestRequest, args: ReadonlyMap<string, RouteArg>): Array<[string, RouteArg]> {
  const ordered: Array<[string, RouteArg]> = [];
  const seen = new Set<string>();
  const take = (name: string) => {
    const arg = args.get(name);
    if (arg !== undefined && !seen.has(name)) {
      seen.add(name);
      ordered.push([name, arg]);
    }
  };
  for (const bucket of req.sentBuckets()) for (const name in bucket) take(name);
  for (const name of args.keys()) take(name);
  return ordered;
}

/** Checks the arguments in the order given: every failure of them in one `400 rest_invalid_param`. */
function checkArgs(req: RestRequest, args: ReadonlyArray<[string, RouteArg]>, checked: ReadonlySet<string>): void {
  const dialect = req.ctx.wire.dialect;
  const words = dialect.validation;
  let invalid: Record<string, string> | null = null;
  // WordPress's `data.details`: each failed parameter's own error (not every failure has one); made on failure only.
  let details: Record<string, ValidationDetail> | null = null;
  for (const [name, arg] of args) {
    if (checked.has(name) ? !req.sent(name) : !req.has(name)) continue;
    const value = req.get(name);
    const failure =
      arg.maxBytes !== undefined && textBytes(value, arg.maxBytes) > arg.maxBytes
        ? tooManyBytes(name, arg.maxBytes, words)
        : checkArg(value, arg, name, words);
    if (failure === null) continue;
    (invalid ??= {})[name] = failure.message;
    const code = dialect.invalidParamDetails ? wordpress61ValidationCode(failure.kind, failure.input) : null;
    if (code !== null)
      (details ??= {})[name] = {
        code,
        message: failure.message,
        data: wordpress61DetailData(failure.kind, failure.input),
      };
  }
  if (invalid !== null) {
    const data: Record<string, unknown> = { params: invalid };
    // PHP sends an empty array as `[]`.
    if (dialect.invalidParamDetails) data.details = details ?? [];
    throw new RestException(
      'rest_invalid_param',
      `Invalid parameter(s): ${Object.keys(invalid).join(', ')}`,
      400,
      data,
    );
  }
}

/** The failure of a text longer than the bytes its column holds (cms-api's own check, before any other). */
function tooManyBytes(name: string, limit: number, words: ValidationWords): ValidationFailure {
  const input = { param: name, limit };
  return { kind: 'maxBytes', input, message: words.messages.maxBytes(input) };
}

/**
 * A `400 rest_invalid_param` for one parameter a handler found invalid (as WP_REST_Request::has_valid_params words
 * it), with WordPress's `details` where the dialect has them: the parameter's own error (`code`, and its `data`).
 */
export function invalidParam(
  req: RestRequest,
  name: string,
  message: string,
  own: { code: string; data?: unknown },
): RestException {
  const data: Record<string, unknown> = { params: { [name]: message } };
  if (req.ctx.wire.dialect.invalidParamDetails)
    data.details = { [name]: { code: own.code, message, data: own.data ?? null } };
  return new RestException('rest_invalid_param', `Invalid parameter(s): ${name}`, 400, data);
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
