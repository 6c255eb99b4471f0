import { typeSupports } from './post-schema';
import type { PostsDialect } from '../../core/wire-dialect';
import { RestException } from '../../core/errors/rest.exception';
import { RouteArg } from '../../core/json-schema/json-schema';
import { PostTypeObject, TaxonomyObject } from '../../core/registry/content-types';
import { CollectionArgs, CollectionQuery, orderArg, orderbyArg, offsetArg } from '../../core/rest/collection-query';
import type { SiteClock } from '../../core/options/site-clock';
import { parseList, toBoolean } from '../../core/json-schema/validate';
import type { PostQuery } from './post-query';

/** The `id` path argument of a post's routes. */
export const POST_ID: RouteArg = { description: 'Unique identifier for the post.', type: 'integer' };

/**
 * The arguments of a post type's `GET` collection, as {@link postCollectionArgs} declares them: `status` always (it
 * has a default); each REST taxonomy's term ids (`number[]`) under its `rest_base` and `<rest_base>_exclude`.
 */
export interface PostListArgs extends CollectionArgs {
  [taxonomyArg: string]: unknown;
  status: string[];
  password?: string;
  /** `filter[<query_var>]`: any shape (see applyFilterQueryVars). */
  filter?: unknown;
  author?: number[];
  author_exclude?: number[];
  parent?: number[];
  parent_exclude?: number[];
  after?: string;
  before?: string;
  modified_after?: string;
  modified_before?: string;
  menu_order?: number;
  tax_relation?: 'AND' | 'OR';
  sticky?: boolean;
}

/** A date-time argument. */
const dateArg = (description: string): RouteArg => ({ description, type: 'string', format: 'date-time' });

/** What the collection arguments of a post type are made from, besides the type. */
export interface PostCollectionBasis {
  /** The base collection arguments (context, page, per_page, search). */
  collectionParams: Record<string, RouteArg>;
  /** A list-of-ids argument with a description. */
  idListArg: (description: string) => RouteArg;
  /** The names of every registered status. */
  statuses: string[];
  taxonomies: TaxonomyObject[];
  dialect: PostsDialect;
}

/** What every post collection orders by (`menu_order` too for types with page attributes). */
export const POST_ORDERBY: readonly string[] = [
  'author',
  'date',
  'id',
  'include',
  'modified',
  'parent',
  'relevance',
  'slug',
  'include_slugs',
  'title',
];

/** The arguments of a post type's `GET` collection, as the reference declares them for the type. */
export function postCollectionArgs(
  type: PostTypeObject,
  { collectionParams, idListArg, statuses, taxonomies, dialect }: PostCollectionBasis,
): Record<string, RouteArg> {
  const args: Record<string, RouteArg> = {
    ...collectionParams,
    after: dateArg('Limit response to posts published after a given ISO8601 compliant date.'),
    modified_after: dateArg('Limit response to posts modified after a given ISO8601 compliant date.'),
    // The reference's table: types that support `author` (reusable blocks do not).
    ...(typeSupports(type, 'author')
      ? {
          author: idListArg('Limit result set to posts assigned to specific authors.'),
          author_exclude: idListArg('Ensure result set excludes posts assigned to specific authors.'),
        }
      : {}),
    before: dateArg('Limit response to posts published before a given ISO8601 compliant date.'),
    modified_before: dateArg('Limit response to posts modified before a given ISO8601 compliant date.'),
    exclude: idListArg('Ensure result set excludes specific IDs.'),
    include: idListArg('Limit result set to specific IDs.'),
    offset: offsetArg(),
    order: orderArg('desc'),
    orderby: orderbyArg('Sort collection by post attribute.', 'date', [
      ...POST_ORDERBY,
      ...(type.hierarchical || type.supports['page-attributes'] ? ['menu_order'] : []),
    ]),
    slug: {
      description: 'Limit result set to posts with one or more specific slugs.',
      type: 'array',
      items: { type: 'string' },
    },
    status: {
      default: 'publish',
      description: 'Limit result set to posts assigned one or more statuses.',
      type: 'array',
      items: { enum: [...statuses, 'any'], type: 'string' },
    },
  };
  if (dialect.collectionPasswordAndFilter) {
    // The reference's prepare_item_for_response reads `password` for every item of a collection too.
    args.password = { description: 'The password for the posts if they are password protected.', type: 'string' };
    // The spec's `filter[<query_var>]`: read by applyFilterQueryVars, any shape (a non-object is ignored).
    args.filter = {
      description:
        'Use WP Query arguments to modify the response; private query vars require appropriate authorization.',
    };
  }
  if (type.hierarchical) args.parent = idListArg('Limit result set to items with particular parent IDs.');
  // The spec's collection table: pages take `parent`, posts as well as pages take `parent_exclude`.
  if (dialect.parentOn === 'every-type' || type.hierarchical)
    args.parent_exclude = idListArg('Limit result set to all items except those of a particular parent ID.');
  if (type.supports['page-attributes']) {
    args.menu_order = { description: 'Limit result set to posts with a specific menu_order value.', type: 'integer' };
  }
  if (taxonomies.length) {
    args.tax_relation = {
      description: 'Limit result set based on relationship between multiple taxonomies.',
      type: 'string',
      enum: ['AND', 'OR'],
    };
    for (const tax of taxonomies) {
      const base = tax.rest_base || tax.name;
      const include = `Limit result set to items with specific terms assigned in the ${base} taxonomy.`;
      const exclude = `Limit result set to items except those with specific terms assigned in the ${base} taxonomy.`;
      args[base] = dialect.taxonomyQueryObjects ? termLimitArg(include, tax, true) : idListArg(include);
      args[`${base}_exclude`] = dialect.taxonomyQueryObjects ? termLimitArg(exclude, tax, false) : idListArg(exclude);
    }
  }
  if (type.name === 'post')
    args.sticky = { description: 'Limit result set to items that are sticky.', type: 'boolean' };
  return args;
}

/** A taxonomy argument as sanitized by {@link termLimitArg}: term ids, or WordPress's object form. */
export type TermLimit = number[] | { terms: number[]; include_children: boolean; operator: 'AND' | 'OR' };

/** Term ids as the `Term ID List` items sanitize them (integers). */
const termIds = (value: unknown): number[] => parseList(value).map((v) => Math.trunc(Number(v)) || 0);

/**
 * A taxonomy argument as WordPress 5.7+ declares it (`prepare_taxonomy_limit_schema`): a list of term ids, or an
 * object of `terms`, `include_children` (hierarchical taxonomies) and `operator` (`include` only), sanitized to a
 * {@link TermLimit}.
 */
function termLimitArg(description: string, tax: TaxonomyObject, include: boolean): RouteArg {
  const properties: Record<string, RouteArg> = {
    terms: { description: 'Term IDs.', type: 'array', items: { type: 'integer' }, default: [] },
  };
  if (tax.hierarchical) {
    properties.include_children = {
      description: 'Whether to include child terms in the terms limiting the result set.',
      type: 'boolean',
      default: false,
    };
  }
  if (include) {
    properties.operator = {
      description: 'Whether items must be assigned all or any of the specified terms.',
      type: 'string',
      enum: ['AND', 'OR'],
      default: 'OR',
    };
  }
  return {
    description,
    type: ['object', 'array'],
    oneOf: [
      {
        title: 'Term ID List',
        description: 'Match terms with the listed IDs.',
        type: 'array',
        items: { type: 'integer' },
      },
      {
        title: 'Term ID Taxonomy Query',
        description: 'Perform an advanced term query.',
        type: 'object',
        properties,
        additionalProperties: false,
      },
    ],
    sanitize: (value): TermLimit => {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return termIds(value);
      const o = value as Record<string, unknown>;
      return {
        terms: termIds(o.terms),
        include_children: o.include_children !== undefined && toBoolean(o.include_children),
        operator: o.operator === 'AND' ? 'AND' : 'OR',
      };
    },
  };
}

/**
 * The term filters of a collection's taxonomy arguments (`prepare_tax_query`): a list of ids, or the object form's
 * terms with `include_children` (hierarchical taxonomies only, as WP_Tax_Query) and `operator`; none without terms.
 */
export function taxonomyFilters(taxonomies: TaxonomyObject[], args: PostListArgs): PostQuery['terms'] {
  const out: PostQuery['terms'] = [];
  for (const tax of taxonomies) {
    const base = tax.rest_base || tax.name;
    for (const exclude of [false, true]) {
      const limit = args[exclude ? `${base}_exclude` : base] as TermLimit | undefined;
      if (!limit) continue;
      const ids = Array.isArray(limit) ? limit : limit.terms;
      if (!ids.length) continue;
      const filter: PostQuery['terms'][number] = { taxonomy: tax.name, termIds: ids, exclude };
      if (!Array.isArray(limit)) {
        if (limit.include_children && tax.hierarchical) filter.includeChildren = true;
        if (limit.operator === 'AND' && !exclude) filter.all = true;
      }
      out.push(filter);
    }
  }
  return out;
}

/** The reference's refusals of an order it cannot apply: by relevance without a search, by include without ids. */
export function checkOrderby(orderby: string, search: unknown, include: number[]): void {
  if (orderby === 'relevance' && !search) {
    throw new RestException(
      'rest_no_search_term_defined',
      'You need to define a search term to order by relevance.',
      400,
    );
  }
  if (orderby === 'include' && !include.length) {
    throw new RestException(
      'rest_orderby_include_missing_include',
      'You need to define an include parameter to order by include.',
      400,
    );
  }
}

/** What a collection's posts query is made from besides its arguments. */
export interface PostListBasis {
  type: PostTypeObject;
  taxonomies: TaxonomyObject[];
  /** The statuses asked for, each already allowed to the caller. */
  statuses: string[];
  /** The site's clock: request dates are compared with the local `post_date`. */
  clock: SiteClock;
  /** The sticky posts' ids (the `sticky` argument). */
  sticky: number[];
  /** The order when none is asked for: the posts' `date DESC`, the menu items' `menu_order ASC`. */
  orderby: string;
  order: 'ASC' | 'DESC';
}

/**
 * The posts query of a collection request (`q`), as every post-based collection builds it (the posts routes, the
 * menu items): the reference's refusals of an order it cannot apply first.
 */
export function postListQuery(q: CollectionQuery<PostListArgs>, basis: PostListBasis): PostQuery {
  const orderby = q.orderby(basis.orderby);
  const include = q.include;
  checkOrderby(orderby, q.search, include);
  // An RFC 3339 request date as a local MySQL datetime (compared with `post_date`, as WordPress's date queries do).
  const date = (value: string | undefined) => (value ? basis.clock.restDateWithGmt(value)?.[0] : undefined);
  return {
    type: basis.type.name,
    statuses: basis.statuses,
    include,
    exclude: q.exclude,
    authors: q.args.author ?? [],
    authorsExclude: q.args.author_exclude ?? [],
    parents: q.args.parent ?? [],
    parentsExclude: q.args.parent_exclude ?? [],
    slugs: q.slugs,
    search: q.search,
    after: date(q.args.after),
    before: date(q.args.before),
    modifiedAfter: date(q.args.modified_after),
    modifiedBefore: date(q.args.modified_before),
    menuOrder: q.args.menu_order,
    terms: taxonomyFilters(basis.taxonomies, q.args),
    taxRelation: q.args.tax_relation === 'OR' ? 'OR' : 'AND',
    sticky: q.args.sticky !== undefined ? { ids: basis.sticky, only: q.args.sticky === true } : undefined,
    orderby,
    order: q.order(basis.order),
    limit: q.limit,
    offset: q.offset,
  };
}
