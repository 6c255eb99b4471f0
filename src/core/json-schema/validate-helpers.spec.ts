import type { RouteArg } from './json-schema';
import { isBooleanLike, isNumeric, parseDateTime, parseList, sanitizeArg, toBoolean, validateArg } from './validate';

describe('isBooleanLike and toBoolean', () => {
  it('follow rest_is_boolean and rest_sanitize_boolean', () => {
    expect(isBooleanLike('FaLsE')).toBe(true);
    expect(isBooleanLike(null)).toBe(false);
    expect(isBooleanLike('2')).toBe(false);
    expect(toBoolean('FaLsE')).toBe(false);
    expect(toBoolean('anything')).toBe(true);
    expect(toBoolean(0)).toBe(false);
  });
});

describe('parseList', () => {
  it('splits a comma and/or whitespace separated string and drops empty parts', () => {
    expect(parseList('a,b c')).toEqual(['a', 'b', 'c']);
    expect(parseList(' 1 , 2,,3 ')).toEqual(['1', '2', '3']);
  });

  it('returns an array unchanged', () => {
    const list = [1, 'a', null];
    expect(parseList(list)).toBe(list);
  });

  it('returns an empty list for empty values', () => {
    expect(parseList('')).toEqual([]);
    expect(parseList(null)).toEqual([]);
    expect(parseList(undefined)).toEqual([]);
  });

  it('takes the values of an object (PHP array with keys) and wraps a scalar', () => {
    expect(parseList({ 0: 'x', 1: 'y' })).toEqual(['x', 'y']);
    expect(parseList(5)).toEqual(['5']);
  });
});

describe('parseDateTime', () => {
  it('parses a date without an offset as UTC and returns milliseconds', () => {
    expect(parseDateTime('2010-01-01T12:00:00')).toBe(Date.UTC(2010, 0, 1, 12, 0, 0));
  });

  it('treats Z as UTC', () => {
    expect(parseDateTime('2010-01-01T12:00:00Z')).toBe(Date.UTC(2010, 0, 1, 12, 0, 0));
  });

  it('applies positive and negative offsets, with or without a colon or minutes', () => {
    expect(parseDateTime('2010-01-01T12:00:00+02:00')).toBe(Date.UTC(2010, 0, 1, 10, 0, 0));
    expect(parseDateTime('2010-01-01T12:00:00-0530')).toBe(Date.UTC(2010, 0, 1, 17, 30, 0));
    expect(parseDateTime('2010-01-01T01:00:00+03')).toBe(Date.UTC(2009, 11, 31, 22, 0, 0));
  });

  it('ignores the offset when forced to UTC', () => {
    expect(parseDateTime('2010-01-01T12:00:00+02:00', true)).toBe(Date.UTC(2010, 0, 1, 12, 0, 0));
  });

  it('returns null for impossible calendar values and malformed input', () => {
    expect(parseDateTime('2010-02-30T12:00:00')).toBeNull();
    expect(parseDateTime('2010-18-18T12:00:00')).toBeNull();
    expect(parseDateTime('2010-00-10T12:00:00')).toBeNull();
    expect(parseDateTime('2010-01-01')).toBeNull();
    expect(parseDateTime('')).toBeNull();
  });
});

describe('isNumeric', () => {
  it.each(['12', '-12', '+1.5', '1.5', '.5', '5.', '1e3', '1E-3', ' 12', '12 ', 0, 3.25])('is true for %p', (value) => {
    expect(isNumeric(value)).toBe(true);
  });

  const notNumeric = ['abc', '', ' ', '1e', '0x1A', '1,5', '1.2.3', NaN, Infinity, null, true, ['1']];

  it.each(notNumeric)('is false for %p', (value) => {
    expect(isNumeric(value)).toBe(false);
  });
});

describe('validateArg and sanitizeArg', () => {
  it('use the schema when the argument has no callbacks', () => {
    const arg: RouteArg = { type: 'integer' };
    expect(validateArg('abc', arg, 'page')).toBe('page is not of type integer');
    expect(validateArg('2', arg, 'page')).toBeNull();
    expect(sanitizeArg('2', arg, 'page')).toBe(2);
  });

  it('run a custom validate callback instead of the schema, passing value and name', () => {
    const validate = jest.fn((): true => true);
    expect(validateArg('abc', { type: 'integer', validate }, 'page')).toBeNull();
    expect(validate).toHaveBeenCalledWith('abc', 'page');
  });

  it('turn a false result into "Invalid parameter."', () => {
    expect(validateArg('x', { validate: () => false }, 'p')).toBe('Invalid parameter.');
  });

  it('pass a message returned by the callback through', () => {
    expect(validateArg('x', { validate: () => 'Status is forbidden' }, 'status')).toBe('Status is forbidden');
  });

  it('run a custom sanitize callback instead of the schema coercion, passing value and name', () => {
    const sanitize = jest.fn((value: unknown) => `<${String(value)}>`);
    expect(sanitizeArg('7', { type: 'integer', sanitize }, 'n')).toBe('<7>');
    expect(sanitize).toHaveBeenCalledWith('7', 'n');
  });
});
