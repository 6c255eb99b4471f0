import { ItemMemo, jsonOf, JsonText, toJsonBytes, withMembers } from './json-text';

const toJson = (data: unknown) => toJsonBytes(data).toString('utf8');

describe('JsonText and toJsonBytes', () => {
  it('splices the text of serialized items into a top-level array', () => {
    const data = [new JsonText('{"id":1,"a":"x"}'), { id: 2 }, undefined, new JsonText('[1,2]')];
    expect(toJson(data)).toBe('[{"id":1,"a":"x"},{"id":2},null,[1,2]]');
    expect(JSON.parse(toJson(data))).toEqual(JSON.parse(JSON.stringify(data)));
  });

  it('serializes everything else as JSON.stringify does', () => {
    expect(toJson({ a: [1, 'b'] })).toBe('{"a":[1,"b"]}');
    expect(toJson([1, { b: null }])).toBe('[1,{"b":null}]');
    expect(toJson(undefined)).toBe('null');
    expect(toJson(new JsonText('{"x":true}'))).toBe('{"x":true}');
  });

  it('copies serialized items as their UTF-8 bytes, encoded once', () => {
    const item = new JsonText('{"title":"Caf\u00e9 \u201cquoted\u201d \ud83d\ude00"}');
    expect(item.bytes).toBe(item.bytes);
    const bytes = toJsonBytes([item, { n: 'é' }]);
    expect(bytes.equals(Buffer.from(JSON.stringify([JSON.parse(item.text), { n: 'é' }])))).toBe(true);
  });

  it('gives the same JSON when serialized the ordinary way, nested', () => {
    expect(JSON.stringify({ body: [new JsonText('{"id":1}')] })).toBe('{"body":[{"id":1}]}');
  });
});

describe('jsonOf and withMembers', () => {
  it('writes serialized items where they are in nested arrays, anything else as JSON.stringify does', () => {
    const value = [new JsonText('{"id":1}'), [new JsonText('{"id":2}'), { code: 'x' }], [], null, 'é'];
    expect(jsonOf(value)).toBe('[{"id":1},[{"id":2},{"code":"x"}],[],null,"é"]');
    expect(JSON.parse(jsonOf(value))).toEqual(JSON.parse(JSON.stringify(value)));
    expect(jsonOf([undefined, () => 1])).toBe('[null,null]');
    expect(jsonOf(undefined)).toBeUndefined();
  });

  it('writes plain objects member by member, skipping what JSON.stringify skips, without parsing serialized items', () => {
    const parse = jest.spyOn(JSON, 'parse');
    try {
      const value = { a: { b: [new JsonText('{"id":3}')] }, skipped: undefined, f: () => 1, date: new Date(0), 'k"ey': null };
      expect(jsonOf(value)).toBe('{"a":{"b":[{"id":3}]},"date":"1970-01-01T00:00:00.000Z","k\\"ey":null}');
      expect(parse).not.toHaveBeenCalled();
      expect(jsonOf(Object.assign(Object.create(null), { x: 1 }))).toBe('{"x":1}');
    } finally {
      parse.mockRestore();
    }
  });

  it('adds members at the end of an item, keeping its links', () => {
    const links = { self: [{ href: 'x' }] };
    const item = withMembers(new JsonText('{"id":1,"_links":{"self":[{"href":"x"}]}}', links), { _embedded: { author: [new JsonText('{"id":7}')] } });
    expect(item.text).toBe('{"id":1,"_links":{"self":[{"href":"x"}]},"_embedded":{"author":[{"id":7}]}}');
    expect(item.links).toBe(links);
    expect(withMembers(new JsonText('{}'), { a: 1, b: [2] }).text).toBe('{"a":1,"b":[2]}');
  });
});

describe('ItemMemo', () => {
  it('gives the text back only while every input is the same', () => {
    const memo = new ItemMemo();
    const text = memo.set('7', [7, 'view', 'Hello', null], '{"id":7}');
    expect(text.text).toBe('{"id":7}');
    expect(memo.get('7', [7, 'view', ['Hel', 'lo'].join(''), null])).toBe(text);
    expect(memo.get('7', [7, 'edit', 'Hello', null])).toBeUndefined();
    expect(memo.get('7', [7, 'view', 'Hello', undefined])).toBeUndefined();
    expect(memo.get('7', [7, 'view', 'Hello'])).toBeUndefined();
    expect(memo.get('8', [7, 'view', 'Hello', null])).toBeUndefined();
  });

  it('takes NaN for NaN, and tells numbers, strings, booleans and null apart', () => {
    const memo = new ItemMemo();
    const text = memo.set('n', [NaN, 1, true, null, ''], '{}');
    expect(memo.get('n', [NaN, 1, true, null, ''])).toBe(text);
    expect(memo.get('n', [0, 1, true, null, ''])).toBeUndefined();
    expect(memo.get('n', [NaN, '1', true, null, ''])).toBeUndefined();
    expect(memo.get('n', [NaN, 1, 1, null, ''])).toBeUndefined();
    expect(memo.get('n', [NaN, 1, true, undefined, ''])).toBeUndefined();
    expect(memo.get('n', [NaN, 1, true, null, 0])).toBeUndefined();
  });

  it('replaces an entry and keeps the most recently used entries within its size', () => {
    const memo = new ItemMemo(100);
    for (let i = 0; i < 10; i++) memo.set(`k${i}`, [1], `"item-${i}__"`);
    memo.set('k0', [2], '"item-0b_"');
    expect(memo.get('k1', [1])?.text).toBe('"item-1__"');
    memo.set('k10', [1], '"item-10_"');
    expect(memo.get('k0', [1])).toBeUndefined();
    expect(memo.get('k0', [2])?.text).toBe('"item-0b_"');
    expect(memo.get('k1', [1])?.text).toBe('"item-1__"');
    expect(memo.get('k2', [1])).toBeUndefined();
    expect(memo.get('k10', [1])?.text).toBe('"item-10_"');
  });

  it('evicts the least recently used first, a recent hit or an old one', () => {
    const memo = new ItemMemo(100);
    for (let i = 0; i < 10; i++) memo.set(`k${i}`, [1], `"item-${i}__"`); // ten items of 10 characters: full
    expect(memo.get('k8', [1])).toBeDefined(); // recent: stays in place
    expect(memo.get('k0', [1])).toBeDefined(); // the oldest: now the most recent
    memo.set('k10', [1], '"item-10_"');
    memo.set('k11', [1], '"item-11_"');
    expect(memo.get('k1', [1])).toBeUndefined();
    expect(memo.get('k2', [1])).toBeUndefined();
    for (const key of ['k0', 'k3', 'k8', 'k9', 'k10', 'k11']) expect(memo.get(key, [1])).toBeDefined();
  });

  it('counts string inputs in its size', () => {
    const memo = new ItemMemo(100);
    memo.set('a', ['x'.repeat(6)], '"a"');
    memo.set('b', ['y'.repeat(20)], '"b"');
    expect(memo.get('a', ['x'.repeat(6)])?.text).toBe('"a"');
    expect(memo.get('b', ['y'.repeat(20)])).toBeUndefined();
    for (let i = 0; i < 11; i++) memo.set(`c${i}`, ['z'.repeat(6)], '"c"');
    expect(memo.get('a', ['x'.repeat(6)])).toBeUndefined();
    expect(memo.get('c10', ['z'.repeat(6)])?.text).toBe('"c"');
  });

  it('gives a large item its text without keeping it', () => {
    const memo = new ItemMemo(40);
    expect(memo.set('big', [1], '"12345"').text).toBe('"12345"');
    expect(memo.set('small', [1], '"1"').text).toBe('"1"');
    expect(memo.get('small', [1])?.text).toBe('"1"');
    expect(memo.get('big', [1])).toBeUndefined();
  });
});
