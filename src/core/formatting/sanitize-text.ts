import { phpTrim } from './php-serialize';
import { sanitizeTitle } from './sanitize-title';

// Ports of WordPress's sanitizers (ASCII-only where WordPress's strict rules make the input ASCII).

/** `wp_strip_all_tags()` without the line-break removal. */
function stripAllTags(text: string): string {
  return phpTrim(text.replace(/<(script|style)[^>]*?>.*?<\/\1>/gis, '').replace(/<[^>]*>?/g, ''));
}

/**
 * `sanitize_user( $username, true )`: strips tags, `%xx` octets and entities, keeps only `[A-Za-z0-9 _.-@]`,
 * trims and collapses whitespace. (Accented letters are dropped rather than transliterated.)
 */
export function sanitizeUserLogin(login: string): string {
  return phpTrim(
    stripAllTags(login)
      .replace(/%[a-fA-F0-9]{2}/g, '')
      .replace(/&.+?;/g, '')
      .replace(/[^a-z0-9 _.\-@]/gi, ''),
  ).replace(/\s+/g, ' ');
}

/** `sanitize_title()` as it makes `user_nicename` from a login. */
export function sanitizeNicename(text: string): string {
  return sanitizeTitle(text);
}

/** `sanitize_text_field()`: no tags, no line breaks or runs of whitespace, no `%xx` octets, trimmed. */
export function sanitizeTextField(text: string): string {
  let filtered = text;
  if (filtered.includes('<')) {
    // wp_pre_kses_less_than(): a "<" that does not open a tag is kept as text.
    filtered = filtered.replace(/<[^>]*?((?=<)|>|$)/g, (m) => (m.includes('>') ? m : m.replace(/</g, '&lt;')));
    filtered = stripAllTags(filtered).replace(/<\n/g, '&lt;\n');
  }
  filtered = phpTrim(filtered.replace(/[\r\n\t ]+/g, ' '));
  if (/%[a-f0-9]{2}/i.test(filtered)) {
    while (/%[a-f0-9]{2}/i.test(filtered)) filtered = filtered.replace(/%[a-f0-9]{2}/gi, '');
    filtered = phpTrim(filtered.replace(/ +/g, ' '));
  }
  return filtered;
}
