import { stripAllTags } from './excerpt';
import { ALLOWED_PROTOCOLS, wpFilterKses, wpKsesBadProtocol, wpKsesNormalizeEntities } from './kses';

/**
 * WordPress's `esc_url_raw()` (`esc_url()` in the `db` context): the URL as it may be stored, or `''` when its
 * protocol is not allowed (`javascript:`, `data:`, …). Characters a URL cannot hold are dropped, `%0d`/`%0a` removed
 * (but in `mailto:`), a URL without a scheme that is not relative gets `http://`, and brackets after the host are
 * encoded.
 */
export function escUrlRaw(input: string, protocols: readonly string[] = ALLOWED_PROTOCOLS): string {
  if (input === '') return input;
  let url = input.replace(/^[ \t\n\r\0\x0B]+/, '').replace(/ /g, '%20');
  url = url.replace(/[^a-z0-9\-~+_.?#=!&;,/:%@$|*'()[\]\x80-\uffff]/gi, '');
  if (url === '') return url;
  if (!/^mailto:/i.test(url)) {
    // _deep_replace(): until none is left, so `%0%0dd` cannot rebuild one.
    let before: string;
    do {
      before = url;
      url = url.replace(/%0[da]/gi, '');
    } while (url !== before);
  }
  url = url.replace(/;\/\//g, '://');
  if (!url.includes(':') && !['/', '#', '?'].includes(url[0]) && !/^[a-z0-9-]+?\.php/i.test(url)) url = `http://${url}`;
  if (url.includes('[') || url.includes(']')) {
    // The authority keeps its brackets (an IPv6 host); the rest has them encoded.
    const authority = /^(?:[a-z][a-z0-9+.-]*:)?\/\/[^/?#]*/i.exec(url)?.[0] ?? '';
    url = authority + url.slice(authority.length).replace(/\[/g, '%5B').replace(/\]/g, '%5D');
  }
  if (url[0] === '/') return url;
  const good = wpKsesBadProtocol(url, protocols);
  return good.toLowerCase() === url.toLowerCase() ? good : '';
}

/**
 * WordPress's `_wp_specialchars()` with its defaults (no quotes, no double encoding): `&`, `<` and `>` as entities,
 * entities already there kept.
 */
export function wpSpecialchars(text: string): string {
  if (!/[&<>]/.test(text)) return text;
  return wpKsesNormalizeEntities(text).replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * WordPress's URL save filters (`pre_user_url`, `pre_comment_author_url`): `wp_strip_all_tags`, `esc_url_raw`,
 * `wp_filter_kses` (which stores a bare `&` as `&amp;`).
 */
export function sanitizeSavedUrl(url: string): string {
  return wpFilterKses(escUrlRaw(stripAllTags(url)));
}

/**
 * WordPress's save filters of one-line names (`pre_user_first_name`, `pre_user_display_name`, `pre_term_name`, …):
 * `sanitize_text_field`'s result (given), `wp_filter_kses`, `_wp_specialchars`.
 */
export function sanitizeSavedName(sanitizedText: string): string {
  return wpSpecialchars(wpFilterKses(sanitizedText));
}
