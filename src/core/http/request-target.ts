/** The path and query of a request target, as `new URL(target, 'http://localhost')` gives them. */
export interface RequestTarget {
  pathname: string;
  /** `?…`, or `''` when there is no query (or an empty one). */
  search: string;
}

/**
 * Targets that `new URL` would give back as they are: a path of the characters it leaves alone in both the path
 * and the query, starting with one `/` (two would name a host), without a dot segment (`/.`, `/%2e`, which it
 * resolves) and without what it strips or encodes (spaces, controls, quotes, `<>`, backslashes, `#`, non-ASCII).
 */
const PLAIN_TARGET = /^\/(?!\/)[\w\-.~!$&()*+,;=:@%/?[\]]*$/;
const DOT_SEGMENT = /\/(?:\.|%2e)/i;

/**
 * Splits a request target (`/cms-json/cms/v2/posts?per_page=10`) into its path and query without building a URL
 * object when it is plain (every request of the API's usual clients); any other is parsed by `URL`, which resolves
 * dot segments and encodes what must be.
 */
export function requestTarget(raw: string): RequestTarget {
  if (PLAIN_TARGET.test(raw) && !DOT_SEGMENT.test(raw)) {
    const q = raw.indexOf('?');
    if (q < 0) return { pathname: raw, search: '' };
    return { pathname: raw.slice(0, q), search: q === raw.length - 1 ? '' : raw.slice(q) };
  }
  const url = new URL(raw, 'http://localhost');
  return { pathname: url.pathname, search: url.search };
}
