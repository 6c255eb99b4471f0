import { createHash } from 'node:crypto';

/** The avatar sizes the API answers with (`rest_avatar_sizes`). */
export const AVATAR_SIZES = [24, 48, 96];

/** The site's avatar settings (`avatar_default`, `avatar_rating`). */
export interface AvatarSettings {
  avatarDefault: string;
  avatarRating: string;
}

/**
 * Gravatar URLs of an e-mail address, by size, as WordPress's `get_avatar_url()` builds them (`d` from the default
 * avatar, `r` from the rating); users' `avatar_urls` and comments' `author_avatar_urls`.
 */
export function avatarUrls(email: string, site: AvatarSettings, https: boolean): Record<string, string> {
  const hash = createHash('md5').update(email.trim().toLowerCase()).digest('hex');
  const host = https ? 'https://secure.gravatar.com' : `http://${parseInt(hash[0], 16) % 3}.gravatar.com`;
  const d = site.avatarDefault === 'mystery' ? 'mm' : site.avatarDefault;
  const r = site.avatarRating.toLowerCase();
  return Object.fromEntries(AVATAR_SIZES.map((s) => [String(s), `${host}/avatar/${hash}?s=${s}&d=${d}&r=${r}`]));
}

/** Whether the `show_avatars` option is on (on when unset, as in a fresh install). */
export function showAvatars(value: unknown): boolean {
  return value === undefined ? true : Boolean(Number(value) || value === 'true');
}
