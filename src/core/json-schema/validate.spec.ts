import type { JsonSchema, RouteArg } from './json-schema';
import {
  isBooleanLike,
  isNumeric,
  parseDateTime,
  parseList,
  sanitizeArg,
  sanitizeValue,
  toBoolean,
  validateArg,
  validateValue,
} from './validate';

/** The argument fixture of the reference's WP_Test_REST_Controller (tests 6.1). */
const ARGS: Record<string, JsonSchema> = {
  someinteger: { type: 'integer' },
  someboolean: { type: 'boolean' },
  somestring: { type: 'string' },
  someenum: { type: 'string', enum: ['a'] },
  somedate: { type: 'string', format: 'date-time' },
  someemail: { type: 'string', format: 'email' },
};

const check = (name: keyof typeof ARGS, value: unknown) => validateValue(value, ARGS[name], name);

describe('validateValue: reference validation tests (6.1)', () => {
  describe('type integer', () => {
    it('accepts a numeric string', () => {
      expect(check('someinteger', '123')).toBeNull();
    });

    it('accepts integers and signed integer strings', () => {
      expect(check('someinteger', 7)).toBeNull();
      expect(check('someinteger', '-4')).toBeNull();
      expect(check('someinteger', '+4')).toBeNull();
    });

    it('rejects a non-numeric string with "{name} is not of type integer"', () => {
      expect(check('someinteger', 'abc')).toBe('someinteger is not of type integer');
    });

    it('sanitises a numeric string to a number', () => {
      expect(sanitizeValue('123', ARGS.someinteger)).toBe(123);
      expect(sanitizeValue('-4', ARGS.someinteger)).toBe(-4);
    });
  });

  describe('type boolean', () => {
    it.each([true, false, 'true', 'TRUE', 'false', 'False', '1', '0', 1, 0])('accepts %p', (value) => {
      expect(check('someboolean', value)).toBeNull();
    });

    it.each(['false', '0', 0, 'FALSE'])('sanitises %p to false', (value) => {
      expect(sanitizeValue(value, ARGS.someboolean)).toBe(false);
    });

    it.each(['true', '1', 1, 'TRUE'])('sanitises %p to true', (value) => {
      expect(sanitizeValue(value, ARGS.someboolean)).toBe(true);
    });

    it('rejects "123" with a message naming the value, not the parameter (reference quirk)', () => {
      expect(check('someboolean', '123')).toBe('123 is not of type boolean');
    });

    it('rejects numbers other than 0 and 1 and non-scalar values', () => {
      expect(check('someboolean', 2)).toBe('2 is not of type boolean');
      expect(check('someboolean', 'yes')).toBe('yes is not of type boolean');
      expect(check('someboolean', {})).not.toBeNull();
    });
  });

  describe('type string', () => {
    it('accepts a string', () => {
      expect(check('somestring', '123')).toBeNull();
    });

    it('rejects an array with "{name} is not of type string"', () => {
      expect(check('somestring', ['foo'])).toBe('somestring is not of type string');
    });

    it('rejects a number and sanitises a number to a string', () => {
      expect(check('somestring', 5)).toBe('somestring is not of type string');
      expect(sanitizeValue(5, ARGS.somestring)).toBe('5');
    });
  });

  describe('enum', () => {
    it('accepts a listed value', () => {
      expect(check('someenum', 'a')).toBeNull();
    });

    it('rejects an unlisted value, listing the options', () => {
      expect(check('someenum', 'd')).toBe('someenum is not one of a.');
      expect(validateValue('x', { type: 'string', enum: ['a', 'b', 'c'] }, 'e')).toBe('e is not one of a, b, c.');
    });

    it('compares loosely, like PHP in_array: "1" matches 1', () => {
      expect(validateValue('1', { type: 'integer', enum: [1, 2] }, 'n')).toBeNull();
      expect(validateValue('3', { type: 'integer', enum: [1, 2] }, 'n')).toBe('n is not one of 1, 2.');
    });

    it('checks enum before the type', () => {
      expect(validateValue('abc', { type: 'integer', enum: [1] }, 'n')).toBe('n is not one of 1.');
    });
  });

  describe('format email', () => {
    it('accepts a valid address', () => {
      expect(check('someemail', 'joe@foo.bar')).toBeNull();
    });

    it('rejects an invalid address with the reference message', () => {
      expect(check('someemail', 'd')).toBe('The email address you provided is invalid.');
      expect(check('someemail', 'joe@foo')).toBe('The email address you provided is invalid.');
      expect(check('someemail', '@foo.bar')).toBe('The email address you provided is invalid.');
    });

    it('leaves a valid address unchanged when sanitising', () => {
      expect(sanitizeValue('joe@foo.bar', ARGS.someemail)).toBe('joe@foo.bar');
    });
  });

  describe('format date-time', () => {
    it('accepts a date without an offset', () => {
      expect(check('somedate', '2010-01-01T12:00:00')).toBeNull();
    });

    it('rejects month 18 with the reference message', () => {
      expect(check('somedate', '2010-18-18T12:00:00')).toBe('The date you provided is invalid.');
    });

    const validDates = [
      '2010-01-01T12:00:00Z',
      '2010-01-01T12:00:00z',
      '2010-01-01T12:00:00+02:00',
      '2010-01-01T12:00:00-0530',
      '2010-01-01T12:00:00+02',
      '2010-01-01 12:00:00',
      '2010-01-01t12:00:00',
      '2010-01-01T12:00:00.123Z',
    ];
    const invalidDates = [
      '2010-02-30T12:00:00',
      '2011-02-29T00:00:00',
      '2010-01-32T00:00:00',
      '2010-01-01T24:00:00',
      '2010-01-01T12:60:00',
      '2010-01-01',
      'yesterday',
      '2010-01-01T12:00:00+2',
    ];

    it.each(validDates)('accepts %s', (value) => {
      expect(check('somedate', value)).toBeNull();
    });

    it.each(invalidDates)('rejects %s', (value) => {
      expect(check('somedate', value)).toBe('The date you provided is invalid.');
    });

    it('accepts 29 February of a leap year', () => {
      expect(check('somedate', '2012-02-29T00:00:00')).toBeNull();
    });
  });

  describe('format ipv4', () => {
    it('accepts a dotted quad and rejects an octet above 255 with "{value} is not a valid IP address."', () => {
      const schema: JsonSchema = { type: 'string', format: 'ipv4' };
      expect(validateValue('127.0.0.1', schema, 'ip')).toBeNull();
      expect(validateValue('256.1.1.1', schema, 'ip')).toBe('256.1.1.1 is not a valid IP address.');
    });
  });

  describe('string length', () => {
    it('checks minLength and maxLength with singular and plural messages', () => {
      expect(validateValue('', { type: 'string', minLength: 1 }, 's')).toBe('s must be at least 1 character long.');
      expect(validateValue('ab', { type: 'string', minLength: 3 }, 's')).toBe('s must be at least 3 characters long.');
      expect(validateValue('abc', { type: 'string', maxLength: 2 }, 's')).toBe('s must be at most 2 characters long.');
      expect(validateValue('abc', { type: 'string', minLength: 3, maxLength: 3 }, 's')).toBeNull();
    });

    it('counts code points, not UTF-16 units', () => {
      expect(validateValue('😀😀', { type: 'string', maxLength: 2 }, 's')).toBeNull();
    });
  });
});

describe('validateValue: minimum and maximum (reference tests 6.3)', () => {
  const range = (extra: JsonSchema): JsonSchema => ({ type: 'integer', minimum: 2, maximum: 10, ...extra });

  const cases: Array<[string, JsonSchema, string, unknown[], unknown[]]> = [
    [
      'within range, inclusive',
      range({}),
      'minmaxrange must be between 2 (inclusive) and 10 (inclusive)',
      [1, 11],
      [2, 10],
    ],
    [
      'within range, minimum exclusive',
      range({ exclusiveMinimum: true }),
      'minmaxrange must be between 2 (exclusive) and 10 (inclusive)',
      [1, 2, 11],
      [3, 9, 10],
    ],
    [
      'within range, maximum exclusive',
      range({ exclusiveMaximum: true }),
      'minmaxrange must be between 2 (inclusive) and 10 (exclusive)',
      [1, 10, 11],
      [2, 3, 9],
    ],
    [
      'within range, both exclusive',
      range({ exclusiveMinimum: true, exclusiveMaximum: true }),
      'minmaxrange must be between 2 (exclusive) and 10 (exclusive)',
      [1, 2, 10, 11],
      [3, 9],
    ],
    [
      'greater than minimum, inclusive',
      { type: 'integer', minimum: 2 },
      'greaterthanmin must be greater than 2 (inclusive)',
      [1],
      [2],
    ],
    [
      'greater than minimum, exclusive',
      { type: 'integer', minimum: 2, exclusiveMinimum: true },
      'greaterthanmin must be greater than 2 (exclusive)',
      [1, 2],
      [3],
    ],
    [
      'less than maximum, inclusive',
      { type: 'integer', maximum: 10 },
      'lessthanmax must be less than 10 (inclusive)',
      [11],
      [10],
    ],
    [
      'less than maximum, exclusive',
      { type: 'integer', maximum: 10, exclusiveMaximum: true },
      'lessthanmax must be less than 10 (exclusive)',
      [11, 10],
      [9],
    ],
  ];

  describe.each(cases)('%s', (_title, schema, message, invalid, valid) => {
    const name = message.split(' ')[0];

    it.each(invalid)(`rejects %p with "${message}"`, (value) => {
      expect(validateValue(value, schema, name)).toBe(message);
    });

    it.each(valid)('accepts %p', (value) => {
      expect(validateValue(value, schema, name)).toBeNull();
    });

    it('applies to numeric strings as they arrive from a query string', () => {
      expect(validateValue(String(invalid[0]), schema, name)).toBe(message);
      expect(validateValue(String(valid[0]), schema, name)).toBeNull();
    });
  });

  it('applies to type number as well', () => {
    expect(validateValue('0.5', { type: 'number', minimum: 1 }, 'n')).toBe('n must be greater than 1 (inclusive)');
    expect(validateValue('1.5', { type: 'number', minimum: 1 }, 'n')).toBeNull();
  });

  it('does not apply to strings', () => {
    expect(validateValue('1', { type: 'string', minimum: 2 }, 's')).toBeNull();
  });
});

describe('validateValue: arrays', () => {
  const ids: JsonSchema = { type: 'array', items: { type: 'integer' } };

  it('accepts a comma or space separated string and an array', () => {
    expect(validateValue('1,2, 3', ids, 'include')).toBeNull();
    expect(validateValue('1 2', ids, 'include')).toBeNull();
    expect(validateValue([1, '2'], ids, 'include')).toBeNull();
  });

  it('validates each item and names it name[i]', () => {
    expect(validateValue([1, 'x'], ids, 'include')).toBe('include[1] is not of type integer');
    expect(validateValue('4,5,y', ids, 'include')).toBe('include[2] is not of type integer');
  });

  it('applies item enums with the item name', () => {
    const schema: JsonSchema = { type: 'array', items: { type: 'string', enum: ['publish', 'draft'] } };
    expect(validateValue('publish,draft', schema, 'status')).toBeNull();
    expect(validateValue(['publish', 'bogus'], schema, 'status')).toBe('status[1] is not one of publish, draft.');
  });

  it('does not apply an enum to the array itself', () => {
    const schema: JsonSchema = { type: 'array', enum: ['a'], items: { type: 'string' } };
    expect(validateValue(['b'], schema, 'list')).toBeNull();
  });

  it('checks minItems and maxItems', () => {
    expect(validateValue([1], { ...ids, minItems: 2 }, 'a')).toBe('a must contain at least 2 items.');
    expect(validateValue('1,2,3', { ...ids, maxItems: 2 }, 'a')).toBe('a must contain at most 2 items.');
    expect(validateValue('1,2', { ...ids, minItems: 2, maxItems: 2 }, 'a')).toBeNull();
  });

  it('sanitises the items to their type', () => {
    expect(sanitizeValue('1,2, 3', ids)).toEqual([1, 2, 3]);
    expect(sanitizeValue(['4', 5], ids)).toEqual([4, 5]);
    expect(sanitizeValue('true,0', { type: 'array', items: { type: 'boolean' } })).toEqual([true, false]);
  });

  it('sanitises an empty value to an empty list and keeps items without an item schema', () => {
    expect(sanitizeValue('', ids)).toEqual([]);
    expect(sanitizeValue('a,b', { type: 'array' })).toEqual(['a', 'b']);
  });
});

describe('validateValue: objects', () => {
  const meta: JsonSchema = { type: 'object', properties: { count: { type: 'integer' }, flag: { type: 'boolean' } } };

  it('validates the declared properties, naming them name[key]', () => {
    expect(validateValue({ count: '3', flag: 'true' }, meta, 'meta')).toBeNull();
    expect(validateValue({ count: 'x' }, meta, 'meta')).toBe('meta[count] is not of type integer');
  });

  it('skips missing and null properties and keeps undeclared ones', () => {
    expect(validateValue({ count: null, other: 'anything' }, meta, 'meta')).toBeNull();
  });

  it('rejects a non-object but accepts the empty string and an empty array as an empty object', () => {
    expect(validateValue('text', meta, 'meta')).toBe('meta is not of type object');
    expect(validateValue([1], meta, 'meta')).toBe('meta is not of type object');
    expect(validateValue('', meta, 'meta')).toBeNull();
    expect(validateValue([], meta, 'meta')).toBeNull();
  });

  it('sanitises declared properties to their types and keeps the others', () => {
    expect(sanitizeValue({ count: '3', flag: '0', other: 'x' }, meta)).toEqual({ count: 3, flag: false, other: 'x' });
    expect(sanitizeValue('', meta)).toEqual({});
    expect(sanitizeValue([], meta)).toEqual({});
  });

  it('does not mutate the input object when sanitising', () => {
    const input = { count: '3' };
    sanitizeValue(input, meta);
    expect(input).toEqual({ count: '3' });
  });
});

describe('validateValue: several types', () => {
  it('accepts a value matching any of the types and names all of them otherwise', () => {
    const schema: JsonSchema = { type: ['integer', 'boolean'] };
    expect(validateValue('5', schema, 'p')).toBeNull();
    expect(validateValue('true', schema, 'p')).toBeNull();
    expect(validateValue('x', schema, 'p')).toBe('p is not of type integer,boolean.');
  });

  it('sanitises to the first type', () => {
    expect(sanitizeValue('5', { type: ['integer', 'string'] })).toBe(5);
  });
});

describe('validateValue: no type', () => {
  it('accepts anything and leaves it unchanged', () => {
    expect(validateValue({ a: 1 }, {}, 'p')).toBeNull();
    expect(sanitizeValue('  x ', {})).toBe('  x ');
  });

  it('still checks the format of a string', () => {
    expect(validateValue('nope', { format: 'email' }, 'p')).toBe('The email address you provided is invalid.');
  });
});

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
