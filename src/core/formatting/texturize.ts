/**
 * Port of WordPress 6.1 `wptexturize()` / `wptexturize_primes()` (wp-includes/formatting.php)
 * with the default English translations, plus the small PHP/WordPress helpers shared by
 * the other formatting modules (PHP `trim`, `wp_spaces_regexp()`, `wp_html_split()`, ...).
 *
 * Regular expressions are translated from PCRE (byte mode, no `u` flag) to JavaScript:
 * `\s` is spelled out as PCRE's ASCII set, `\Z` becomes `(?=\n?$)`, `\A` becomes `^`,
 * conditionals become alternations and possessive quantifiers are dropped where they
 * cannot change the result (or emulated with `(?=(...))\N`).
 */

// ---------------------------------------------------------------------------
// PHP compatibility helpers.
// ---------------------------------------------------------------------------

/** Characters stripped by PHP's `trim()` with the default character list. */
const PHP_TRIM_CHARS = ' \t\n\r\0\x0B';

/** PHP `trim()` / `ltrim()` / `rtrim()` with an explicit (literal, no `..` ranges) character list. */
export function phpTrim(str: string, chars: string = PHP_TRIM_CHARS, mode: 'both' | 'left' | 'right' = 'both'): string {
  let start = 0;
  let end = str.length;
  if (mode !== 'right') {
    while (start < end && chars.includes(str[start])) start++;
  }
  if (mode !== 'left') {
    while (end > start && chars.includes(str[end - 1])) end--;
  }
  return str.slice(start, end);
}

/** PHP 8 `substr()`. */
export function phpSubstr(str: string, start: number, length?: number): string {
  const len = str.length;
  if (start < 0) start = Math.max(0, len + start);
  if (start > len) return '';
  if (length === undefined) return str.slice(start);
  if (length < 0) {
    const end = len + length;
    return end <= start ? '' : str.slice(start, end);
  }
  return str.slice(start, start + length);
}

/** PHP 8.2 `strtolower()` (ASCII only, locale independent). */
export function asciiLower(str: string): string {
  return str.replace(/[A-Z]+/g, (m) => m.toLowerCase());
}

/** PHP `str_replace()` with array search/replace (applied one pair after the other). */
export function strReplace(
  subject: string,
  search: string | readonly string[],
  replace: string | readonly string[],
): string {
  const searches = typeof search === 'string' ? [search] : search;
  for (let i = 0; i < searches.length; i++) {
    const s = searches[i];
    if (s === '') continue;
    const r = typeof replace === 'string' ? replace : (replace[i] ?? '');
    if (subject.includes(s)) subject = subject.split(s).join(r);
  }
  return subject;
}

/** PHP `strtr()` with an array of pairs: longest match first, no re-scanning of replaced text. */
export function strtr(subject: string, pairs: Readonly<Record<string, string>>): string {
  const keys = Object.keys(pairs).filter((k) => k !== '');
  if (keys.length === 0) return subject;
  // At each place the first alternative that matches is taken: the longest key, as strtr() does.
  const source = keys
    .sort((a, b) => b.length - a.length)
    .map(regexQuote)
    .join('|');
  let pattern = STRTR_PATTERNS.get(source);
  if (!pattern) {
    pattern = new RegExp(source, 'g');
    if (STRTR_PATTERNS.size < 64) STRTR_PATTERNS.set(source, pattern);
  }
  return subject.replace(pattern, (key) => pairs[key]);
}

/** The patterns of the key sets strtr() was called with (a few fixed sets). */
const STRTR_PATTERNS = new Map<string, RegExp>();

/**
 * PHP `preg_split()` with `PREG_SPLIT_DELIM_CAPTURE` semantics (captured groups are returned
 * between the pieces); `noEmpty` = `PREG_SPLIT_NO_EMPTY`; `limit` as in PHP (-1 = none).
 * The regex must be global and must not match the empty string.
 */
export function pregSplit(
  text: string,
  re: RegExp,
  opts: { noEmpty?: boolean; delimCapture?: boolean; limit?: number; delimGroups?: number } = {},
): string[] {
  const { noEmpty = false, delimCapture = false } = opts;
  let limit = opts.limit === undefined || opts.limit === 0 ? -1 : opts.limit;
  const out: string[] = [];
  const global = new RegExp(re.source, re.flags.includes('g') ? re.flags : re.flags + 'g');
  let last = 0;
  let m: RegExpExecArray | null;
  if (limit === 1) {
    return noEmpty && text === '' ? [] : [text];
  }
  while ((limit === -1 || limit > 1) && (m = global.exec(text)) !== null) {
    if (m[0] === '') {
      // Not expected for the patterns used here; avoid an infinite loop.
      global.lastIndex++;
      continue;
    }
    const piece = text.slice(last, m.index);
    if (!noEmpty || piece !== '') {
      out.push(piece);
      if (limit !== -1) limit--;
    }
    if (delimCapture) {
      const groups = Math.min(m.length - 1, opts.delimGroups ?? m.length - 1);
      for (let g = 1; g <= groups; g++) {
        const d = m[g];
        if (noEmpty && (d === undefined || d === '')) continue;
        out.push(d ?? '');
      }
    }
    last = m.index + m[0].length;
  }
  const rest = text.slice(last);
  if (!noEmpty || rest !== '') out.push(rest);
  return out;
}

/** `preg_replace()` returning the number of replacements too. */
export function pregReplaceCount(text: string, re: RegExp, replacement: string): [string, number] {
  let count = 0;
  const out = text.replace(re, (...args: unknown[]) => {
    count++;
    const groups = args.slice(1, -2) as (string | undefined)[];
    return replacement.replace(/\$(\d)/g, (_, n: string) => groups[Number(n) - 1] ?? '');
  });
  return [out, count];
}

/** Escapes a string for use inside a JavaScript regular expression (like `preg_quote`). */
export function regexQuote(str: string): string {
  return str.replace(/[.\\+*?[^\]$(){}=!<>|:\-#/]/g, '\\$&');
}

// ---------------------------------------------------------------------------
// WordPress regex helpers.
// ---------------------------------------------------------------------------

/** `wp_spaces_regexp()`: `[\r\n\t ]|\xC2\xA0|&nbsp;` (the UTF-8 bytes of U+00A0 = one JS code unit). */
export const WP_SPACES = '[\\r\\n\\t ]|\\u00A0|&nbsp;';

/** PCRE's (non-UCP) `\s` class. */
export const PCRE_SPACE = '[ \\t\\n\\x0B\\f\\r]';

/** Comment part of `get_html_split_regex()` / `_get_wptexturize_split_regex()`, after the `<`. */
const HTML_COMMENT_REGEX = '!(?:-(?!->)[^\\-]*)*(?:-->)?';
/** CDATA part of `get_html_split_regex()`, after the `<`. */
const HTML_CDATA_REGEX = '!\\[CDATA\\[[^\\]]*(?:](?!]>)[^\\]]*)*(?:]]>)?';

/**
 * `get_html_split_regex()` (with its PCRE conditionals rewritten as alternations; the possessive
 * quantifiers are irrelevant because nothing after them can fail).
 */
export const HTML_SPLIT_REGEX_SOURCE =
  '(<(?:(?=!--)' + HTML_COMMENT_REGEX + '|(?=!\\[CDATA\\[)' + HTML_CDATA_REGEX + '|(?!!--|!\\[CDATA\\[)[^>]*>?))';

/** `wp_html_split()`: text and elements alternate (element pieces at odd indices). */
export function wpHtmlSplit(input: string): string[] {
  return pregSplit(input, new RegExp(HTML_SPLIT_REGEX_SOURCE, 'g'), { delimCapture: true, delimGroups: 1 });
}

/** `wp_replace_in_html_tags()`. */
export function wpReplaceInHtmlTags(haystack: string, replacePairs: Readonly<Record<string, string>>): string {
  const textarr = wpHtmlSplit(haystack);
  let changed = false;
  const needles = Object.keys(replacePairs);
  if (needles.length === 1) {
    const needle = needles[0];
    const replace = replacePairs[needle];
    for (let i = 1; i < textarr.length; i += 2) {
      if (textarr[i].includes(needle)) {
        textarr[i] = strReplace(textarr[i], needle, replace);
        changed = true;
      }
    }
  } else {
    for (let i = 1; i < textarr.length; i += 2) {
      for (const needle of needles) {
        if (textarr[i].includes(needle)) {
          textarr[i] = strtr(textarr[i], replacePairs);
          changed = true;
          break;
        }
      }
    }
  }
  return changed ? textarr.join('') : haystack;
}

// ---------------------------------------------------------------------------
// Shortcode regexes (shared with autop.ts / excerpt.ts).
// ---------------------------------------------------------------------------

/**
 * Shortcodes registered by a default WordPress 6.1 install (no plugins, no theme shortcodes):
 * `[wp_caption]`, `[caption]`, `[gallery]` (media.php), `[playlist]`, `[audio]`, `[video]` (media.php)
 * and `[embed]` (class-wp-embed.php). They change how texturize/autop/excerpts treat the text even
 * though this port does not render them (do_shortcode is not ported).
 */
export const DEFAULT_SHORTCODE_TAGS: readonly string[] = [
  'wp_caption',
  'caption',
  'gallery',
  'playlist',
  'audio',
  'video',
  'embed',
];

/** `preg_quote()` (default delimiter handling is irrelevant for tag names). */
function pregQuote(str: string): string {
  return str.replace(/[.\\+*?[^\]$(){}=!<>|:\-#/]/g, '\\$&');
}

/** Tag names found by `@\[/?([^<>&/\[\]\x00-\x20=]++)@` intersected with the registered ones. */
export function findShortcodeTagnames(text: string, registered: readonly string[], allowSlash = true): string[] {
  const re = allowSlash ? /\[\/?([^<>&/[\]\x00-\x20=]+)/g : /\[([^<>&/[\]\x00-\x20=]+)/g;
  const found = new Set<string>();
  for (const m of text.matchAll(re)) found.add(m[1]);
  // array_intersect( $registered, $found ) keeps the registered order.
  return registered.filter((t) => found.has(t));
}

/**
 * `get_shortcode_regex( $tagnames )` as a JS source. Groups: 1 `[`, 2 name, 3 attributes,
 * 4 self-closing `/`, 5 content, 6 `]`. Possessive `*+` emulated with lookahead captures
 * (extra groups 7, 8 are internal).
 */
export function getShortcodeRegexSource(tagnames: readonly string[]): string {
  const tagregexp = tagnames.map(pregQuote).join('|');
  return (
    '\\[' +
    '(\\[?)' +
    '(' +
    tagregexp +
    ')' +
    '(?![\\w-])' +
    '(' +
    '[^\\]\\/]*' +
    '(?:' +
    '\\/(?!\\])' +
    '[^\\]\\/]*' +
    ')*?' +
    ')' +
    '(?:' +
    '(\\/)' +
    '\\]' +
    '|' +
    '\\]' +
    '(?:' +
    '(' +
    // [^\[]*+ (?: \[(?!\/\2\]) [^\[]*+ )*+  -- possessive, emulated atomically.
    '(?=([^\\[]*(?:\\[(?!\\/\\2\\])[^\\[]*)*))\\6' +
    ')' +
    '\\[\\/\\2\\]' +
    ')?' +
    ')' +
    '(\\]?)'
  );
}

/** Group index of "6: optional second closing bracket" in {@link getShortcodeRegexSource} (shifted by the helper group 6). */
export const SHORTCODE_GROUP_CLOSE = 7;

// ---------------------------------------------------------------------------
// wptexturize
// ---------------------------------------------------------------------------

const OPENING_QUOTE = '&#8220;';
const CLOSING_QUOTE = '&#8221;';
const APOS = '&#8217;';
const PRIME = '&#8242;';
const DOUBLE_PRIME = '&#8243;';
const OPENING_SINGLE_QUOTE = '&#8216;';
const CLOSING_SINGLE_QUOTE = '&#8217;';
const EN_DASH = '&#8211;';
const EM_DASH = '&#8212;';

const OPEN_Q_FLAG = '<!--oq-->';
const OPEN_SQ_FLAG = '<!--osq-->';
const APOS_FLAG = '<!--apos-->';

/** Elements whose content is never texturized (`no_texturize_tags`). */
export const DEFAULT_NO_TEXTURIZE_TAGS: readonly string[] = ['pre', 'code', 'kbd', 'style', 'script', 'tt'];
/** Shortcodes whose content is never texturized (`no_texturize_shortcodes`). */
export const DEFAULT_NO_TEXTURIZE_SHORTCODES: readonly string[] = ['code'];

const COCKNEY = ["'tain't", "'twere", "'twas", "'tis", "'twill", "'til", "'bout", "'nuff", "'round", "'cause", "'em"];
const COCKNEY_REPLACE = [
  '&#8217;tain&#8217;t',
  '&#8217;twere',
  '&#8217;twas',
  '&#8217;tis',
  '&#8217;twill',
  '&#8217;til',
  '&#8217;bout',
  '&#8217;nuff',
  '&#8217;round',
  '&#8217;cause',
  '&#8217;em',
];

const STATIC_CHARACTERS = ['...', '``', "''", ' (tm)', ...COCKNEY];
const STATIC_REPLACEMENTS = ['&#8230;', OPENING_QUOTE, CLOSING_QUOTE, ' &#8482;', ...COCKNEY_REPLACE];

const S = WP_SPACES;
/** PCRE `\Z`. */
const END_Z = '\\n?$';

const DYNAMIC_APOS: [RegExp, string][] = [
  // '99' and '99" are ambiguous among other patterns; assume it's an abbreviated year at the end of a quotation.
  [new RegExp(`'(\\d\\d)'(?=${END_Z}|[.,:;!?)}\\-\\]]|&gt;|${S})`, 'g'), APOS_FLAG + '$1' + CLOSING_SINGLE_QUOTE],
  [new RegExp(`'(\\d\\d)"(?=${END_Z}|[.,:;!?)}\\-\\]]|&gt;|${S})`, 'g'), APOS_FLAG + '$1' + CLOSING_QUOTE],
  // '99 '99s '99's (apostrophe)  But never '9 or '99% or '999 or '99.0.
  [new RegExp(`'(?=\\d\\d(?:${END_Z}|(?![%\\d]|[.,]\\d)))`, 'g'), APOS_FLAG],
  // Quoted numbers like '0.42'.
  [new RegExp(`(?<=^|${S})'(\\d[.,\\d]*)'`, 'g'), OPEN_SQ_FLAG + '$1' + CLOSING_SINGLE_QUOTE],
  // Single quote at start, or preceded by (, {, <, [, ", -, or spaces.
  [new RegExp(`(?<=^|[(\\[{"\\-]|&lt;|${S})'`, 'g'), OPEN_SQ_FLAG],
  // Apostrophe in a word. No spaces, double apostrophes, or other punctuation.
  [new RegExp(`(?<!${S})'(?!${END_Z}|[.,:;!?"'(){}[\\]\\-]|&[lg]t;|${S})`, 'g'), APOS_FLAG],
];

const DYNAMIC_QUOTE: [RegExp, string][] = [
  // Quoted numbers like "42".
  [new RegExp(`(?<=^|${S})"(\\d[.,\\d]*)"`, 'g'), OPEN_Q_FLAG + '$1' + CLOSING_QUOTE],
  // Double quote at start, or preceded by (, {, <, [, -, or spaces, and not followed by spaces.
  [new RegExp(`(?<=^|[(\\[{\\-]|&lt;|${S})"(?!${S})`, 'g'), OPEN_Q_FLAG],
];

const DYNAMIC_DASH: [RegExp, string][] = [
  [/---/g, EM_DASH],
  [new RegExp(`(?<=^|${S})--(?=$|${S})`, 'g'), EM_DASH],
  [/(?<!xn)--/g, EN_DASH],
  [new RegExp(`(?<=^|${S})-(?=$|${S})`, 'g'), EN_DASH],
];

/** `&` not starting an entity (used by wptexturize on both text and tags). */
const BARE_AMP = /&(?!#(?:\d+|x[a-f0-9]+);|[a-z1-4]{1,8};)/gi;

/** Comment part of `_get_wptexturize_split_regex()`. */
const TEXTURIZE_HTML_REGEX = '<(?:(?=!--)' + HTML_COMMENT_REGEX + '|(?!!--)[^>]*>?)';

/**
 * `_get_wptexturize_shortcode_regex()`; the possessive `)*+` is emulated with a lookahead capture,
 * which is group number `helperGroup` in the final regex.
 */
function texturizeShortcodeRegexSource(tagnames: readonly string[], helperGroup: number): string {
  const tagregexp = '(?:' + tagnames.map(pregQuote).join('|') + ')(?=[ \\t\\n\\x0B\\f\\r\\]\\/])';
  return '\\[' + '[\\/\\[]?' + tagregexp + '(?=((?:[^\\[\\]<>]+|<[^\\[\\]>]*>)*))\\' + helperGroup + '\\]' + '\\]?';
}

function applyDynamic(text: string, list: readonly [RegExp, string][]): string {
  for (const [re, rep] of list) text = text.replace(re, rep);
  return text;
}

/** `wptexturize_primes()`. */
export function wptexturizePrimes(
  haystack: string,
  needle: string,
  prime: string,
  openQuote: string,
  closeQuote: string,
): string {
  const flag = '<!--wp-prime-or-quote-->';
  const quotePattern = new RegExp(`${needle}(?=${END_Z}|[.,:;!?)}\\-\\]]|&gt;|${S})`, 'g');
  const primePattern = new RegExp(`(?<=\\d)${needle}`, 'g');
  const flagAfterDigit = new RegExp(`(?<=\\d)${flag}`, 'g');
  const flagNoDigit = new RegExp(`(?<!\\d)${flag}`, 'g');

  const sentences = haystack.split(openQuote);
  for (let key = 0; key < sentences.length; key++) {
    let sentence = sentences[key];
    if (!sentence.includes(needle)) {
      continue;
    } else if (key !== 0 && sentence.split(closeQuote).length - 1 === 0) {
      let count: number;
      [sentence, count] = pregReplaceCount(sentence, quotePattern, flag);
      if (count > 1) {
        // This sentence appears to have multiple closing quotes. Attempt Vulcan logic.
        let count2: number;
        [sentence, count2] = pregReplaceCount(sentence, flagNoDigit, closeQuote);
        if (count2 === 0) {
          // Try looking for a quote followed by a period.
          count2 = sentence.split(`${flag}.`).length - 1;
          let pos: number;
          if (count2 > 0) {
            // Assume the rightmost quote-period match is the end of quotation.
            pos = sentence.lastIndexOf(`${flag}.`);
          } else {
            // When all else fails, make the rightmost candidate a closing quote.
            pos = sentence.lastIndexOf(flag);
          }
          sentence = sentence.slice(0, pos) + closeQuote + sentence.slice(pos + flag.length);
        }
        // Use conventional replacement on any remaining primes and quotes.
        sentence = sentence.replace(primePattern, prime);
        sentence = sentence.replace(flagAfterDigit, prime);
        sentence = strReplace(sentence, flag, closeQuote);
      } else if (count === 1) {
        // Found only one closing quote candidate, so give it priority over primes.
        sentence = strReplace(sentence, flag, closeQuote);
        sentence = sentence.replace(primePattern, prime);
      } else {
        // No closing quotes found. Just run primes pattern.
        sentence = sentence.replace(primePattern, prime);
      }
    } else {
      sentence = sentence.replace(primePattern, prime);
      sentence = sentence.replace(quotePattern, closeQuote);
    }
    if (needle === '"' && sentence.includes('"')) {
      sentence = strReplace(sentence, '"', closeQuote);
    }
    sentences[key] = sentence;
  }
  return sentences.join(openQuote);
}

/** `_wptexturize_pushpop_element()`. */
function pushpopElement(text: string, stack: string[], disabledElements: readonly string[]): void {
  let openingTag: boolean;
  let nameOffset: number;
  if (text.length > 1 && text[1] !== '/') {
    openingTag = true;
    nameOffset = 1;
  } else if (stack.length === 0) {
    return;
  } else {
    openingTag = false;
    nameOffset = 2;
  }
  let space = text.indexOf(' ');
  if (space === -1) {
    space = -1;
  } else {
    space -= nameOffset;
  }
  const tag = phpSubstr(text, nameOffset, space);
  if (disabledElements.includes(tag)) {
    if (openingTag) {
      stack.push(tag);
    } else if (stack[stack.length - 1] === tag) {
      stack.pop();
    }
  }
}

export interface TexturizeOptions {
  /** Registered shortcode tag names (default: those of a default WordPress install, {@link DEFAULT_SHORTCODE_TAGS}). */
  shortcodeTags?: readonly string[];
  noTexturizeTags?: readonly string[];
  noTexturizeShortcodes?: readonly string[];
}

/** Texturizes one text node (the body of wptexturize's main loop). */
function texturizeText(curl: string): string {
  curl = strReplace(curl, STATIC_CHARACTERS, STATIC_REPLACEMENTS);

  if (curl.includes("'")) {
    curl = applyDynamic(curl, DYNAMIC_APOS);
    curl = wptexturizePrimes(curl, "'", PRIME, OPEN_SQ_FLAG, CLOSING_SINGLE_QUOTE);
    curl = strReplace(curl, APOS_FLAG, APOS);
    curl = strReplace(curl, OPEN_SQ_FLAG, OPENING_SINGLE_QUOTE);
  }
  if (curl.includes('"')) {
    curl = applyDynamic(curl, DYNAMIC_QUOTE);
    curl = wptexturizePrimes(curl, '"', DOUBLE_PRIME, OPEN_Q_FLAG, CLOSING_QUOTE);
    curl = strReplace(curl, OPEN_Q_FLAG, OPENING_QUOTE);
  }
  if (curl.includes('-')) {
    curl = applyDynamic(curl, DYNAMIC_DASH);
  }

  // 9x9 (times), but never 0x9999.
  if (/(?<=\d)x\d/.test(curl)) {
    curl = curl.replace(/\b(0[\d.,]+|[1-9][\d.,]*)x(\d[\d.,]*)\b/g, '$1&#215;$2');
  }

  // Replace each & with &#038; unless it already looks like an entity.
  return curl.replace(BARE_AMP, '&#038;');
}

/**
 * `wptexturize( $text )`: curly quotes, apostrophes, primes, dashes, ellipses, ™ and ×,
 * leaving tags, comments, shortcodes and the content of `<pre>`, `<code>`, `<kbd>`, `<style>`,
 * `<script>`, `<tt>` (and `[code]`) untouched.
 */
export function wptexturize(text: string, options: TexturizeOptions = {}): string {
  if (!text) return text;
  const noTexturizeTags = options.noTexturizeTags ?? DEFAULT_NO_TEXTURIZE_TAGS;
  const noTexturizeShortcodes = options.noTexturizeShortcodes ?? DEFAULT_NO_TEXTURIZE_SHORTCODES;
  const registered = options.shortcodeTags ?? DEFAULT_SHORTCODE_TAGS;

  const tagsStack: string[] = [];
  const shortcodesStack: string[] = [];

  const tagnames = registered.length ? findShortcodeTagnames(text, registered) : [];
  const foundShortcodes = tagnames.length > 0;
  const regex = new RegExp(
    '(' + TEXTURIZE_HTML_REGEX + (foundShortcodes ? '|' + texturizeShortcodeRegexSource(tagnames, 2) : '') + ')',
    'g',
  );
  const shortcodeFull = foundShortcodes
    ? new RegExp('^(?:' + texturizeShortcodeRegexSource(tagnames, 1) + ')\\n?$')
    : null;

  const textarr = pregSplit(text, regex, { delimCapture: true, noEmpty: true, delimGroups: 1 });

  for (let i = 0; i < textarr.length; i++) {
    let curl = textarr[i];
    const first = curl[0];
    if (first === '<') {
      if (curl.startsWith('<!--')) {
        // This is an HTML comment delimiter.
        continue;
      }
      // This is an HTML element delimiter.
      curl = curl.replace(BARE_AMP, '&#038;');
      pushpopElement(curl, tagsStack, noTexturizeTags);
    } else if (phpTrim(curl) === '') {
      // This is a newline between delimiters.
      continue;
    } else if (first === '[' && foundShortcodes && shortcodeFull!.test(curl)) {
      // This is a shortcode delimiter.
      if (!curl.startsWith('[[') && !curl.endsWith(']]')) {
        pushpopElement(curl, shortcodesStack, noTexturizeShortcodes);
      } else {
        continue;
      }
    } else if (shortcodesStack.length === 0 && tagsStack.length === 0) {
      curl = texturizeText(curl);
    }
    textarr[i] = curl;
  }
  return textarr.join('');
}
