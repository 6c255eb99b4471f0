import { validateValue } from '../json-schema/validate';
import {
  numberFormatI18n,
  SEED_VALIDATION,
  SEED_VALIDATION_WORDS,
  WORDPRESS_61_VALIDATION as WP,
  WORDPRESS_61_VALIDATION_WORDS,
  WORDPRESS_61_VALIDATION_CODES,
  wordpress61ValidationDetail,
  wpSprintfList,
} from './wordpress-61-validation';

/*
 * Strings marked "seen" were answered by WordPress 6.1 to the request named (GET unless said); the others are
 * rest_validate_value_from_schema()'s templates (wp-includes/rest-api.php) filled in as PHP fills them.
 */

const POST_STATUSES = [
  'publish',
  'future',
  'draft',
  'pending',
  'private',
  'trash',
  'auto-draft',
  'inherit',
  'request-pending',
  'request-confirmed',
  'request-failed',
  'request-completed',
  'any',
];

describe('WORDPRESS_61_VALIDATION', () => {
  it('words enum failures with wp_sprintf lists (seen: ?context=bogus, ?order=up, ?status[]=bogus)', () => {
    expect(WP.enum({ param: 'context', values: ['view', 'embed', 'edit'] })).toBe(
      'context is not one of view, embed, and edit.',
    );
    expect(WP.enum({ param: 'order', values: ['asc', 'desc'] })).toBe('order is not one of asc and desc.');
    expect(WP.enum({ param: 'status[0]', values: POST_STATUSES })).toBe(
      'status[0] is not one of publish, future, draft, pending, private, trash, auto-draft, inherit, request-pending, ' +
        'request-confirmed, request-failed, request-completed, and any.',
    );
    // POST /wp/v2/posts {"comment_status":"x"}
    expect(WP.enum({ param: 'comment_status', values: ['open', 'closed'] })).toBe(
      'comment_status is not one of open and closed.',
    );
  });

  it('words a one-value enum "is not", with values as PHP prints them', () => {
    expect(WP.enum({ param: 'type', values: ['comment'] })).toBe('type is not comment.');
    expect(WP.enum({ param: 'flag', values: [true, false, 3] })).toBe('flag is not one of 1, , and 3.');
    expect(WP.enum({ param: 'shape', values: [{ a: 'x/y' }, [1, 'é']] })).toBe(
      'shape is not one of {"a":"x\\/y"} and [1,"\\u00e9"].',
    );
  });

  it('words type failures with a full stop and the name (seen: ?include=abc, ?sticky=maybe, ?per_page=1.5)', () => {
    expect(WP.type({ param: 'include[0]', type: 'integer' })).toBe('include[0] is not of type integer.');
    expect(WP.type({ param: 'sticky', type: 'boolean', value: 'maybe' })).toBe('sticky is not of type boolean.');
    expect(WP.type({ param: 'per_page', type: 'integer' })).toBe('per_page is not of type integer.');
    // POST /wp/v2/posts {"slug":["a"]}
    expect(WP.type({ param: 'slug', type: 'string' })).toBe('slug is not of type string.');
    expect(WP.types({ param: 'parent', types: ['integer', 'null'] })).toBe('parent is not of type integer,null.');
  });

  it('words bounds as WordPress 6.1 (seen: ?page=0, ?per_page=0, POST media/<id>/edit {"rotation":360})', () => {
    expect(WP.minimum({ param: 'page', minimum: 1 })).toBe('page must be greater than or equal to 1');
    expect(WP.exclusiveMinimum({ param: 'n', minimum: 0 })).toBe('n must be greater than 0');
    expect(WP.maximum({ param: 'n', maximum: 100 })).toBe('n must be less than or equal to 100');
    expect(WP.exclusiveMaximum({ param: 'n', maximum: 100 })).toBe('n must be less than 100');
    const between = { param: 'per_page', minimum: 1, maximum: 100, exclusiveMinimum: false, exclusiveMaximum: false };
    expect(WP.between(between)).toBe('per_page must be between 1 (inclusive) and 100 (inclusive)');
    expect(WP.between({ ...between, param: 'rotation', minimum: 0, maximum: 360, exclusiveMinimum: true })).toBe(
      'rotation must be between 0 (exclusive) and 360 (inclusive)',
    );
    expect(
      WP.between({ param: 'rotation', minimum: 0, maximum: 360, exclusiveMinimum: true, exclusiveMaximum: true }),
    ).toBe('rotation must be between 0 (exclusive) and 360 (exclusive)');
    expect(WP.between({ ...between, exclusiveMaximum: true })).toBe(
      'per_page must be between 1 (inclusive) and 100 (exclusive)',
    );
    // sprintf's %d keeps the integer part of a fractional bound.
    expect(WP.minimum({ param: 'n', minimum: 0.5 })).toBe('n must be greater than or equal to 0');
    expect(WP.multipleOf({ param: 'n', multipleOf: 0.5 })).toBe('n must be a multiple of 0.5.');
  });

  it('words lengths and counts with _n() and number_format_i18n() (seen: POST …/application-passwords {"name":""})', () => {
    expect(WP.minLength({ param: 'name', limit: 1 })).toBe('name must be at least 1 character long.');
    expect(WP.minLength({ param: 'name', limit: 2 })).toBe('name must be at least 2 characters long.');
    expect(WP.maxLength({ param: 'title', limit: 1 })).toBe('title must be at most 1 character long.');
    expect(WP.maxLength({ param: 'title', limit: 1000 })).toBe('title must be at most 1,000 characters long.');
    // POST /wp/v2/media/<id>/edit {"modifiers":[]}
    expect(WP.minItems({ param: 'modifiers', limit: 1 })).toBe('modifiers must contain at least 1 item.');
    expect(WP.minItems({ param: 'tags', limit: 2 })).toBe('tags must contain at least 2 items.');
    expect(WP.maxItems({ param: 'requests', limit: 25 })).toBe('requests must contain at most 25 items.');
    expect(WP.maxItems({ param: 'requests', limit: 1 })).toBe('requests must contain at most 1 item.');
    expect(WP.uniqueItems({ param: 'slug' })).toBe('slug has duplicate items.');
    expect(WP.minProperties({ param: 'meta', limit: 1 })).toBe('meta must contain at least 1 property.');
    expect(WP.maxProperties({ param: 'meta', limit: 2 })).toBe('meta must contain at most 2 properties.');
  });

  it('words object failures (seen: ?categories[bogus]=1 as the reason of a failed oneOf)', () => {
    expect(WP.required({ param: 'content', property: 'raw' })).toBe('raw is a required property of content.');
    expect(WP.additionalProperties({ param: 'categories', property: 'bogus' })).toBe(
      'bogus is not a valid property of Object.',
    );
  });

  it('words patterns and formats (seen: ?after=notadate, comments?author_email=bad, POST comments {"author_ip"})', () => {
    expect(WP.pattern({ param: 'slug', pattern: '[a-z]+' })).toBe('slug does not match pattern [a-z]+.');
    expect(WP.dateTime({ param: 'after', value: 'notadate' })).toBe('Invalid date.');
    expect(WP.email({ param: 'author_email', value: 'bad' })).toBe('Invalid email address.');
    expect(WP.ip({ param: 'author_ip', value: 'notanip' })).toBe('author_ip is not a valid IP address.');
    expect(WP.uuid({ param: 'uuid', value: 'x' })).toBe('uuid is not a valid UUID.');
    expect(WP.hexColor({ param: 'color', value: 'x' })).toBe('Invalid hex color.');
  });

  it('words anyOf/oneOf failures (seen: ?categories=abc, ?categories[operator]=XOR)', () => {
    const reason = 'categories[0] is not of type integer.';
    expect(WP.noMatchingTitled({ param: 'categories', title: 'Term ID List', reason, position: 0 })).toBe(
      'categories is not a valid Term ID List. Reason: categories[0] is not of type integer.',
    );
    expect(
      WP.noMatchingTitled({
        param: 'categories',
        title: 'Term ID Taxonomy Query',
        reason: 'categories[operator] is not one of AND and OR.',
        position: 1,
      }),
    ).toBe('categories is not a valid Term ID Taxonomy Query. Reason: categories[operator] is not one of AND and OR.');
    expect(WP.noMatching({ param: 'x', reason, position: 0 })).toBe(
      'x does not match the expected format. Reason: categories[0] is not of type integer.',
    );
    expect(WP.noMatchingTitles({ param: 'x', titles: ['A', 'B', 'C'] })).toBe('x is not a valid A, B, and C.');
    expect(WP.noMatchingAny({ param: 'x' })).toBe('x does not match any of the expected formats.');
    expect(WP.oneOfMultipleTitled({ param: 'x', titles: ['A', 'B'], positions: [0, 1] })).toBe(
      'x matches A and B, but should match only one.',
    );
    expect(WP.oneOfMultiple({ param: 'x', positions: [0, 1] })).toBe(
      'x matches more than one of the expected formats.',
    );
  });

  it('words a failed own check "Invalid parameter." (seen: POST posts {"meta":"abc"})', () => {
    expect(WP.invalid({ param: 'meta' })).toBe('Invalid parameter.');
  });
});

describe('wordpress61ValidationDetail', () => {
  it('gives the details entries WordPress 6.1 gives (seen: ?per_page=0, ?include=abc, ?categories=abc)', () => {
    expect(
      wordpress61ValidationDetail('between', {
        param: 'per_page',
        minimum: 1,
        maximum: 100,
        exclusiveMinimum: false,
        exclusiveMaximum: false,
      }),
    ).toEqual({
      code: 'rest_out_of_bounds',
      message: 'per_page must be between 1 (inclusive) and 100 (inclusive)',
      data: null,
    });
    expect(wordpress61ValidationDetail('type', { param: 'include[0]', type: 'integer' })).toEqual({
      code: 'rest_invalid_type',
      message: 'include[0] is not of type integer.',
      data: { param: 'include[0]' },
    });
    expect(
      wordpress61ValidationDetail('noMatchingTitled', {
        param: 'categories',
        title: 'Term ID List',
        reason: 'categories[0] is not of type integer.',
        position: 0,
      }),
    ).toEqual({
      code: 'rest_no_matching_schema',
      message: 'categories is not a valid Term ID List. Reason: categories[0] is not of type integer.',
      data: { position: 0 },
    });
    expect(wordpress61ValidationDetail('enum', { param: 'order', values: ['asc', 'desc'] })).toEqual({
      code: 'rest_not_in_enum',
      message: 'order is not one of asc and desc.',
      data: null,
    });
    expect(wordpress61ValidationDetail('dateTime', { param: 'after', value: 'x' })).toEqual({
      code: 'rest_invalid_date',
      message: 'Invalid date.',
      data: null,
    });
    expect(wordpress61ValidationDetail('oneOfMultiple', { param: 'x', positions: [0, 2] })?.data).toEqual({
      positions: [0, 2],
    });
  });

  it('gives none for a failed own check, which WordPress leaves out of details', () => {
    expect(wordpress61ValidationDetail('invalid', { param: 'meta' })).toBeNull();
    expect(WORDPRESS_61_VALIDATION_CODES.invalid).toBeNull();
    // An own check's message: its code is the callback's own, which a RouteArg does not give.
    expect(wordpress61ValidationDetail('callback', { param: 'roles', message: 'Nope.' })).toBeNull();
    expect(WP.callback({ param: 'roles', message: 'Nope.' })).toBe('Nope.');
  });
});

describe('SEED_VALIDATION', () => {
  /** validateValue()'s message for a value against a schema, for the builder the table gives. */
  const check = (value: unknown, schema: Parameters<typeof validateValue>[1], name = 'p') =>
    validateValue(value, schema, name);

  it("words every kind as validate.ts does today (the spec's wording)", () => {
    expect(check('bogus', { type: 'string', enum: ['view', 'embed', 'edit'] }, 'context')).toBe(
      SEED_VALIDATION.enum({ param: 'context', values: ['view', 'embed', 'edit'] }),
    );
    expect(check('abc', { type: 'integer' }, 'per_page')).toBe(
      SEED_VALIDATION.type({ param: 'per_page', type: 'integer', value: 'abc' }),
    );
    expect(check('maybe', { type: 'boolean' }, 'sticky')).toBe(
      SEED_VALIDATION.type({ param: 'sticky', type: 'boolean', value: 'maybe' }),
    );
    expect(check({}, { type: ['integer', 'boolean'] }, 'x')).toBe(
      SEED_VALIDATION.types({ param: 'x', types: ['integer', 'boolean'] }),
    );
    expect(check('0', { type: 'integer', minimum: 1 }, 'page')).toBe(
      SEED_VALIDATION.minimum({ param: 'page', minimum: 1 }),
    );
    expect(check('0', { type: 'integer', minimum: 0, exclusiveMinimum: true })).toBe(
      SEED_VALIDATION.exclusiveMinimum({ param: 'p', minimum: 0 }),
    );
    expect(check('9', { type: 'integer', maximum: 5 })).toBe(SEED_VALIDATION.maximum({ param: 'p', maximum: 5 }));
    expect(check('5', { type: 'integer', maximum: 5, exclusiveMaximum: true })).toBe(
      SEED_VALIDATION.exclusiveMaximum({ param: 'p', maximum: 5 }),
    );
    expect(check('0', { type: 'integer', minimum: 1, maximum: 100 }, 'per_page')).toBe(
      SEED_VALIDATION.between({
        param: 'per_page',
        minimum: 1,
        maximum: 100,
        exclusiveMinimum: false,
        exclusiveMaximum: false,
      }),
    );
    expect(check('', { type: 'string', minLength: 1 })).toBe(SEED_VALIDATION.minLength({ param: 'p', limit: 1 }));
    expect(check('abc', { type: 'string', maxLength: 2 })).toBe(SEED_VALIDATION.maxLength({ param: 'p', limit: 2 }));
    expect(check([], { type: 'array', items: { type: 'integer' }, minItems: 1 })).toBe(
      SEED_VALIDATION.minItems({ param: 'p', limit: 1 }),
    );
    expect(check([1, 2], { type: 'array', items: { type: 'integer' }, maxItems: 1 })).toBe(
      SEED_VALIDATION.maxItems({ param: 'p', limit: 1 }),
    );
    expect(check('A', { type: 'string', pattern: '^[a-z]+$' })).toBe(
      SEED_VALIDATION.pattern({ param: 'p', pattern: '^[a-z]+$' }),
    );
    expect(check('x', { type: 'string', format: 'date-time' })).toBe(
      SEED_VALIDATION.dateTime({ param: 'p', value: 'x' }),
    );
    expect(check('x', { type: 'string', format: 'email' })).toBe(SEED_VALIDATION.email({ param: 'p', value: 'x' }));
    expect(check('x', { type: 'string', format: 'ip' })).toBe(SEED_VALIDATION.ip({ param: 'p', value: 'x' }));
    expect(check('x', { type: 'string', format: 'uuid' })).toBe(SEED_VALIDATION.uuid({ param: 'p', value: 'x' }));
  });

  it('words bounded ranges as WordPress 6.1 does, and the rest in its own way', () => {
    const between = { param: 'per_page', minimum: 1, maximum: 100, exclusiveMinimum: false, exclusiveMaximum: false };
    expect(SEED_VALIDATION.between(between)).toBe(WP.between(between));
    expect(SEED_VALIDATION.minimum({ param: 'page', minimum: 1 })).toBe('page must be greater than 1 (inclusive)');
    expect(SEED_VALIDATION.enum({ param: 'context', values: ['view', 'embed', 'edit'] })).toBe(
      'context is not one of view, embed, edit.',
    );
    expect(SEED_VALIDATION.type({ param: 'sticky', type: 'boolean', value: 'maybe' })).toBe(
      'maybe is not of type boolean',
    );
    expect(SEED_VALIDATION.ip({ param: 'author_ip', value: 'bad' })).toBe('bad is not a valid IP address.');
  });
});

describe('the validation words of each dialect', () => {
  it("pair each dialect's messages with the order it checks in", () => {
    expect(SEED_VALIDATION_WORDS).toEqual({
      messages: SEED_VALIDATION,
      order: {
        enumAfterType: false,
        strings: 'format-pattern-lengths',
        integers: 'integer-then-range',
        wholeNumbers: false,
        typeLists: 'any-valid',
      },
    });
    expect(WORDPRESS_61_VALIDATION_WORDS).toEqual({
      messages: WP,
      order: {
        enumAfterType: true,
        strings: 'lengths-pattern-format',
        integers: 'numeric-range-integer',
        wholeNumbers: true,
        typeLists: 'best-type',
      },
    });
  });
});

describe('formatting helpers', () => {
  it('joins lists as wp_sprintf_l() and numbers as number_format_i18n()', () => {
    expect(wpSprintfList([])).toBe('');
    expect(wpSprintfList(['a'])).toBe('a');
    expect(wpSprintfList(['a', 'b'])).toBe('a and b');
    expect(wpSprintfList(['a', 'b', 'c'])).toBe('a, b, and c');
    expect(numberFormatI18n(1234567)).toBe('1,234,567');
    expect(numberFormatI18n(2.5)).toBe('3');
    expect(numberFormatI18n(-1000)).toBe('-1,000');
  });
});
