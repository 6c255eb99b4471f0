/**
 * WordPress 6.1 formatting filters, ported to TypeScript (verified against PHP, see
 * test/fixtures/formatting/harness.php): what WordPress does to `title`, `content` and `excerpt`
 * before returning them as `rendered` in the REST API, and `wp_kses_post()`.
 */
export { wpautop, shortcodeUnautop } from './autop';
export { wptexturize } from './texturize';
export { convertChars, convertSmilies, capitalPDangit } from './convert-chars';
export {
  wpTrimWords,
  stripAllTags,
  phpStripTags,
  forceBalanceTags,
  stripShortcodes,
  excerptRemoveBlocks,
  doShortcode,
  shortcodeParseAtts,
} from './excerpt';
export {
  renderTitle,
  renderContent,
  renderCommentText,
  renderExcerpt,
  applyTitleFilters,
  applyExcerptFilters,
  parseBlocks,
  doBlocks,
  wpFilterContentTags,
  createRenderState,
} from './filters';
export {
  wpKsesPost,
  wpKsesBadProtocol,
  wpKsesNormalizeEntities,
  wpKsesAttrParse,
  wpKsesOneAttr,
  wpPreKsesLessThan,
  safecssFilterAttr,
  escHtml,
  escAttr,
} from './kses';
export { sanitizeTitle, normalizeWhitespace } from './sanitize-title';
