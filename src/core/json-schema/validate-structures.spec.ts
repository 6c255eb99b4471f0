import type { JsonSchema } from './json-schema';
import { sanitizeValue, validateValue } from './validate';

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
