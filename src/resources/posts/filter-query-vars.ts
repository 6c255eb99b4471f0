import { RestRequest } from '../../core/rest/rest-request';
import { parseIdList } from '../../core/json-schema/validate';
import { PostQuery, PostsService } from './posts.service';
import type { PostListArgs } from './post-collection-args';
import { textOf } from '../../core/formatting/php-serialize';

/** Query variables anyone may pass through `filter[...]`. */
export const PUBLIC_QUERY_VARS = [
  's',
  'p',
  'name',
  'author',
  'author_name',
  'cat',
  'category_name',
  'tag',
  'tag_id',
  'year',
  'monthnum',
  'day',
  'orderby',
  'order',
  'paged',
];
/**
 * The reference's `rest_query_vars`, added for every caller (`prepare_items_query`): paging, ids, parents, authors,
 * menu order, sticky handling and date queries.
 */
export const REST_QUERY_VARS = [
  'posts_per_page',
  'offset',
  'post__in',
  'post__not_in',
  'post_parent',
  'post_parent__in',
  'post_parent__not_in',
  'author__in',
  'author__not_in',
  'menu_order',
  'ignore_sticky_posts',
  'date_query',
];
/** Query variables that need the type's `edit_posts` (the reference's private query vars, those served here). */
export const PRIVATE_QUERY_VARS = [
  'post_status',
  'posts_per_archive_page',
  'showposts',
  'category__in',
  'category__not_in',
  'tag__in',
  'tag__not_in',
];

const ORDERBY: Record<string, string> = {
  date: 'date',
  ID: 'id',
  id: 'id',
  title: 'title',
  name: 'slug',
  modified: 'modified',
  parent: 'parent',
  menu_order: 'menu_order',
  author: 'author',
};

function list(value: unknown): string[] {
  if (Array.isArray(value)) return value.map(String).filter(Boolean);
  if (value && typeof value === 'object') return Object.values(value).map(String).filter(Boolean);
  return String(value)
    .split(/[\s,]+/)
    .filter(Boolean);
}

/** A date of a `date_query` clause (`'2024-01-31'`, an RFC 3339 time, or `{year, month, day}`) as a MySQL datetime. */
function queryDate(value: unknown, end: boolean): string | undefined {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const v = value as Record<string, unknown>;
    const year = Number(v.year);
    if (!year) return undefined;
    const month = Number(v.month ?? (end ? 12 : 1));
    const day = Number(v.day ?? (end ? new Date(Date.UTC(year, month, 0)).getUTCDate() : 1));
    const pad = (n: number) => String(n).padStart(2, '0');
    return `${year}-${pad(month)}-${pad(day)} ${end ? '23:59:59' : '00:00:00'}`;
  }
  const text = textOf(value).trim();
  const match = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2}))?)?/.exec(text);
  if (!match) return undefined;
  return `${match[1]}-${match[2]}-${match[3]} ${match[4] ?? (end ? '23' : '00')}:${match[5] ?? (end ? '59' : '00')}:${match[6] ?? (end ? '59' : '00')}`;
}

/**
 * Applies the spec's `filter[<query_var>]` parameters (the reference's WP_Query variables) to a posts query.
 * A `filter` that is not an object is ignored; unknown variables are ignored; private ones are ignored unless the
 * caller can edit posts of the type. Their effect shows in the totals, as it is part of the query. `args` are the
 * request's (`filter` and `page` are read from them).
 */
export async function applyFilterQueryVars(
  query: PostQuery,
  req: RestRequest,
  args: PostListArgs,
  posts: PostsService,
  canEdit: boolean,
  sticky: number[] = [],
): Promise<PostQuery> {
  const filter = args.filter;
  if (!filter || typeof filter !== 'object' || Array.isArray(filter)) return query;
  const vars = filter as Record<string, unknown>;
  const allowed = new Set([...PUBLIC_QUERY_VARS, ...REST_QUERY_VARS, ...(canEdit ? PRIVATE_QUERY_VARS : [])]);
  const q: PostQuery = { ...query, terms: [...query.terms] };
  const has = (name: string) => allowed.has(name) && vars[name] !== undefined && vars[name] !== '';
  if (has('s')) q.search = String(vars.s);
  if (has('p')) q.include = [Number(vars.p)];
  if (has('name')) q.slugs = [String(vars.name)];
  if (has('author')) {
    const ids = list(vars.author).map(Number);
    q.authors = ids.filter((id) => id > 0);
    q.authorsExclude = ids.filter((id) => id < 0).map((id) => -id);
  }
  if (has('author_name')) q.authors = await posts.userIdsByNicename([String(vars.author_name)]);
  if (has('cat')) {
    const ids = list(vars.cat).map(Number);
    const inc = ids.filter((id) => id > 0);
    const exc = ids.filter((id) => id < 0).map((id) => -id);
    if (inc.length) q.terms.push({ taxonomy: 'category', termIds: inc, exclude: false });
    if (exc.length) q.terms.push({ taxonomy: 'category', termIds: exc, exclude: true });
  }
  if (has('category_name'))
    q.terms.push({
      taxonomy: 'category',
      termIds: await posts.termIdsBySlug('category', list(vars.category_name)),
      exclude: false,
    });
  if (has('tag'))
    q.terms.push({
      taxonomy: 'post_tag',
      termIds: await posts.termIdsBySlug('post_tag', list(vars.tag)),
      exclude: false,
    });
  if (has('tag_id')) q.terms.push({ taxonomy: 'post_tag', termIds: [Number(vars.tag_id)], exclude: false });
  if (has('year')) {
    const year = Number(vars.year);
    const month = has('monthnum') ? Number(vars.monthnum) : undefined;
    const day = month && has('day') ? Number(vars.day) : undefined;
    const start = new Date(Date.UTC(year, (month ?? 1) - 1, day ?? 1));
    const end = new Date(Date.UTC(year + (month ? 0 : 1), month ? month - (day ? 1 : 0) : 0, day ? day + 1 : 1));
    const mysql = (d: Date) => d.toISOString().slice(0, 19).replace('T', ' ');
    q.after = mysql(new Date(start.getTime() - 1000));
    q.before = mysql(end);
  }
  if (has('orderby') && ORDERBY[String(vars.orderby)]) q.orderby = ORDERBY[String(vars.orderby)];
  if (has('order')) q.order = String(vars.order).toUpperCase() === 'ASC' ? 'ASC' : 'DESC';
  const perPage = ['posts_per_page', 'showposts', 'posts_per_archive_page'].find(has);
  // A size from 1 to 100; anything else (-1, WP_Query's "all of them", included) leaves per_page's, as the
  // reference's test_get_items_invalid_posts_per_page_ignored expects.
  const asked = perPage ? Math.trunc(Number(vars[perPage])) : 0;
  if (asked >= 1) q.limit = Math.min(100, asked);
  // `filter[paged]` (a public query var, merged over `page` as the reference merges `filter` over its args).
  const page = has('paged') ? Math.max(1, Math.trunc(Number(vars.paged)) || 1) : Math.max(1, args.page ?? 1);
  // The page is counted in the page size, as WP_Query counts `paged` in `posts_per_page`.
  if ((perPage || has('paged')) && !req.sent('offset')) q.offset = (page - 1) * q.limit;
  if (has('offset')) q.offset = Math.max(0, Number(vars.offset) || 0);
  if (has('post__in')) q.include = parseIdList(vars.post__in);
  if (has('post__not_in')) q.exclude = [...q.exclude, ...parseIdList(vars.post__not_in)];
  if (has('post_parent')) q.parents = [Math.abs(Math.trunc(Number(vars.post_parent)))];
  if (has('post_parent__in')) q.parents = parseIdList(vars.post_parent__in);
  if (has('post_parent__not_in')) q.parentsExclude = [...q.parentsExclude, ...parseIdList(vars.post_parent__not_in)];
  if (has('author__in')) q.authors = parseIdList(vars.author__in);
  if (has('author__not_in')) q.authorsExclude = [...q.authorsExclude, ...parseIdList(vars.author__not_in)];
  if (has('menu_order')) q.menuOrder = Math.trunc(Number(vars.menu_order)) || 0;
  if (has('date_query') && vars.date_query && typeof vars.date_query === 'object') {
    const dq = vars.date_query as Record<string, unknown>;
    // One clause, given as it is or as the first of a list.
    const clause = (dq.after !== undefined || dq.before !== undefined ? dq : (dq[0] ?? dq['0'])) as
      Record<string, unknown> | undefined;
    if (clause && typeof clause === 'object') {
      const inclusive = clause.inclusive === true || clause.inclusive === 'true' || clause.inclusive === '1';
      const after = clause.after !== undefined ? queryDate(clause.after, inclusive ? false : true) : undefined;
      const before = clause.before !== undefined ? queryDate(clause.before, inclusive ? true : false) : undefined;
      if (after) q.after = inclusive ? shiftSecond(after, -1) : after;
      if (before) q.before = inclusive ? shiftSecond(before, 1) : before;
    }
  }
  if (
    has('ignore_sticky_posts') &&
    q.type === 'post' &&
    page <= 1 &&
    sticky.length &&
    !truthy(vars.ignore_sticky_posts) &&
    isHome(q, vars, has)
  ) {
    // The reference forces ignore_sticky_posts on, except for posts when the caller turns it off: then WP_Query
    // floats the sticky posts to the top of the first page of a home query (not a search, a term, author or date
    // archive), fetching those the page does not hold.
    q.stickyFirst = sticky;
  }
  if (has('post_status')) q.statuses = list(vars.post_status);
  if (has('category__in'))
    q.terms.push({ taxonomy: 'category', termIds: parseIdList(vars.category__in), exclude: false });
  if (has('category__not_in'))
    q.terms.push({ taxonomy: 'category', termIds: parseIdList(vars.category__not_in), exclude: true });
  if (has('tag__in')) q.terms.push({ taxonomy: 'post_tag', termIds: parseIdList(vars.tag__in), exclude: false });
  if (has('tag__not_in')) q.terms.push({ taxonomy: 'post_tag', termIds: parseIdList(vars.tag__not_in), exclude: true });
  return q;
}

/**
 * The page `filter[paged]` asked for, and the links without it (the reference drops it from the Link base, so that
 * `page` moves the links on).
 */
export function filterPage(req: RestRequest): { page?: number; omit?: ReadonlySet<string> } {
  // Read when the links are written, after the `rest_{type}_query` listeners (which get the request).
  const filter = req.args<PostListArgs>().filter as Record<string, unknown> | undefined;
  if (
    !filter ||
    typeof filter !== 'object' ||
    Array.isArray(filter) ||
    filter.paged === undefined ||
    filter.paged === ''
  )
    return {};
  return { page: Math.max(1, Math.trunc(Number(filter.paged)) || 1), omit: new Set(['filter[paged]']) };
}

/** A query variable's boolean, as PHP reads one (`'0'`, `'false'`, `''` are false here, as WP_Query's `ignore_sticky_posts` expects). */
function truthy(value: unknown): boolean {
  const text = String(value).trim().toLowerCase();
  return !(text === '' || text === '0' || text === 'false');
}

/**
 * Whether WP_Query would read the query as the home page (`is_home`): no search, no term archive (the taxonomy
 * parameters and `filter` term variables included), no author (`author`, `author_name`) or date (`year`) archive.
 */
function isHome(q: PostQuery, vars: Record<string, unknown>, has: (name: string) => boolean): boolean {
  return (
    !q.search &&
    !q.terms.length &&
    !['author', 'author_name', 'year', 'monthnum', 'day'].some((name) => has(name) && vars[name] !== undefined)
  );
}

/** A MySQL datetime moved by whole seconds (exclusive bounds made inclusive). */
function shiftSecond(datetime: string, seconds: number): string {
  const ms = Date.parse(`${datetime.replace(' ', 'T')}Z`) + seconds * 1000;
  return new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
}
