import type { SettingDefinition } from '../../extensions/extension.types';

/**
 * What a {@link CoreSettingDefinition.sanitizeOption} returns to leave the option as it is: WordPress's
 * `sanitize_option()` falls back to the current value (`get_option()`) when a new value is refused.
 */
export const KEEP_CURRENT_VALUE: unique symbol = Symbol('keep current value');

/** A setting WordPress registers itself, with the part of `sanitize_option()` that applies to its option. */
export interface CoreSettingDefinition extends SettingDefinition {
  /** The option the setting is stored in. */
  option: string;
  /** WordPress's `sanitize_option()` for this option (run by `update_option()` before the value is stored). */
  sanitizeOption?: (value: unknown) => unknown;
}

/** PHP `absint()` (for values already validated as integers). */
const absint = (value: unknown): number => Math.abs(Math.trunc(Number(value)) || 0);

/** WordPress's `esc_html()`: `&`, `<`, `>`, `"`, `'` escaped, without encoding existing entities again. */
export function escHtml(value: unknown): string {
  const text = String(value);
  if (!/[&<>"']/.test(text)) return text;
  return text
    .replace(/&(?!(?:[A-Za-z][A-Za-z0-9]{1,31}|#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6});)/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#039;');
}

/** PHP `strip_tags()` followed by `wp_kses_data()`'s entity normalisation (a stray `&` becomes `&amp;`). */
export function stripTags(value: unknown): string {
  return String(value)
    .replace(/<!--[\s\S]*?(-->|$)/g, '')
    .replace(/<\/?[A-Za-z!?][^>]*(>|$)/g, '')
    .replace(/&(?!(?:[A-Za-z][A-Za-z0-9]{1,31}|#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6});)/g, '&amp;');
}

/** `true` for a time zone identifier PHP's `timezone_identifiers_list( DateTimeZone::ALL_WITH_BC )` knows. */
export function isTimezoneIdentifier(value: string): boolean {
  if (!/^[A-Z][A-Za-z0-9_+\-/]*$/.test(value)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

/**
 * The settings WordPress 6.1 registers with `show_in_rest` (`register_initial_settings()`, then the site logo and
 * site icon settings of the `core/site-logo` block), in its order, with its types, descriptions and defaults.
 * Each carries the branch of `sanitize_option()` WordPress applies to its option on update.
 */
export const CORE_SETTINGS: readonly CoreSettingDefinition[] = [
  {
    option: 'blogname',
    type: 'string',
    description: 'Site title.',
    showInRest: { name: 'title' },
    sanitizeOption: escHtml,
  },
  {
    option: 'blogdescription',
    type: 'string',
    description: 'Site tagline.',
    showInRest: { name: 'description' },
    sanitizeOption: escHtml,
  },
  {
    option: 'siteurl',
    type: 'string',
    description: 'Site URL.',
    showInRest: { name: 'url', schema: { format: 'uri' } },
    // Only http(s) addresses are accepted; anything else leaves the option unchanged.
    sanitizeOption: (value) => (/http(s?):\/\/(.+)/i.test(String(value)) ? String(value).trim() : KEEP_CURRENT_VALUE),
  },
  {
    option: 'admin_email',
    type: 'string',
    description: 'This address is used for admin purposes, like new user notification.',
    showInRest: { name: 'email', schema: { format: 'email' } },
  },
  {
    option: 'timezone_string',
    type: 'string',
    description: 'A city in the same timezone as you.',
    showInRest: { name: 'timezone' },
    // An unknown time zone leaves the option unchanged.
    sanitizeOption: (value) => (value === '' || isTimezoneIdentifier(String(value)) ? value : KEEP_CURRENT_VALUE),
  },
  {
    option: 'date_format',
    type: 'string',
    description: 'A date format for all date strings.',
    showInRest: true,
    sanitizeOption: stripTags,
  },
  {
    option: 'time_format',
    type: 'string',
    description: 'A time format for all time strings.',
    showInRest: true,
    sanitizeOption: stripTags,
  },
  {
    option: 'start_of_week',
    type: 'integer',
    description: 'A day number of the week that the week should start on.',
    showInRest: true,
    sanitizeOption: absint,
  },
  {
    option: 'WPLANG',
    type: 'string',
    description: 'WordPress locale code.',
    default: 'en_US',
    showInRest: { name: 'language' },
    // Only installed languages are accepted and this server has no language packs: anything but '' is refused.
    sanitizeOption: (value) => (value === '' ? value : KEEP_CURRENT_VALUE),
  },
  {
    option: 'use_smilies',
    type: 'boolean',
    description: 'Convert emoticons like :-) and :-P to graphics on display.',
    default: true,
    showInRest: true,
  },
  {
    option: 'default_category',
    type: 'integer',
    description: 'Default post category.',
    showInRest: true,
    sanitizeOption: absint,
  },
  { option: 'default_post_format', type: 'string', description: 'Default post format.', showInRest: true },
  {
    option: 'posts_per_page',
    type: 'integer',
    description: 'Blog pages show at most.',
    default: 10,
    showInRest: true,
    sanitizeOption: (value) => {
      const n = Math.trunc(Number(value)) || 1;
      return n < -1 ? Math.abs(n) : n;
    },
  },
  { option: 'show_on_front', type: 'string', description: 'What to show on the front page', showInRest: true },
  {
    option: 'page_on_front',
    type: 'integer',
    description: 'The ID of the page that should be displayed on the front page',
    showInRest: true,
    sanitizeOption: absint,
  },
  {
    option: 'page_for_posts',
    type: 'integer',
    description: 'The ID of the page that should display the latest posts',
    showInRest: true,
    sanitizeOption: absint,
  },
  {
    option: 'default_ping_status',
    type: 'string',
    description: 'Allow link notifications from other blogs (pingbacks and trackbacks) on new articles.',
    showInRest: { schema: { enum: ['open', 'closed'] } },
  },
  {
    option: 'default_comment_status',
    type: 'string',
    description: 'Allow people to submit comments on new posts.',
    showInRest: { schema: { enum: ['open', 'closed'] } },
  },
  { option: 'site_logo', type: 'integer', description: 'Site logo.', showInRest: { name: 'site_logo' } },
  { option: 'site_icon', type: 'integer', description: 'Site icon.', showInRest: true, sanitizeOption: absint },
];
