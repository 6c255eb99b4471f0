/**
 * Ports of WordPress 6.1 `convert_chars()`, `convert_smilies()` / `translate_smiley()`
 * (wp-includes/formatting.php) and `smilies_init()` (wp-includes/functions.php),
 * plus `capital_P_dangit()`.
 */
import { WP_SPACES, regexQuote, strReplace } from './texturize';
import { splitLineTags } from './linear-scan';

/** `convert_chars( $content )`: converts lone `&` characters into `&#038;`. */
export function convertChars(content: string): string {
  if (content.includes('&')) {
    content = content.replace(/&([^#])(?![a-z1-4]{1,8};)/gi, '&#038;$1');
  }
  return content;
}

/** `$wpsmiliestrans` of `smilies_init()` (WordPress 6.1). */
export const WP_SMILIES: Readonly<Record<string, string>> = {
  ':mrgreen:': 'mrgreen.png',
  ':neutral:': '\u{1F610}',
  ':twisted:': '\u{1F608}',
  ':arrow:': '\u27A1',
  ':shock:': '\u{1F62F}',
  ':smile:': '\u{1F642}',
  ':???:': '\u{1F615}',
  ':cool:': '\u{1F60E}',
  ':evil:': '\u{1F47F}',
  ':grin:': '\u{1F600}',
  ':idea:': '\u{1F4A1}',
  ':oops:': '\u{1F633}',
  ':razz:': '\u{1F61B}',
  ':roll:': '\u{1F644}',
  ':wink:': '\u{1F609}',
  ':cry:': '\u{1F625}',
  ':eek:': '\u{1F62E}',
  ':lol:': '\u{1F606}',
  ':mad:': '\u{1F621}',
  ':sad:': '\u{1F641}',
  '8-)': '\u{1F60E}',
  '8-O': '\u{1F62F}',
  ':-(': '\u{1F641}',
  ':-)': '\u{1F642}',
  ':-?': '\u{1F615}',
  ':-D': '\u{1F600}',
  ':-P': '\u{1F61B}',
  ':-o': '\u{1F62E}',
  ':-x': '\u{1F621}',
  ':-|': '\u{1F610}',
  ';-)': '\u{1F609}',
  '8O': '\u{1F62F}',
  ':(': '\u{1F641}',
  ':)': '\u{1F642}',
  ':?': '\u{1F615}',
  ':D': '\u{1F600}',
  ':P': '\u{1F61B}',
  ':o': '\u{1F62E}',
  ':x': '\u{1F621}',
  ':|': '\u{1F610}',
  ';)': '\u{1F609}',
  ':!:': '\u2757',
  ':?:': '\u2753',
};

/** Builds `$wp_smiliessearch` exactly like `smilies_init()` (keys sorted with `krsort`). */
function buildSmiliesSearch(smilies: Readonly<Record<string, string>>): RegExp {
  // krsort(): all keys are non-numeric strings, so this is a byte-wise descending sort (keys are ASCII).
  const keys = Object.keys(smilies).sort((a, b) => (a < b ? 1 : a > b ? -1 : 0));
  const spaces = WP_SPACES;
  // With /m, `^` and `$` also match around "\n", which the spaces alternative already covers.
  let search = `(?<=${spaces}|^)`;
  let subchar = '';
  for (const smiley of keys) {
    const firstchar = smiley.slice(0, 1);
    const rest = smiley.slice(1);
    if (firstchar !== subchar) {
      if (subchar !== '') {
        search += `)(?=${spaces}|$)`;
        search += `|(?<=${spaces}|^)`;
      }
      subchar = firstchar;
      search += regexQuote(firstchar) + '(?:';
    } else {
      search += '|';
    }
    search += regexQuote(rest);
  }
  search += `)(?=${spaces}|$)`;
  return new RegExp(search, 'g');
}

const WP_SMILIES_SEARCH = buildSmiliesSearch(WP_SMILIES);

export interface SmiliesOptions {
  /** The `use_smilies` option (WordPress default: on). */
  useSmilies?: boolean;
  /** `site_url()`, used for the image smilies (`:mrgreen:`), e.g. `http://example.org`. */
  siteUrl?: string;
}

/** Minimal `esc_url()` for an already well-formed http(s) URL: what esc_url changes in such a URL. */
function escUrlSimple(url: string): string {
  url = url.replace(/ /g, '%20');
  url = url.replace(/[^a-z0-9\-~+_.?#=!&;,/:%@$|*'()[\]\x80-\uffff]/gi, '');
  url = url.replace(/&(?!#?[a-z0-9]+;)/gi, '&#038;');
  return strReplace(url, "'", '&#039;');
}

/** `esc_attr()` for the (ASCII, entity-free) smiley codes. */
function escAttrSimple(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#039;');
}

/** `translate_smiley()`. */
function translateSmiley(match: string, siteUrl: string): string {
  const smiley = match.trim();
  const img = WP_SMILIES[smiley];
  const extMatch = /\.([^.]+)$/.exec(img);
  const ext = extMatch ? extMatch[1].toLowerCase() : false;
  // Don't convert smilies that aren't images - they're probably emoji.
  if (!ext || !['jpg', 'jpeg', 'jpe', 'gif', 'png', 'webp'].includes(ext)) {
    return img;
  }
  const srcUrl = `${siteUrl.replace(/\/+$/, '')}/wp-includes/images/smilies/${img}`;
  return `<img src="${escUrlSimple(srcUrl)}" alt="${escAttrSimple(smiley)}" class="wp-smiley" style="height: 1em; max-height: 1em;" />`;
}

/**
 * `convert_smilies( $text )`: replaces text smilies by emoji (or the `mrgreen.png` image),
 * outside tags and outside `<code>`, `<pre>`, `<style>`, `<script>` and `<textarea>`.
 */
export function convertSmilies(text: string, options: SmiliesOptions = {}): string {
  if (options.useSmilies === false) return text;
  const siteUrl = options.siteUrl ?? '';
  let output = '';
  // Capture the tags as well as in between.
  const textarr = splitLineTags(text);
  const tagsToIgnore = /^<(code|pre|style|script|textarea)[^>]*>/;
  let ignoreBlockElement = '';
  for (let content of textarr) {
    // If we're in an ignore block, wait until we find its closing tag.
    let m: RegExpExecArray | null;
    if (ignoreBlockElement === '' && (m = tagsToIgnore.exec(content)) !== null) {
      ignoreBlockElement = m[1];
    }
    // If it's not a tag and not in ignore block.
    // Every smiley contains ':' or ';' or starts with '8': skip the costly search when none is there.
    if (ignoreBlockElement === '' && content.length > 0 && content[0] !== '<' && /[:;8]/.test(content)) {
      content = content.replace(WP_SMILIES_SEARCH, (s) => translateSmiley(s, siteUrl));
    }
    // Did we exit ignore block?
    if (ignoreBlockElement !== '' && '</' + ignoreBlockElement + '>' === content) {
      ignoreBlockElement = '';
    }
    output += content;
  }
  return output;
}

/**
 * `capital_P_dangit( $text )`. WordPress uses the simple replacement for `the_title`
 * (`context: 'title'`) and the judicious one elsewhere (`the_content`, comments, ...).
 */
export function capitalPDangit(text: string, context: 'title' | 'content' = 'content'): string {
  if (context === 'title') {
    return strReplace(text, 'Wordpress', 'WordPress');
  }
  return strReplace(
    text,
    [' Wordpress', '&#8216;Wordpress', '&#8220;Wordpress', '>Wordpress', '(Wordpress'],
    [' WordPress', '&#8216;WordPress', '&#8220;WordPress', '>WordPress', '(WordPress'],
  );
}
