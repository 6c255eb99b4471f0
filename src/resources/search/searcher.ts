import type { RestRequest } from '../../core/rest/rest-request';
import type { LinkMap } from '../../core/rest/rest-response';

/** The `search` route's reserved subtype: every subtype of the type searched. */
export const ANY_SUBTYPE = 'any';

/** A search as the route gives it to the handler of its `type` (the request's arguments, checked). */
export interface SearchRequest {
  req: RestRequest;
  /** `subtype`: `['any']`, or the subtypes asked for that are the handler's (maybe none). */
  subtypes: string[];
  /** `search`, when not empty. */
  search?: string;
  include: number[];
  exclude: number[];
  page: number;
  perPage: number;
}

/** What a handler found: a page of objects (`ids`) and how many it found in all (`total`). */
export interface SearchResult<T> {
  found: T[];
  total: number;
}

/** One result as the handler prepares it: its fields (`id`, `title`, `url`, `type`, `subtype`) and links. */
export interface PreparedResult {
  data: Record<string, unknown>;
  links: LinkMap;
}

/**
 * A search handler of the `search` route (WordPress's `WP_REST_Search_Handler`): the object type it searches, its
 * subtypes, the search, and its results' fields and links. `T` is what it finds (a post row, a term, a format slug).
 */
export interface Searcher<T = unknown> {
  /** `get_type()`: the value of the route's `type` argument it answers. */
  readonly type: string;
  /** `get_subtypes()`. */
  subtypes(): string[];
  /** `search_items()`. */
  search(s: SearchRequest): Promise<SearchResult<T>>;
  /** `prepare_item()` and `prepare_item_links()` of a page of results, with what they need loaded at once. */
  prepare(found: T[], req: RestRequest): Promise<PreparedResult[]>;
}
