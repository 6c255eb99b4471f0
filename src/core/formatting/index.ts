/**
 * WordPress 6.1 formatting filters, ported to TypeScript (verified against PHP, see
 * test/fixtures/formatting/harness.php): what WordPress does to `title`, `content` and `excerpt`
 * before returning them as `rendered` in the REST API, and `wp_kses_post()`.
 */
export { wpautop, shortcodeUnautop } from './autop';
export {
  wptexturize,
  wptexturizePrimes,
  DEFAULT_SHORTCODE_TAGS,
  DEFAULT_NO_TEXTURIZE_TAGS,
  DEFAULT_NO_TEXTURIZE_SHORTCODES,
} from './texturize';
export type { TexturizeOptions } from './texturize';
export { convertChars, convertSmilies, capitalPDangit, WP_SMILIES } from './convert-chars';
export type { SmiliesOptions } from './convert-chars';
export {
  wpTrimWords,
  stripAllTags,
  phpStripTags,
  forceBalanceTags,
  stripShortcodes,
  excerptRemoveBlocks,
  getTheContentForExcerpt,
  splitPages,
  doShortcode,
  shortcodeParseAtts,
} from './excerpt';
export type { ShortcodeMatch, ShortcodeRenderer } from './excerpt';
export {
  renderTitle,
  renderContent,
  renderCommentText,
  renderExcerpt,
  applyTitleFilters,
  applyExcerptFilters,
  parseBlocks,
  renderBlock,
  doBlocks,
  hasBlocks,
  wpFilterContentTags,
  createRenderState,
  wpTrimExcerpt,
  getTheExcerpt,
} from './filters';
export type {
  ParsedBlock,
  RenderOptions,
  RenderState,
  TitleOptions,
  ContentTagsOptions,
  ExcerptOptions,
} from './filters';
export {
  wpKsesPost,
  wpKses,
  wpKsesBadProtocol,
  wpKsesNormalizeEntities,
  wpKsesNoNull,
  wpKsesHair,
  wpKsesHairParse,
  wpKsesAttrParse,
  wpKsesOneAttr,
  wpPreKsesLessThan,
  safecssFilterAttr,
  escHtml,
  escAttr,
  ALLOWED_POST_TAGS,
  ALLOWED_ENTITY_NAMES,
  ALLOWED_PROTOCOLS,
  URI_ATTRIBUTES,
} from './kses';
export type { KsesOptions, AllowedHtml, AttrSpec } from './kses';
export {
  removeAccents,
  sanitizeTitle,
  sanitizeTitleWithDashes,
  normalizeWhitespace,
  convertInvalidEntities,
  wpTargetedLinkRel,
} from './sanitize-title';
