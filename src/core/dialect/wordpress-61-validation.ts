/**
 * The messages of schema validation (`rest_invalid_param`'s `params`), by kind, in the spec's wording (the 4.7-era
 * reference's, as src/core/json-schema/validate.ts words them) and in WordPress 6.1's (rest_validate_value_from_schema()
 * and its helpers in wp-includes/rest-api.php), so that validation can take its words from the dialect.
 *
 * ## `data.details` (WordPress 6.1, WP_REST_Request::has_valid_params() and ::sanitize_params())
 *
 * A `rest_invalid_param` error's `data` is `{ status: 400, params, details }`:
 * - `params`: parameter name → the message of its first failure (`implode(' ', get_error_messages())`: one message).
 * - `details`: parameter name → `rest_convert_error_to_response($error)->get_data()` of that failure, that is
 *   `{ code, message, data }`: the failure's own code (see {@link WORDPRESS_61_VALIDATION_CODES}), the same message as
 *   in `params`, and the data the failure was made with, `null` when it has none. Only type failures carry data
 *   (`{ param: <name> }`, the name of the value that failed, `include[0]` for an item); a failed `anyOf`/`oneOf` carries
 *   `{ position: <index of the schema reported> }`, and `oneOf` matching several `{ positions: [<indexes>] }` (see
 *   {@link wordpress61ValidationDetail}). A failure with several data would add `additional_data`; none has.
 * - A `validate_callback` that answers `false` (not a WP_Error) puts "Invalid parameter." in `params` and nothing in
 *   `details`; when no parameter has an entry, `details` is an empty PHP array, sent as `[]` (not `{}`). Seen on
 *   WordPress 6.1: `POST /wp/v2/posts {"meta":"abc"}` → `params: { meta: 'Invalid parameter.' }, details: []`.
 * - Parameters are checked in two passes, each stopping the request with its own error: first every argument's
 *   `validate_callback` (for schema arguments rest_validate_request_arg(); the names in `message` and the keys in
 *   `params`/`details` in the order the route declares its arguments), then, when all are valid, every sent value's
 *   `sanitize_callback` (rest_parse_request_arg() validates again; the users controller's `username` and `password`
 *   checks fail here, with their own codes: `rest_user_invalid_username`, `rest_user_invalid_password`), in the order
 *   of the request's parameter sources (`GET`, `POST`, `FILES`, `JSON`, `defaults`) and of the keys in each.
 * - Example: `GET /wp/v2/posts?per_page=0` → `params: { per_page: 'per_page must be between 1 (inclusive) and 100
 *   (inclusive)' }`, `details: { per_page: { code: 'rest_out_of_bounds', message: <the same>, data: null } }`.
 *
 * WordPress 6.1 checks a value's type before its `enum`, and a string's `minLength`/`maxLength` before its `pattern`;
 * the `format` keyword `uri` is not validated by either dialect, so it has no message.
 */

/** The inputs of each kind of validation message; `param` is the name of the value (`tags[0]` for an item). */
export interface ValidationMessageInputs {
  /** The value is not one of `enum`'s. */
  enum: { param: string; values: readonly unknown[] };
  /** The value is not of the one `type`; `value` for the spec's boolean wording, which names the value. */
  type: { param: string; type: string; value?: unknown };
  /** The value is of none of the `type` list's types. */
  types: { param: string; types: readonly string[] };
  /** Below an inclusive `minimum` (no `maximum`). */
  minimum: { param: string; minimum: number };
  /** Not above an exclusive `minimum` (no `maximum`). */
  exclusiveMinimum: { param: string; minimum: number };
  /** Above an inclusive `maximum` (no `minimum`). */
  maximum: { param: string; maximum: number };
  /** Not below an exclusive `maximum` (no `minimum`). */
  exclusiveMaximum: { param: string; maximum: number };
  /** Outside `minimum`..`maximum`, each bound inclusive or exclusive. */
  between: {
    param: string;
    minimum: number;
    maximum: number;
    exclusiveMinimum: boolean;
    exclusiveMaximum: boolean;
  };
  /** Not a multiple of `multipleOf`. */
  multipleOf: { param: string; multipleOf: number };
  /** Shorter than `minLength` characters. */
  minLength: { param: string; limit: number };
  /** Longer than `maxLength` characters. */
  maxLength: { param: string; limit: number };
  /** Fewer items than `minItems`. */
  minItems: { param: string; limit: number };
  /** More items than `maxItems`. */
  maxItems: { param: string; limit: number };
  /** Twice the same item with `uniqueItems`. */
  uniqueItems: { param: string };
  /** Fewer properties than `minProperties`. */
  minProperties: { param: string; limit: number };
  /** More properties than `maxProperties`. */
  maxProperties: { param: string; limit: number };
  /** A `required` property missing. */
  required: { param: string; property: string };
  /** A property `additionalProperties: false` forbids. */
  additionalProperties: { param: string; property: string };
  /** Not matching `pattern`. */
  pattern: { param: string; pattern: string };
  /** `format: date-time`. */
  dateTime: { param: string; value: string };
  /** `format: email`. */
  email: { param: string; value: string };
  /** `format: ip`. */
  ip: { param: string; value: string };
  /** `format: uuid`. */
  uuid: { param: string; value: string };
  /** `format: hex-color`. */
  hexColor: { param: string; value: string };
  /** `anyOf`/`oneOf`: one failure reported (the only one, or the best), its schema has a `title`. */
  noMatchingTitled: { param: string; title: string; reason: string; position: number };
  /** `anyOf`/`oneOf`: one failure reported, its schema has no `title`. */
  noMatching: { param: string; reason: string; position: number };
  /** `anyOf`/`oneOf`: several failures, every schema has a `title`. */
  noMatchingTitles: { param: string; titles: readonly string[] };
  /** `anyOf`/`oneOf`: several failures, not every schema has a `title`. */
  noMatchingAny: { param: string };
  /** `oneOf`: several schemas match, each has a `title`. */
  oneOfMultipleTitled: { param: string; titles: readonly string[]; positions: readonly number[] };
  /** `oneOf`: several schemas match, not each has a `title`. */
  oneOfMultiple: { param: string; positions: readonly number[] };
  /** An argument's own check answered `false`. */
  invalid: { param: string };
  /** An argument's own check answered with its own message (WordPress: a WP_Error of the callback's own code). */
  callback: { param: string; message: string; code?: string };
  /** (cms-api only, request-args.ts) a text longer than the bytes its column holds. */
  maxBytes: { param: string; limit: number };
}

/** A kind of validation message. */
export type ValidationMessageKind = keyof ValidationMessageInputs;

/** A dialect's validation messages: one builder per kind. */
export type ValidationMessages = {
  readonly [K in ValidationMessageKind]: (input: ValidationMessageInputs[K]) => string;
};

/** PHP's `sprintf('%d')` of a number: its integer part. */
const phpInt = (n: number): string => String(Math.trunc(n) || 0);

/** number_format_i18n() (en_US): rounded half away from zero, thousands separated by commas. */
export function numberFormatI18n(n: number): string {
  const rounded = Math.sign(n) * Math.round(Math.abs(n));
  const digits = String(Math.abs(rounded)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return rounded < 0 ? `-${digits}` : digits;
}

/** _n() in English: the singular for exactly 1. */
const plural = (n: number, one: string, many: string): string => (n === 1 ? one : many);

/** wp_json_encode(): slashes and non-ASCII characters escaped, as PHP's json_encode() does by default. */
function wpJsonEncode(value: unknown): string {
  return (JSON.stringify(value) ?? 'null')
    .replace(/\//g, '\\/')
    .replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** An enum value as rest_validate_enum() lists it: scalars as PHP prints them, others JSON-encoded. */
function enumValueText(value: unknown): string {
  if (typeof value === 'boolean') return value ? '1' : '';
  if (typeof value === 'string' || typeof value === 'number') return String(value);
  return wpJsonEncode(value);
}

/** wp_sprintf()'s `%l`: "a", "a and b", "a, b, and c". */
export function wpSprintfList(items: readonly string[]): string {
  if (items.length <= 2) return items.join(' and ');
  return `${items.slice(0, -1).join(', ')}, and ${items[items.length - 1]}`;
}

const bound = (exclusive: boolean): string => (exclusive ? 'exclusive' : 'inclusive');

/** WordPress 6.1's wording (rest_validate_value_from_schema() and the functions it calls). */
export const WORDPRESS_61_VALIDATION: ValidationMessages = {
  enum: ({ param, values }) =>
    values.length === 1
      ? `${param} is not ${enumValueText(values[0])}.`
      : `${param} is not one of ${wpSprintfList(values.map(enumValueText))}.`,
  type: ({ param, type }) => `${param} is not of type ${type}.`,
  types: ({ param, types }) => `${param} is not of type ${types.join(',')}.`,
  minimum: ({ param, minimum }) => `${param} must be greater than or equal to ${phpInt(minimum)}`,
  exclusiveMinimum: ({ param, minimum }) => `${param} must be greater than ${phpInt(minimum)}`,
  maximum: ({ param, maximum }) => `${param} must be less than or equal to ${phpInt(maximum)}`,
  exclusiveMaximum: ({ param, maximum }) => `${param} must be less than ${phpInt(maximum)}`,
  between: ({ param, minimum, maximum, exclusiveMinimum, exclusiveMaximum }) =>
    `${param} must be between ${phpInt(minimum)} (${bound(exclusiveMinimum)}) and ${phpInt(maximum)} (${bound(exclusiveMaximum)})`,
  multipleOf: ({ param, multipleOf }) => `${param} must be a multiple of ${multipleOf}.`,
  minLength: ({ param, limit }) =>
    `${param} must be at least ${numberFormatI18n(limit)} ${plural(limit, 'character', 'characters')} long.`,
  maxLength: ({ param, limit }) =>
    `${param} must be at most ${numberFormatI18n(limit)} ${plural(limit, 'character', 'characters')} long.`,
  minItems: ({ param, limit }) =>
    `${param} must contain at least ${numberFormatI18n(limit)} ${plural(limit, 'item', 'items')}.`,
  maxItems: ({ param, limit }) =>
    `${param} must contain at most ${numberFormatI18n(limit)} ${plural(limit, 'item', 'items')}.`,
  uniqueItems: ({ param }) => `${param} has duplicate items.`,
  minProperties: ({ param, limit }) =>
    `${param} must contain at least ${numberFormatI18n(limit)} ${plural(limit, 'property', 'properties')}.`,
  maxProperties: ({ param, limit }) =>
    `${param} must contain at most ${numberFormatI18n(limit)} ${plural(limit, 'property', 'properties')}.`,
  required: ({ param, property }) => `${property} is a required property of ${param}.`,
  additionalProperties: ({ property }) => `${property} is not a valid property of Object.`,
  pattern: ({ param, pattern }) => `${param} does not match pattern ${pattern}.`,
  dateTime: () => 'Invalid date.',
  email: () => 'Invalid email address.',
  // WordPress names the parameter, not the value.
  ip: ({ param }) => `${param} is not a valid IP address.`,
  uuid: ({ param }) => `${param} is not a valid UUID.`,
  hexColor: () => 'Invalid hex color.',
  noMatchingTitled: ({ param, title, reason }) => `${param} is not a valid ${title}. Reason: ${reason}`,
  noMatching: ({ param, reason }) => `${param} does not match the expected format. Reason: ${reason}`,
  noMatchingTitles: ({ param, titles }) => `${param} is not a valid ${wpSprintfList(titles)}.`,
  noMatchingAny: ({ param }) => `${param} does not match any of the expected formats.`,
  oneOfMultipleTitled: ({ param, titles }) => `${param} matches ${wpSprintfList(titles)}, but should match only one.`,
  oneOfMultiple: ({ param }) => `${param} matches more than one of the expected formats.`,
  invalid: () => 'Invalid parameter.',
  callback: ({ message }) => message,
  maxBytes: ({ param, limit }) => `${param} must be at most ${limit} bytes long.`,
};

/**
 * The spec's wording, as validate.ts (and request-args.ts for `maxBytes`) words it today. Kinds validate.ts does not
 * check (uniqueItems, multipleOf, properties, hex colours, anyOf/oneOf) have no wording in the spec: WordPress's is
 * used for them.
 */
export const SEED_VALIDATION: ValidationMessages = {
  ...WORDPRESS_61_VALIDATION,
  enum: ({ param, values }) => `${param} is not one of ${values.join(', ')}.`,
  // The reference names the value for booleans, and ends neither with a full stop.
  type: ({ param, type, value }) =>
    type === 'boolean' ? `${String(value)} is not of type boolean` : `${param} is not of type ${type}`,
  types: ({ param, types }) => `${param} is not of type ${types.join(',')}.`,
  minimum: ({ param, minimum }) => `${param} must be greater than ${minimum} (inclusive)`,
  exclusiveMinimum: ({ param, minimum }) => `${param} must be greater than ${minimum} (exclusive)`,
  maximum: ({ param, maximum }) => `${param} must be less than ${maximum} (inclusive)`,
  exclusiveMaximum: ({ param, maximum }) => `${param} must be less than ${maximum} (exclusive)`,
  between: ({ param, minimum, maximum, exclusiveMinimum, exclusiveMaximum }) =>
    `${param} must be between ${minimum} (${bound(exclusiveMinimum)}) and ${maximum} (${bound(exclusiveMaximum)})`,
  minLength: ({ param, limit }) => `${param} must be at least ${limit} character${limit === 1 ? '' : 's'} long.`,
  maxLength: ({ param, limit }) => `${param} must be at most ${limit} character${limit === 1 ? '' : 's'} long.`,
  minItems: ({ param, limit }) => `${param} must contain at least ${limit} items.`,
  maxItems: ({ param, limit }) => `${param} must contain at most ${limit} items.`,
  pattern: ({ param, pattern }) => `${param} does not match pattern ${pattern}.`,
  dateTime: () => 'The date you provided is invalid.',
  email: () => 'The email address you provided is invalid.',
  ip: ({ value }) => `${value} is not a valid IP address.`,
  uuid: ({ param }) => `${param} is not a valid UUID.`,
  invalid: () => 'Invalid parameter.',
  callback: ({ message }) => message,
  maxBytes: ({ param, limit }) => `${param} must be at most ${limit} bytes long.`,
};

/**
 * WordPress 6.1's error code of each kind (a `details` entry's `code`); `null` where WordPress has no such failure
 * and gives no `details` entry (an argument's own `false`, and cms-api's byte limit).
 */
export const WORDPRESS_61_VALIDATION_CODES: { readonly [K in ValidationMessageKind]: string | null } = {
  enum: 'rest_not_in_enum',
  type: 'rest_invalid_type',
  types: 'rest_invalid_type',
  minimum: 'rest_out_of_bounds',
  exclusiveMinimum: 'rest_out_of_bounds',
  maximum: 'rest_out_of_bounds',
  exclusiveMaximum: 'rest_out_of_bounds',
  between: 'rest_out_of_bounds',
  multipleOf: 'rest_invalid_multiple',
  minLength: 'rest_too_short',
  maxLength: 'rest_too_long',
  minItems: 'rest_too_few_items',
  maxItems: 'rest_too_many_items',
  uniqueItems: 'rest_duplicate_items',
  minProperties: 'rest_too_few_properties',
  maxProperties: 'rest_too_many_properties',
  required: 'rest_property_required',
  additionalProperties: 'rest_additional_properties_forbidden',
  pattern: 'rest_invalid_pattern',
  dateTime: 'rest_invalid_date',
  email: 'rest_invalid_email',
  ip: 'rest_invalid_ip',
  uuid: 'rest_invalid_uuid',
  hexColor: 'rest_invalid_hex_color',
  noMatchingTitled: 'rest_no_matching_schema',
  noMatching: 'rest_no_matching_schema',
  noMatchingTitles: 'rest_no_matching_schema',
  noMatchingAny: 'rest_no_matching_schema',
  oneOfMultipleTitled: 'rest_one_of_multiple_matches',
  oneOfMultiple: 'rest_one_of_multiple_matches',
  invalid: null,
  // A callback's own code, when it answers one (see wordpress61ValidationCode); a bare message gets no entry.
  callback: null,
  maxBytes: null,
};

/** A `data.details` entry of WordPress 6.1's `rest_invalid_param`. */
export interface ValidationDetail {
  code: string;
  message: string;
  data: Record<string, unknown> | null;
}

/** The data WordPress 6.1 makes a failure of this kind with (`null`: none). */
export function wordpress61DetailData<K extends ValidationMessageKind>(
  kind: K,
  input: ValidationMessageInputs[K],
): Record<string, unknown> | null {
  const any = input as Partial<{ param: string; position: number; positions: readonly number[] }>;
  if (kind === 'type' || kind === 'types') return { param: any.param };
  if (kind === 'noMatchingTitled' || kind === 'noMatching') return { position: any.position };
  if (kind === 'oneOfMultipleTitled' || kind === 'oneOfMultiple') return { positions: [...(any.positions ?? [])] };
  return null;
}

/** The code of WordPress 6.1's error for a failure (a callback's own, if it answered one); `null`: none. */
export function wordpress61ValidationCode<K extends ValidationMessageKind>(
  kind: K,
  input: ValidationMessageInputs[K],
): string | null {
  if (kind === 'callback') return (input as ValidationMessageInputs['callback']).code ?? null;
  return WORDPRESS_61_VALIDATION_CODES[kind];
}

/** The `details` entry WordPress 6.1 gives a failure of this kind, or `null` when it gives none. */
export function wordpress61ValidationDetail<K extends ValidationMessageKind>(
  kind: K,
  input: ValidationMessageInputs[K],
): ValidationDetail | null {
  const code = wordpress61ValidationCode(kind, input);
  if (code === null) return null;
  const build = WORDPRESS_61_VALIDATION[kind] as (input: ValidationMessageInputs[K]) => string;
  return { code, message: build(input), data: wordpress61DetailData(kind, input) };
}

/**
 * The order a dialect checks a value's keywords in, and how it reads types (validate.ts follows it).
 *
 * The spec's: `enum` first, then the type, an array's items and counts, an object's properties, a string's `format`,
 * `pattern`, `minLength`, `maxLength`, and a number's range; a list of types is met when the value is valid for one
 * of them; an integer is written in digits.
 *
 * WordPress 6.1's (rest_validate_value_from_schema()): the type and its own keywords first (a number: numeric, then
 * its range, then, for an integer, whole; a string: `minLength`, `maxLength`, `pattern`; an array: its items and
 * counts), then `enum`, then a string's `format`; a list of types is read as its best type for the value
 * (rest_get_best_type_for_value()), which is then checked; an integer is any whole number (`2.0`, `1e1`, ` 5`).
 */
export interface ValidationOrder {
  /** `enum` is checked after the type and its keywords (WordPress's), not before the type (the spec's). */
  readonly enumAfterType: boolean;
  /** A string's checks: `format`, `pattern`, lengths (the spec's) or lengths, `pattern`, (`enum`), `format`. */
  readonly strings: 'format-pattern-lengths' | 'lengths-pattern-format';
  /** An integer: whole, then its range (the spec's), or numeric, its range, then whole (WordPress's). */
  readonly integers: 'integer-then-range' | 'numeric-range-integer';
  /** An integer is written in digits (the spec's) or is any whole number (WordPress's rest_is_integer()). */
  readonly wholeNumbers: boolean;
  /** A list of types: met by any type the value is valid for (the spec's) or checked as its best type. */
  readonly typeLists: 'any-valid' | 'best-type';
}

/** A dialect's validation: its messages and the order it checks in. */
export interface ValidationWords {
  readonly messages: ValidationMessages;
  readonly order: ValidationOrder;
}

/** The spec's validation (validate.ts's own). */
export const SEED_VALIDATION_WORDS: ValidationWords = {
  messages: SEED_VALIDATION,
  order: {
    enumAfterType: false,
    strings: 'format-pattern-lengths',
    integers: 'integer-then-range',
    wholeNumbers: false,
    typeLists: 'any-valid',
  },
};

/** WordPress 6.1's validation. */
export const WORDPRESS_61_VALIDATION_WORDS: ValidationWords = {
  messages: WORDPRESS_61_VALIDATION,
  order: {
    enumAfterType: true,
    strings: 'lengths-pattern-format',
    integers: 'numeric-range-integer',
    wholeNumbers: true,
    typeLists: 'best-type',
  },
};
