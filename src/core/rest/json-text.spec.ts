import { cacheUsage } from '../memory/byte-lru';
import { PREPARED_JSON_CACHE } from '../memory/cache-limits';
import { ItemMemo, jsonOf, JsonText, MEMO_ENTRY_BYTES, toJsonBytes, withMembers } from './json-text';

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
    expect(JSON.parse(jsonOf(value)!)).toEqual(JSON.parse(JSON.stringify(value)));
    expect(jsonOf([undefined, () => 1])).toBe('[null,null]');
    expect(jsonOf(undefined)).toBeUndefined();
  });

  it('writes plain objects member by member, skipping what JSON.stringify skips, without parsing serialized items', () => {
    const parse = jest.spyOn(JSON, 'parse');
    try {
      const value = {
        a: { b: [new JsonText('{"id":3}')] },
        skipped: undefined,
        f: () => 1,
        date: new Date(0),
        'k"ey': null,
      };
      expect(jsonOf(value)).toBe('{"a":{"b":[{"id":3}]},"date":"1970-01-01T00:00:00.000Z","k\\"ey":null}');
      expect(parse).not.toHaveBeenCalled();
      expect(jsonOf(Object.assign(Object.create(null), { x: 1 }))).toBe('{"x":1}');
    } finally {
      parse.mockRestore();
    }
  });

  it('adds members at the end of an item, keeping its links', () => {
    const links = { self: [{ href: 'x' }] };
    const item = withMembers(new JsonText('{"id":1,"_links":{"self":[{"href":"x"}]}}', links), {
      _embedded: { author: [new JsonText('{"id":7}')] },
    });
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

  /** The bytes an entry is counted for (see ItemMemo.set). */
  const sizeOf = (key: string, inputs: unknown[], text: string) =>
    MEMO_ENTRY_BYTES +
    key.length * 2 +
    text.length * 3 +
    inputs.length * 8 +
    inputs.reduce<number>((n, i) => n + (typeof i === 'string' ? i.length * 2 : 0), 0);
  /** Room for ten entries of `k00`..`k99` with inputs `[1]` and a 10-character text. */
  const TEN = 10 * sizeOf('k00', [1], '"item-00_"');
  const item = (i: number) => `"item-${String(i).padStart(2, '0')}_"`;
  const key = (i: number) => `k${String(i).padStart(2, '0')}`;

  it('replaces an entry and keeps the most recently used entries within its size in bytes', () => {
    const memo = new ItemMemo(TEN);
    for (let i = 0; i < 10; i++) memo.set(key(i), [1], item(i));
    expect(memo.pool.bytes).toBe(TEN);
    memo.set(key(0), [2], '"item-0b_"');
    expect(memo.pool.bytes).toBe(TEN);
    expect(memo.get(key(1), [1])?.text).toBe(item(1));
    memo.set(key(10), [1], item(10));
    expect(memo.get(key(0), [1])).toBeUndefined();
    expect(memo.get(key(0), [2])?.text).toBe('"item-0b_"');
    expect(memo.get(key(1), [1])?.text).toBe(item(1));
    expect(memo.get(key(2), [1])).toBeUndefined();
    expect(memo.get(key(10), [1])?.text).toBe(item(10));
    expect(memo.pool.bytes).toBeLessThanOrEqual(TEN);
    expect(memo.pool.entries).toBe(10);
  });

  it('evicts the least recently used first, a recent hit or an old one', () => {
    const memo = new ItemMemo(TEN);
    for (let i = 0; i < 10; i++) memo.set(key(i), [1], item(i)); // full
    expect(memo.get(key(8), [1])).toBeDefined(); // recent: stays in place
    expect(memo.get(key(0), [1])).toBeDefined(); // the oldest: now the most recent
    memo.set(key(10), [1], item(10));
    memo.set(key(11), [1], item(11));
    expect(memo.get(key(1), [1])).toBeUndefined();
    expect(memo.get(key(2), [1])).toBeUndefined();
    for (const i of [0, 3, 8, 9, 10, 11]) expect(memo.get(key(i), [1])).toBeDefined();
  });

  it('counts string inputs in its size, two bytes a character', () => {
    const memo = new ItemMemo(TEN);
    const big = 'y'.repeat(200); // 400 bytes more than an entry of the ten
    memo.set('aaa', ['x'.repeat(6)], '"a"');
    memo.set('bbb', [big], '"b"');
    expect(memo.pool.bytes).toBe(sizeOf('aaa', ['x'.repeat(6)], '"a"') + sizeOf('bbb', [big], '"b"'));
    for (let i = 0; i < 8; i++) memo.set(key(i), [1], item(i));
    // The ten entries would fit without the large input: counting it evicted the oldest.
    expect(memo.get('aaa', ['x'.repeat(6)])).toBeUndefined();
    expect(memo.get('bbb', [big])?.text).toBe('"b"');
    for (let i = 0; i < 8; i++) expect(memo.get(key(i), [1])?.text).toBe(item(i));
    expect(memo.pool.bytes).toBeLessThanOrEqual(TEN);
  });

  it('gives an item larger than an eighth of its size its text without keeping it', () => {
    const memo = new ItemMemo(8 * sizeOf('k', [1], '"12345"'));
    expect(memo.set('k', [1], '"123456"').text).toBe('"123456"');
    expect(memo.get('k', [1])).toBeUndefined();
    expect(memo.pool.bytes).toBe(0);
    expect(memo.set('k', [1], '"12345"').text).toBe('"12345"');
    expect(memo.get('k', [1])?.text).toBe('"12345"');
    // A large string input counts as much as a large text: not kept either.
    expect(memo.set('k', ['x'.repeat(100)], '"1"').text).toBe('"1"');
    expect(memo.get('k', ['x'.repeat(100)])).toBeUndefined();
  });

  it('counts the UTF-8 bytes of a kept text once written, in a buffer of their own', () => {
    const memo = new ItemMemo(TEN);
    for (let i = 0; i < 10; i++) memo.set(key(i), [1], item(i));
    const text = memo.get(key(9), [1]) as JsonText;
    const bytes = text.bytes;
    expect(bytes.toString()).toBe(item(9));
    // Not a slice of Node's shared pool, which would keep a whole slab alive.
    expect(bytes.buffer.byteLength).toBe(bytes.length);
    expect(text.bytes).toBe(bytes);
    // ASCII: as many bytes as counted already.
    expect(memo.pool.bytes).toBe(TEN);
    // Three bytes a character: two more than counted for each, more than there is room for.
    memo.set(key(10), [1], '"€€€€€€€€"');
    expect(memo.get(key(0), [1])).toBeUndefined();
    expect(memo.pool.bytes).toBe(TEN);
    expect(memo.get(key(10), [1])!.bytes.length).toBe(26);
    expect(memo.pool.bytes).toBe(TEN + 16 - sizeOf(key(1), [1], item(1)));
    expect(memo.get(key(1), [1])).toBeUndefined();
    expect(memo.get(key(2), [1])).toBeDefined();
  });

  it('shares one budget between memos: the least recently used item of either goes first', () => {
    const shared = new ItemMemo(TEN).pool;
    const users = new ItemMemo(shared);
    const terms = new ItemMemo(shared);
    for (let i = 0; i < 10; i++) (i % 2 ? users : terms).set(key(i), [1], item(i));
    expect(shared.bytes).toBe(TEN);
    users.set(key(10), [1], item(10));
    expect(terms.get(key(0), [1])).toBeUndefined();
    expect(users.get(key(1), [1])).toBeDefined();
    expect(terms.get(key(2), [1])).toBeDefined();
    expect(shared.entries).toBe(10);
  });

  it('puts every memo made without a size in one process-wide budget of PREPARED_JSON_CACHE bytes', () => {
    const one = new ItemMemo();
    const two = new ItemMemo();
    expect(one.pool).toBe(two.pool);
    expect(one.pool.maxBytes).toBe(PREPARED_JSON_CACHE.bytes);
    expect(one.pool.maxEntryBytes).toBe(PREPARED_JSON_CACHE.bytes / 8);
    expect(
      cacheUsage().filter((c) => c.name === 'prepared-json' && c.maxBytes === PREPARED_JSON_CACHE.bytes),
    ).toHaveLength(1);
  });
});
