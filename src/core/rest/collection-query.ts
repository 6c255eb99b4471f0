import type { RouteArg } from '../json-schema/json-schema';
import type { RestRequest } from './rest-request';

/**
 * The collection arguments resources share, as the dispatcher leaves them: validated and coerced from their declared
 * schema, defaults filled (`page` 1, `per_page` 10 where declared). A resource's own collection arguments extend it.
 */
export interface CollectionArgs {
  context?: string;
  page?: number;
  per_page?: number;
  offset?: number;
  search?: string;
  include?: number[];
  exclude?: number[];
  slug?: string[];
  order?: 'asc' | 'desc';
  orderby?: string;
}

/** How a resource reads its page window, where it differs from the reference's common rule. */
export interface WindowRules {
  /** `per_page` when the route declares no default for it (revisions: 0, every item). */
  perPageWhenAbsent?: number;
  /** The offset is `absint()`ed (comments), rather than used only when positive. */
  absoluteOffset?: boolean;
  /** Any sent offset wins, 0 included (revisions), rather than only a positive one. */
  offsetWhenSent?: boolean;
}

/**
 * One collection query over a request's arguments, read once: the page window (`page`, `per_page`, and `offset`,
 * which wins over the page as the reference's `WP_Query` does) and the shared filters, typed. Resources turn it into
 * their SQL, and the same window writes the totals and `Link` headers (`RestResource.paginate`).
 *
 * @example
 * const q = CollectionQuery.of<CommentListArgs>(req);
 * const rows = await this.comments.list({ include: q.include, search: q.search, limit: q.limit, offset: q.offset });
 */
export class CollectionQuery<A extends CollectionArgs = CollectionArgs> {
  /** The page asked for, from 1. */
  readonly page: number;
  /** Rows per page (0: every row, where a route allows it). */
  readonly perPage: number;
  /** Rows skipped: the offset sent, else the rows of the pages before this one. */
  readonly offset: number;

  private constructor(
    /** Every declared argument, typed. */
    readonly args: A,
    rules: WindowRules,
  ) {
    this.perPage = args.per_page ?? rules.perPageWhenAbsent ?? 10;
    this.page = args.page ?? 1;
    const sent = args.offset;
    const offset = rules.absoluteOffset ? Math.abs(Math.trunc(Number(sent ?? 0))) || 0 : Number(sent ?? 0);
    const pages = this.perPage ? (this.page - 1) * this.perPage : 0;
    this.offset = rules.offsetWhenSent ? (sent !== undefined ? offset : pages) : offset > 0 ? offset : pages;
  }

  /** The collection query of a request: its arguments, typed as the route declares them. */
  static of<A extends CollectionArgs = CollectionArgs>(req: RestRequest, rules: WindowRules = {}): CollectionQuery<A> {
    return new CollectionQuery(req.args<A>(), rules);
  }

  /** Rows to read: the page size. */
  get limit(): number {
    return this.perPage;
  }

  /** `include`: only these ids (none: no limit). */
  get include(): number[] {
    return this.args.include ?? [];
  }

  /** `exclude`: not these ids. */
  get exclude(): number[] {
    return this.args.exclude ?? [];
  }

  /** `slug`: only these slugs. */
  get slugs(): string[] {
    return this.args.slug ?? [];
  }

  /** `search`, or `undefined` when empty. */
  get search(): string | undefined {
    return this.args.search || undefined;
  }

  /** `order` in SQL, `fallback` when not given. */
  order(fallback: 'ASC' | 'DESC'): 'ASC' | 'DESC' {
    const order = this.args.order;
    return order === 'asc' ? 'ASC' : order === 'desc' ? 'DESC' : fallback;
  }

  /** `orderby`, `fallback` when not given. */
  orderby(fallback: NonNullable<A['orderby']>): NonNullable<A['orderby']> {
    return (this.args.orderby as A['orderby']) ?? fallback;
  }
}

/** The `order` collection argument, `asc` or `desc`, with the route's default. */
export function orderArg(fallback: 'asc' | 'desc'): RouteArg {
  return {
    description: 'Order sort attribute ascending or descending.',
    type: 'string',
    default: fallback,
    enum: ['asc', 'desc'],
  };
}

/** The `orderby` collection argument: the attributes a route sorts by, and its default. */
export function orderbyArg(description: string, fallback: string, values: readonly string[]): RouteArg {
  return { description, type: 'string', default: fallback, enum: [...values] };
}

/** The `offset` collection argument: how many items to skip (the page is then ignored). */
export function offsetArg(description = 'Offset the result set by a specific number of items.'): RouteArg {
  return { description, type: 'integer' };
}
