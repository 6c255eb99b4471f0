import { RestRequest } from '../../core/rest/rest-request';
import { PostQuery, PostsService } from './posts.service';

/** Query variables anyone may pass through `filter[...]`. */
export const PUBLIC_QUERY_VARS = ['s', 'p', 'name', 'author', 'author_name', 'cat', 'category_name', 'tag', 'tag_id', 'year', 'monthnum', 'day', 'orderby', 'order'];
/** Query variables that need the type's `edit_posts` (the reference's private query vars). */
export const PRIVATE_QUERY_VARS = ['posts_per_page', 'offset', 'post_status', 'post_parent'];

const ORDERBY: Record<string, string> = { date: 'date', ID: 'id', id: 'id', title: 'title', name: 'slug', modified: 'modified', parent: 'parent', menu_order: 'menu_order', author: 'author' };

function list(value: unknown): string[] {
  return String(value)
    .split(/[\s,]+/)
    .filter(Boolean);
}

/**
 * Applies the spec's `filter[<query_var>]` parameters (the reference's WP_Query variables) to a posts query.
 * A `filter` that is not an object is ignored; unknown variables are ignored; private ones are ignored unless the
 * caller can edit posts of the type. Their effect shows in the totals, as it is part of the query.
 */
export async function applyFilterQueryVars(query: PostQuery, req: RestRequest, posts: PostsService, canEdit: boolean): Promise<PostQuery> {
  const filter = req.get('filter');
  if (!filter || typeof filter !== 'object' || Array.isArray(filter)) return query;
  const vars = filter as Record<string, unknown>;
  const allowed = new Set([...PUBLIC_QUERY_VARS, ...(canEdit ? PRIVATE_QUERY_VARS : [])]);
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
  if (has('category_name')) q.terms.push({ taxonomy: 'category', termIds: await posts.termIdsBySlug('category', list(vars.category_name)), exclude: false });
  if (has('tag')) q.terms.push({ taxonomy: 'post_tag', termIds: await posts.termIdsBySlug('post_tag', list(vars.tag)), exclude: false });
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
  if (has('posts_per_page')) q.limit = Math.max(1, Math.min(100, Number(vars.posts_per_page) || q.limit));
  if (has('offset')) q.offset = Math.max(0, Number(vars.offset) || 0);
  if (has('post_status')) q.statuses = list(vars.post_status);
  if (has('post_parent')) q.parents = [Number(vars.post_parent)];
  return q;
}
