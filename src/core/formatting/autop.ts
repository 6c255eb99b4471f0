/**
 * Port of WordPress 6.1 `wpautop()` and `shortcode_unautop()` (wp-includes/formatting.php).
 *
 * PCRE → JavaScript notes: `\s` is PCRE's ASCII whitespace set ({@link PCRE_SPACE}), `.` is `[^\n]`
 * (no `s` flag) and a trailing `$` is "end or before a final newline" (`(?=\n?$)`).
 */
import { DEFAULT_SHORTCODE_TAGS, PCRE_SPACE, WP_SPACES, phpTrim, strReplace, wpReplaceInHtmlTags } from './texturize';
import { replaceElements } from './linear-scan';

const SP = PCRE_SPACE;

const ALLBLOCKS =
  '(?:table|thead|tfoot|caption|col|colgroup|tbody|tr|td|th|div|dl|dd|dt|ul|ol|li|pre|form|map|area|blockquote|address|math|style|p|h[1-6]|hr|fieldset|legend|section|article|aside|hgroup|header|footer|nav|figure|figcaption|details|menu|summary)';

const RE = {
  multiBr: new RegExp(`<br${SP}*/?>${SP}*<br${SP}*/?>`, 'g'),
  blockOpen: new RegExp(`(<${ALLBLOCKS}[ \\t\\n\\x0B\\f\\r/>])`, 'g'),
  blockClose: new RegExp(`(</${ALLBLOCKS}>)`, 'g'),
  hr: new RegExp(`(<hr${SP}*?/?>)`, 'g'),
  optionBefore: new RegExp(`${SP}*<option`, 'g'),
  optionAfter: new RegExp(`</option>${SP}*`, 'g'),
  objectOpen: new RegExp(`(<object[^>]*>)${SP}*`, 'g'),
  objectClose: new RegExp(`${SP}*</object>`, 'g'),
  paramEmbed: new RegExp(`${SP}*(</?(?:param|embed)[^>]*>)${SP}*`, 'g'),
  mediaOpen: new RegExp(`([<\\[](?:audio|video)[^>\\]]*[>\\]])${SP}*`, 'g'),
  mediaClose: new RegExp(`${SP}*([<\\[]/(?:audio|video)[>\\]])`, 'g'),
  sourceTrack: new RegExp(`${SP}*(<(?:source|track)[^>]*>)${SP}*`, 'g'),
  figcaptionOpen: new RegExp(`${SP}*(<figcaption[^>]*>)`, 'g'),
  figcaptionClose: new RegExp(`</figcaption>${SP}*`, 'g'),
  multiNl: /\n\n+/g,
  paragraphSplit: new RegExp(`\\n${SP}*\\n`, 'g'),
  emptyP: new RegExp(`<p>${SP}*</p>`, 'g'),
  unclosedInDiv: /<p>([^<]+)<\/(div|address|form)>/g,
  wrappedBlock: new RegExp(`<p>${SP}*(</?${ALLBLOCKS}[^>]*>)${SP}*</p>`, 'g'),
  wrappedLi: /<p>(<li[^\n]+?)<\/p>/g,
  pBlockquote: /<p><blockquote([^>]*)>/gi,
  pBeforeBlock: new RegExp(`<p>${SP}*(</?${ALLBLOCKS}[^>]*>)`, 'g'),
  pAfterBlock: new RegExp(`(</?${ALLBLOCKS}[^>]*>)${SP}*</p>`, 'g'),
  nlToBr: new RegExp(`(?<!<br />)${SP}*\\n`, 'g'),
  brAfterBlock: new RegExp(`(</?${ALLBLOCKS}[^>]*>)${SP}*<br />`, 'g'),
  brBeforeBlock: new RegExp(`<br />(${SP}*</?(?:p|li|div|dl|dd|dt|th|pre|td|ul|ol)[^>]*>)`, 'g'),
  trailingNlP: /\n<\/p>(?=\n?$)/,
};

/**
 * The line breaks `wpautop()` collapses around elements its paragraphs must not split, in this order: each group only
 * when the text holds one of its markers.
 */
const COLLAPSES: ReadonlyArray<readonly [markers: string[], replacements: Array<[RegExp, string]>]> = [
  // Collapse line breaks before and after <option> elements so they don't get autop'd.
  [
    ['<option'],
    [
      [RE.optionBefore, '<option'],
      [RE.optionAfter, '</option>'],
    ],
  ],
  // Collapse line breaks inside <object> elements, before <param> and <embed> elements.
  [
    ['</object>'],
    [
      [RE.objectOpen, '$1'],
      [RE.objectClose, '</object>'],
      [RE.paramEmbed, '$1'],
    ],
  ],
  // Collapse line breaks inside <audio> and <video> elements, before and after <source> and <track> elements.
  [
    ['<source', '<track'],
    [
      [RE.mediaOpen, '$1'],
      [RE.mediaClose, '$1'],
      [RE.sourceTrack, '$1'],
    ],
  ],
  // Collapse line breaks before and after <figcaption> elements.
  [
    ['<figcaption'],
    [
      [RE.figcaptionOpen, '$1'],
      [RE.figcaptionClose, '</figcaption>'],
    ],
  ],
];

/**
 * `wpautop( $text, $br = true )`: replaces double line breaks with paragraphs and (with `br`)
 * remaining line breaks with `<br />`, leaving `<pre>` blocks, tags and `<script>`/`<style>`/`<svg>`
 * newlines alone.
 */
export function wpautop(text: string, br = true): string {
  const preTags: [string, string][] = [];

  if (phpTrim(text) === '') return '';

  // Just to make things a little easier, pad the end.
  text = text + '\n';

  // Pre tags shouldn't be touched by autop. Replace pre tags with placeholders and bring them back after autop.
  if (text.includes('<pre')) {
    const textParts = text.split('</pre>');
    const lastPart = textParts.pop() as string;
    text = '';
    let i = 0;
    for (const textPart of textParts) {
      const start = textPart.indexOf('<pre');
      // Malformed HTML?
      if (start === -1) {
        text += textPart;
        continue;
      }
      const name = `<pre wp-pre-tag-${i}></pre>`;
      preTags.push([name, textPart.slice(start) + '</pre>']);
      text += textPart.slice(0, start) + name;
      i++;
    }
    text += lastPart;
  }

  // Change multiple <br>'s into two line breaks, which will turn into paragraphs.
  text = text.replace(RE.multiBr, '\n\n');

  // Add a double line break above block-level opening tags.
  text = text.replace(RE.blockOpen, '\n\n$1');
  // Add a double line break below block-level closing tags.
  text = text.replace(RE.blockClose, '$1\n\n');
  // Add a double line break after hr tags, which are self closing.
  text = text.replace(RE.hr, '$1\n\n');

  // Standardize newline characters to "\n".
  text = strReplace(text, ['\r\n', '\r'], '\n');

  // Find newlines in all elements and add placeholders.
  text = wpReplaceInHtmlTags(text, { '\n': ' <!-- wpnl --> ' });

  // Collapse line breaks around <option>, inside <object>, <audio> and <video>, and around <figcaption>.
  for (const [markers, replacements] of COLLAPSES) {
    if (!markers.some((marker) => text.includes(marker))) continue;
    for (const [pattern, replacement] of replacements) text = text.replace(pattern, replacement);
  }

  // Remove more than two contiguous line breaks.
  text = text.replace(RE.multiNl, '\n\n');

  // Split up the contents into an array of strings, separated by double line breaks.
  const paragraphs = text.split(RE.paragraphSplit).filter((p) => p !== '');

  // Rebuild the content as a string, wrapping every bit with a <p>.
  text = '';
  for (const paragraph of paragraphs) {
    text += '<p>' + phpTrim(paragraph, '\n') + '</p>\n';
  }

  // Under certain strange conditions it could create a P of entirely whitespace.
  text = text.replace(RE.emptyP, '');

  // Add a closing <p> inside <div>, <address>, or <form> tag if missing.
  text = text.replace(RE.unclosedInDiv, '<p>$1</p></$2>');

  // If an opening or closing block element tag is wrapped in a <p>, unwrap it.
  text = text.replace(RE.wrappedBlock, '$1');

  // In some cases <li> may get wrapped in <p>, fix them.
  text = text.replace(RE.wrappedLi, '$1');

  // If a <blockquote> is wrapped with a <p>, move it inside the <blockquote>.
  text = text.replace(RE.pBlockquote, '<blockquote$1><p>');
  text = strReplace(text, '</blockquote></p>', '</p></blockquote>');

  // If an opening or closing block element tag is preceded by an opening <p> tag, remove it.
  text = text.replace(RE.pBeforeBlock, '$1');

  // If an opening or closing block element tag is followed by a closing <p> tag, remove it.
  text = text.replace(RE.pAfterBlock, '$1');

  // Optionally insert line breaks.
  if (br) {
    // Replace newlines that shouldn't be touched with a placeholder.
    text = replaceElements(text, ['script', 'style', 'svg'], {}, (m) => strReplace(m, '\n', '<WPPreserveNewline />'));

    // Normalize <br>
    text = strReplace(text, ['<br>', '<br/>'], '<br />');

    // Replace any new line characters that aren't preceded by a <br /> with a <br />.
    text = text.replace(RE.nlToBr, '<br />\n');

    // Replace newline placeholders with newlines.
    text = strReplace(text, '<WPPreserveNewline />', '\n');
  }

  // If a <br /> tag is after an opening or closing block tag, remove it.
  text = text.replace(RE.brAfterBlock, '$1');

  // If a <br /> tag is before a subset of opening or closing block tags, remove it.
  text = text.replace(RE.brBeforeBlock, '$1');
  text = text.replace(RE.trailingNlP, '</p>');

  // Replace placeholder <pre> tags with their original content.
  // WordPress replaces them one after the other (str_replace with lists), a pass over the text for each: one pass
  // here, which differs only for a text that holds a placeholder's own markup.
  if (preTags.length) {
    text = text.replace(
      /<pre wp-pre-tag-(\d+)><\/pre>/g,
      (placeholder, i: string) => preTags[Number(i)]?.[1] ?? placeholder,
    );
  }

  // Restore newlines in all elements.
  if (text.includes('<!-- wpnl -->')) {
    text = strReplace(text, [' <!-- wpnl --> ', '<!-- wpnl -->'], '\n');
  }

  return text;
}

/**
 * `shortcode_unautop( $text )`: unwraps `<p>[shortcode]</p>` for the given registered shortcode
 * tags (default: those of a default WordPress install; a no-op when there are none, as in WordPress).
 */
export function shortcodeUnautop(text: string, shortcodeTags: readonly string[] = DEFAULT_SHORTCODE_TAGS): string {
  if (shortcodeTags.length === 0) return text;
  const tagregexp = shortcodeTags.map((t) => t.replace(/[.\\+*?[^\]$(){}=!<>|:\-#/]/g, '\\$&')).join('|');
  const spaces = WP_SPACES;
  // PHP's possessive quantifiers are emulated with lookahead captures: groups 1, 4 and 5 are
  // helpers, group 2 is PHP's group 1 (the shortcode) and group 3 is PHP's group 2 (its name).
  const pattern = new RegExp(
    '<p>' +
      `(?=((?:${spaces})*))\\1` + // Optional leading whitespace.
      '(' + // The shortcode.
      '\\[' +
      `(${tagregexp})` + // Shortcode name.
      '(?![\\w-])' +
      '[^\\]\\/]*' +
      '(?:' +
      '\\/(?!\\])' +
      '[^\\]\\/]*' +
      ')*?' +
      '(?:' +
      '\\/\\]' +
      '|' +
      '\\]' +
      '(?:' +
      '(?=([^\\[]*(?:\\[(?!\\/\\3\\])[^\\[]*)*))\\4' +
      '\\[\\/\\3\\]' +
      ')?' +
      ')' +
      ')' +
      `(?=((?:${spaces})*))\\5` + // Optional trailing whitespace.
      '<\\/p>',
    'g',
  );
  return text.replace(pattern, (...args: unknown[]) => args[2] as string);
}
