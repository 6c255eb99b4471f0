/**
 * The WordPress 6.1 display filter chains used by the REST posts controller
 * (`prepare_item_for_response()`), in default-filters.php priority order:
 *
 * - `title.rendered`   = get_the_title(): "Private: " prefix for private posts (not for password
 *   protected ones: the controller's `protected_title_format` is `%s`), then `the_title`:
 *   wptexturize, convert_chars, trim (10), capital_P_dangit (11).
 * - `content.rendered` = `the_content`: WP_Embed run_shortcode/autoembed (8, not ported), do_blocks (9),
 *   wptexturize, wpautop (skipped when the content has blocks), shortcode_unautop, prepend_attachment
 *   (attachments only), wp_filter_content_tags, wp_replace_insecure_home_url (10),
 *   capital_P_dangit, do_shortcode (11: shortcodes are only rendered by an `options.renderShortcode`
 *   callback; WordPress's own [caption], [gallery], [audio], [video], [playlist], [embed] are not ported),
 *   convert_smilies (20).
 *   Note: `convert_chars` is *not* part of `the_content` in WordPress.
 * - `excerpt.rendered` = `the_excerpt`( `get_the_excerpt`( post_excerpt ) ): wp_trim_excerpt (10) then
 *   wptexturize, convert_smilies, convert_chars, wpautop, shortcode_unautop, wp_filter_content_tags,
 *   wp_replace_insecure_home_url (all 10).
 *
 * Also here: the block parser (`WP_Block_Parser`) and static block rendering used by `do_blocks()`,
 * and `wp_filter_content_tags()` without attachment metadata.
 *
 * Not ported (output differs from WordPress only for content that needs them):
 * - WP_Embed (priority 8): `[embed]` and URLs alone on a line are left as text. With external HTTP
 *   blocked (as on the oracle) WordPress also leaves unknown URLs alone, but it embeds the site's own
 *   posts and uses oEmbed results cached in post meta.
 * - Rendering of WordPress's own shortcodes (see `renderShortcode`).
 * - Dynamic blocks and the markup 6.1 block supports add on render (see {@link renderBlock}).
 * - `width`/`height`/`srcset`/`sizes` for `wp-image-{id}` images (attachment metadata; see `attachmentImage`).
 * - prepend_attachment (only for attachment posts) and wp_replace_insecure_home_url (a no-op unless the
 *   site was migrated to https).
 * - Translations: WordPress's default (English) strings only; plugin/theme filters are not supported.
 *
 * WordPress keeps one piece of state between `the_content` calls of a request (see {@link RenderState}).
 */
import { shortcodeUnautop, wpautop } from './autop';
import { capitalPDangit, convertChars, convertSmilies } from './convert-chars';
import { doBlocks, hasBlocks } from './blocks';
import {
  doShortcode,
  forceBalanceTags,
  getTheContentForExcerpt,
  stripShortcodes,
  excerptRemoveBlocks,
  wpTrimWords,
  type ShortcodeRenderer,
} from './excerpt';
import { DEFAULT_SHORTCODE_TAGS, PCRE_SPACE, phpTrim, strReplace, wptexturize } from './texturize';

const SP = PCRE_SPACE;

export { doBlocks, parseBlocks } from './blocks';

// ---------------------------------------------------------------------------
// wp_filter_content_tags
// ---------------------------------------------------------------------------

export interface ContentTagsOptions {
  /**
   * Adds `width`/`height` and `srcset`/`sizes` to an `<img>` whose class names attachment `id`
   * (`wp-image-{id}`), i.e. `wp_img_tag_add_width_and_height_attr()` + `wp_img_tag_add_srcset_and_sizes_attr()`,
   * which need the attachment's metadata. Without it such images are left as WordPress leaves
   * images whose attachment does not exist.
   */
  attachmentImage?: (
    tag: string,
    attachmentId: number,
    flags: { addDimensions: boolean; addSrcset: boolean },
  ) => string;
}

/**
 * `wp_filter_content_tags( $content, $context )` outside the main loop (REST requests):
 * `loading="lazy"` on `<img>`/`<iframe>` with `src`, `width` and `height`, and `decoding="async"` on images.
 */
export function wpFilterContentTags(content: string, options: ContentTagsOptions = {}): string {
  const re = new RegExp(`<(img|iframe)${SP}[^>]+>`, 'g');
  const matches = [...content.matchAll(re)];
  if (matches.length === 0) return content;

  const images = new Map<string, number>();
  const iframes = new Set<string>();
  for (const m of matches) {
    const [tag, tagName] = m;
    if (tagName === 'img') {
      const id = /wp-image-([0-9]+)/i.exec(tag);
      const attachmentId = id ? Math.abs(parseInt(id[1], 10)) || 0 : 0;
      images.set(tag, attachmentId);
    } else {
      iframes.add(tag);
    }
  }

  for (const m of matches) {
    const tag = m[0];
    if (images.has(tag)) {
      let filtered = tag;
      const attachmentId = images.get(tag) as number;
      if (attachmentId > 0 && options.attachmentImage) {
        filtered = options.attachmentImage(filtered, attachmentId, {
          addDimensions: !filtered.includes(' width=') && !filtered.includes(' height='),
          addSrcset: !filtered.includes(' srcset='),
        });
      }
      // Add 'loading' attribute if applicable.
      if (!filtered.includes(' loading=')) {
        if (filtered.includes(' src="') && filtered.includes(' width="') && filtered.includes(' height="')) {
          filtered = strReplace(filtered, '<img', '<img loading="lazy"');
        }
      }
      // Add 'decoding=async' attribute unless a 'decoding' attribute is already present.
      if (!filtered.includes(' decoding=') && filtered.includes(' src="')) {
        filtered = strReplace(filtered, '<img ', '<img decoding="async" ');
      }
      if (filtered !== tag) content = strReplace(content, tag, filtered);
      images.delete(tag);
    }
    if (iframes.has(tag)) {
      let filtered = tag;
      if (!filtered.includes(' loading=') && !filtered.includes(' data-secret="')) {
        if (filtered.includes(' src="') && filtered.includes(' width="') && filtered.includes(' height="')) {
          filtered = strReplace(filtered, '<iframe', '<iframe loading="lazy"');
        }
      }
      if (filtered !== tag) content = strReplace(content, tag, filtered);
      iframes.delete(tag);
    }
  }
  return content;
}

// ---------------------------------------------------------------------------
// The filter chains
// ---------------------------------------------------------------------------

export interface RenderOptions extends ContentTagsOptions {
  /** `site_url()`, for the `:mrgreen:` smiley image (default: relative URL). */
  siteUrl?: string;
  /** The `use_smilies` option (WordPress default: true). */
  useSmilies?: boolean;
  /**
   * Registered shortcode tags. They are not rendered (do_shortcode is not ported) but they change
   * how wptexturize, shortcode_unautop and excerpts treat the text. Default: the shortcodes of a
   * default WordPress install ({@link DEFAULT_SHORTCODE_TAGS}).
   */
  shortcodeTags?: readonly string[];
  /** Renders shortcodes in `do_shortcode` (default: none is rendered, each is left as written). */
  renderShortcode?: ShortcodeRenderer;
  /**
   * Per-request filter state (see {@link createRenderState}). Without it every call behaves like the
   * first `the_content` of a request.
   */
  state?: RenderState;
}

/**
 * State that WordPress's `the_content` keeps for the rest of a request: once `do_blocks()` has seen
 * block content it removes `wpautop` and `_restore_wpautop_hook` re-adds it at the *end* of priority 10,
 * so for every later `the_content` of the same request wpautop runs after shortcode_unautop and
 * wp_filter_content_tags (a `<p>[gallery]</p>` is then no longer unwrapped). Share one state object
 * between the posts of one REST response, in the order WordPress prepares them.
 */
export interface RenderState {
  wpautopMoved: boolean;
}

/** A fresh {@link RenderState} (one per request). */
export function createRenderState(): RenderState {
  return { wpautopMoved: false };
}

export interface TitleOptions {
  /** Post status: private posts get WordPress's "Private: " prefix (unless password protected). */
  status?: string;
  /** Post password: protected posts get no prefix in REST responses (`protected_title_format` = `%s`). */
  password?: string;
}

/** `the_title` filters: wptexturize, convert_chars, trim, capital_P_dangit. */
export function applyTitleFilters(title: string, options: RenderOptions = {}): string {
  title = wptexturize(title, { shortcodeTags: options.shortcodeTags ?? DEFAULT_SHORTCODE_TAGS });
  title = convertChars(title);
  title = phpTrim(title);
  return capitalPDangit(title, 'title');
}

/**
 * `title.rendered` of the REST API: `get_the_title()` (with the "Private: " prefix when `status` is
 * `private` and there is no password) through the `the_title` filters.
 */
export function renderTitle(raw: string, options: TitleOptions & RenderOptions = {}): string {
  let title = raw;
  if (!options.password && options.status === 'private') {
    title = `Private: ${title}`;
  }
  return applyTitleFilters(title, options);
}

/** `content.rendered`: the `the_content` filter chain (see the module comment for what is not ported). */
export function renderContent(raw: string, options: RenderOptions = {}): string {
  const shortcodeTags = options.shortcodeTags ?? DEFAULT_SHORTCODE_TAGS;
  const state = options.state ?? createRenderState();
  const blocks = hasBlocks(raw);
  // 9: do_blocks (removes wpautop from this run when the content has blocks).
  let text = doBlocks(raw);
  // 10, in registration order (wpautop moves to the end once a block post has been rendered).
  text = wptexturize(text, { shortcodeTags });
  if (!blocks && !state.wpautopMoved) text = wpautop(text);
  text = shortcodeUnautop(text, shortcodeTags);
  text = wpFilterContentTags(text, options);
  if (!blocks && state.wpautopMoved) text = wpautop(text);
  if (blocks) state.wpautopMoved = true;
  // 11
  text = capitalPDangit(text, 'content');
  text = doShortcode(text, { shortcodeTags, render: options.renderShortcode });
  // 20
  text = convertSmilies(text, { siteUrl: options.siteUrl, useSmilies: options.useSmilies });
  return text;
}

/**
 * `content.rendered` of a comment: the `comment_text` filters — wptexturize and convert_chars (10), convert_smilies
 * (20), force_balance_tags (25), wpautop (30), capital_P_dangit (31). make_clickable (9) is not ported.
 */
export function renderCommentText(raw: string, options: RenderOptions = {}): string {
  let text = wptexturize(raw, { shortcodeTags: options.shortcodeTags ?? DEFAULT_SHORTCODE_TAGS });
  text = convertChars(text);
  text = convertSmilies(text, { siteUrl: options.siteUrl, useSmilies: options.useSmilies });
  text = forceBalanceTags(text);
  text = wpautop(text);
  return capitalPDangit(text, 'content');
}

/** `the_excerpt` filters applied to an excerpt string. */
export function applyExcerptFilters(excerpt: string, options: RenderOptions = {}): string {
  const shortcodeTags = options.shortcodeTags ?? DEFAULT_SHORTCODE_TAGS;
  let text = wptexturize(excerpt, { shortcodeTags });
  text = convertSmilies(text, { siteUrl: options.siteUrl, useSmilies: options.useSmilies });
  text = convertChars(text);
  text = wpautop(text);
  text = shortcodeUnautop(text, shortcodeTags);
  text = wpFilterContentTags(text, options);
  return text;
}

/**
 * `excerpt.rendered`: `apply_filters( 'the_excerpt', apply_filters( 'get_the_excerpt', $post_excerpt, $post ) )`,
 * i.e. the hand-written excerpt, or one generated from the content by wp_trim_excerpt, through the
 * `the_excerpt` filters.
 */
export function renderExcerpt(rawExcerpt: string, rawContent: string, options: RenderOptions = {}): string {
  return applyExcerptFilters(getTheExcerpt(rawExcerpt, rawContent, options), options);
}

// ---------------------------------------------------------------------------
// Generated excerpts (they run the content filters)
// ---------------------------------------------------------------------------

export interface ExcerptOptions extends RenderOptions {
  /** Registered shortcodes stripped from generated excerpts (default: WordPress's defaults). */
  shortcodeTags?: readonly string[];
}

/**
 * `wp_trim_excerpt( '', $post )`: generates an excerpt from the raw post content — `get_the_content()`
 * (page 1, teaser before `<!--more-->`), `strip_shortcodes`, `excerpt_remove_blocks`, the `the_content`
 * filters, `]]>` escaping and `wp_trim_words( $text, 55, ' [&hellip;]' )`.
 */
export function wpTrimExcerpt(
  content: string,
  excerptLength = 55,
  more = ' [&hellip;]',
  options: ExcerptOptions = {},
): string {
  let text = getTheContentForExcerpt(content);
  text = stripShortcodes(text, options.shortcodeTags ?? DEFAULT_SHORTCODE_TAGS);
  text = excerptRemoveBlocks(text);
  text = renderContent(text, options);
  text = strReplace(text, ']]>', ']]&gt;');
  return wpTrimWords(text, excerptLength, more);
}

/** `get_the_excerpt` for a post: the hand-written excerpt, or a generated one when it is blank. */
export function getTheExcerpt(rawExcerpt: string, rawContent: string, options: ExcerptOptions = {}): string {
  if (phpTrim(rawExcerpt) === '') {
    return wpTrimExcerpt(rawContent, 55, ' [&hellip;]', options);
  }
  return rawExcerpt;
}
