/**
 * Parity of sanitize-title.ts with WordPress 6.1 (PHP 8.2 + mbstring + intl).
 *
 * test/fixtures/formatting/sanitize-cases.json holds the cases (every remove_accents() table entry and range
 * in every special locale, titles with entities, tags, octets, Unicode punctuation, emoji and long strings in
 * both contexts, links with targets, seeded random inputs) and the value PHP returned for each, produced by
 * test/fixtures/formatting/sanitize-harness.php running the real wp-includes code. Regenerate with:
 *
 *   cd test/fixtures/formatting && php sanitize-harness.php < sanitize-cases.json > /tmp/s.json && mv /tmp/s.json sanitize-cases.json
 */
import { readFileSync } from 'fs';
import { join } from 'path';
import {
  convertInvalidEntities,
  normalizeWhitespace,
  removeAccents,
  sanitizeTitle,
  sanitizeTitleWithDashes,
  wpTargetedLinkRel,
} from './sanitize-title';

interface SanitizeCase {
  group: string;
  fn: string;
  args: any[];
  expected: string;
}

const FIXTURE = join(__dirname, '../../../test/fixtures/formatting/sanitize-cases.json');
const cases: SanitizeCase[] = JSON.parse(readFileSync(FIXTURE, 'utf8'));

/** Calls the TypeScript port the way the harness called the PHP function. */
function run(c: SanitizeCase): string {
  const a = c.args;
  switch (c.fn) {
    case 'remove_accents':
      return removeAccents(a[0], a[1] ?? '');
    case 'sanitize_title_with_dashes':
      return sanitizeTitleWithDashes(a[0], a[1] ?? 'display');
    case 'sanitize_title':
      return sanitizeTitle(a[0], a[1] ?? '', a[2] ?? 'save', a[3] ?? '');
    case 'normalize_whitespace':
      return normalizeWhitespace(a[0]);
    case 'convert_invalid_entities':
      return convertInvalidEntities(a[0]);
    case 'wp_targeted_link_rel':
      return wpTargetedLinkRel(a[0]);
  }
  throw new Error(`no TypeScript counterpart for ${c.fn}`);
}

const byFn = new Map<string, SanitizeCase[]>();
for (const c of cases) {
  if (!byFn.has(c.fn)) byFn.set(c.fn, []);
  byFn.get(c.fn)!.push(c);
}

describe('sanitize-title: parity with WordPress 6.1 PHP (sanitize-harness fixtures)', () => {
  it('has the fixture', () => {
    expect(cases.length).toBeGreaterThan(1000);
    expect(byFn.size).toBe(6);
  });

  it.each([...byFn.entries()].map(([fn, list]) => [fn, list.length, list] as const))(
    '%s (%i cases)',
    (_fn, _n, list) => {
      const mismatches: string[] = [];
      for (const c of list) {
        let got: string;
        try {
          got = run(c);
        } catch (e) {
          got = `THROWN: ${(e as Error).message}`;
        }
        if (got !== c.expected) {
          mismatches.push(
            `[${c.group}] ${JSON.stringify(c.args)}\n  php: ${JSON.stringify(c.expected)}\n  ts:  ${JSON.stringify(got)}`,
          );
        }
      }
      expect(mismatches.slice(0, 10).join('\n')).toBe('');
      expect(mismatches).toHaveLength(0);
    },
  );
});

/** Hand-picked examples; every expected value is what WordPress 6.1 (PHP) returned for the same input. */
describe('sanitizeTitle()', () => {
  it('removes accents before building the slug', () => {
    expect(sanitizeTitle('tęst-acceńted-chäræcters')).toBe('test-accented-charaecters');
    expect(sanitizeTitle('Crème brûlée')).toBe('creme-brulee');
  });

  it('lowercases and turns punctuation and spaces into single dashes', () => {
    expect(sanitizeTitle('Hello World!')).toBe('hello-world');
    expect(sanitizeTitle('  --Tom & Jerry--  ')).toBe('tom-jerry');
    expect(sanitizeTitle('file.name.txt')).toBe('file-name-txt');
  });

  it('percent-encodes non-Latin titles as lowercase UTF-8 octets', () => {
    expect(sanitizeTitle('中文标题')).toBe('%e4%b8%ad%e6%96%87%e6%a0%87%e9%a2%98');
    expect(sanitizeTitle('Привет мир')).toBe('%d0%bf%d1%80%d0%b8%d0%b2%d0%b5%d1%82-%d0%bc%d0%b8%d1%80');
  });

  it('turns &nbsp;, en and em dashes (characters or entities) into hyphens in the save context', () => {
    expect(sanitizeTitle('a&nbsp;b')).toBe('a-b');
    expect(sanitizeTitle('a\u00A0b')).toBe('a-b');
    expect(sanitizeTitle('a\u2014b')).toBe('a-b');
    expect(sanitizeTitle('a&mdash;b')).toBe('a-b');
    expect(sanitizeTitle('a&#8211;b')).toBe('a-b');
    // The display context only kills the entity and keeps the encoded character.
    expect(sanitizeTitle('a&nbsp;b', '', 'display')).toBe('ab');
    expect(sanitizeTitle('a\u2014b', '', 'display')).toBe('a%e2%80%94b');
  });

  it('strips curly quotes, marks and invisible characters in the save context', () => {
    expect(sanitizeTitle('it’s “smart”')).toBe('its-smart');
    expect(sanitizeTitle('zero\u200Bwidth\uFEFF ©2024™')).toBe('zerowidth-2024');
    expect(sanitizeTitle('2\u00D74')).toBe('2x4');
  });

  it('keeps valid percent octets and drops stray percent signs', () => {
    expect(sanitizeTitle('100% sure %41')).toBe('100-sure-%41');
  });

  it('cuts the encoded slug at 200 characters without splitting a character', () => {
    expect(sanitizeTitle('x'.repeat(300))).toBe('x'.repeat(200));
    expect(sanitizeTitle('a'.repeat(195) + '中b')).toBe('a'.repeat(195));
    expect(sanitizeTitle('中'.repeat(30))).toBe('%e4%b8%ad'.repeat(22));
  });

  it('uses the fallback when nothing is left', () => {
    expect(sanitizeTitle('!!!', 'untitled')).toBe('untitled');
    expect(sanitizeTitle('', 'untitled')).toBe('untitled');
  });

  it('applies the locale rules of remove_accents()', () => {
    expect(sanitizeTitle('Straße Müller', '', 'save', 'de_DE')).toBe('strasse-mueller');
    expect(sanitizeTitle('Straße Müller')).toBe('strase-muller');
  });
});

describe('removeAccents()', () => {
  it('handles decomposed (NFD) input and the locale-specific rules', () => {
    expect(removeAccents('e\u0301te\u0301')).toBe('ete');
    expect(removeAccents('Ærø Ålborg', 'da_DK')).toBe('Aeroe Aalborg');
    expect(removeAccents('Paral·lel', 'ca')).toBe('Parallel');
    expect(removeAccents('Đorđe', 'sr_RS')).toBe('DJordje');
    expect(removeAccents('£100 €50')).toBe('100 E50');
  });
});

describe('normalizeWhitespace() and convertInvalidEntities()', () => {
  it('normalizes line endings and runs of blanks', () => {
    expect(normalizeWhitespace('  a \t b\r\n\r\nc  ')).toBe('a b\nc');
  });

  it('maps Windows-1252 references to Unicode ones', () => {
    expect(convertInvalidEntities('&#128; &#146;s &#129;&#1280;')).toBe('&#8364; &#8217;s &#1280;');
  });
});

describe('wpTargetedLinkRel()', () => {
  it('adds rel="noopener" to links with a target', () => {
    expect(wpTargetedLinkRel('<a href="https://example.com" target="_blank">x</a>')).toBe(
      '<a href="https://example.com" target="_blank" rel="noopener">x</a>',
    );
    expect(wpTargetedLinkRel("<a href='x' target='_blank'>x</a>")).toBe(
      "<a href='x' target='_blank' rel=\"noopener\">x</a>",
    );
  });

  it('merges into an existing rel without duplicating noopener', () => {
    expect(wpTargetedLinkRel('<a href="x" rel="nofollow" target="_blank">r</a>')).toBe(
      '<a href="x" rel="nofollow noopener" target="_blank">r</a>',
    );
    expect(wpTargetedLinkRel('<a href="x" target="_blank" rel="noopener">r</a>')).toBe(
      '<a href="x" target="_blank" rel="noopener">r</a>',
    );
  });

  it('leaves links without a target attribute, scripts and serialized data alone', () => {
    expect(wpTargetedLinkRel('<a href="x" data-target="y">d</a>')).toBe('<a href="x" data-target="y">d</a>');
    const script = '<script>var s = \'<a href="x" target="_blank">\';</script>';
    expect(wpTargetedLinkRel(script)).toBe(script);
  });
});
