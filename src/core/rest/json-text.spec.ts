import { ItemMemo, JsonText, toJsonBytes } from './json-text';

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

  it('replaces an entry and keeps the latest entries', () => {
    const memo = new ItemMemo(2);
    memo.set('a', [1], '"a1"');
    memo.set('b', [1], '"b"');
    memo.set('a', [2], '"a2"');
    memo.set('c', [1], '"c"');
    expect(memo.get('a', [1])).toBeUndefined();
    expect(memo.get('a', [2])?.text).toBe('"a2"');
    expect(memo.get('b', [1])).toBeUndefined();
    expect(memo.get('c', [1])?.text).toBe('"c"');
  });
});
