/**
 * Excerpts: ports of WordPress 6.1 `wp_trim_excerpt()`, `wp_trim_words()`, `wp_strip_all_tags()`,
 * PHP's `strip_tags()`, `force_balance_tags()`, `strip_shortcodes()`, `excerpt_remove_blocks()`
 * and the parts of `get_the_content()` that a REST request uses (page 1, teaser up to `<!--more-->`).
 */
import { hasBlocks, parseBlocks, renderBlock, type ParsedBlock } from './blocks';
import { replaceElements, replaceShortcodeMatches } from './linear-scan';
import { wpKsesAttrParse, wpKsesOneAttr } from './kses';
import {
  DEFAULT_SHORTCODE_TAGS,
  PCRE_SPACE,
  SHORTCODE_GROUP_CLOSE,
  asciiLower,
  findShortcodeTagnames,
  phpTrim,
  pregSplit,
  strReplace,
  strtr,
  wpHtmlSplit,
} from './texturize';

// ---------------------------------------------------------------------------
// strip_tags / wp_strip_all_tags
// ---------------------------------------------------------------------------

/** C `isspace()` in the "C" locale. */
function isCSpace(c: string | undefined): boolean {
  return c === ' ' || c === '\t' || c === '\n' || c === '\x0B' || c === '\f' || c === '\r';
}

/** The characters `strip_tags()` acts on outside tags. */
const SPECIAL_IN_TEXT = /[\0<>]/g;

/**
 * PHP's `strip_tags( $str )` (no allowed tags): a port of the `php_strip_tags_ex()` state machine
 * (ext/standard/string.c), so that odd input (`<` followed by a space, quotes inside tags,
 * comments, `<?php ... ?>`, `<!DOCTYPE>`) is handled the way PHP does.
 */
export function phpStripTags(str: string): string {
  const len = str.length;
  let out = '';
  let state = 0;
  let depth = 0;
  let inQ = '';
  let lc = '\0';
  let br = 0;
  let isXml = false;
  let p = 0;
  const at = (i: number): string => (i < len ? str[i] : '\0');

  while (p < len) {
    const c = str[p];
    if (state === 0) {
      if (c === '\0') {
        // dropped
      } else if (c === '<') {
        if (!inQ) {
          if (isCSpace(at(p + 1))) {
            out += c;
          } else {
            lc = '<';
            state = 1;
          }
        }
      } else if (c === '>') {
        if (depth) depth--;
        else if (!inQ) out += c;
      } else {
        // Text up to the next character this state acts on, at once.
        SPECIAL_IN_TEXT.lastIndex = p;
        const next = SPECIAL_IN_TEXT.test(str) ? SPECIAL_IN_TEXT.lastIndex - 1 : len;
        out += str.slice(p, next);
        p = next;
        continue;
      }
      p++;
      continue;
    }
    if (c === '>' && state !== 4 && (depth || inQ)) {
      // In a tag, a `>` first closes a nested `<`, and means nothing inside quotes.
      if (depth) depth--;
      p++;
      continue;
    }
    if (state === 1) {
      switch (c) {
        case '\0':
          break;
        case '<':
          if (inQ) break;
          if (isCSpace(at(p + 1))) break; // reg_char_1
          depth++;
          break;
        case '>':
          lc = '>';
          if (isXml && p >= 1 && str[p - 1] === '-') break;
          inQ = '';
          state = 0;
          isXml = false;
          break;
        case '"':
        case "'":
          if (p !== 0 && (!inQ || c === inQ)) inQ = inQ ? '' : c;
          break;
        case '!':
          // JavaScript & Other HTML scripting languages.
          if (p >= 1 && str[p - 1] === '<') {
            state = 3;
            lc = c;
          }
          break;
        case '?':
          if (p >= 1 && str[p - 1] === '<') {
            br = 0;
            state = 2;
          }
          break;
        default:
          break;
      }
      p++;
      continue;
    }
    if (state === 2) {
      switch (c) {
        case '(':
          if (lc !== '"' && lc !== "'") {
            lc = '(';
            br++;
          }
          break;
        case ')':
          if (lc !== '"' && lc !== "'") {
            lc = ')';
            br--;
          }
          break;
        case '>':
          if (!br && p >= 1 && lc !== '"' && str[p - 1] === '?') {
            inQ = '';
            state = 0;
          }
          break;
        case '"':
        case "'":
          if (p >= 1 && str[p - 1] !== '\\') {
            if (lc === c) lc = '\0';
            else if (lc !== '\\') lc = c;
            if (p !== 0 && (!inQ || c === inQ)) inQ = inQ ? '' : c;
          }
          break;
        case 'l':
        case 'L':
          // If we encounter '<?xml' then we shouldn't be in state == 2 (PHP). Switch back to HTML.
          if (
            p > 4 &&
            (str[p - 1] === 'm' || str[p - 1] === 'M') &&
            (str[p - 2] === 'x' || str[p - 2] === 'X') &&
            str[p - 3] === '?' &&
            str[p - 4] === '<'
          ) {
            state = 1;
            isXml = true;
          }
          break;
        default:
          break;
      }
      p++;
      continue;
    }
    if (state === 3) {
      switch (c) {
        case '>':
          inQ = '';
          state = 0;
          break;
        case '"':
        case "'":
          if (p !== 0 && str[p - 1] !== '\\' && (!inQ || c === inQ)) inQ = inQ ? '' : c;
          break;
        case '-':
          if (p >= 2 && str[p - 1] === '-' && str[p - 2] === '!') state = 4;
          break;
        case 'E':
        case 'e':
          // !DOCTYPE exception.
          if (p > 6 && asciiLower(str.slice(p - 6, p)) === 'doctyp') state = 1;
          break;
        default:
          break;
      }
      p++;
      continue;
    }
    // state 4: inside <!-- ... -->
    if (c === '>' && !inQ && p >= 2 && str[p - 1] === '-' && str[p - 2] === '-') {
      inQ = '';
      state = 0;
    }
    p++;
  }
  return out;
}

/** `wp_strip_all_tags( $string, $remove_breaks = false )`. */
export function stripAllTags(text: string, removeBreaks = false): string {
  text = replaceElements(text, ['script', 'style'], { ignoreCase: true, openTagEnd: true }, () => '');
  text = phpStripTags(text);
  if (removeBreaks) {
    text = text.replace(/[\r\n\t ]+/g, ' ');
  }
  return phpTrim(text);
}

// ---------------------------------------------------------------------------
// wp_trim_words
// ---------------------------------------------------------------------------

/**
 * `wp_trim_words( $text, $num_words = 55, $more = '&hellip;' )` with the English word-count type
 * ('words', i.e. split on `[\n\r\t ]+`).
 */
export function wpTrimWords(text: string, numWords = 55, more: string = '&hellip;'): string {
  text = stripAllTags(text);
  numWords = Math.trunc(numWords);
  const wordsArray = pregSplit(text, /[\n\r\t ]+/g, { limit: numWords + 1, noEmpty: true });
  if (wordsArray.length > numWords) {
    wordsArray.pop();
    return wordsArray.join(' ') + more;
  }
  return wordsArray.join(' ');
}

// ---------------------------------------------------------------------------
// force_balance_tags
// ---------------------------------------------------------------------------

const SINGLE_TAGS = [
  'area',
  'base',
  'basefont',
  'br',
  'col',
  'command',
  'embed',
  'frame',
  'hr',
  'img',
  'input',
  'isindex',
  'link',
  'meta',
  'param',
  'source',
  'track',
  'wbr',
];
const NESTABLE_TAGS = ['article', 'aside', 'blockquote', 'details', 'div', 'figure', 'object', 'q', 'section', 'span'];
const TAG_PATTERN = new RegExp(
  '<' +
    '(/?)' +
    '(' +
    // Custom element tags (PHP: (?:[a-z0-9._-]+)+, the same language without the nested quantifier).
    '(?:[a-z](?:[a-z0-9._]*)-(?:[a-z0-9._-]+))' +
    '|' +
    '(?:[\\w:]+)' +
    ')' +
    '(?:' +
    `${PCRE_SPACE}*` +
    '(/?)' +
    '|' +
    `(${PCRE_SPACE}+)` +
    '([^>]*)' +
    ')' +
    '>',
);

/** `force_balance_tags( $text )`: closes unclosed tags and drops stray closing ones. */
export function forceBalanceTags(text: string): string {
  const tagstack: string[] = [];
  let tagqueue = '';
  let newtext = '';

  // WP bug fix for comments - in case you REALLY meant to type '< !--'.
  text = strReplace(text, '< !--', '<    !--');
  // WP bug fix for LOVE <3 (and other situations with '<' before a number).
  text = text.replace(/<([0-9]{1})/g, '&lt;$1');

  // Every tag ends with `>`: the scan stops at the last one (past it, each `<` would search to the end in vain).
  const scan = text.slice(0, text.lastIndexOf('>') + 1);
  const pattern = new RegExp(TAG_PATTERN.source, 'g');
  // How many of each tag the stack holds: a closing tag not on it is dropped without a search.
  const stacked = new Map<string, number>();
  const push = (name: string) => {
    tagstack.push(name);
    stacked.set(name, (stacked.get(name) ?? 0) + 1);
  };
  const pop = (): string | undefined => {
    const name = tagstack.pop();
    if (name !== undefined) stacked.set(name, (stacked.get(name) as number) - 1);
    return name;
  };
  let position = 0;
  let regex: RegExpExecArray | null;
  while ((regex = pattern.exec(scan)) !== null) {
    const fullMatch = regex[0];
    const hasLeadingSlash = !!regex[1];
    const tagName = regex[2];
    let tag = asciiLower(tagName);
    const isSingleTag = SINGLE_TAGS.includes(tag);
    let preAttributeWs = regex[4] ?? '';
    let attributes = phpTrim(regex[5] !== undefined ? regex[5] : (regex[3] ?? ''));
    const hasSelfCloser = attributes.endsWith('/');

    newtext += tagqueue;

    const i = regex.index;
    const l = fullMatch.length;

    // Clear the shifter.
    tagqueue = '';
    if (hasLeadingSlash) {
      // End tag.
      if (tagstack.length <= 0) {
        // If too many closing tags.
        tag = '';
      } else if (tagstack[tagstack.length - 1] === tag) {
        // Found closing tag.
        tag = '</' + tag + '>';
        pop();
      } else {
        // Closing tag not at top, search for it (only when the stack holds it).
        for (let j = tagstack.length - 1; (stacked.get(tag) ?? 0) > 0 && j >= 0; j--) {
          if (tagstack[j] === tag) {
            // Add tag to tagqueue.
            for (let k = tagstack.length - 1; k >= j; k--) {
              tagqueue += '</' + pop() + '>';
            }
            break;
          }
        }
        tag = '';
      }
    } else {
      // Begin tag.
      if (hasSelfCloser) {
        // If it presents itself as a self-closing tag, but it isn't a known single-entity
        // self-closing tag, then don't let it be treated as such.
        if (!isSingleTag) {
          attributes = phpTrim(attributes.slice(0, -1)) + '></' + tag;
        }
      } else if (isSingleTag) {
        // Else if it's a known single-entity tag but it doesn't close itself, do so.
        preAttributeWs = ' ';
        attributes += '/';
      } else {
        // It's not a single-entity tag.
        // If the top of the stack is the same as the tag we want to push, close previous tag.
        if (tagstack.length > 0 && !NESTABLE_TAGS.includes(tag) && tagstack[tagstack.length - 1] === tag) {
          tagqueue = '</' + pop() + '>';
        }
        push(tag);
      }

      // Attributes.
      if (hasSelfCloser && isSingleTag) {
        // We need some space - avoid <br/> and prefer <br />.
        preAttributeWs = ' ';
      }

      tag = '<' + tag + preAttributeWs + attributes + '>';
      // If already queuing a close tag, then put this tag on too.
      if (tagqueue) {
        tagqueue += tag;
        tag = '';
      }
    }
    newtext += text.slice(position, i) + tag;
    position = i + l;
  }
  text = text.slice(position);

  // Clear tag queue.
  newtext += tagqueue;
  // Add remaining text.
  newtext += text;

  let x: string | undefined;
  while ((x = tagstack.pop()) !== undefined && x !== '' && x !== '0') {
    newtext += '</' + x + '>'; // Add remaining tags to close.
  }

  // WP fix for the bug with HTML comments.
  newtext = strReplace(newtext, '< !--', '<!--');
  newtext = strReplace(newtext, '<    !--', '< !--');

  return newtext;
}

// ---------------------------------------------------------------------------
// Shortcodes
// ---------------------------------------------------------------------------

/** `strip_shortcode_tag()` as a renderer: a shortcode gives way to nothing (a `[[tag]]` escape still gives `[tag]`). */
const STRIP: ShortcodeRenderer = () => '';

/**
 * `strip_shortcodes( $content )` for the given registered shortcode tags (default: the ones a
 * default WordPress 6.1 install registers).
 */
export function stripShortcodes(content: string, shortcodeTags: readonly string[] = DEFAULT_SHORTCODE_TAGS): string {
  // do_shortcodes_in_html_tags( $content, true, $tagnames ), then strip_shortcode_tag() on each match.
  return processShortcodes(content, shortcodeTags, true, STRIP);
}

/** PHP `stripcslashes()`. */
function stripcslashes(str: string): string {
  return str.replace(
    /\\(?:x([0-9a-fA-F]{1,2})|([0-7]{1,3})|([\s\S])|$)/g,
    (_m, hex?: string, oct?: string, ch?: string) => {
      if (hex !== undefined) return String.fromCharCode(parseInt(hex, 16));
      if (oct !== undefined) return String.fromCharCode(parseInt(oct, 8) & 0xff);
      if (ch === undefined) return '';
      const map: Record<string, string> = { n: '\n', t: '\t', r: '\r', a: '\x07', v: '\x0B', b: '\b', f: '\f' };
      return map[ch] ?? ch;
    },
  );
}

/** `shortcode_parse_atts( $text )`: named attributes (lower-cased) and positional ones (numeric keys), or the trimmed text. */
export function shortcodeParseAtts(text: string): Record<string, string> | string {
  const atts: Record<string, string> = {};
  let positional = 0;
  text = text.replace(/[\u00a0\u200b]+/g, ' ');
  const S = '[ \\t\\n\\x0B\\f\\r]';
  const E = '(?:' + S + '|(?=\\n?$))';
  const pattern = new RegExp(
    `([\\w-]+)${S}*=${S}*"([^"]*)"${E}|([\\w-]+)${S}*=${S}*'([^']*)'${E}|([\\w-]+)${S}*=${S}*([^ \\t\\n\\x0B\\f\\r'"]+)${E}|"([^"]*)"${E}|'([^']*)'${E}|([^ \\t\\n\\x0B\\f\\r]+)${E}`,
    'g',
  );
  const matches = [...text.matchAll(pattern)];
  if (matches.length === 0) return phpTrim(text, ' \t\n\r\0\x0B', 'left');
  const nonEmpty = (v: string | undefined): v is string => v !== undefined && v !== '' && v !== '0';
  for (const m of matches) {
    if (nonEmpty(m[1])) atts[asciiLower(m[1])] = stripcslashes(m[2]);
    else if (nonEmpty(m[3])) atts[asciiLower(m[3])] = stripcslashes(m[4]);
    else if (nonEmpty(m[5])) atts[asciiLower(m[5])] = stripcslashes(m[6]);
    else if (m[7] !== undefined && m[7].length) atts[String(positional++)] = stripcslashes(m[7]);
    else if (m[8] !== undefined && m[8].length) atts[String(positional++)] = stripcslashes(m[8]);
    else if (m[9] !== undefined) atts[String(positional++)] = stripcslashes(m[9]);
  }
  // Reject any unclosed HTML elements.
  for (const k of Object.keys(atts)) {
    const v = atts[k];
    if (v.includes('<') && !/^[^<]*(?:<[^>]*>[^<]*)*(?=\n?$)/.test(v)) atts[k] = '';
  }
  return atts;
}

/** A parsed shortcode, as passed to a {@link ShortcodeRenderer}. */
export interface ShortcodeMatch {
  tag: string;
  /** `shortcode_parse_atts()` of the attribute text. */
  attrs: Record<string, string> | string;
  /** Enclosed content (`[tag]content[/tag]`), undefined for a self-closing/unclosed shortcode. */
  content: string | undefined;
  /** The whole shortcode text. */
  text: string;
}

/**
 * Renders one shortcode; return `undefined` to leave it as it is (the shortcode's text). It receives
 * what a WordPress shortcode callback receives; its result is wrapped by the `[[...]]` escape brackets
 * like `do_shortcode_tag()` does.
 */
export type ShortcodeRenderer = (shortcode: ShortcodeMatch) => string | undefined;

/** `do_shortcode_tag()`, or `strip_shortcode_tag()` when `render` is {@link STRIP}. */
function doShortcodeTag(m: (string | undefined)[], render: ShortcodeRenderer | undefined): string {
  const whole = m[0] as string;
  const open = m[1] ?? '';
  const close = m[SHORTCODE_GROUP_CLOSE] ?? '';
  // Allow [[foo]] syntax for escaping a tag.
  if (open === '[' && close === ']') return whole.slice(1, -1);
  // strip_shortcode_tag(): what STRIP renders, without parsing the attributes.
  if (render === STRIP) return open + close;
  if (!render) return whole;
  const out = render({ tag: m[2] as string, attrs: shortcodeParseAtts(m[3] ?? ''), content: m[5], text: whole });
  return out === undefined ? whole : open + out + close;
}

function replaceShortcodes(
  text: string,
  tagnames: readonly string[],
  render: ShortcodeRenderer | undefined,
): [string, number] {
  return replaceShortcodeMatches(text, tagnames, (m) => doShortcodeTag(m, render));
}

/** `do_shortcodes_in_html_tags( $content, $ignore_html, $tagnames )`. */
function doShortcodesInHtmlTags(
  content: string,
  ignoreHtml: boolean,
  tagnames: readonly string[],
  render: ShortcodeRenderer | undefined,
): string {
  // Normalize entities in unfiltered HTML before adding placeholders.
  content = strtr(content, { '&#91;': '&#091;', '&#93;': '&#093;' });
  const trans = { '[': '&#91;', ']': '&#93;' };
  const textarr = wpHtmlSplit(content);
  for (let i = 0; i < textarr.length; i++) {
    let element = textarr[i];
    if (element === '' || element[0] !== '<') continue;
    const noopen = !element.includes('[');
    const noclose = !element.includes(']');
    if (noopen || noclose) {
      // This element does not contain shortcodes.
      if (noopen !== noclose) textarr[i] = strtr(element, trans);
      continue;
    }
    if (ignoreHtml || element.startsWith('<!--') || element.startsWith('<![CDATA[')) {
      textarr[i] = strtr(element, trans);
      continue;
    }
    const attributes = wpKsesAttrParse(element);
    if (attributes === false) {
      // Some plugins are doing things like [name] <[email]>.
      if (new RegExp(`^<${PCRE_SPACE}*\\[\\[?[^\\[\\]]+\\]`).test(element)) {
        element = replaceShortcodes(element, tagnames, render)[0];
      }
      // Looks like we found some crazy unfiltered HTML. Skipping it for sanity.
      textarr[i] = strtr(element, trans);
      continue;
    }
    // Get element name.
    const front = attributes.shift() as string;
    const back = attributes.pop() as string;
    const elname = (/[a-zA-Z0-9]+/.exec(front) as RegExpExecArray)[0];
    // Look for shortcodes in each attribute separately.
    for (let j = 0; j < attributes.length; j++) {
      const attr = attributes[j];
      const open = attr.indexOf('[');
      const closeAt = attr.indexOf(']');
      if (open === -1 || closeAt === -1) continue;
      const double = attr.indexOf('"');
      const single = attr.indexOf("'");
      if ((single === -1 || open < single) && (double === -1 || open < double)) {
        // $attr like '[shortcode]' or 'name = [shortcode]' implies unfiltered_html.
        attributes[j] = replaceShortcodes(attr, tagnames, render)[0];
      } else {
        // $attr like 'name = "[shortcode]"' or "name = '[shortcode]'".
        const [newAttrRaw, count] = replaceShortcodes(attr, tagnames, render);
        if (count > 0) {
          // Sanitize the shortcode output using KSES.
          const newAttr = wpKsesOneAttr(newAttrRaw, elname);
          if (phpTrim(newAttr) !== '') attributes[j] = newAttr;
        }
      }
    }
    element = front + attributes.join('') + back;
    // Now encode any remaining '[' or ']' chars.
    textarr[i] = strtr(element, trans);
  }
  return textarr.join('');
}

/**
 * `do_shortcode( $content, $ignore_html )` for the given registered shortcode tags. Shortcodes are
 * rendered by `render`; without it (or when it returns undefined) each shortcode is left as it is,
 * but everything else `do_shortcode()` does happens (`[[tag]]` unescaping, `&#91;`/`&#93;`
 * normalization, shortcodes inside HTML attributes re-filtered by `wp_kses_one_attr()`).
 */
export function doShortcode(
  content: string,
  options: { shortcodeTags?: readonly string[]; render?: ShortcodeRenderer; ignoreHtml?: boolean } = {},
): string {
  const registered = options.shortcodeTags ?? DEFAULT_SHORTCODE_TAGS;
  return processShortcodes(content, registered, options.ignoreHtml ?? false, options.render);
}

/** What `do_shortcode()` and `strip_shortcodes()` share: shortcodes in HTML tags, then each shortcode replaced. */
function processShortcodes(
  content: string,
  registered: readonly string[],
  ignoreHtml: boolean,
  render: ShortcodeRenderer | undefined,
): string {
  if (!content.includes('[')) return content;
  if (registered.length === 0) return content;
  // Find all registered tag names in $content.
  const tagnames = findShortcodeTagnames(content, registered, false);
  if (tagnames.length === 0) return content;
  content = doShortcodesInHtmlTags(content, ignoreHtml, tagnames, render);
  content = replaceShortcodes(content, tagnames, render)[0];
  // Always restore square braces so we don't break things like <!--[if IE ]>.
  return strtr(content, { '&#91;': '[', '&#93;': ']' });
}

// ---------------------------------------------------------------------------
// Blocks in excerpts
// ---------------------------------------------------------------------------

const EXCERPT_ALLOWED_INNER_BLOCKS: readonly (string | null)[] = [
  null,
  'core/freeform',
  'core/heading',
  'core/html',
  'core/list',
  'core/media-text',
  'core/paragraph',
  'core/preformatted',
  'core/pullquote',
  'core/quote',
  'core/table',
  'core/verse',
];
const EXCERPT_ALLOWED_WRAPPER_BLOCKS: readonly string[] = ['core/columns', 'core/column', 'core/group'];
const EXCERPT_ALLOWED_BLOCKS: readonly (string | null)[] = [
  ...EXCERPT_ALLOWED_INNER_BLOCKS,
  ...EXCERPT_ALLOWED_WRAPPER_BLOCKS,
];

function excerptRenderInnerBlocks(parsed: ParsedBlock): string {
  let output = '';
  for (const inner of parsed.innerBlocks) {
    if (!EXCERPT_ALLOWED_BLOCKS.includes(inner.blockName)) continue;
    if (inner.innerBlocks.length === 0) {
      output += renderBlock(inner);
    } else {
      output += excerptRenderInnerBlocks(inner);
    }
  }
  return output;
}

/** `excerpt_remove_blocks( $content )`: keeps only the blocks allowed in excerpts. */
export function excerptRemoveBlocks(content: string): string {
  let output = '';
  outer: for (const block of parseBlocks(content)) {
    if (!EXCERPT_ALLOWED_BLOCKS.includes(block.blockName)) continue;
    if (block.innerBlocks.length > 0) {
      if (block.blockName !== null && EXCERPT_ALLOWED_WRAPPER_BLOCKS.includes(block.blockName)) {
        output += excerptRenderInnerBlocks(block);
        continue;
      }
      // Skip the block if it has disallowed or nested inner blocks.
      for (const inner of block.innerBlocks) {
        if (!EXCERPT_ALLOWED_INNER_BLOCKS.includes(inner.blockName) || inner.innerBlocks.length > 0) {
          continue outer;
        }
      }
    }
    output += renderBlock(block);
  }
  return output;
}

// ---------------------------------------------------------------------------
// get_the_content / wp_trim_excerpt
// ---------------------------------------------------------------------------

/** The pages of a post (`generate_postdata()`'s `<!--nextpage-->` split). */
export function splitPages(postContent: string): string[] {
  if (!postContent.includes('<!--nextpage-->')) return [postContent];
  let content = postContent;
  content = strReplace(content, '\n<!--nextpage-->\n', '<!--nextpage-->');
  content = strReplace(content, '\n<!--nextpage-->', '<!--nextpage-->');
  content = strReplace(content, '<!--nextpage-->\n', '<!--nextpage-->');
  // Remove the nextpage block delimiters, to avoid invalid block structures in the split content.
  content = strReplace(content, '<!-- wp:nextpage -->', '');
  content = strReplace(content, '<!-- /wp:nextpage -->', '');
  // Ignore nextpage at the beginning of the content.
  if (content.startsWith('<!--nextpage-->')) content = content.slice(15);
  return content.split('<!--nextpage-->');
}

/** `has_block( 'more', $content )`. */
function hasMoreBlock(content: string): boolean {
  return hasBlocks(content) && (content.includes('<!-- wp:core/more ') || content.includes('<!-- wp:more '));
}

/**
 * `get_the_content( '', false, $post )` as called by `wp_trim_excerpt()` during a REST request:
 * page 1 of the post, cut at `<!--more-->` (no "more" link) and tag-balanced when cut.
 */
export function getTheContentForExcerpt(postContent: string): string {
  let content = splitPages(postContent)[0];
  const more = /<!--more([^\n]*?)?-->/.exec(content);
  let parts: string[];
  if (more) {
    if (hasMoreBlock(content)) {
      // Remove the core/more block delimiters. They will be left over after $content is split up.
      content = content.replace(/<!-- \/?wp:more([^\n]*?) -->/g, '');
    }
    const at = content.indexOf(more[0]);
    parts = at === -1 ? [content] : [content.slice(0, at), content.slice(at + more[0].length)];
  } else {
    parts = [content];
  }
  let output = parts[0];
  if (parts.length > 1) {
    output = forceBalanceTags(output);
  }
  return output;
}
