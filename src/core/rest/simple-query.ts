/** Pairs above which `qs` stops reading (its `parameterLimit`): such query strings go to it. */
const MAX_PAIRS = 1000;

/**
 * A query string of plain `key=value` pairs (`per_page=10&context=embed`) read without `qs`: what `qs` gives for it,
 * or `null` for anything it reads its own way — brackets (`a[]=1`, `a%5Bb%5D=1`), `+`, repeated keys, names of
 * `Object.prototype` members (which `qs` drops), empty keys, bad escapes, more than {@link MAX_PAIRS} pairs.
 *
 * @example simpleQuery('post=12&context=embed') // { post: '12', context: 'embed' }
 */
export function simpleQuery(search: string): Record<string, string> | null {
  const query: Record<string, string> = {};
  if (!search) return query;
  if (/[+[\]#]/.test(search)) return null;
  const pairs = search.split('&');
  if (pairs.length > MAX_PAIRS) return null;
  try {
    for (const pair of pairs) {
      if (!pair) continue;
      const eq = pair.indexOf('=');
      const key = decodeURIComponent(eq < 0 ? pair : pair.slice(0, eq));
      if (!key || key in query || key.includes('[') || key.includes(']')) return null;
      query[key] = eq < 0 ? '' : decodeURIComponent(pair.slice(eq + 1));
    }
  } catch {
    return null;
  }
  return query;
}
