import { ALLOWED_PROTOCOLS, escAttr, wpKsesHair } from './kses';

/**
 * WordPress's `wp_rel_ugc()` (`pre_comment_content`, priority 15): every link of a comment gets `rel="nofollow ugc"`,
 * merged with a `rel` it already has; an http(s) link to the site's own host is left as it is (WordPress 6.1, the
 * oracle's version).
 */
export function wpRelUgc(text: string, homeUrl: string): string {
  const homeHost = hostOf(homeUrl);
  return text.replace(/<a (.+?)>/gi, (_match, inner: string) => relCallback(inner, 'nofollow ugc', homeHost));
}

/** `wp_rel_callback()`. */
function relCallback(inner: string, rel: string, homeHost: string | null): string {
  let text = inner;
  const atts = wpKsesHair(inner, ALLOWED_PROTOCOLS);
  const href = atts.get('href');
  if (href && href.value && isInternal(href.value, homeHost)) return `<a ${inner}>`;
  const existing = atts.get('rel');
  if (existing && existing.value) {
    const parts = [
      ...new Set([...existing.value.split(' ').map((p) => p.trim()), ...rel.split(' ').map((p) => p.trim())]),
    ];
    rel = parts.join(' ');
    atts.delete('rel');
    let html = '';
    for (const [name, value] of atts) html += value.vless === 'y' ? `${name} ` : `${name}="${escAttr(value.value)}" `;
    text = html.trim();
  }
  return `<a ${text}${rel ? ` rel="${escAttr(rel)}"` : ''}>`;
}

/** An http(s) link to the site's own host. */
function isInternal(link: string, homeHost: string | null): boolean {
  const lower = link.toLowerCase();
  const scheme = /^([a-z][a-z0-9+.-]*):/.exec(lower)?.[1];
  if (scheme !== 'http' && scheme !== 'https') return false;
  return hostOf(lower) === homeHost;
}

function hostOf(url: string): string | null {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return null;
  }
}
