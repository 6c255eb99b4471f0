/**
 * Slugs and save-time text filters: ports of WordPress 6.1 `remove_accents()`, `sanitize_title()`,
 * `sanitize_title_with_dashes()` (with `utf8_uri_encode()`), `normalize_whitespace()`,
 * `convert_invalid_entities()` and `wp_targeted_link_rel()` (wp-includes/formatting.php).
 *
 * Verified byte for byte against PHP 8.2 running the real WordPress code with the mbstring and intl
 * extensions (see test/fixtures/formatting/sanitize-harness.php). WordPress works on UTF-8 bytes; a
 * JavaScript string always holds valid Unicode, so `seems_utf8()` is always true here and the
 * ISO-8859-1 branch of `remove_accents()` has no counterpart. Strings with lone UTF-16 surrogates
 * (which have no UTF-8 form) are outside the contract.
 */
import { isSerialized } from './php-serialize';
import { phpStripTags } from './excerpt';
import { ALLOWED_PROTOCOLS, escAttr, wpKsesHair } from './kses';
import { PCRE_SPACE, asciiLower, phpTrim, pregSplit, strReplace } from './texturize';

// ---------------------------------------------------------------------------
// remove_accents
// ---------------------------------------------------------------------------

/** The `$chars` table of `remove_accents()` (UTF-8 branch), in WordPress's order. */
const ACCENTS: Readonly<Record<string, string>> = {
  // Decompositions for Latin-1 Supplement.
  ª: 'a',
  º: 'o',
  À: 'A',
  Á: 'A',
  Â: 'A',
  Ã: 'A',
  Ä: 'A',
  Å: 'A',
  Æ: 'AE',
  Ç: 'C',
  È: 'E',
  É: 'E',
  Ê: 'E',
  Ë: 'E',
  Ì: 'I',
  Í: 'I',
  Î: 'I',
  Ï: 'I',
  Ð: 'D',
  Ñ: 'N',
  Ò: 'O',
  Ó: 'O',
  Ô: 'O',
  Õ: 'O',
  Ö: 'O',
  Ù: 'U',
  Ú: 'U',
  Û: 'U',
  Ü: 'U',
  Ý: 'Y',
  Þ: 'TH',
  ß: 's',
  à: 'a',
  á: 'a',
  â: 'a',
  ã: 'a',
  ä: 'a',
  å: 'a',
  æ: 'ae',
  ç: 'c',
  è: 'e',
  é: 'e',
  ê: 'e',
  ë: 'e',
  ì: 'i',
  í: 'i',
  î: 'i',
  ï: 'i',
  ð: 'd',
  ñ: 'n',
  ò: 'o',
  ó: 'o',
  ô: 'o',
  õ: 'o',
  ö: 'o',
  ø: 'o',
  ù: 'u',
  ú: 'u',
  û: 'u',
  ü: 'u',
  ý: 'y',
  þ: 'th',
  ÿ: 'y',
  Ø: 'O',
  // Decompositions for Latin Extended-A.
  Ā: 'A',
  ā: 'a',
  Ă: 'A',
  ă: 'a',
  Ą: 'A',
  ą: 'a',
  Ć: 'C',
  ć: 'c',
  Ĉ: 'C',
  ĉ: 'c',
  Ċ: 'C',
  ċ: 'c',
  Č: 'C',
  č: 'c',
  Ď: 'D',
  ď: 'd',
  Đ: 'D',
  đ: 'd',
  Ē: 'E',
  ē: 'e',
  Ĕ: 'E',
  ĕ: 'e',
  Ė: 'E',
  ė: 'e',
  Ę: 'E',
  ę: 'e',
  Ě: 'E',
  ě: 'e',
  Ĝ: 'G',
  ĝ: 'g',
  Ğ: 'G',
  ğ: 'g',
  Ġ: 'G',
  ġ: 'g',
  Ģ: 'G',
  ģ: 'g',
  Ĥ: 'H',
  ĥ: 'h',
  Ħ: 'H',
  ħ: 'h',
  Ĩ: 'I',
  ĩ: 'i',
  Ī: 'I',
  ī: 'i',
  Ĭ: 'I',
  ĭ: 'i',
  Į: 'I',
  į: 'i',
  İ: 'I',
  ı: 'i',
  Ĳ: 'IJ',
  ĳ: 'ij',
  Ĵ: 'J',
  ĵ: 'j',
  Ķ: 'K',
  ķ: 'k',
  ĸ: 'k',
  Ĺ: 'L',
  ĺ: 'l',
  Ļ: 'L',
  ļ: 'l',
  Ľ: 'L',
  ľ: 'l',
  Ŀ: 'L',
  ŀ: 'l',
  Ł: 'L',
  ł: 'l',
  Ń: 'N',
  ń: 'n',
  Ņ: 'N',
  ņ: 'n',
  Ň: 'N',
  ň: 'n',
  ŉ: 'n',
  Ŋ: 'N',
  ŋ: 'n',
  Ō: 'O',
  ō: 'o',
  Ŏ: 'O',
  ŏ: 'o',
  Ő: 'O',
  ő: 'o',
  Œ: 'OE',
  œ: 'oe',
  Ŕ: 'R',
  ŕ: 'r',
  Ŗ: 'R',
  ŗ: 'r',
  Ř: 'R',
  ř: 'r',
  Ś: 'S',
  ś: 's',
  Ŝ: 'S',
  ŝ: 's',
  Ş: 'S',
  ş: 's',
  Š: 'S',
  š: 's',
  Ţ: 'T',
  ţ: 't',
  Ť: 'T',
  ť: 't',
  Ŧ: 'T',
  ŧ: 't',
  Ũ: 'U',
  ũ: 'u',
  Ū: 'U',
  ū: 'u',
  Ŭ: 'U',
  ŭ: 'u',
  Ů: 'U',
  ů: 'u',
  Ű: 'U',
  ű: 'u',
  Ų: 'U',
  ų: 'u',
  Ŵ: 'W',
  ŵ: 'w',
  Ŷ: 'Y',
  ŷ: 'y',
  Ÿ: 'Y',
  Ź: 'Z',
  ź: 'z',
  Ż: 'Z',
  ż: 'z',
  Ž: 'Z',
  ž: 'z',
  ſ: 's',
  // Decompositions for Latin Extended-B.
  Ș: 'S',
  ș: 's',
  Ț: 'T',
  ț: 't',
  // Euro sign.
  '€': 'E',
  // GBP (Pound) sign.
  '£': '',
  // Vowels with diacritic (Vietnamese).
  // Unmarked.
  Ơ: 'O',
  ơ: 'o',
  Ư: 'U',
  ư: 'u',
  // Grave accent.
  Ầ: 'A',
  ầ: 'a',
  Ằ: 'A',
  ằ: 'a',
  Ề: 'E',
  ề: 'e',
  Ồ: 'O',
  ồ: 'o',
  Ờ: 'O',
  ờ: 'o',
  Ừ: 'U',
  ừ: 'u',
  Ỳ: 'Y',
  ỳ: 'y',
  // Hook.
  Ả: 'A',
  ả: 'a',
  Ẩ: 'A',
  ẩ: 'a',
  Ẳ: 'A',
  ẳ: 'a',
  Ẻ: 'E',
  ẻ: 'e',
  Ể: 'E',
  ể: 'e',
  Ỉ: 'I',
  ỉ: 'i',
  Ỏ: 'O',
  ỏ: 'o',
  Ổ: 'O',
  ổ: 'o',
  Ở: 'O',
  ở: 'o',
  Ủ: 'U',
  ủ: 'u',
  Ử: 'U',
  ử: 'u',
  Ỷ: 'Y',
  ỷ: 'y',
  // Tilde.
  Ẫ: 'A',
  ẫ: 'a',
  Ẵ: 'A',
  ẵ: 'a',
  Ẽ: 'E',
  ẽ: 'e',
  Ễ: 'E',
  ễ: 'e',
  Ỗ: 'O',
  ỗ: 'o',
  Ỡ: 'O',
  ỡ: 'o',
  Ữ: 'U',
  ữ: 'u',
  Ỹ: 'Y',
  ỹ: 'y',
  // Acute accent.
  Ấ: 'A',
  ấ: 'a',
  Ắ: 'A',
  ắ: 'a',
  Ế: 'E',
  ế: 'e',
  Ố: 'O',
  ố: 'o',
  Ớ: 'O',
  ớ: 'o',
  Ứ: 'U',
  ứ: 'u',
  // Dot below.
  Ạ: 'A',
  ạ: 'a',
  Ậ: 'A',
  ậ: 'a',
  Ặ: 'A',
  ặ: 'a',
  Ẹ: 'E',
  ẹ: 'e',
  Ệ: 'E',
  ệ: 'e',
  Ị: 'I',
  ị: 'i',
  Ọ: 'O',
  ọ: 'o',
  Ộ: 'O',
  ộ: 'o',
  Ợ: 'O',
  ợ: 'o',
  Ụ: 'U',
  ụ: 'u',
  Ự: 'U',
  ự: 'u',
  Ỵ: 'Y',
  ỵ: 'y',
  // Vowels with diacritic (Chinese, Hanyu Pinyin).
  ɑ: 'a',
  // Macron.
  Ǖ: 'U',
  ǖ: 'u',
  // Acute accent.
  Ǘ: 'U',
  ǘ: 'u',
  // Caron.
  Ǎ: 'A',
  ǎ: 'a',
  Ǐ: 'I',
  ǐ: 'i',
  Ǒ: 'O',
  ǒ: 'o',
  Ǔ: 'U',
  ǔ: 'u',
  Ǚ: 'U',
  ǚ: 'u',
  // Grave accent.
  Ǜ: 'U',
  ǜ: 'u',
};

/** Locale-specific overrides applied by `remove_accents()` on top of {@link ACCENTS}. */
function localeAccents(locale: string): Readonly<Record<string, string>> | undefined {
  // Like WordPress: every locale starting with 'de' (de_DE, de_CH, de_AT, formal and informal).
  if (locale.startsWith('de')) return { Ä: 'Ae', ä: 'ae', Ö: 'Oe', ö: 'oe', Ü: 'Ue', ü: 'ue', ß: 'ss' };
  if (locale === 'da_DK') return { Æ: 'Ae', æ: 'ae', Ø: 'Oe', ø: 'oe', Å: 'Aa', å: 'aa' };
  if (locale === 'ca') return { 'l·l': 'll' };
  if (locale === 'sr_RS' || locale === 'bs_BA') return { Đ: 'DJ', đ: 'dj' };
  return undefined;
}

interface AccentTable {
  pairs: Readonly<Record<string, string>>;
  re: RegExp;
}

const accentTables = new Map<string, AccentTable>();

/** The replacement table for a locale and a regex matching its keys longest first (PHP `strtr()` order). */
function accentTable(locale: string): AccentTable {
  const overrides = localeAccents(locale);
  const cacheKey = overrides ? locale : '';
  let table = accentTables.get(cacheKey);
  if (!table) {
    const pairs = { ...ACCENTS, ...overrides };
    const keys = Object.keys(pairs).sort((a, b) => b.length - a.length);
    const re = new RegExp(keys.map((k) => k.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'g');
    table = { pairs, re };
    accentTables.set(cacheKey, table);
  }
  return table;
}

/**
 * WordPress `remove_accents( $text, $locale )`: composes the text to NFC (WordPress does when the intl
 * extension is loaded) and replaces accented Latin letters, `€` and `£` with ASCII.
 *
 * `locale` selects the German, Danish, Catalan, Serbian and Bosnian rules like WordPress's `$locale`
 * argument. WordPress falls back to `get_locale()` when it is empty; here an empty locale means a site
 * locale without special rules (such as the default `en_US`), so pass the site's locale where it matters.
 *
 * @example removeAccents('Crème brûlée') // 'Creme brulee'
 * @example removeAccents('Straße', 'de_DE') // 'Strasse'
 */
export function removeAccents(text: string, locale = ''): string {
  if (!/[^\x00-\x7F]/.test(text)) return text;
  text = text.normalize('NFC');
  const { pairs, re } = accentTable(locale);
  return text.replace(re, (m) => pairs[m]);
}

// ---------------------------------------------------------------------------
// sanitize_title / sanitize_title_with_dashes
// ---------------------------------------------------------------------------

/**
 * Letters that JavaScript lowercases (Unicode 16+) but PHP 8.2's mbstring (Unicode 14 tables) leaves as
 * they are; kept unchanged so that slugs match what WordPress on PHP 8.2 stores.
 */
const NOT_LOWERCASED_BY_PHP =
  /[\u1C89\uA7CB\uA7CC\uA7CE\uA7D2\uA7D4\uA7DA\uA7DC\u{10D50}-\u{10D65}\u{16EA0}-\u{16EB8}]/u;
const LOWERCASABLE_RUN = /[^\u1C89\uA7CB\uA7CC\uA7CE\uA7D2\uA7D4\uA7DA\uA7DC\u{10D50}-\u{10D65}\u{16EA0}-\u{16EB8}]+/gu;

/**
 * PHP 8.2 `mb_strtolower( $str, 'UTF-8' )`: full Unicode lowercase mapping (`İ` becomes `i̇`) without the
 * final-sigma rule that JavaScript applies (PHP 8.3 added it): `Σ` always becomes `σ`.
 */
function mbStrtolower(str: string): string {
  str = str.replace(/\u03A3/g, '\u03C3');
  if (!NOT_LOWERCASED_BY_PHP.test(str)) return str.toLowerCase();
  return str.replace(LOWERCASABLE_RUN, (run) => run.toLowerCase());
}

/**
 * WordPress `utf8_uri_encode( $utf8_string, $length )`: percent-encodes every non-ASCII UTF-8 octet
 * (lowercase hex), keeps ASCII as is, and stops before the character that would make the result longer
 * than `length` characters (0 = no limit).
 */
function utf8UriEncode(str: string, length = 0): string {
  const bytes = Buffer.from(str, 'utf8');
  let out = '';
  let values: number[] = [];
  let numOctets = 1;
  for (const value of bytes) {
    if (value < 128) {
      if (length && out.length + 1 > length) break;
      out += String.fromCharCode(value);
    } else {
      if (values.length === 0) numOctets = value < 224 ? 2 : value < 240 ? 3 : 4;
      values.push(value);
      if (length && out.length + numOctets * 3 > length) break;
      if (values.length === numOctets) {
        for (const v of values) out += '%' + v.toString(16);
        values = [];
        numOctets = 1;
      }
    }
  }
  return out;
}

/** Encoded characters that the 'save' context turns into hyphens: &nbsp;, en dash, em dash. */
const SAVE_TO_HYPHEN = ['%c2%a0', '%e2%80%93', '%e2%80%94'];
/** The same three as HTML entities. */
const SAVE_ENTITIES_TO_HYPHEN = ['&nbsp;', '&#160;', '&ndash;', '&#8211;', '&mdash;', '&#8212;'];
/** Encoded characters that the 'save' context strips. */
const SAVE_STRIPPED = [
  // Soft hyphens.
  '%c2%ad',
  // &iexcl and &iquest.
  '%c2%a1',
  '%c2%bf',
  // Angle quotes.
  '%c2%ab',
  '%c2%bb',
  '%e2%80%b9',
  '%e2%80%ba',
  // Curly quotes.
  '%e2%80%98',
  '%e2%80%99',
  '%e2%80%9c',
  '%e2%80%9d',
  '%e2%80%9a',
  '%e2%80%9b',
  '%e2%80%9e',
  '%e2%80%9f',
  // Bullet.
  '%e2%80%a2',
  // &copy, &reg, &deg, &hellip, and &trade.
  '%c2%a9',
  '%c2%ae',
  '%c2%b0',
  '%e2%80%a6',
  '%e2%84%a2',
  // Acute accents.
  '%c2%b4',
  '%cb%8a',
  '%cc%81',
  '%cd%81',
  // Grave accent, macron, caron.
  '%cc%80',
  '%cc%84',
  '%cc%8c',
  // Non-visible characters that display without a width: zero width space, non-joiner, joiner,
  // left-to-right / right-to-left marks, embeddings, pop directional formatting, overrides,
  // byte order mark, object replacement character.
  '%e2%80%8b',
  '%e2%80%8c',
  '%e2%80%8d',
  '%e2%80%8e',
  '%e2%80%8f',
  '%e2%80%aa',
  '%e2%80%ab',
  '%e2%80%ac',
  '%e2%80%ad',
  '%e2%80%ae',
  '%ef%bb%bf',
  '%ef%bf%bc',
];
/**
 * Encoded non-visible characters with a width that the 'save' context turns into hyphens: en/em quad,
 * en/em/three-per-em/four-per-em/six-per-em/figure/punctuation/thin/hair space, line and paragraph
 * separator, narrow no-break space.
 */
const SAVE_SPACES_TO_HYPHEN = [
  '%e2%80%80',
  '%e2%80%81',
  '%e2%80%82',
  '%e2%80%83',
  '%e2%80%84',
  '%e2%80%85',
  '%e2%80%86',
  '%e2%80%87',
  '%e2%80%88',
  '%e2%80%89',
  '%e2%80%8a',
  '%e2%80%a8',
  '%e2%80%a9',
  '%e2%80%af',
];

const PCRE_SPACES = new RegExp(`${PCRE_SPACE}+`, 'g');

/**
 * WordPress `sanitize_title_with_dashes( $title, '', $context )`: strips tags, keeps `%xx` octets,
 * lowercases, percent-encodes non-ASCII (cut at 200 encoded characters) and reduces the result to
 * `[%a-z0-9_-]` with single dashes. The 'save' context also turns &nbsp;, dashes, slashes and wide
 * spaces into hyphens, `×` into `x`, and drops quotes, marks and invisible characters.
 *
 * @example sanitizeTitleWithDashes('Hello World!') // 'hello-world'
 * @example sanitizeTitleWithDashes('Über uns') // '%c3%bcber-uns'
 */
export function sanitizeTitleWithDashes(title: string, context: 'display' | 'save' = 'display'): string {
  title = phpStripTags(title);
  // Preserve escaped octets, remove percent signs that are not part of an octet, restore octets.
  title = title.replace(/%([a-fA-F0-9][a-fA-F0-9])/g, '---$1---');
  title = title.replace(/%/g, '');
  title = title.replace(/---([a-fA-F0-9][a-fA-F0-9])---/g, '%$1');

  // seems_utf8() is true for every JavaScript string.
  title = utf8UriEncode(mbStrtolower(title), 200);
  title = asciiLower(title);

  if (context === 'save') {
    title = strReplace(title, SAVE_TO_HYPHEN, '-');
    title = strReplace(title, SAVE_ENTITIES_TO_HYPHEN, '-');
    title = strReplace(title, '/', '-');
    title = strReplace(title, SAVE_STRIPPED, '');
    title = strReplace(title, SAVE_SPACES_TO_HYPHEN, '-');
    title = strReplace(title, '%c3%97', 'x');
  }

  // Kill entities (PCRE's `.` stops only at "\n").
  title = title.replace(/&[^\n]+?;/g, '');
  title = title.replace(/\./g, '-');
  title = title.replace(/[^%a-z0-9 _-]/g, '');
  title = title.replace(PCRE_SPACES, '-');
  title = title.replace(/-+/g, '-');
  return phpTrim(title, '-');
}

/**
 * WordPress `sanitize_title( $title, $fallback_title, $context )` with the filters WordPress 6.1 registers
 * on `sanitize_title` (only `sanitize_title_with_dashes`): `remove_accents()` in the 'save' context, then
 * {@link sanitizeTitleWithDashes}; `fallback` when the result is empty.
 *
 * `locale` stands for `get_locale()`, which `remove_accents()` reads (see {@link removeAccents}).
 *
 * @example sanitizeTitle('tęst-acceńted-chäræcters') // 'test-accented-charaecters'
 * @example sanitizeTitle('!!!', 'untitled') // 'untitled'
 */
export function sanitizeTitle(title: string, fallback = '', context: 'save' | 'display' = 'save', locale = ''): string {
  if (context === 'save') title = removeAccents(title, locale);
  title = sanitizeTitleWithDashes(title, context);
  return title === '' ? fallback : title;
}

// ---------------------------------------------------------------------------
// normalize_whitespace / convert_invalid_entities
// ---------------------------------------------------------------------------

/**
 * WordPress `normalize_whitespace( $str )`: trims (PHP `trim()`), turns `\r` into `\n`, collapses runs of
 * newlines and runs of spaces/tabs.
 */
export function normalizeWhitespace(str: string): string {
  str = phpTrim(str);
  str = str.replace(/\r/g, '\n');
  return str.replace(/\n+/g, '\n').replace(/[ \t]+/g, ' ');
}

/** Windows-1252 numeric references (`&#128;` to `&#159;`) and their Unicode equivalents. */
const WP_HTMLTRANSWINUNI: Readonly<Record<string, string>> = {
  '&#128;': '&#8364;', // The Euro sign.
  '&#129;': '',
  '&#130;': '&#8218;', // These are Windows CP1252 specific characters.
  '&#131;': '&#402;', // They would look weird on non-Windows browsers.
  '&#132;': '&#8222;',
  '&#133;': '&#8230;',
  '&#134;': '&#8224;',
  '&#135;': '&#8225;',
  '&#136;': '&#710;',
  '&#137;': '&#8240;',
  '&#138;': '&#352;',
  '&#139;': '&#8249;',
  '&#140;': '&#338;',
  '&#141;': '',
  '&#142;': '&#381;',
  '&#143;': '',
  '&#144;': '',
  '&#145;': '&#8216;',
  '&#146;': '&#8217;',
  '&#147;': '&#8220;',
  '&#148;': '&#8221;',
  '&#149;': '&#8226;',
  '&#150;': '&#8211;',
  '&#151;': '&#8212;',
  '&#152;': '&#732;',
  '&#153;': '&#8482;',
  '&#154;': '&#353;',
  '&#155;': '&#8250;',
  '&#156;': '&#339;',
  '&#157;': '',
  '&#158;': '&#382;',
  '&#159;': '&#376;',
};

/**
 * WordPress `convert_invalid_entities( $content )`: rewrites the numeric references 128-159 (Windows-1252
 * code points, invalid in HTML) to the Unicode characters they stand for, or removes them.
 */
export function convertInvalidEntities(content: string): string {
  if (!content.includes('&#1')) return content;
  // All keys have the same length, so one left-to-right pass is PHP's strtr().
  return content.replace(/&#1(?:2[89]|[3-5][0-9]);/g, (m) => WP_HTMLTRANSWINUNI[m]);
}

// ---------------------------------------------------------------------------
// wp_targeted_link_rel
// ---------------------------------------------------------------------------

/** PHP `addslashes()` (= `wp_slash()` on a string). */
function addslashes(str: string): string {
  return str.replace(/[\\'"\0]/g, (c) => (c === '\0' ? '\\0' : '\\' + c));
}

/** PHP `stripslashes()` (= `wp_unslash()` on a string): `\0` becomes NUL, a trailing `\` is dropped. */
function stripslashes(str: string): string {
  return str.replace(/\\([\s\S]?)/g, (_m, c: string) => (c === '0' ? '\0' : c));
}

const SCRIPT_AND_STYLE = /<(script|style)[\s\S]*?<\/\1>/gi;
const TARGETED_LINK = new RegExp(`<a${PCRE_SPACE}([^>]*target${PCRE_SPACE}*=[^>]*)>`, 'gi');
const PCRE_SPACE_1 = new RegExp(PCRE_SPACE);

/** `wp_targeted_link_rel_callback()` with the default `wp_targeted_link_rel` filter value 'noopener'. */
function targetedLinkRelCallback(linkHtml: string): string {
  const original = linkHtml;
  // Consider the HTML escaped if there are no unescaped quotes.
  const isEscaped = !/(^|[^\\])['"]/.test(linkHtml);
  if (isEscaped) {
    // Replace only the quotes so that they are parsable by wp_kses_hair(), leave the rest as is.
    linkHtml = linkHtml.replace(/\\(['"])/g, '$1');
  }
  const atts = wpKsesHair(linkHtml, ALLOWED_PROTOCOLS);
  let rel = 'noopener';
  if (!atts.has('target')) return `<a ${original}>`;

  const existing = atts.get('rel');
  if (existing) {
    const parts = `${existing.value} ${rel}`.split(PCRE_SPACE_1).filter((p) => p !== '');
    rel = [...new Set(parts)].join(' ');
  }
  const whole = `rel="${escAttr(rel)}"`;
  // Map.set keeps the position of an existing rel and appends a new one, like the PHP array.
  atts.set('rel', existing ? { ...existing, whole } : { name: 'rel', value: rel, whole, vless: 'n' });
  linkHtml = [...atts.values()].map((a) => a.whole).join(' ');

  if (isEscaped) linkHtml = linkHtml.replace(/['"]/g, '\\$&');
  return `<a ${linkHtml}>`;
}

/** `wp_targeted_link_rel( $text )` itself, on slashed data as WordPress's `*_save_pre` filters see it. */
function targetedLinkRelSlashed(text: string): string {
  // Don't run (more expensive) regex if no links with targets.
  if (!/target/i.test(text) || !/<a /i.test(text) || isSerialized(text)) return text;

  const extraParts = text.match(SCRIPT_AND_STYLE) ?? [];
  const htmlParts = pregSplit(text, SCRIPT_AND_STYLE).map((part) =>
    part.replace(TARGETED_LINK, (_m, linkHtml: string) => targetedLinkRelCallback(linkHtml)),
  );
  let out = '';
  htmlParts.forEach((part, i) => {
    out += part + (extraParts[i] ?? '');
  });
  return out;
}

/**
 * WordPress `wp_targeted_link_rel( $text )` as it acts on saved content: adds `rel="noopener"` to every
 * `<a>` with a `target` attribute (outside `<script>` and `<style>`), merging it into an existing `rel`
 * without duplicating values. Attributes of a rewritten tag are re-serialized by `wp_kses_hair()`
 * (unquoted values get double quotes, duplicates are dropped, bad URL protocols removed).
 *
 * WordPress runs it on slashed data (`content_save_pre`, `title_save_pre`, `pre_comment_content`, ...) and
 * unslashes the result before storing it; this function takes and returns unslashed text and gives what
 * WordPress stores: `wp_unslash( wp_targeted_link_rel( wp_slash( $text ) ) )`.
 *
 * @example wpTargetedLinkRel('<a href="https://x.test" target="_blank">x</a>')
 * // '<a href="https://x.test" target="_blank" rel="noopener">x</a>'
 */
export function wpTargetedLinkRel(text: string): string {
  const slashed = addslashes(text);
  const result = targetedLinkRelSlashed(slashed);
  return result === slashed ? text : stripslashes(result);
}
