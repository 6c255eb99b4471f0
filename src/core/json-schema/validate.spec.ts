import type { JsonSchema } from './json-schema';
import { sanitizeValue, validateValue } from './validate';

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
