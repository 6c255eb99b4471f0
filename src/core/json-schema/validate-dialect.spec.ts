import {
  SEED_VALIDATION_WORDS as SEED,
  WORDPRESS_61_VALIDATION_WORDS as WP,
  type ValidationWords,
} from '../dialect/wordpress-61-validation';
import type { JsonSchema, RouteArg } from './json-schema';
import { checkArg, checkValue, validateArg, validateValue } from './validate';

/*
 * validateValue() in each dialect's words and order. "Seen" marks what WordPress 6.1 answered to the request named;
 * the others follow rest_validate_value_from_schema() (wp-includes/rest-api.php).
 */

const CONTEXT: JsonSchema = { type: 'string', enum: ['view', 'embed', 'edit'] };
const PER_PAGE: JsonSchema = { type: 'integer', minimum: 1, maximum: 100 };
const IDS: JsonSchema = { type: 'array', items: { type: 'integer' } };

const inWords = (words: ValidationWords) => (value: unknown, schema: JsonSchema, name: string) =>
  validateValue(value, schema, name, words);
const wp = inWords(WP);
const seed = inWords(SEED);

describe("validateValue in WordPress 6.1's words", () => {
  it('words enums, types, bounds and formats as WordPress (seen: ?context=bogus&per_page=0, ?include=abc, ?after=x)', () => {
    expect(wp('bogus', CONTEXT, 'context')).toBe('context is not one of view, embed, and edit.');
    expect(wp('0', PER_PAGE, 'per_page')).toBe('per_page must be between 1 (inclusive) and 100 (inclusive)');
    expect(wp('0', { type: 'integer', minimum: 1 }, 'page')).toBe('page must be greater than or equal to 1');
    expect(wp('abc', IDS, 'include')).toBe('include[0] is not of type integer.');
    expect(wp(['1', 'x'], IDS, 'include')).toBe('include[1] is not of type integer.');
    expect(wp('maybe', { type: 'boolean' }, 'sticky')).toBe('sticky is not of type boolean.');
    expect(wp('notadate', { type: 'string', format: 'date-time' }, 'after')).toBe('Invalid date.');
    expect(wp('bad', { type: 'string', format: 'email' }, 'author_email')).toBe('Invalid email address.');
    expect(wp(['a'], { type: 'string' }, 'slug')).toBe('slug is not of type string.');
  });

  it('names the parameter of a bad IP address, not the value (seen: POST comments {"author_ip":"notanip"})', () => {
    expect(wp('notanip', { type: 'string', format: 'ip' }, 'author_ip')).toBe('author_ip is not a valid IP address.');
    expect(seed('notanip', { type: 'string', format: 'ip' }, 'author_ip')).toBe('notanip is not a valid IP address.');
  });

  it('words counts and lengths with _n() and number_format_i18n()', () => {
    expect(wp([], { ...IDS, minItems: 1 }, 'modifiers')).toBe('modifiers must contain at least 1 item.');
    expect(wp('x'.repeat(1001), { type: 'string', maxLength: 1000 }, 'title')).toBe(
      'title must be at most 1,000 characters long.',
    );
  });
});

describe("validateValue in WordPress 6.1's order", () => {
  it('checks the type before the enum', () => {
    const schema: JsonSchema = { type: 'integer', enum: [1, 2] };
    expect(wp('abc', schema, 'n')).toBe('n is not of type integer.');
    expect(seed('abc', schema, 'n')).toBe('n is not one of 1, 2.');
    expect(wp('3', schema, 'n')).toBe('n is not one of 1 and 2.');
  });

  it("checks an integer's range before it is whole (seen: ?per_page=0.5, ?per_page=1.5, ?page=0.5)", () => {
    expect(wp('0.5', PER_PAGE, 'per_page')).toBe('per_page must be between 1 (inclusive) and 100 (inclusive)');
    expect(wp('1.5', PER_PAGE, 'per_page')).toBe('per_page is not of type integer.');
    expect(wp('abc', PER_PAGE, 'per_page')).toBe('per_page is not of type integer.');
    expect(wp('', PER_PAGE, 'per_page')).toBe('per_page is not of type integer.');
    expect(wp('0.5', { type: 'integer', minimum: 1 }, 'page')).toBe('page must be greater than or equal to 1');
    expect(seed('0.5', PER_PAGE, 'per_page')).toBe('per_page is not of type integer');
  });

  it('takes any whole number as an integer, as rest_is_integer() (seen: ?per_page=2.0, ?per_page=1e1, ?per_page=%205)', () => {
    for (const value of ['2.0', '1e1', ' 5', 7, '-4'])
      expect([value, wp(value, { type: 'integer' }, 'n')]).toEqual([value, null]);
    for (const value of ['2.0', '1e1']) expect(seed(value, { type: 'integer' }, 'n')).toBe('n is not of type integer');
    expect(wp(true, { type: 'integer' }, 'n')).toBe('n is not of type integer.');
    expect(wp('1e400', { type: 'integer' }, 'n')).toBe('n is not of type integer.');
  });

  it("checks a string's lengths, then its pattern, then the enum, then its format", () => {
    const code: JsonSchema = { type: 'string', minLength: 2, pattern: '^[a-z]+$' };
    expect(wp('A', code, 's')).toBe('s must be at least 2 characters long.');
    expect(seed('A', code, 's')).toBe('s does not match pattern ^[a-z]+$.');
    const mail: JsonSchema = { type: 'string', format: 'email', maxLength: 5 };
    expect(wp('abcdefgh', mail, 'e')).toBe('e must be at most 5 characters long.');
    expect(seed('abcdefgh', mail, 'e')).toBe('The email address you provided is invalid.');
    const listed: JsonSchema = { type: 'string', format: 'date-time', enum: ['x'] };
    expect(wp('y', listed, 'd')).toBe('d is not x.');
    expect(seed('y', listed, 'd')).toBe('d is not one of x.');
    const patterned: JsonSchema = { type: 'string', format: 'date-time', pattern: '^2' };
    expect(wp('1x', patterned, 'd')).toBe('d does not match pattern ^2.');
    expect(seed('1x', patterned, 'd')).toBe('The date you provided is invalid.');
  });

  it('checks a list of types as its best type for the value (seen: POST posts {"date":"notadate"})', () => {
    const date: JsonSchema = { type: ['string', 'null'], format: 'date-time' };
    expect(wp('notadate', date, 'date')).toBe('Invalid date.');
    expect(seed('notadate', date, 'date')).toBe('date is not of type string,null.');
    expect(wp(null, date, 'date')).toBeNull();
    expect(wp({}, { type: ['integer', 'null'] }, 'parent')).toBe('parent is not of type integer,null.');
    expect(wp('-1', { type: ['integer', 'string'], minimum: 0 }, 'n')).toBe('n must be greater than or equal to 0');
    expect(seed('-1', { type: ['integer', 'string'], minimum: 0 }, 'n')).toBeNull();
  });

  it('reports the first failing item of a list, then the counts', () => {
    const statuses: JsonSchema = { type: 'array', items: { type: 'string', enum: ['publish', 'draft'] }, maxItems: 1 };
    expect(wp(['bogus'], statuses, 'status')).toBe('status[0] is not one of publish and draft.');
    expect(wp(['publish', 'draft'], statuses, 'status')).toBe('status must contain at most 1 item.');
  });
});

describe('checkValue and checkArg', () => {
  it('give the kind of a failure and what its message was made of', () => {
    expect(checkValue('0', PER_PAGE, 'per_page', WP)).toEqual({
      kind: 'between',
      input: { param: 'per_page', minimum: 1, maximum: 100, exclusiveMinimum: false, exclusiveMaximum: false },
      message: 'per_page must be between 1 (inclusive) and 100 (inclusive)',
    });
    expect(checkValue('abc', IDS, 'include', WP)).toMatchObject({
      kind: 'type',
      input: { param: 'include[0]', type: 'integer' },
    });
    expect(checkValue('2', PER_PAGE, 'per_page', WP)).toBeNull();
  });

  it("tell an argument's own false from its own message", () => {
    const no: RouteArg = { type: 'string', validate: () => false };
    const says: RouteArg = { type: 'string', validate: () => 'Not that one.' };
    expect(checkArg('x', no, 'meta', WP)).toEqual({
      kind: 'invalid',
      input: { param: 'meta' },
      message: 'Invalid parameter.',
    });
    expect(checkArg('x', says, 'p', WP)).toMatchObject({ kind: 'callback', message: 'Not that one.' });
    expect(validateArg('x', says, 'p', WP)).toBe('Not that one.');
    expect(checkArg('x', { type: 'string', validate: () => true }, 'p', WP)).toBeNull();
  });

  it("word as the spec's when no words are given", () => {
    expect(validateValue('bogus', CONTEXT, 'context')).toBe(seed('bogus', CONTEXT, 'context'));
    expect(validateArg('0', PER_PAGE, 'per_page')).toBe('per_page must be between 1 (inclusive) and 100 (inclusive)');
  });
});
