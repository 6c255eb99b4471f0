import { phpSerialize, phpUnserialize } from '../core/formatting/php-serialize';
import { replaceInValue } from './search-replace-value';

describe('replaceInValue', () => {
  it('replaces every occurrence in plain text, case-sensitively', () => {
    expect(replaceInValue('a http://x b http://x HTTP://X', 'http://x', 'https://y')).toEqual({
      value: 'a https://y b https://y HTTP://X',
      count: 2,
      malformed: false,
    });
    expect(replaceInValue('nothing here', 'http://x', 'y')).toEqual({
      value: 'nothing here',
      count: 0,
      malformed: false,
    });
  });

  it('rewrites serialized strings with their UTF-8 byte lengths, keys and other tokens as they were', () => {
    const value = { 'http://x': 'http://x/é', n: 1.5, list: [true, null, 'http://x'], i: 7 };
    const result = replaceInValue(phpSerialize(value), 'http://x', 'https://longer.example');
    expect(result.count).toBe(2);
    expect(result.value).toBe(
      phpSerialize({
        'http://x': 'https://longer.example/é',
        n: 1.5,
        list: [true, null, 'https://longer.example'],
        i: 7,
      }),
    );
    expect(phpUnserialize(result.value)).toMatchObject({ list: [true, null, 'https://longer.example'] });
  });

  it('keeps objects, class names and references byte for byte around the rewritten strings', () => {
    const text = 'O:8:"WP_Thing":2:{s:3:"url";s:8:"http://x";s:4:"self";r:1;}';
    expect(replaceInValue(text, 'http://x', 'http://yy').value).toBe(
      'O:8:"WP_Thing":2:{s:3:"url";s:9:"http://yy";s:4:"self";r:1;}',
    );
  });

  it('rewrites a value serialized twice', () => {
    const text = phpSerialize([phpSerialize({ u: 'http://x/a' })]);
    expect(replaceInValue(text, 'http://x', 'https://z').value).toBe(
      phpSerialize([phpSerialize({ u: 'https://z/a' })]),
    );
  });

  it('leaves a malformed serialized value alone and says so', () => {
    const text = 'a:1:{i:0;s:50:"http://x";}';
    expect(replaceInValue(text, 'http://x', 'https://z')).toEqual({ value: text, count: 0, malformed: true });
  });
});
