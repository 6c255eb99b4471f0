/** Orders of a list of posts by what an edit in place may change (`VersionStamps.narrow`). */
const CONTENT_ORDERS = new Set(['title', 'modified', 'relevance']);

/**
 * Whether a list of posts (of any post type: posts, pages, media) with `query` depends on posts' content beyond the
 * posts it shows (see `EndpointDefinition.readsPostContent`): a search, a modification date filter, an order by title
 * or modification date, or `filter[...]`. Every other filter and order reads what an edit in place keeps (status,
 * dates, author, parent, slug, order, terms, stickiness).
 */
export function listReadsPostContent(query: Record<string, unknown>): boolean {
  return (
    query.search !== undefined ||
    query.search_columns !== undefined ||
    query.modified_after !== undefined ||
    query.modified_before !== undefined ||
    query.filter !== undefined ||
    (query.orderby !== undefined && (typeof query.orderby !== 'string' || CONTENT_ORDERS.has(query.orderby)))
  );
}
