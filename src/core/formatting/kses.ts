/**
 * Port of WordPress 6.1 `wp_kses_post()` = `wp_kses( $data, 'post' )` (wp-includes/kses.php), with the
 * default `pre_kses` filters (`wp_pre_kses_less_than`, `wp_pre_kses_block_attributes`), the
 * `$allowedposttags` / `$allowedentitynames` tables, `wp_allowed_protocols()` and `safecss_filter_attr()`.
 * It is what WordPress applies to post content, titles and excerpts saved by a user without the
 * `unfiltered_html` capability.
 *
 * Not ported: plugin filters (`wp_kses_allowed_html`, `safe_style_css`, `kses_allowed_protocols`, ...)
 * are not supported; `<object data>` PDF embeds are only accepted when `uploadsUrl` is given (WordPress
 * compares the URL with `wp_upload_dir()`); PHP's loose `!=` comparison in the comment loop is a strict one.
 */
import { PCRE_SPACE, asciiLower, phpTrim, strReplace } from './texturize';
import { parseBlocks, type ParsedBlock } from './blocks';

// ---------------------------------------------------------------------------
// Tables (dumped from WordPress 6.1 with `php harness.php --dump-kses-data`).
// ---------------------------------------------------------------------------

/** `_wp_add_global_attributes()`: attributes allowed on every element of `$allowedposttags`. */
const GLOBAL_ATTRIBUTES = [
  'aria-describedby',
  'aria-details',
  'aria-label',
  'aria-labelledby',
  'aria-hidden',
  'class',
  'data-*',
  'dir',
  'id',
  'lang',
  'style',
  'title',
  'role',
  'xml:lang',
];

/** `$allowedposttags` (own attributes of each element; the global ones are added below). */
const POST_TAGS: Record<string, string> = {
  address: '',
  a: 'href rel rev name target download',
  abbr: '',
  acronym: '',
  area: 'alt coords href nohref shape target',
  article: 'align',
  aside: 'align',
  audio: 'autoplay controls loop muted preload src',
  b: '',
  bdo: '',
  big: '',
  blockquote: 'cite',
  br: '',
  button: 'disabled name type value',
  caption: 'align',
  cite: '',
  code: '',
  col: 'align char charoff span valign width',
  colgroup: 'align char charoff span valign width',
  del: 'datetime',
  dd: '',
  dfn: '',
  details: 'align open',
  div: 'align',
  dl: '',
  dt: '',
  em: '',
  fieldset: '',
  figure: 'align',
  figcaption: 'align',
  font: 'color face size',
  footer: 'align',
  h1: 'align',
  h2: 'align',
  h3: 'align',
  h4: 'align',
  h5: 'align',
  h6: 'align',
  header: 'align',
  hgroup: 'align',
  hr: 'align noshade size width',
  i: '',
  img: 'alt align border height hspace loading longdesc vspace src usemap width',
  ins: 'datetime cite',
  kbd: '',
  label: 'for',
  legend: 'align',
  li: 'align value',
  main: 'align',
  map: 'name',
  mark: '',
  menu: 'type',
  nav: 'align',
  object: 'data type',
  p: 'align',
  pre: 'width',
  q: 'cite',
  rb: '',
  rp: '',
  rt: '',
  rtc: '',
  ruby: '',
  s: '',
  samp: '',
  span: 'align',
  section: 'align',
  small: '',
  strike: '',
  strong: '',
  sub: '',
  summary: 'align',
  sup: '',
  table: 'align bgcolor border cellpadding cellspacing rules summary width',
  tbody: 'align char charoff valign',
  td: 'abbr align axis bgcolor char charoff colspan headers height nowrap rowspan scope valign width',
  textarea: 'cols rows disabled name readonly',
  tfoot: 'align char charoff valign',
  th: 'abbr align axis bgcolor char charoff colspan headers height nowrap rowspan scope valign width',
  thead: 'align char charoff valign',
  title: '',
  tr: 'align bgcolor char charoff valign',
  track: 'default kind label src srclang',
  tt: '',
  u: '',
  ul: 'type',
  ol: 'start type reversed',
  var: '',
  video: 'autoplay controls height loop muted playsinline poster preload src width',
};

/** Attribute value checks: true = any value, or a list of checks (`wp_kses_check_attr_val()`). */
export type AttrSpec =
  | true
  | {
      valueless?: string;
      required?: boolean;
      values?: string[];
      value_callback?: string;
      maxlen?: number;
      minlen?: number;
      maxval?: number;
      minval?: number;
    };
export type AllowedHtml = Record<string, Record<string, AttrSpec>>;

/** `wp_kses_allowed_html( 'post' )`. */
export const ALLOWED_POST_TAGS: AllowedHtml = (() => {
  const out: AllowedHtml = {};
  for (const [tag, own] of Object.entries(POST_TAGS)) {
    const attrs: Record<string, AttrSpec> = {};
    for (const a of own.split(' ').filter(Boolean)) attrs[a] = true;
    for (const a of GLOBAL_ATTRIBUTES) attrs[a] = true;
    out[tag] = attrs;
  }
  out.a.download = { valueless: 'y' };
  out.object.data = { required: true, value_callback: '_wp_kses_allow_pdf_objects' };
  out.object.type = { required: true, values: ['application/pdf'] };
  return out;
})();

/** `$allowedtags`: the short list `wp_filter_kses()` keeps (e.g. in titles saved by users without `unfiltered_html`). */
export const ALLOWED_TAGS: AllowedHtml = {
  a: { href: true, title: true },
  abbr: { title: true },
  acronym: { title: true },
  b: {},
  blockquote: { cite: true },
  cite: {},
  code: {},
  del: { datetime: true },
  em: {},
  i: {},
  q: { cite: true },
  s: {},
  strike: {},
  strong: {},
};

/** `$allowedentitynames`. */
export const ALLOWED_ENTITY_NAMES: readonly string[] = [
  'nbsp',
  'iexcl',
  'cent',
  'pound',
  'curren',
  'yen',
  'brvbar',
  'sect',
  'uml',
  'copy',
  'ordf',
  'laquo',
  'not',
  'shy',
  'reg',
  'macr',
  'deg',
  'plusmn',
  'acute',
  'micro',
  'para',
  'middot',
  'cedil',
  'ordm',
  'raquo',
  'iquest',
  'Agrave',
  'Aacute',
  'Acirc',
  'Atilde',
  'Auml',
  'Aring',
  'AElig',
  'Ccedil',
  'Egrave',
  'Eacute',
  'Ecirc',
  'Euml',
  'Igrave',
  'Iacute',
  'Icirc',
  'Iuml',
  'ETH',
  'Ntilde',
  'Ograve',
  'Oacute',
  'Ocirc',
  'Otilde',
  'Ouml',
  'times',
  'Oslash',
  'Ugrave',
  'Uacute',
  'Ucirc',
  'Uuml',
  'Yacute',
  'THORN',
  'szlig',
  'agrave',
  'aacute',
  'acirc',
  'atilde',
  'auml',
  'aring',
  'aelig',
  'ccedil',
  'egrave',
  'eacute',
  'ecirc',
  'euml',
  'igrave',
  'iacute',
  'icirc',
  'iuml',
  'eth',
  'ntilde',
  'ograve',
  'oacute',
  'ocirc',
  'otilde',
  'ouml',
  'divide',
  'oslash',
  'ugrave',
  'uacute',
  'ucirc',
  'uuml',
  'yacute',
  'thorn',
  'yuml',
  'quot',
  'amp',
  'lt',
  'gt',
  'apos',
  'OElig',
  'oelig',
  'Scaron',
  'scaron',
  'Yuml',
  'circ',
  'tilde',
  'ensp',
  'emsp',
  'thinsp',
  'zwnj',
  'zwj',
  'lrm',
  'rlm',
  'ndash',
  'mdash',
  'lsquo',
  'rsquo',
  'sbquo',
  'ldquo',
  'rdquo',
  'bdquo',
  'dagger',
  'Dagger',
  'permil',
  'lsaquo',
  'rsaquo',
  'euro',
  'fnof',
  'Alpha',
  'Beta',
  'Gamma',
  'Delta',
  'Epsilon',
  'Zeta',
  'Eta',
  'Theta',
  'Iota',
  'Kappa',
  'Lambda',
  'Mu',
  'Nu',
  'Xi',
  'Omicron',
  'Pi',
  'Rho',
  'Sigma',
  'Tau',
  'Upsilon',
  'Phi',
  'Chi',
  'Psi',
  'Omega',
  'alpha',
  'beta',
  'gamma',
  'delta',
  'epsilon',
  'zeta',
  'eta',
  'theta',
  'iota',
  'kappa',
  'lambda',
  'mu',
  'nu',
  'xi',
  'omicron',
  'pi',
  'rho',
  'sigmaf',
  'sigma',
  'tau',
  'upsilon',
  'phi',
  'chi',
  'psi',
  'omega',
  'thetasym',
  'upsih',
  'piv',
  'bull',
  'hellip',
  'prime',
  'Prime',
  'oline',
  'frasl',
  'weierp',
  'image',
  'real',
  'trade',
  'alefsym',
  'larr',
  'uarr',
  'rarr',
  'darr',
  'harr',
  'crarr',
  'lArr',
  'uArr',
  'rArr',
  'dArr',
  'hArr',
  'forall',
  'part',
  'exist',
  'empty',
  'nabla',
  'isin',
  'notin',
  'ni',
  'prod',
  'sum',
  'minus',
  'lowast',
  'radic',
  'prop',
  'infin',
  'ang',
  'and',
  'or',
  'cap',
  'cup',
  'int',
  'sim',
  'cong',
  'asymp',
  'ne',
  'equiv',
  'le',
  'ge',
  'sub',
  'sup',
  'nsub',
  'sube',
  'supe',
  'oplus',
  'otimes',
  'perp',
  'sdot',
  'lceil',
  'rceil',
  'lfloor',
  'rfloor',
  'lang',
  'rang',
  'loz',
  'spades',
  'clubs',
  'hearts',
  'diams',
  'sup1',
  'sup2',
  'sup3',
  'frac14',
  'frac12',
  'frac34',
  'there4',
];
const ALLOWED_ENTITY_SET = new Set(ALLOWED_ENTITY_NAMES);

/** `wp_allowed_protocols()`. */
export const ALLOWED_PROTOCOLS: readonly string[] = [
  'http',
  'https',
  'ftp',
  'ftps',
  'mailto',
  'news',
  'irc',
  'irc6',
  'ircs',
  'gopher',
  'nntp',
  'feed',
  'telnet',
  'mms',
  'rtsp',
  'sms',
  'svn',
  'tel',
  'fax',
  'xmpp',
  'webcal',
  'urn',
];

/** `wp_kses_uri_attributes()`. */
export const URI_ATTRIBUTES: readonly string[] = [
  'action',
  'archive',
  'background',
  'cite',
  'classid',
  'codebase',
  'data',
  'formaction',
  'href',
  'icon',
  'longdesc',
  'manifest',
  'poster',
  'profile',
  'src',
  'usemap',
  'xmlns',
];

/** `safe_style_css` default list of `safecss_filter_attr()`. */
const SAFE_STYLE_CSS: readonly string[] = [
  'background',
  'background-color',
  'background-image',
  'background-position',
  'background-size',
  'background-attachment',
  'background-blend-mode',
  'border',
  'border-radius',
  'border-width',
  'border-color',
  'border-style',
  'border-right',
  'border-right-color',
  'border-right-style',
  'border-right-width',
  'border-bottom',
  'border-bottom-color',
  'border-bottom-left-radius',
  'border-bottom-right-radius',
  'border-bottom-style',
  'border-bottom-width',
  'border-bottom-right-radius',
  'border-bottom-left-radius',
  'border-left',
  'border-left-color',
  'border-left-style',
  'border-left-width',
  'border-top',
  'border-top-color',
  'border-top-left-radius',
  'border-top-right-radius',
  'border-top-style',
  'border-top-width',
  'border-top-left-radius',
  'border-top-right-radius',
  'border-spacing',
  'border-collapse',
  'caption-side',
  'columns',
  'column-count',
  'column-fill',
  'column-gap',
  'column-rule',
  'column-span',
  'column-width',
  'color',
  'filter',
  'font',
  'font-family',
  'font-size',
  'font-style',
  'font-variant',
  'font-weight',
  'letter-spacing',
  'line-height',
  'text-align',
  'text-decoration',
  'text-indent',
  'text-transform',
  'height',
  'min-height',
  'max-height',
  'width',
  'min-width',
  'max-width',
  'margin',
  'margin-right',
  'margin-bottom',
  'margin-left',
  'margin-top',
  'margin-block-start',
  'margin-block-end',
  'margin-inline-start',
  'margin-inline-end',
  'padding',
  'padding-right',
  'padding-bottom',
  'padding-left',
  'padding-top',
  'padding-block-start',
  'padding-block-end',
  'padding-inline-start',
  'padding-inline-end',
  'flex',
  'flex-basis',
  'flex-direction',
  'flex-flow',
  'flex-grow',
  'flex-shrink',
  'flex-wrap',
  'gap',
  'column-gap',
  'row-gap',
  'grid-template-columns',
  'grid-auto-columns',
  'grid-column-start',
  'grid-column-end',
  'grid-column-gap',
  'grid-template-rows',
  'grid-auto-rows',
  'grid-row-start',
  'grid-row-end',
  'grid-row-gap',
  'grid-gap',
  'justify-content',
  'justify-items',
  'justify-self',
  'align-content',
  'align-items',
  'align-self',
  'clear',
  'cursor',
  'direction',
  'float',
  'list-style-type',
  'object-fit',
  'object-position',
  'overflow',
  'vertical-align',
  '--*',
];
const CSS_URL_DATA_TYPES = ['background', 'background-image', 'cursor', 'list-style', 'list-style-image'];
const CSS_GRADIENT_DATA_TYPES = ['background', 'background-image'];

export interface KsesOptions {
  /** Allowed elements/attributes (default: `$allowedposttags`). */
  allowedHtml?: AllowedHtml;
  /** Allowed URL protocols (default: `wp_allowed_protocols()`). */
  allowedProtocols?: readonly string[];
  /** `wp_upload_dir()['url']`, used to accept `<object type="application/pdf" data="...">` from the uploads host. */
  uploadsUrl?: string;
}

interface Ctx {
  html: AllowedHtml;
  protocols: readonly string[];
  uploadsUrl?: string;
  /** Whether the `wp_pre_kses_block_attributes` pre_kses filter is active. */
  blockAttributes: boolean;
}

const SP = PCRE_SPACE;
/** PCRE `$` (end of subject or before a final newline). */
const END = '(?=\\n?$)';

// ---------------------------------------------------------------------------
// Entities and escaping
// ---------------------------------------------------------------------------

/** `wp_kses_no_null( $string, $options )`. */
export function wpKsesNoNull(str: string, slashZero: 'remove' | 'keep' = 'remove'): string {
  str = str.replace(/[\x00-\x08\x0B\x0C\x0E-\x1F]/g, '');
  if (slashZero === 'remove') str = str.replace(/\\+0+/g, '');
  return str;
}

/** `valid_unicode( $i )`. */
function validUnicode(i: number): boolean {
  return (
    i === 0x9 ||
    i === 0xa ||
    i === 0xd ||
    (i >= 0x20 && i <= 0xd7ff) ||
    (i >= 0xe000 && i <= 0xfffd) ||
    (i >= 0x10000 && i <= 0x10ffff)
  );
}

/** `wp_kses_normalize_entities( $string )` (HTML context). */
export function wpKsesNormalizeEntities(str: string): string {
  // Disarm all entities by converting & to &amp;
  str = strReplace(str, '&', '&amp;');
  // Change back the allowed entities in our list of allowed entities.
  str = str.replace(/&amp;([A-Za-z]{2,8}[0-9]{0,2});/g, (_m, i: string) =>
    ALLOWED_ENTITY_SET.has(i) ? `&${i};` : `&amp;${i};`,
  );
  str = str.replace(/&amp;#(0*[0-9]{1,7});/g, (_m, i: string) => {
    if (i === '0') return '';
    if (validUnicode(parseInt(i, 10))) {
      const t = i.replace(/^0+/, '');
      return '&#' + t.padStart(3, '0') + ';';
    }
    return `&amp;#${i};`;
  });
  str = str.replace(/&amp;#[Xx](0*[0-9A-Fa-f]{1,6});/g, (_m, h: string) => {
    if (h === '0') return '';
    return !validUnicode(parseInt(h, 16)) ? `&amp;#x${h};` : '&#x' + h.replace(/^0+/, '') + ';';
  });
  return str;
}

/** PHP `htmlspecialchars( $s, ENT_QUOTES, 'UTF-8', false )` on text already normalized by `wp_kses_normalize_entities`. */
function htmlspecialcharsNoDouble(str: string): string {
  return str.replace(/[&<>"']/g, (c, offset: number) => {
    switch (c) {
      case '<':
        return '&lt;';
      case '>':
        return '&gt;';
      case '"':
        return '&quot;';
      case "'":
        return '&#039;';
    }
    const rest = str.slice(offset + 1);
    let m: RegExpExecArray | null;
    if ((m = /^#(\d+);/.exec(rest)) !== null) {
      return Number(m[1]) <= 0x10ffff ? '&' : '&amp;';
    }
    if ((m = /^#[xX]([0-9a-fA-F]+);/.exec(rest)) !== null) {
      return parseInt(m[1], 16) <= 0x10ffff ? '&' : '&amp;';
    }
    if ((m = /^([A-Za-z0-9]+);/.exec(rest)) !== null) {
      // HTML 4.01 entity table: every allowed entity name but "apos" ("&amp;" included).
      return (ALLOWED_ENTITY_SET.has(m[1]) && m[1] !== 'apos') || m[1] === 'amp' ? '&' : '&amp;';
    }
    return '&amp;';
  });
}

/** `_wp_specialchars( $text, ENT_QUOTES )` as used by `esc_html()` / `esc_attr()` (UTF-8 site). */
export function escHtml(text: string): string {
  if (text === '') return '';
  if (!/[&<>"']/.test(text)) return text;
  return htmlspecialcharsNoDouble(wpKsesNormalizeEntities(text));
}
export const escAttr = escHtml;

/** `wp_kses_decode_entities()` (`chr()` keeps the low byte). */
function wpKsesDecodeEntities(str: string): string {
  str = str.replace(/&#([0-9]+);/g, (_m, n: string) => String.fromCharCode(Number(BigInt(n) % 256n)));
  str = str.replace(/&#[Xx]([0-9A-Fa-f]+);/g, (_m, h: string) => String.fromCharCode(Number(BigInt('0x' + h) % 256n)));
  return str;
}

// ---------------------------------------------------------------------------
// Protocols
// ---------------------------------------------------------------------------

function badProtocolOnce2(str: string, protocols: readonly string[]): string {
  let s = wpKsesDecodeEntities(str);
  s = s.replace(/[ \t\n\x0B\f\r]/g, '');
  s = wpKsesNoNull(s);
  s = asciiLower(s);
  for (const p of protocols) {
    if (asciiLower(p) === s) return `${s}:`;
  }
  return '';
}

function badProtocolOnce(str: string, protocols: readonly string[], count = 1): string {
  str = str.replace(/(&#0*58(?![;0-9])|&#x0*3a(?![;a-f0-9]))/gi, '$1;');
  const m = /:|&#0*58;|&#x0*3a;|&colon;/i.exec(str);
  if (m !== null) {
    const before = str.slice(0, m.index);
    const after = str.slice(m.index + m[0].length);
    if (!before.includes('/?')) {
      str = phpTrim(after);
      const protocol = badProtocolOnce2(before, protocols);
      if (protocol === 'feed:') {
        if (count > 2) return '';
        str = badProtocolOnce(str, protocols, ++count);
        if (str === '' || str === '0') return str;
      }
      str = protocol + str;
    }
  }
  return str;
}

/** `wp_kses_bad_protocol( $string, $allowed_protocols )`: removes disallowed URL protocols. */
export function wpKsesBadProtocol(str: string, protocols: readonly string[] = ALLOWED_PROTOCOLS): string {
  str = wpKsesNoNull(str);
  let iterations = 0;
  let original: string;
  do {
    original = str;
    str = badProtocolOnce(str, protocols);
  } while (original !== str && ++iterations < 6);
  if (original !== str) return '';
  return str;
}

// ---------------------------------------------------------------------------
// CSS
// ---------------------------------------------------------------------------

/** Removes `var( )`, `calc( )`, `min( )`, `max( )`, `minmax( )`, `clamp( )` with balanced parentheses (PCRE `(?1)` recursion). */
function removeCssFunctions(css: string): string {
  const re = /\b(?:var|calc|min|max|minmax|clamp)\(/g;
  let out = '';
  let last = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(css)) !== null) {
    let depth = 0;
    let end = -1;
    for (let i = m.index + m[0].length - 1; i < css.length; i++) {
      if (css[i] === '(') depth++;
      else if (css[i] === ')') {
        depth--;
        if (depth === 0) {
          end = i + 1;
          break;
        }
      }
    }
    if (end === -1) {
      re.lastIndex = m.index + 1;
      continue;
    }
    out += css.slice(last, m.index);
    last = end;
    re.lastIndex = end;
  }
  return out + css.slice(last);
}

/** `safecss_filter_attr( $css )`: keeps the allowed CSS declarations of a `style` attribute. */
export function safecssFilterAttr(css: string, protocols: readonly string[] = ALLOWED_PROTOCOLS): string {
  css = wpKsesNoNull(css);
  css = strReplace(css, ['\n', '\r', '\t'], '');
  const cssArray = phpTrim(css).split(';');
  const allowedAttr = [...SAFE_STYLE_CSS];
  css = '';
  for (let cssItem of cssArray) {
    if (cssItem === '') continue;
    cssItem = phpTrim(cssItem);
    let cssTestString = cssItem;
    let found = false;
    let urlAttr = false;
    let gradientAttr = false;
    let isCustomVar = false;
    let parts: string[] = [];

    if (!cssItem.includes(':')) {
      found = true;
    } else {
      const idx = cssItem.indexOf(':');
      parts = [cssItem.slice(0, idx), cssItem.slice(idx + 1)];
      const cssSelector = phpTrim(parts[0]);
      // Allow assigning values to CSS variables.
      if (allowedAttr.includes('--*') && /^--[a-zA-Z0-9-_]+(?=\n?$)/.test(cssSelector)) {
        allowedAttr.push(cssSelector);
        isCustomVar = true;
      }
      if (allowedAttr.includes(cssSelector)) {
        found = true;
        urlAttr = CSS_URL_DATA_TYPES.includes(cssSelector);
        gradientAttr = CSS_GRADIENT_DATA_TYPES.includes(cssSelector);
      }
      if (isCustomVar) {
        const cssValue = phpTrim(parts[1]);
        urlAttr = cssValue.startsWith('url(');
        gradientAttr = cssValue.includes('-gradient(');
      }
    }

    if (found && urlAttr) {
      // Simplified: matches the sequence `url(*)`.
      for (const urlMatch of parts[1].match(/url\([^)]+\)/g) ?? []) {
        // Clean up the URL from each of the matches above.
        const pieces = /^url\([ \t\n\x0B\f\r]*(['"]?)([^\n]*)(\1)[ \t\n\x0B\f\r]*\)(?=\n?$)/.exec(urlMatch);
        if (!pieces || pieces[2] === '' || pieces[2] === '0') {
          found = false;
          break;
        }
        const url = phpTrim(pieces[2]);
        if (url === '' || url === '0' || wpKsesBadProtocol(url, protocols) !== url) {
          found = false;
          break;
        }
        // Remove the whole `url(*)` bit that was matched above from the CSS.
        cssTestString = strReplace(cssTestString, urlMatch, '');
      }
    }

    if (found && gradientAttr) {
      const cssValue = phpTrim(parts[1]);
      if (/^(repeating-)?(linear|radial|conic)-gradient\((?:[^()]|rgba?\([^()]*\))*\)(?=\n?$)/.test(cssValue)) {
        // Remove the whole `gradient` bit that was matched above from the CSS.
        cssTestString = strReplace(cssTestString, cssValue, '');
      }
    }

    if (found) {
      // Allow CSS functions like var(), calc(), etc. by removing them from the test string.
      cssTestString = removeCssFunctions(cssTestString);
      // Disallow CSS containing \ ( & } = or comments, except for within url(), var(), calc(), etc.
      const allowCss = !/[\\(&=}]|\/\*/.test(cssTestString);
      if (allowCss) {
        if (css !== '') css += ';';
        css += cssItem;
      }
    }
  }
  return css;
}

// ---------------------------------------------------------------------------
// Attributes
// ---------------------------------------------------------------------------

interface HairAttr {
  name: string;
  value: string;
  whole: string;
  vless: 'y' | 'n';
}

const RE_HAIR = {
  name: /^([_a-zA-Z][-_a-zA-Z0-9:.]*)/,
  eq: new RegExp(`^${SP}*=${SP}*`),
  ws: new RegExp(`^${SP}+`),
  dq: new RegExp(`^"([^"]*)"(${SP}+|/?${END})`),
  dqRemove: new RegExp(`^"[^"]*"(${SP}+|${END})`),
  sq: new RegExp(`^'([^']*)'(${SP}+|/?${END})`),
  sqRemove: new RegExp(`^'[^']*'(${SP}+|${END})`),
  uq: new RegExp(`^([^ \\t\\n\\x0B\\f\\r"']+)(${SP}+|/?${END})`),
  uqRemove: new RegExp(`^[^ \\t\\n\\x0B\\f\\r"']+(${SP}+|${END})`),
  htmlError: new RegExp(`^("[^"]*("|${END})|'[^']*('|${END})|[^ \\t\\n\\x0B\\f\\r])*${SP}*`),
};

/**
 * The values `wp_kses_hair()` reads after `=`, tried in this order: double-quoted, single-quoted, unquoted; each with
 * the pattern that removes it and the quote its `whole` is written with (an unquoted value gets double quotes, to
 * conform to W3C's HTML spec).
 */
const HAIR_VALUES = [
  { match: RE_HAIR.dq, remove: RE_HAIR.dqRemove, quote: '"' },
  { match: RE_HAIR.sq, remove: RE_HAIR.sqRemove, quote: "'" },
  { match: RE_HAIR.uq, remove: RE_HAIR.uqRemove, quote: '"' },
] as const;

/** `wp_kses_hair( $attr, $allowed_protocols )`: splits an attribute list. */
export function wpKsesHair(attr: string, protocols: readonly string[]): Map<string, HairAttr> {
  const attrarr = new Map<string, HairAttr>();
  let mode = 0;
  let attrname = '';
  const uri = (n: string): boolean => URI_ATTRIBUTES.includes(asciiLower(n));

  while (attr.length !== 0) {
    let working = 0;
    let m: RegExpExecArray | null;
    switch (mode) {
      case 0:
        if ((m = RE_HAIR.name.exec(attr)) !== null) {
          attrname = m[1];
          working = 1;
          mode = 1;
          attr = attr.slice(m[0].length);
        }
        break;
      case 1:
        if ((m = RE_HAIR.eq.exec(attr)) !== null) {
          working = 1;
          mode = 2;
          attr = attr.slice(m[0].length);
          break;
        }
        if ((m = RE_HAIR.ws.exec(attr)) !== null) {
          working = 1;
          mode = 0;
          if (!attrarr.has(attrname)) {
            attrarr.set(attrname, { name: attrname, value: '', whole: attrname, vless: 'y' });
          }
          attr = attr.slice(m[0].length);
        }
        break;
      case 2:
        for (const value of HAIR_VALUES) {
          if ((m = value.match.exec(attr)) !== null) {
            let thisval = m[1];
            if (uri(attrname)) thisval = wpKsesBadProtocol(thisval, protocols);
            if (!attrarr.has(attrname)) {
              const whole = `${attrname}=${value.quote}${thisval}${value.quote}`;
              attrarr.set(attrname, { name: attrname, value: thisval, whole, vless: 'n' });
            }
            working = 1;
            mode = 0;
            attr = attr.replace(value.remove, '');
            break;
          }
        }
        break;
    }
    if (working === 0) {
      // Not well-formed, remove and try again.
      attr = attr.replace(RE_HAIR.htmlError, '');
      mode = 0;
    }
  }
  if (mode === 1 && !attrarr.has(attrname)) {
    // Special case, for when the attribute list ends with a valueless attribute like "selected".
    attrarr.set(attrname, { name: attrname, value: '', whole: attrname, vless: 'y' });
  }
  return attrarr;
}

/** `_wp_kses_allow_pdf_objects( $url )`. */
function allowPdfObjects(url: string, uploadsUrl: string | undefined): boolean {
  if (url.includes('?') || url.includes('#')) return false;
  if (!url.endsWith('.pdf')) return false;
  if (!uploadsUrl) return false;
  const m = /^[a-z][a-z0-9+.-]*:\/\/([^/:?#]*)(?::(\d+))?/i.exec(uploadsUrl);
  const host = m ? m[1] : '';
  const port = m && m[2] ? ':' + m[2] : '';
  return url.startsWith(`http://${host}${port}/`) || url.startsWith(`https://${host}${port}/`);
}

/** `wp_kses_check_attr_val()`. */
function checkAttrVal(value: string, vless: string, checkname: string, checkvalue: unknown, ctx: Ctx): boolean {
  switch (asciiLower(checkname)) {
    case 'maxlen':
      return !(value.length > Number(checkvalue));
    case 'minlen':
      return !(value.length < Number(checkvalue));
    case 'maxval':
      return (
        /^[ \t\n\x0B\f\r]{0,6}[0-9]{1,6}[ \t\n\x0B\f\r]{0,6}(?=\n?$)/.test(value) &&
        !(Number(value) > Number(checkvalue))
      );
    case 'minval':
      return (
        /^[ \t\n\x0B\f\r]{0,6}[0-9]{1,6}[ \t\n\x0B\f\r]{0,6}(?=\n?$)/.test(value) &&
        !(Number(value) < Number(checkvalue))
      );
    case 'valueless':
      return asciiLower(String(checkvalue)) === vless;
    case 'values':
      return (checkvalue as string[]).includes(asciiLower(value));
    case 'value_callback':
      return checkvalue === '_wp_kses_allow_pdf_objects' ? allowPdfObjects(value, ctx.uploadsUrl) : true;
  }
  return true;
}

/** `wp_kses_attr_check()`: returns the (possibly rewritten) attribute or null when it is removed. */
function attrCheck(a: HairAttr, element: string, ctx: Ctx): HairAttr | null {
  const nameLow = asciiLower(a.name);
  const elementLow = asciiLower(element);
  const allowedAttr = ctx.html[elementLow];
  if (!allowedAttr) return null;
  let spec: AttrSpec | undefined = Object.prototype.hasOwnProperty.call(allowedAttr, nameLow)
    ? allowedAttr[nameLow]
    : undefined;
  if (spec === undefined) {
    // Allow `data-*` attributes.
    const dataSpec = allowedAttr['data-*'];
    if (nameLow.startsWith('data-') && dataSpec && /^data(?:-[a-z0-9_]+)+(?=\n?$)/.test(nameLow)) {
      spec = dataSpec;
    } else {
      return null;
    }
  }
  let { value, whole } = a;
  if (nameLow === 'style') {
    const newValue = safecssFilterAttr(value, ctx.protocols);
    if (newValue === '' || newValue === '0') return null;
    whole = strReplace(whole, value, newValue);
    value = newValue;
  }
  if (typeof spec === 'object') {
    for (const [checkname, checkvalue] of Object.entries(spec)) {
      if (!checkAttrVal(value, a.vless, checkname, checkvalue, ctx)) return null;
    }
  }
  return { ...a, value, whole };
}

/** `wp_kses_attr( $element, $attr, ... )`: rebuilds an opening tag with its allowed attributes. */
function ksesAttr(element: string, attr: string, ctx: Ctx): string {
  // Is there a closing XHTML slash at the end of the attributes?
  const xhtmlSlash = new RegExp(`${SP}*/${SP}*${END}`).test(attr) ? ' /' : '';
  const elementLow = asciiLower(element);
  const allowed = ctx.html[elementLow];
  if (!allowed || Object.keys(allowed).length === 0) return `<${element}${xhtmlSlash}>`;

  const attrarr = wpKsesHair(attr, ctx.protocols);
  const requiredAttrs = new Set(
    Object.entries(allowed)
      .filter(([, s]) => typeof s === 'object' && s.required === true)
      .map(([n]) => n),
  );
  const strippedTag = xhtmlSlash === '' ? `<${element}>` : '';

  let attr2 = '';
  for (const a of attrarr.values()) {
    const nameLow = asciiLower(a.name);
    const required = requiredAttrs.has(nameLow);
    const checked = attrCheck(a, element, ctx);
    if (checked) {
      attr2 += ' ' + checked.whole;
      if (required) requiredAttrs.delete(nameLow);
    } else if (required) {
      return strippedTag;
    }
  }
  if (requiredAttrs.size > 0) return strippedTag;
  attr2 = attr2.replace(/[<>]/g, '');
  return `<${element}${attr2}${xhtmlSlash}>`;
}

/** `wp_kses_hair_parse( $attr )`: splits an attribute list keeping every character, or false. */
export function wpKsesHairParse(attr: string): string[] | false {
  if (attr === '') return [];
  const regex =
    '(?:' +
    '[_a-zA-Z][-_a-zA-Z0-9:.]*' +
    '|' +
    '\\[\\[?[^\\[\\]]+\\]\\]?' +
    ')' +
    '(?:' +
    `${SP}*=${SP}*` +
    '(?:' +
    '"[^"]*"' +
    '|' +
    "'[^']*'" +
    '|' +
    `[^ \\t\\n\\x0B\\f\\r"']+` +
    `(?:${SP}|${END})` +
    ')' +
    '|' +
    `(?:${SP}|${END})` +
    ')' +
    `${SP}*`;
  if (!new RegExp(`^(?:${regex})+${END}`).test(attr)) return false;
  return attr.match(new RegExp(regex, 'g')) ?? [];
}

/** `wp_kses_attr_parse( $element )`: splits an opening tag into front, attributes and back, or false. */
export function wpKsesAttrParse(element: string): string[] | false {
  const m = new RegExp(`^(<${SP}*)(/${SP}*)?([a-zA-Z0-9]+${SP}*)([^>]*)(>?)${END}`).exec(element);
  if (!m) return false;
  const [, begin, slash = '', elname, attrIn, end] = m;
  let attr = attrIn;
  if (slash !== '') return false;
  let xhtmlSlash = '';
  const xs = new RegExp(`${SP}*/${SP}*${END}`).exec(attr);
  if (xs) {
    xhtmlSlash = xs[0];
    attr = attr.slice(0, attr.length - xhtmlSlash.length);
  }
  const attrarr = wpKsesHairParse(attr);
  if (attrarr === false) return false;
  return [begin + slash + elname, ...attrarr, xhtmlSlash + end];
}

/** `wp_kses_one_attr( $string, $element )`: filters one attribute (`name="value"`) of an element. */
export function wpKsesOneAttr(str: string, element: string, options: Omit<KsesOptions, 'allowedHtml'> = {}): string {
  const ctx: Ctx = {
    html: ALLOWED_POST_TAGS,
    protocols: options.allowedProtocols ?? ALLOWED_PROTOCOLS,
    uploadsUrl: options.uploadsUrl,
    blockAttributes: true,
  };
  str = wpKsesNoNull(str, 'keep');
  // Preserve leading and trailing whitespace.
  const lead = (new RegExp(`^${SP}*`).exec(str) as RegExpExecArray)[0];
  const trail = (new RegExp(`${SP}*${END}`).exec(str) as RegExpExecArray)[0];
  str = trail === '' ? str.slice(lead.length) : str.slice(lead.length, str.length - trail.length);
  // Parse attribute name and value from input.
  const eq = new RegExp(`${SP}*=${SP}*`).exec(str);
  const name = eq ? str.slice(0, eq.index) : str;
  let value = '';
  let vless: 'y' | 'n' = 'y';
  if (eq) {
    value = str.slice(eq.index + eq[0].length);
    let quote = value === '' ? '' : value[0];
    if (quote === '"' || quote === "'") {
      if (value.slice(-1) !== quote) return '';
      value = value.length >= 2 ? value.slice(1, -1) : '';
    } else {
      quote = '"';
    }
    // Sanitize quotes, angle braces, and entities.
    value = escAttr(value);
    // Sanitize URI values.
    if (URI_ATTRIBUTES.includes(asciiLower(name))) value = wpKsesBadProtocol(value, ctx.protocols);
    str = `${name}=${quote}${value}${quote}`;
    vless = 'n';
  }
  // Sanitize attribute by name.
  const checked = attrCheck({ name, value, whole: str, vless }, element, ctx);
  return lead + (checked ? checked.whole : '') + trail;
}

// ---------------------------------------------------------------------------
// wp_kses
// ---------------------------------------------------------------------------

const RE_SPLIT = /(<!--[^\n]*?(-->|(?=\n?$)))|(<[^>]*(>|(?=\n?$))|>)/g;
const RE_ELEMENT = new RegExp(`^<${SP}*(/${SP}*)?([a-zA-Z0-9-]+)([^>]*)>?${END}`);

/** `wp_kses_split2()`. */
function ksesSplit2(str: string, ctx: Ctx): string {
  str = str.replace(/\\"/g, '"');
  // It matched a ">" character.
  if (!str.startsWith('<')) return '&gt;';
  // Allow HTML comments.
  if (str.startsWith('<!--')) {
    str = strReplace(str, ['<!--', '-->'], '');
    let newstring: string;
    while ((newstring = ksesInternal(str, ctx)) !== str) str = newstring;
    if (str === '') return '';
    // Prevent multiple dashes in comments.
    str = str.replace(/--+/g, '-');
    // Prevent three dashes closing a comment.
    str = str.replace(/-(?=\n?$)/, '');
    return `<!--${str}-->`;
  }
  // It's seriously malformed.
  const m = RE_ELEMENT.exec(str);
  if (!m) return '';
  const slash = phpTrim(m[1] ?? '');
  const elem = m[2];
  const attrlist = m[3];
  // They are using a not allowed HTML element.
  if (!Object.prototype.hasOwnProperty.call(ctx.html, asciiLower(elem))) return '';
  // No attributes are allowed for closing elements.
  if (slash !== '') return `</${elem}>`;
  return ksesAttr(elem, attrlist, ctx);
}

/** `wp_pre_kses_less_than()`: escapes `<` that do not start a tag. */
export function wpPreKsesLessThan(text: string): string {
  return text.replace(/<[^>]*?((?=<)|>|$)/g, (m) => (m.includes('>') ? m : escHtml(m)));
}

function ksesInternal(str: string, ctx: Ctx): string {
  str = wpKsesNoNull(str, 'keep');
  str = wpKsesNormalizeEntities(str);
  // pre_kses filters (default-filters.php): wp_pre_kses_less_than, wp_pre_kses_block_attributes.
  str = wpPreKsesLessThan(str);
  if (ctx.blockAttributes) {
    str = filterBlockContent(str, { ...ctx, blockAttributes: false });
  }
  return str.replace(RE_SPLIT, (m) => ksesSplit2(m, ctx));
}

/** `wp_kses( $string, $allowed_html, $allowed_protocols )` with WordPress's default `pre_kses` filters. */
export function wpKses(str: string, options: KsesOptions = {}): string {
  return ksesInternal(str, {
    html: options.allowedHtml ?? ALLOWED_POST_TAGS,
    protocols: options.allowedProtocols ?? ALLOWED_PROTOCOLS,
    uploadsUrl: options.uploadsUrl,
    blockAttributes: true,
  });
}

/** `wp_filter_kses( $data )` in a default context: only the tags of {@link ALLOWED_TAGS}. */
export function wpFilterKses(html: string, options: Omit<KsesOptions, 'allowedHtml'> = {}): string {
  return wpKses(html, { ...options, allowedHtml: ALLOWED_TAGS });
}

/** `wp_kses_post( $data )`: sanitizes content for allowed HTML tags for post content. */
export function wpKsesPost(html: string, options: Omit<KsesOptions, 'allowedHtml'> = {}): string {
  return wpKses(html, { ...options, allowedHtml: ALLOWED_POST_TAGS });
}

// ---------------------------------------------------------------------------
// Block attributes (wp_pre_kses_block_attributes / filter_block_content)
// ---------------------------------------------------------------------------

/** A JSON number keeping its source text, so that it can be re-encoded the way PHP does. */
class JsonNumber {
  constructor(readonly lexeme: string) {}
}
type JsonValue = null | boolean | string | JsonNumber | JsonValue[] | Map<string, JsonValue>;

/** `json_decode( $json, true )` keeping key order and number lexemes; undefined when invalid. */
function phpJsonDecode(text: string): JsonValue | undefined {
  let i = 0;
  const ws = (): void => {
    while (i < text.length && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++;
  };
  const fail = (): never => {
    throw new SyntaxError('json');
  };
  const parseString = (): string => {
    const m = /^"(?:[^"\\\x00-\x1f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/.exec(text.slice(i));
    if (!m) fail();
    i += m![0].length;
    return JSON.parse(m![0]) as string;
  };
  const parseValue = (depth: number): JsonValue => {
    if (depth > 512) fail();
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const map = new Map<string, JsonValue>();
      ws();
      if (text[i] === '}') {
        i++;
        return map;
      }
      for (;;) {
        ws();
        if (text[i] !== '"') fail();
        const key = parseString();
        ws();
        if (text[i] !== ':') fail();
        i++;
        map.set(key, parseValue(depth + 1));
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === '}') {
          i++;
          return map;
        }
        fail();
      }
    }
    if (c === '[') {
      i++;
      const arr: JsonValue[] = [];
      ws();
      if (text[i] === ']') {
        i++;
        return arr;
      }
      for (;;) {
        arr.push(parseValue(depth + 1));
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === ']') {
          i++;
          return arr;
        }
        fail();
      }
    }
    if (c === '"') return parseString();
    const lit = /^(?:true|false|null)/.exec(text.slice(i));
    if (lit) {
      i += lit[0].length;
      return lit[0] === 'null' ? null : lit[0] === 'true';
    }
    const num = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/.exec(text.slice(i));
    if (num) {
      i += num[0].length;
      return new JsonNumber(num[0]);
    }
    return fail();
  };
  try {
    const v = parseValue(1);
    ws();
    return i === text.length ? v : undefined;
  } catch {
    return undefined;
  }
}

/** PHP's `json_encode()` of a float (serialize_precision = -1). */
function phpFloat(n: number): string {
  if (!Number.isFinite(n)) return '0';
  if (n === 0) return Object.is(n, -0) ? '-0' : '0';
  const [mant, expStr] = n.toExponential().split('e');
  const digits = mant.replace('-', '').replace('.', '');
  const decpt = Number(expStr) + 1;
  const sign = n < 0 ? '-' : '';
  if (decpt < -3 || decpt > 17) {
    const e = decpt - 1;
    return `${sign}${digits[0]}.${digits.length > 1 ? digits.slice(1) : '0'}e${e < 0 ? '-' : '+'}${Math.abs(e)}`;
  }
  if (decpt <= 0) return `${sign}0.${'0'.repeat(-decpt)}${digits}`;
  if (digits.length <= decpt) return sign + digits + '0'.repeat(decpt - digits.length);
  return `${sign}${digits.slice(0, decpt)}.${digits.slice(decpt)}`;
}

function encodeNumber(num: JsonNumber): string {
  const lex = num.lexeme;
  if (!/[.eE]/.test(lex)) {
    const big = BigInt(lex);
    if (big >= -(2n ** 63n) && big <= 2n ** 63n - 1n) return big.toString();
  }
  return phpFloat(Number(lex));
}

/** `json_encode( $value, JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE )`. */
function phpJsonEncode(v: JsonValue): string {
  if (v === null) return 'null';
  if (v === true) return 'true';
  if (v === false) return 'false';
  if (v instanceof JsonNumber) return encodeNumber(v);
  if (typeof v === 'string') {
    return (
      '"' +
      v.replace(/[\\"\x00-\x1f\u2028\u2029]/g, (c) => {
        switch (c) {
          case '\\':
            return '\\\\';
          case '"':
            return '\\"';
          case '\b':
            return '\\b';
          case '\f':
            return '\\f';
          case '\n':
            return '\\n';
          case '\r':
            return '\\r';
          case '\t':
            return '\\t';
        }
        return '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0');
      }) +
      '"'
    );
  }
  if (Array.isArray(v)) return '[' + v.map(phpJsonEncode).join(',') + ']';
  // A PHP array: a list when its keys are 0..n-1 in order (an empty array is a list too).
  const keys = [...v.keys()];
  if (keys.every((k, idx) => k === String(idx))) {
    return '[' + keys.map((k) => phpJsonEncode(v.get(k) as JsonValue)).join(',') + ']';
  }
  return '{' + keys.map((k) => phpJsonEncode(k) + ':' + phpJsonEncode(v.get(k) as JsonValue)).join(',') + '}';
}

/** Whether PHP stores this array key as an integer. */
function isPhpIntKey(k: string): boolean {
  if (!/^(?:0|-?[1-9][0-9]*)$/.test(k)) return false;
  const big = BigInt(k);
  return big >= -(2n ** 63n) && big <= 2n ** 63n - 1n;
}

/** `filter_block_kses_value()`. */
function filterBlockKsesValue(value: JsonValue, ctx: Ctx, blockName: string | null): JsonValue {
  if (value instanceof Map || Array.isArray(value)) {
    const map: Map<string, JsonValue> = Array.isArray(value)
      ? new Map(value.map((x, idx) => [String(idx), x]))
      : new Map(value);
    for (const [key, inner] of [...map.entries()]) {
      const filteredKey = isPhpIntKey(key) ? key : ksesInternal(key, ctx);
      let filteredValue = filterBlockKsesValue(inner, ctx, blockName);
      if (
        blockName === 'core/template-part' &&
        filteredKey === 'tagName' &&
        typeof filteredValue === 'string' &&
        filteredValue !== '' &&
        filteredValue !== '0'
      ) {
        filteredValue = Object.prototype.hasOwnProperty.call(ctx.html, filteredValue) ? filteredValue : '';
      }
      if (filteredKey !== key) map.delete(key);
      map.set(filteredKey, filteredValue);
    }
    return map;
  }
  if (typeof value === 'string') return ksesInternal(value, ctx);
  return value;
}

/** `serialize_block_attributes()`. */
function serializeBlockAttributes(attrs: JsonValue): string {
  let encoded = phpJsonEncode(attrs);
  encoded = encoded.replace(/--/g, '\\u002d\\u002d');
  encoded = encoded.replace(/</g, '\\u003c');
  encoded = encoded.replace(/>/g, '\\u003e');
  encoded = encoded.replace(/&/g, '\\u0026');
  encoded = encoded.replace(/\\"/g, '\\u0022');
  return encoded;
}

interface KsesBlock {
  blockName: string | null;
  attrs: JsonValue;
  innerBlocks: KsesBlock[];
  innerContent: (string | null)[];
}

/** Converts a parsed block, re-decoding its attributes the way `json_decode( $json, true )` does. */
function toKsesBlock(b: ParsedBlock): KsesBlock {
  const raw = b.rawAttrs;
  return {
    blockName: b.blockName,
    attrs: raw === undefined ? new Map<string, JsonValue>() : (phpJsonDecode(raw) ?? null),
    innerBlocks: b.innerBlocks.map(toKsesBlock),
    innerContent: b.innerContent,
  };
}

/** `serialize_block()`. */
function serializeBlock(block: KsesBlock): string {
  let content = '';
  let index = 0;
  for (const chunk of block.innerContent) {
    content += typeof chunk === 'string' ? chunk : serializeBlock(block.innerBlocks[index++]);
  }
  if (block.blockName === null) return content;
  const attrs = block.attrs instanceof Map || Array.isArray(block.attrs) ? block.attrs : new Map<string, JsonValue>();
  const name = block.blockName.startsWith('core/') ? block.blockName.slice(5) : block.blockName;
  const isEmpty = attrs instanceof Map ? attrs.size === 0 : attrs.length === 0;
  const serializedAttrs = isEmpty ? '' : serializeBlockAttributes(attrs) + ' ';
  if (content === '' || content === '0') return `<!-- wp:${name} ${serializedAttrs}/-->`;
  return `<!-- wp:${name} ${serializedAttrs}-->${content}<!-- /wp:${name} -->`;
}

function filterBlockKses(block: KsesBlock, ctx: Ctx): KsesBlock {
  return {
    ...block,
    attrs: filterBlockKsesValue(block.attrs, ctx, block.blockName),
    innerBlocks: block.innerBlocks.map((b) => filterBlockKses(b, ctx)),
  };
}

/**
 * `filter_block_content( $text, 'post' )` (the `wp_pre_kses_block_attributes` pre_kses filter):
 * kses the block attributes and re-serialize the blocks.
 */
function filterBlockContent(text: string, ctx: Ctx): string {
  if (text.includes('<!--') && text.includes('--->')) {
    text = text.replace(/<!--([^\n]*?)--->/g, (_m, inner: string) => '<!--' + phpTrim(inner, '-', 'right') + '-->');
  }
  let result = '';
  for (const block of parseBlocks(text, { keepRawAttrs: true })) {
    result += serializeBlock(filterBlockKses(toKsesBlock(block), ctx));
  }
  return result;
}
