import { CommentEntity } from '../../core/database/entities/comment.entity';
import { containsPattern } from '../../core/database/query-helpers';
import { Where } from '../../core/database/raw-query';
import { parseIdList } from '../../core/json-schema/validate';
import { SiteClock } from '../../core/options/site-clock';
import type { RouteArg } from '../../core/json-schema/json-schema';
import { CollectionQuery } from '../../core/rest/collection-query';
import { RestRequest } from '../../core/rest/rest-request';
import type { CommentListArgs } from './comment-schema';

/**
 * A filter of the comments collection that one value decides: its declaration (the route argument, which the
 * dispatcher validates and coerces and `OPTIONS`, the index and the OpenAPI document list) and its clause, run when
 * the request gives a value. A new such query parameter is one entry of {@link COMMENT_FILTERS}.
 */
interface CommentFilter<T> {
  arg: RouteArg;
  clause: (w: Where, value: T) => void;
}

/** One entry of {@link COMMENT_FILTERS}. */
export const commentFilter = <T>(arg: RouteArg, clause: (w: Where, value: T) => void): CommentFilter<T> => ({
  arg,
  clause,
});

/** The comments collection's one-value filters, in the order their clauses join the WHERE clause. */
export const COMMENT_FILTERS = {
  author_email: commentFilter<string>(
    {
      description: 'Limit result set to that from a specific author email. Requires authorization.',
      type: 'string',
      format: 'email',
      default: null,
    },
    (w, email) => w.add('c.comment_author_email = ?', email),
  ),
  karma: commentFilter<number>(
    { description: 'Limit result set to that of a particular comment karma. Requires authorization.', type: 'integer' },
    // absint(), as the reference.
    (w, karma) => w.add('c.comment_karma = ?', Math.abs(Math.trunc(karma))),
  ),
};

/**
 * The comments collection's own arguments (besides the shared ones and {@link COMMENT_FILTERS}), as the dispatcher
 * leaves them: `status` and `type` always (they have defaults).
 */
export interface CommentListFilters {
  post?: number[];
  parent?: number[];
  parent_exclude?: number[];
  author?: number[];
  author_exclude?: number[];
  after?: string;
  before?: string;
  status: string;
  type: string;
}

/** The values of {@link COMMENT_FILTERS} a request gives, by argument name. */
export type CommentFilterArgs = {
  [K in keyof typeof COMMENT_FILTERS]?: (typeof COMMENT_FILTERS)[K] extends CommentFilter<infer T> ? T : never;
};

/** Filters of a comments collection, validated and coerced (the reference's `WP_Comment_Query` arguments). */
export interface CommentQuery {
  /** `post__in`: comments of these posts (`0`: comments without a post). */
  postIn: number[];
  parentIn: number[];
  parentNotIn: number[];
  include: number[];
  exclude: number[];
  /** `author__in` / `author__not_in`: user ids. */
  authorIn: number[];
  authorNotIn: number[];
  /** The one-value filters the request gives ({@link COMMENT_FILTERS}); an empty string is none. */
  filters: CommentFilterArgs;
  search?: string;
  /**
   * Search the author's name, URL and the content only: callers who may not see commenters' e-mail addresses and
   * IPs (without `moderate_comments`) may not probe them either.
   */
  restrictedSearch: boolean;
  /** `approve`, `hold`, `all`/`any`, or a stored status (`spam`, `trash`, ...). */
  status: string;
  /** `comment` (stored `''` or `comment`), `pings`, `all`, or a stored type. */
  type: string;
  /** Local dates (`comment_date`), exclusive. */
  after?: string;
  before?: string;
  orderby: string;
  order: 'ASC' | 'DESC';
  limit: number;
  offset: number;
}

/** The order of a query: what {@link commentOrderBy} and {@link commentComparator} read. */
type CommentOrder = Pick<CommentQuery, 'orderby' | 'order' | 'include'>;

/**
 * The reference's `get_items()` arguments as a query (before the `rest_comment_query` filter): the request's
 * filters, its page window (`q`), and dates read in the site's time zone (`clock`).
 */
export async function commentQueryOf(
  req: RestRequest,
  q: CollectionQuery<CommentListArgs>,
  clock: SiteClock,
): Promise<CommentQuery> {
  const { args } = q;
  const date = (value: string | undefined) => (value ? (clock.restDateWithGmt(value)?.[0] ?? undefined) : undefined);
  return {
    // wp_parse_id_list(): absolute, whole, once each.
    postIn: parseIdList(args.post),
    parentIn: parseIdList(args.parent),
    parentNotIn: parseIdList(args.parent_exclude),
    include: parseIdList(q.include),
    exclude: parseIdList(q.exclude),
    authorIn: parseIdList(args.author),
    authorNotIn: parseIdList(args.author_exclude),
    filters: givenFilters(q.args),
    search: q.search ?? '',
    restrictedSearch: !(await req.ctx.can('moderate_comments')),
    status: args.status,
    type: args.type,
    after: date(args.after),
    before: date(args.before),
    orderby: q.orderby('date_gmt'),
    order: q.order('DESC'),
    limit: q.limit,
    offset: q.offset,
  };
}

/** The filters' values a request gives: present, and not an empty string. */
function givenFilters(args: CommentFilterArgs): CommentFilterArgs {
  const given: Record<string, unknown> = {};
  for (const name of Object.keys(COMMENT_FILTERS) as (keyof CommentFilterArgs)[]) {
    const value = args[name];
    if (value !== undefined && value !== null && value !== '') given[name] = value;
  }
  return given;
}

const ORDER_COLUMNS: Record<string, string> = {
  date: 'c.comment_date',
  date_gmt: 'c.comment_date_gmt',
  id: 'c.comment_ID',
  post: 'c.comment_post_ID',
  parent: 'c.comment_parent',
  type: 'c.comment_type',
};

/** The WHERE clause of a query (`WP_Comment_Query::get_comment_ids()`), over the comments table as `c`. */
export function commentWhere(q: CommentQuery): Where {
  const w = new Where();
  if (q.status === 'approve') w.add("c.comment_approved = '1'");
  else if (q.status === 'hold') w.add("c.comment_approved = '0'");
  else if (q.status === 'all' || q.status === '') w.add("c.comment_approved IN ('0', '1')");
  else if (q.status === 'any') {
    // Every status.
  } else w.add('c.comment_approved = ?', q.status);
  if (q.type === 'comment') w.add("c.comment_type IN ('', 'comment')");
  else if (q.type === 'pings') w.add("c.comment_type IN ('pingback', 'trackback')");
  else if (q.type !== 'all' && q.type !== '') w.add('c.comment_type = ?', q.type);
  if (q.postIn.length) w.in('c.comment_post_ID', q.postIn);
  if (q.parentIn.length) w.in('c.comment_parent', q.parentIn);
  if (q.parentNotIn.length) w.in('c.comment_parent', q.parentNotIn, true);
  if (q.include.length) w.in('c.comment_ID', q.include);
  if (q.exclude.length) w.in('c.comment_ID', q.exclude, true);
  if (q.authorIn.length) w.in('c.user_id', q.authorIn);
  if (q.authorNotIn.length) w.in('c.user_id', q.authorNotIn, true);
  for (const [name, value] of Object.entries(q.filters))
    (COMMENT_FILTERS[name as keyof CommentFilterArgs] as CommentFilter<unknown>).clause(w, value);
  if (q.after) w.add('c.comment_date > ?', q.after);
  if (q.before) w.add('c.comment_date < ?', q.before);
  if (q.search) {
    const like = containsPattern(q.search);
    // WP_Comment_Query's columns; without the e-mail and IP for a restricted search.
    const columns = q.restrictedSearch
      ? ['c.comment_author', 'c.comment_author_url', 'c.comment_content']
      : [
          'c.comment_author',
          'c.comment_author_email',
          'c.comment_author_url',
          'c.comment_author_IP',
          'c.comment_content',
        ];
    w.add(`(${columns.map((col) => `${col} LIKE ? ESCAPE '!'`).join(' OR ')})`, ...columns.map(() => like));
  }
  return w;
}

/** ORDER BY of a query, with `comment_ID` as the tie-breaker in the same direction (as `WP_Comment_Query` adds it). */
export function commentOrderBy(q: CommentOrder): { sql: string; params: unknown[] } {
  if (q.orderby === 'include' && q.include.length) {
    // The list's own order: WP_Comment_Query gives `comment__in` no direction.
    return {
      sql: `CASE ${q.include.map((_, i) => `WHEN c.comment_ID = ? THEN ${i}`).join(' ')} ELSE ${q.include.length} END, c.comment_ID DESC`,
      params: [...q.include],
    };
  }
  const column = ORDER_COLUMNS[q.orderby] ?? 'c.comment_date_gmt';
  if (column === 'c.comment_ID') return { sql: `c.comment_ID ${q.order}`, params: [] };
  // WP_Comment_Query's tie-breaker: in the direction of a date order, else descending.
  const tie = column === 'c.comment_date' || column === 'c.comment_date_gmt' ? q.order : 'DESC';
  return { sql: `${column} ${q.order}, c.comment_ID ${tie}`, params: [] };
}

/** The order of {@link commentOrderBy}, for comments already read. */
export function commentComparator(q: CommentOrder): (a: CommentEntity, b: CommentEntity) => number {
  const cmp = (x: string | number, y: string | number) => (x < y ? -1 : x > y ? 1 : 0);
  const byIdDesc = (a: CommentEntity, b: CommentEntity) => b.id - a.id;
  const dir = q.order === 'ASC' ? 1 : -1;
  if (q.orderby === 'include' && q.include.length) {
    const pos = (c: CommentEntity) => (q.include.includes(c.id) ? q.include.indexOf(c.id) : q.include.length);
    return (a, b) => pos(a) - pos(b) || byIdDesc(a, b);
  }
  const key: Record<string, (c: CommentEntity) => string | number> = {
    date: (c) => c.date,
    date_gmt: (c) => c.dateGmt,
    id: (c) => c.id,
    post: (c) => c.postId,
    parent: (c) => c.parent,
    type: (c) => c.type,
  };
  const pick = key[q.orderby] ?? key.date_gmt;
  const tieDir = q.orderby === 'date' || q.orderby === 'date_gmt' || !key[q.orderby] ? dir : -1;
  return (a, b) => dir * cmp(pick(a), pick(b)) || tieDir * (a.id - b.id);
}
