import { containsPattern, escapeLike, orderByPosition } from '../../core/database/query-helpers';
import { Where } from '../../core/database/raw-query';
import type { ContentRegistry } from '../../core/registry/content-registry.service';
import type { PostTypeObject } from '../../core/registry/post-types';
import type { UsersDialect } from '../../core/wire-dialect';

/** Filters of the users collection, already validated and coerced. */
export interface UserQuery {
  include: number[];
  exclude: number[];
  search?: string;
  slugs: string[];
  roles: string[];
  /** Only users whose roles grant at least one of these capabilities (or who hold one directly). */
  capabilities: string[];
  /** Only users who published at least one post of these types. */
  publishedIn?: string[];
  /** Search only ID, login, slug and display name (callers without `list_users` may not probe e-mails or URLs). */
  restrictedSearch: boolean;
  /** Only users with a non-zero user level (authors). */
  authorsOnly: boolean;
  orderby: 'id' | 'include' | 'name' | 'registered_date' | 'slug' | 'include_slugs' | 'email' | 'url';
  order: 'asc' | 'desc';
  limit: number;
  offset: number;
}

/** What a users query's WHERE clause takes from the site, read before it is built. */
export interface UserQueryFacts {
  /** The usermeta table's name. */
  metaTable: string;
  /** `<prefix>capabilities` and `<prefix>user_level`. */
  capabilitiesKey: string;
  levelKey: string;
  /** For `capabilities`: those capabilities and the roles that grant one of them. */
  capabilityHolders: string[];
  /** For `publishedIn`: the ids of the users who published posts of those types. */
  authors?: number[];
}

const ORDER_COLUMNS: Record<string, string> = {
  id: 'u.ID',
  name: 'u.display_name',
  registered_date: 'u.user_registered',
  slug: 'u.user_nicename',
  email: 'u.user_email',
  url: 'u.user_url',
};

/** The WHERE clause of a users query (`WP_User_Query`), over the users table as `u`. */
export function userWhere(q: UserQuery, facts: UserQueryFacts): Where {
  const w = new Where();
  if (q.include.length) w.in('u.ID', q.include);
  if (q.exclude.length) w.in('u.ID', q.exclude, true);
  if (q.slugs.length) w.in('u.user_nicename', q.slugs);
  if (q.search) {
    // Wildcards on both sides, over the columns WordPress picks for the shape of the term.
    const columns = q.restrictedSearch
      ? ['CAST(u.ID AS CHAR)', 'u.user_login', 'u.user_nicename', 'u.display_name']
      : q.search.includes('@')
        ? ['u.user_email']
        : /^\d+$/.test(q.search)
          ? ['u.user_login', 'CAST(u.ID AS CHAR)']
          : /^https?:\/\//.test(q.search)
            ? ['u.user_url']
            : ['u.user_login', 'u.user_url', 'u.user_email', 'u.user_nicename', 'u.display_name'];
    const term = containsPattern(q.search);
    w.add(`(${columns.map((c) => `${c} LIKE ? ESCAPE '!'`).join(' OR ')})`, ...columns.map(() => term));
  }
  const withMeta = (condition: string) =>
    `u.ID IN (SELECT m.user_id FROM ${facts.metaTable} m WHERE m.meta_key = ? AND (${condition}))`;
  if (q.roles.length) {
    w.add(
      withMeta(q.roles.map(() => `m.meta_value LIKE ? ESCAPE '!'`).join(' OR ')),
      facts.capabilitiesKey,
      ...q.roles.map((r) => `%"${escapeLike(r)}"%`),
    );
  }
  if (q.capabilities.length) {
    w.add(
      withMeta(facts.capabilityHolders.map(() => `m.meta_value LIKE ? ESCAPE '!'`).join(' OR ')),
      facts.capabilitiesKey,
      ...facts.capabilityHolders.map((r) => `%"${escapeLike(r)}";b:1%`),
    );
  }
  if (q.authorsOnly) w.add(withMeta(`m.meta_value <> '0'`), facts.levelKey);
  if (facts.authors) w.in('u.ID', facts.authors);
  return w;
}

/** The ORDER BY of a users query and its parameters; SQLite is told to sort text as MySQL's collation does. */
export function userOrder(q: UserQuery, sqlite: boolean): { sql: string; params: unknown[] } {
  const byList = (column: string, values: readonly unknown[]) => ({
    sql: orderByPosition(column, values.length),
    params: [...values],
  });
  if (q.orderby === 'include' && q.include.length) return byList('u.ID', q.include);
  if (q.orderby === 'include_slugs' && q.slugs.length) return byList('u.user_nicename', q.slugs);
  const direction = q.order === 'desc' ? 'DESC' : 'ASC';
  const column = ORDER_COLUMNS[q.orderby] ?? 'u.display_name';
  if (column === 'u.ID') return { sql: `u.ID ${direction}`, params: [] };
  // MySQL's collation (WordPress's) sorts text case-insensitively; SQLite needs to be told. Ties keep the table's
  // order (by id), as MySQL gives them to WordPress.
  const key = column !== 'u.user_registered' && sqlite ? `LOWER(${column})` : column;
  return { sql: `${key} ${direction}, u.ID ASC`, params: [] };
}

/**
 * The post types whose published posts make an author, as the dialect counts them: those the posts routes serve
 * (the spec's, without those served unlisted) or every `show_in_rest` type (WordPress's
 * `get_post_types( array( 'show_in_rest' => true ) )`).
 */
export function authorPostTypes(content: ContentRegistry, dialect: UsersDialect): PostTypeObject[] {
  if (dialect.authorPostTypes === 'listed') return content.listedPostTypes();
  return content.restPostTypes().filter((t) => !t.unlisted);
}
