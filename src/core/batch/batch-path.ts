/** What a batch request's `path` names: the route and the query string (without its `?`). */
export interface BatchPath {
  route: string;
  search: string;
}

/**
 * A batch request's `path` read as WordPress reads it (`wp_parse_url`): the path, as given (neither decoded nor
 * trimmed of a trailing slash), and the query string; a whole URL's scheme and host are ignored. `null` when it
 * cannot be read (WordPress's `parse_path_failed`).
 */
export function parseBatchPath(path: string): BatchPath | null {
  const withoutFragment = path.split('#', 1)[0];
  const mark = withoutFragment.indexOf('?');
  let route = mark < 0 ? withoutFragment : withoutFragment.slice(0, mark);
  const search = mark < 0 ? '' : withoutFragment.slice(mark + 1);
  const authority = /^(?:[a-z][a-z\d+.-]*:)?\/\/([^/]*)/i.exec(route);
  if (authority) {
    // An authority with a port that is not a number, or a scheme without one (`http:///x`), as parse_url refuses.
    const host = authority[1];
    if (!host || /:(?!\d*$)/.test(host.replace(/^.*@/, '').replace(/^\[[^\]]*\]/, ''))) return null;
    route = route.slice(authority[0].length);
  }
  return { route, search };
}
