import { containsPattern, escapeLike, orderByPosition } from '../../core/database/query-helpers';
import { limitClause, placeholders, Where } from '../../core/database/raw-query';

/** Filters of a posts collection, validated and coerced. */
export interface PostQuery {
  type: string;
  /** Posts of any of these types instead of `type` alone (the `search` route's post types). */
  types?: string[];
  statuses: string[];
  /** Statuses readable only by their author (private posts of the caller, when it lacks read_private_posts). */
  ownStatuses?: { statuses: string[]; author: number };
  include: number[];
  exclude: number[];
  authors: number[];
  authorsExclude: number[];
  parents: number[];
  parentsExclude: number[];
  slugs: string[];
  search?: string;
  /**
   * Whose password-protected posts a `search` may find: anyone's (`'all'`), one author's (`{ author }`), or none
   * (absent). The words of a protected text must not be found by a caller who cannot edit the post, or its body
   * could be read word by word.
   */
  protectedSearch?: 'all' | { author: number };
  after?: string;
  before?: string;
  modifiedAfter?: string;
  modifiedBefore?: string;
  menuOrder?: number;
  /** Attachments of these exact MIME types (`mime_type`). */
  mimeTypes?: string[];
  /** Attachments of a top-level MIME type (`media_type`: `image` → `image/…`). */
  mimePrefix?: string;
  /**
   * Term-taxonomy filters: posts in any of the terms (with `all`, in every one: WP_Tax_Query's `AND`), per taxonomy;
   * `includeChildren`: the terms' descendants too (PostsService adds them to `termIds` before the query is built).
   */
  terms: Array<{ taxonomy: string; termIds: number[]; exclude: boolean; includeChildren?: boolean; all?: boolean }>;
  taxRelation: 'AND' | 'OR';
  /** `true`: only these ids; `false`: not these ids. */
  sticky?: { ids: number[]; only: boolean };
  /**
   * Sticky posts to float to the top of the page (WP_Query's sticky handling, `filter[ignore_sticky_posts]=0`):
   * those on the page move first, in page order, then the published ones of the type not on it (and not
   * excluded) follow, newest first. The total does not count the added ones, as `found_posts` does not.
   */
  stickyFirst?: number[];
  orderby: string;
  order: 'ASC' | 'DESC';
  limit: number;
  offset: number;
}

/** The tables a posts query reads, by their names on this site. */
export interface PostTables {
  posts: string;
  termRelationships: string;
  termTaxonomies: string;
}

/** What a clause may need besides the filters: the tables, and which term filters are dense (see `PostsService`). */
interface ClauseContext {
  tables: PostTables;
  denseTerms: Set<number>;
}

/** Adds one filter's condition to a posts query's WHERE; `false` when the filter can match nothing. */
type Clause = (w: Where, q: PostQuery, ctx: ClauseContext) => void | false;

/** The filters of {@link PostQuery} that are lists. */
type ListFilter = 'include' | 'exclude' | 'authors' | 'authorsExclude' | 'parents' | 'parentsExclude' | 'slugs';

/** `column IN (…)` (`NOT IN` with `not`) when the list is not empty. */
function inList(filter: ListFilter, column: string, not = false): Clause {
  return (w, q) => {
    if (q[filter].length) w.in(column, q[filter], not);
  };
}

/** A comparison with the filter's value, when it is given. */
function given(filter: 'after' | 'before' | 'modifiedAfter' | 'modifiedBefore', condition: string): Clause {
  return (w, q) => {
    if (q[filter]) w.add(condition, q[filter]);
  };
}

/** The statuses, and those readable only by their author (see {@link PostQuery.ownStatuses}). */
const statusClause: Clause = (w, q) => {
  const own = q.ownStatuses;
  if (own && own.statuses.length) {
    const mine = `(p.post_status IN (${placeholders(own.statuses.length)}) AND p.post_author = ?)`;
    if (q.statuses.length)
      w.add(
        `(p.post_status IN (${placeholders(q.statuses.length)}) OR ${mine})`,
        ...q.statuses,
        ...own.statuses,
        own.author,
      );
    else w.add(mine, ...own.statuses, own.author);
  } else {
    w.in('p.post_status', q.statuses);
  }
};

const stickyClause: Clause = (w, q) => {
  if (!q.sticky) return;
  if (q.sticky.only) {
    if (!q.sticky.ids.length) return false;
    w.in('p.ID', q.sticky.ids);
  } else if (q.sticky.ids.length) {
    w.in('p.ID', q.sticky.ids, true);
  }
};

const searchClause: Clause = (w, q) => {
  if (!q.search) return;
  // Every word must appear in the title, the excerpt or the content (WordPress's search).
  for (const word of q.search.split(/\s+/).filter(Boolean).slice(0, 9)) {
    const term = containsPattern(word);
    w.add(
      "(p.post_title LIKE ? ESCAPE '!' OR p.post_excerpt LIKE ? ESCAPE '!' OR p.post_content LIKE ? ESCAPE '!')",
      term,
      term,
      term,
    );
  }
  const open = q.protectedSearch;
  if (open === undefined) w.add("p.post_password = ''");
  else if (open !== 'all') w.add("(p.post_password = '' OR p.post_author = ?)", open.author);
};

const termsClause: Clause = (w, q, { tables, denseTerms }) => {
  if (!q.terms.length) return;
  const rel = tables.termRelationships;
  const tt = tables.termTaxonomies;
  const clause = (t: (typeof q.terms)[number], i: number) => {
    const ids = t.termIds.length ? t.termIds : [0];
    const termTaxonomies = `SELECT tt.term_taxonomy_id FROM ${tt} tt WHERE tt.taxonomy = ? AND tt.term_id IN (${placeholders(ids.length)})`;
    // The dense form is a scalar probe, not EXISTS: MariaDB turns EXISTS (and IN) into a semi-join that reads every
    // post of the term before sorting (7.7 ms for a term on 2,600 posts, against 0.8 ms probing in date order).
    if (t.all) {
      // WP_Tax_Query's AND: as many of the post's terms among them as there are terms (none when one is missing).
      const count = `(SELECT COUNT(*) FROM ${rel} r WHERE r.object_id = p.ID AND r.term_taxonomy_id IN (${termTaxonomies}))`;
      return { sql: `${count} = ?`, params: [t.taxonomy, ...ids, new Set(ids).size] };
    }
    const sql = denseTerms.has(i)
      ? `((SELECT 1 FROM ${rel} r WHERE r.object_id = p.ID AND r.term_taxonomy_id IN (${termTaxonomies}) LIMIT 1) IS NOT NULL)`
      : `p.ID IN (SELECT r.object_id FROM ${rel} r WHERE r.term_taxonomy_id IN (${termTaxonomies}))`;
    return { sql, params: [t.taxonomy, ...ids] };
  };
  const clauses = q.terms.map((t, i) => {
    const c = clause(t, i);
    return t.exclude ? { sql: `NOT ${c.sql}`, params: c.params } : c;
  });
  // Every clause, the exclusions too, under `tax_relation` (WP_Tax_Query's relation joins them all): with `AND` each
  // stands on its own, with `OR` they make one group.
  if (q.taxRelation === 'OR' && clauses.length > 1)
    w.add(`(${clauses.map((c) => c.sql).join(' OR ')})`, ...clauses.flatMap((c) => c.params));
  else for (const c of clauses) w.add(c.sql, ...c.params);
};

/**
 * The clause of each filter of {@link PostQuery}, in the order the WHERE clause (and its parameters) takes them: a
 * new filter is its field there and its clause here.
 */
const CLAUSES: Clause[] = [
  (w, q) => {
    if (q.types?.length) w.in('p.post_type', q.types);
    else w.add('p.post_type = ?', q.type);
  },
  statusClause,
  inList('include', 'p.ID'),
  inList('exclude', 'p.ID', true),
  inList('authors', 'p.post_author'),
  inList('authorsExclude', 'p.post_author', true),
  inList('parents', 'p.post_parent'),
  inList('parentsExclude', 'p.post_parent', true),
  inList('slugs', 'p.post_name'),
  (w, q) => {
    if (q.menuOrder !== undefined) w.add('p.menu_order = ?', q.menuOrder);
  },
  (w, q) => {
    if (q.mimeTypes) w.in('p.post_mime_type', q.mimeTypes);
  },
  (w, q) => {
    if (q.mimePrefix) w.add("p.post_mime_type LIKE ? ESCAPE '!'", `${escapeLike(q.mimePrefix)}/%`);
  },
  given('after', 'p.post_date > ?'),
  given('before', 'p.post_date < ?'),
  given('modifiedAfter', 'p.post_modified > ?'),
  given('modifiedBefore', 'p.post_modified < ?'),
  stickyClause,
  searchClause,
  termsClause,
];

/** The WHERE clause of a posts query, or `null` when it can match nothing. */
export function postsWhere(q: PostQuery, tables: PostTables, denseTerms: Set<number> = new Set()): Where | null {
  const w = new Where();
  for (const clause of CLAUSES) if (clause(w, q, { tables, denseTerms }) === false) return null;
  return w;
}

const ORDER_COLUMNS: Record<string, string> = {
  date: 'p.post_date',
  id: 'p.ID',
  title: 'p.post_title',
  slug: 'p.post_name',
  modified: 'p.post_modified',
  parent: 'p.post_parent',
  menu_order: 'p.menu_order',
  author: 'p.post_author',
};

/** The ORDER BY of a posts query (its parameters: {@link postsOrderParams}). */
export function postsOrder(q: PostQuery): string {
  if (q.orderby === 'include' && q.include.length) {
    return orderByPosition('p.ID', q.include.length);
  }
  if (q.orderby === 'relevance' && q.search) {
    // WP_Query: the search order first, then `post_date` in the query's order (`relevance` is no column of its own).
    const relevance = relevanceOrder(q.search);
    const byDate = `p.post_date ${q.order}, p.ID ${q.order}`;
    return relevance ? `${relevance.sql}, ${byDate}` : byDate;
  }
  const column = ORDER_COLUMNS[q.orderby] ?? 'p.post_date';
  return q.orderby === 'id' ? `${column} ${q.order}` : `${column} ${q.order}, p.ID ${q.order}`;
}

export function postsOrderParams(q: PostQuery): unknown[] {
  if (q.orderby === 'include' && q.include.length) return [...q.include];
  if (q.orderby === 'relevance' && q.search) return relevanceOrder(q.search)?.params ?? [];
  return [];
}

/** WordPress's search stopwords (`get_search_stopwords()`, en_US). */
const STOPWORDS = new Set(
  'about,an,are,as,at,be,by,com,for,from,how,in,is,it,of,on,or,that,the,this,to,was,what,when,where,who,will,with,www'.split(
    ',',
  ),
);

/** PHP's `trim($text, $chars)`. */
function trimChars(text: string, chars: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && chars.includes(text[start])) start++;
  while (end > start && chars.includes(text[end - 1])) end--;
  return text.slice(start, end);
}

/**
 * The terms of a search as `WP_Query::parse_search` reads them: `count` (`search_terms_count`, the words and quoted
 * phrases found) and `terms` (`search_terms`: those left by `parse_search_terms` — quotes trimmed, single letters,
 * single dashes and stopwords dropped —, or the whole search when none is left or more than 9 are).
 */
function searchTerms(search: string): { count: number; terms: string[] } {
  const s = search.replace(/[\r\n]/g, '');
  const found = s.match(/".*?("|$)|((?<=[\t ",+])|^)[^\t ",+]+/g);
  if (!found) return { count: 1, terms: [s] };
  const checked: string[] = [];
  for (const match of found) {
    const term = /^".+"$/.test(match) ? trimChars(match, `"'`) : trimChars(match, `"' `);
    // PHP's `! $term` is true for '' and '0'.
    if (!term || term === '0' || (term.length === 1 && /^[a-z-]$/i.test(term))) continue;
    if (STOPWORDS.has(term.toLowerCase())) continue;
    checked.push(term);
  }
  return { count: found.length, terms: checked.length && checked.length <= 9 ? checked : [s] };
}

const TITLE_LIKE = "p.post_title LIKE ? ESCAPE '!'";

/**
 * The relevance order of a search (`WP_Query::parse_search_order`), over the rows the search's WHERE kept: with
 * several words, the whole search in the title (1), every word in the title (2), any word in the title (3), the whole
 * search in the excerpt (4), in the content (5), the rest (6) — no whole-search ranks when a word is excluded
 * (`-word`), no word ranks past 6 words; with one word or phrase, the posts with it in their title first. `null`
 * where WordPress has no order to add (its SQL would be invalid: every word excluded).
 */
function relevanceOrder(search: string): { sql: string; params: string[] } | null {
  const { count, terms } = searchTerms(search);
  // `search_orderby_title`: the terms not excluded by the `-` prefix.
  const titles = terms.filter((t) => !t.startsWith('-')).map((t) => containsPattern(t));
  if (count <= 1) return titles.length ? { sql: `(${TITLE_LIKE}) DESC`, params: [titles[0]] } : null;
  const s = search.replace(/[\r\n]/g, '');
  const like = /(?:\s|^)-/.test(s) ? null : containsPattern(s);
  const whens: string[] = [];
  const params: string[] = [];
  if (like) {
    whens.push(`WHEN ${TITLE_LIKE} THEN 1`);
    params.push(like);
  }
  if (titles.length && titles.length < 7) {
    whens.push(`WHEN ${titles.map(() => TITLE_LIKE).join(' AND ')} THEN 2`);
    params.push(...titles);
    if (titles.length > 1) {
      whens.push(`WHEN ${titles.map(() => TITLE_LIKE).join(' OR ')} THEN 3`);
      params.push(...titles);
    }
  }
  if (like) {
    whens.push("WHEN p.post_excerpt LIKE ? ESCAPE '!' THEN 4", "WHEN p.post_content LIKE ? ESCAPE '!' THEN 5");
    params.push(like, like);
  }
  return whens.length ? { sql: `(CASE ${whens.join(' ')} ELSE 6 END)`, params } : null;
}

/** The orders a key gives within one type and status (see {@link mergedStatusesPage}): the column. */
const MERGED_ORDERS: Record<string, string> = {
  date: 'post_date',
  modified: 'post_modified',
  menu_order: 'menu_order',
  id: 'ID',
};

/** Past this many rows a status (`offset + limit`), a page of several statuses is sorted by the database as a whole. */
const MERGED_PAGE_ROWS = 5000;

/**
 * The ids of a page of several statuses (an editor's list: publish, draft, pending, private) in an order a key gives
 * within one status (date, modification date, menu order, id): the first `offset + limit` ids of each status, each
 * read in order from its key, merged and cut. Neither database can read one key in order across several statuses,
 * so `post_status IN (…)` sorts every post of those statuses; this reads at most `offset + limit` entries a status,
 * however many posts there are. `null` when it does not apply (other filters decide the order's cost).
 */
export function mergedStatusesPage(q: PostQuery, tables: PostTables): { sql: string; params: unknown[] } | null {
  const column = MERGED_ORDERS[q.orderby];
  if (
    !column ||
    q.statuses.length < 2 ||
    q.statuses.length > 8 ||
    q.ownStatuses?.statuses.length ||
    q.terms.length ||
    q.search
  )
    return null;
  if (q.offset + q.limit > MERGED_PAGE_ROWS || q.limit <= 0) return null;
  const keep = q.offset + q.limit;
  const order = (alias: string) =>
    column === 'ID' ? `${alias}.ID ${q.order}` : `${alias}.${column} ${q.order}, ${alias}.ID ${q.order}`;
  const select = column === 'ID' ? 'p.ID' : `p.ID, p.${column}`;
  const params: unknown[] = [];
  const branches: string[] = [];
  for (const status of q.statuses) {
    const where = postsWhere({ ...q, statuses: [status] }, tables);
    if (!where) continue;
    branches.push(
      `SELECT * FROM (SELECT ${select} FROM ${tables.posts} p WHERE ${where.sql} ORDER BY ${order('p')} LIMIT ${keep}) s${branches.length}`,
    );
    params.push(...where.params);
  }
  if (!branches.length) return null;
  return {
    sql: `SELECT u.ID FROM (${branches.join(' UNION ALL ')}) u ORDER BY ${order('u')} ${limitClause(q.limit, q.offset)}`,
    params,
  };
}

/**
 * Whether the `type_status_date` index (post_type, post_status, post_date, ID) gives the page in order: date
 * order within one type and one status. With a term filter MySQL may turn the subquery into a join and sort
 * whole rows, so those pages go through the derived table.
 */
export function dateIndexOrders(q: PostQuery): boolean {
  const dateOrder =
    q.orderby === 'date' || (q.orderby === 'relevance' && Boolean(q.search) && !relevanceOrder(q.search!));
  return (
    dateOrder &&
    q.statuses.length === 1 &&
    (q.types ?? []).length <= 1 &&
    !q.ownStatuses?.statuses.length &&
    !q.terms.length
  );
}
