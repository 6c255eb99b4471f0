import fc from 'fast-check';
import { replaceElements, replaceShortcodeMatches, splitLineTags } from './linear-scan';
import { getShortcodeRegexSource, pregSplit, SHORTCODE_GROUP_CLOSE } from './texturize';

/** Texts made of the pieces these scanners look for, in any order and number. */
function piecesOf(pieces: string[]): fc.Arbitrary<string> {
  return fc.array(fc.constantFrom(...pieces), { maxLength: 40 }).map((parts) => parts.join(''));
}

describe('linear scanners give the matches of the regexes they replace', () => {
  it('splitLineTags is preg_split("/(<[^\\n]*?>)/", DELIM_CAPTURE)', () => {
    fc.assert(
      fc.property(piecesOf(['<', '>', '\n', 'a', ' ', '<p>', '</p>', ':)', '<a\nb>']), (text) => {
        expect(splitLineTags(text)).toEqual(pregSplit(text, /(<[^\n]*?>)/g, { delimCapture: true }));
      }),
      { numRuns: 2000 },
    );
  });

  it('replaceElements is /<(script|style)[^>]*?>[\\s\\S]*?<\\/\\1>/gi', () => {
    const pieces = [
      '<script',
      '<SCRIPT',
      '<style',
      '</script>',
      '</Script>',
      '</style>',
      '>',
      '<',
      'x',
      '\n',
      '</scrip',
      '<scriptx',
    ];
    fc.assert(
      fc.property(piecesOf(pieces), (text) => {
        const expected = text.replace(/<(script|style)[^>]*?>[\s\S]*?<\/\1>/gi, (m) => `{${m.length}}`);
        expect(
          replaceElements(text, ['script', 'style'], { ignoreCase: true, openTagEnd: true }, (m) => `{${m.length}}`),
        ).toBe(expected);
      }),
      { numRuns: 2000 },
    );
  });

  it('replaceElements is /<(script|style|svg)[\\s\\S]*?<\\/\\1>/g', () => {
    const pieces = ['<script', '<style', '<svg', '</script>', '</style>', '</svg>', '</SVG>', '>', '<', 'x', '\n'];
    fc.assert(
      fc.property(piecesOf(pieces), (text) => {
        const expected = text.replace(/<(script|style|svg)[\s\S]*?<\/\1>/g, (m) => `{${m}}`);
        expect(replaceElements(text, ['script', 'style', 'svg'], {}, (m) => `{${m}}`)).toBe(expected);
      }),
      { numRuns: 2000 },
    );
  });

  it('replaceShortcodeMatches has the groups of get_shortcode_regex()', () => {
    const tagnames = ['wp_caption', 'caption', 'gallery', 'a', 'a.b'];
    const pieces = [
      '[',
      ']',
      '[[',
      ']]',
      '/',
      '[/gallery]',
      '[/caption]',
      'gallery',
      'caption',
      'wp_caption',
      'a',
      'a.b',
      '-',
      ' x="1"',
      '\n',
      'q',
    ];
    const pattern = new RegExp(getShortcodeRegexSource(tagnames), 'g');
    fc.assert(
      fc.property(piecesOf(pieces), (text) => {
        const seen: unknown[] = [];
        const expected = text.replace(pattern, (...args: unknown[]) => {
          seen.push(args.slice(0, SHORTCODE_GROUP_CLOSE + 1));
          return `{${seen.length}}`;
        });
        const found: unknown[] = [];
        const [actual, count] = replaceShortcodeMatches(text, tagnames, (m) => {
          found.push(m);
          return `{${found.length}}`;
        });
        expect(found).toEqual(seen);
        expect(actual).toBe(expected);
        expect(count).toBe(seen.length);
      }),
      { numRuns: 3000 },
    );
  });
});
