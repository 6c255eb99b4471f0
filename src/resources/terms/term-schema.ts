import type { TermsDialect } from '../../core/wire-dialect';
import { sanitizeTitle, wpKsesPost } from '../../core/formatting';
import { wpFilterKses } from '../../core/formatting/kses';
import { sanitizeTextField } from '../../core/formatting/sanitize-text';
import type { ItemSchema, JsonSchema, RouteArg } from '../../core/json-schema/json-schema';
import type { TaxonomyObject } from '../../core/registry/content-types';
import { orderArg, orderbyArg, offsetArg } from '../../core/rest/collection-query';
import type { ExposedMetaKey } from '../../core/rest/meta-fields';
import { metaProperty } from '../../core/rest/meta-property';
import { DESCRIPTION_BYTES, TEXT_COLUMN_BYTES } from '../../core/text/text-limits';

/** The `id` argument of a term's routes. */
export const TERM_ID: RouteArg = { description: 'Unique identifier for the resource.', type: 'integer' };

/**
 * The arguments of a taxonomy's `POST` and `PUT <id>`: the item schema's writable properties, as validated and
 * sanitized (`parent` on a hierarchical taxonomy only; `meta` the registered meta's object).
 */
export interface TermWriteArgs {
  name?: string;
  slug?: string;
  description?: string;
  parent?: number;
  meta?: unknown;
}

/** The arguments of a taxonomy's `DELETE <id>` (`force` defaults to `false`). */
export interface TermDeleteArgs {
  id: number;
  force: boolean;
}

/**
 * The route's term, as the loader reads it: an integer once validated, but the permission checks that load it also
 * run where the arguments were not validated (the `Allow` header), so it is converted where used.
 */
export interface TermIdArgs {
  id?: unknown;
}

/**
 * The terms schema of a taxonomy (the reference's terms controller): `parent` for a hierarchical one, `meta` of its
 * registered keys, the taxonomy's name among `taxonomies`.
 */
export function termSchema(
  taxonomy: TaxonomyObject,
  taxonomies: string[],
  meta: ExposedMetaKey[],
  dialect: TermsDialect,
): ItemSchema {
  const all: Array<'view' | 'embed' | 'edit'> = ['view', 'embed', 'edit'];
  const props: Record<string, JsonSchema> = {
    id: { description: 'Unique identifier for the resource.', type: 'integer', context: all, readonly: true },
    count: {
      description: 'Number of published posts for the resource.',
      type: 'integer',
      context: ['view', 'edit'],
      readonly: true,
    },
    description: { description: 'HTML description of the resource.', type: 'string', context: ['view', 'edit'] },
    link: { description: 'URL to the resource.', type: 'string', format: 'uri', context: all, readonly: true },
    name: { description: 'HTML title for the resource.', type: 'string', context: all, required: true },
    slug: {
      description: 'An alphanumeric identifier for the resource unique to its type.',
      type: 'string',
      context: all,
    },
    taxonomy: {
      description: 'Type attribution for the resource.',
      type: 'string',
      enum: dialect.taxonomyEnum === 'own' ? [taxonomy.name] : taxonomies,
      context: all,
      readonly: true,
    },
  };
  // The reference's wp_filter_post_kses, then WordPress's pre_term_description filter (wp_filter_kses).
  props.description.arg_options = {
    sanitize: (v) => wpFilterKses(wpKsesPost(String(v))),
    maxBytes: DESCRIPTION_BYTES,
  };
  props.name.arg_options = { sanitize: (v) => sanitizeTextField(String(v)), maxBytes: TEXT_COLUMN_BYTES };
  props.slug.arg_options = { sanitize: (v) => sanitizeTitle(String(v)), maxBytes: TEXT_COLUMN_BYTES };
  if (taxonomy.hierarchical)
    props.parent = {
      description: 'The id for the parent of the resource.',
      type: 'integer',
      context: ['view', 'edit'],
    };
  props.meta = metaProperty(meta);
  const title = taxonomy.name === 'post_tag' ? 'tag' : taxonomy.name;
  return { $schema: 'http://json-schema.org/draft-04/schema#', title, type: 'object', properties: props };
}

/** What every terms collection orders by. */
export const TERM_ORDERBY: readonly string[] = [
  'id',
  'include',
  'name',
  'slug',
  'include_slugs',
  'term_group',
  'description',
  'count',
];

/**
 * The collection arguments of a taxonomy's `GET`: the shared ones (`shared`), and the reference's terms filters,
 * `parent` for a hierarchical taxonomy.
 */
export function termCollectionArgs(
  shared: Record<string, RouteArg>,
  idList: (description: string) => RouteArg,
  hierarchical: boolean,
  dialect: TermsDialect,
): Record<string, RouteArg> {
  const args: Record<string, RouteArg> = {
    ...shared,
    exclude: idList('Ensure result set excludes specific ids.'),
    include: idList('Limit result set to specific ids.'),
    order: orderArg('asc'),
    orderby: orderbyArg('Sort collection by resource attribute.', 'name', [...TERM_ORDERBY]),
    hide_empty: {
      description: 'Whether to hide resources not assigned to any posts.',
      type: 'boolean',
      default: false,
    },
    post: {
      description: 'Limit result set to resources assigned to a specific post.',
      type: 'integer',
      default: null,
    },
    slug: {
      description: 'Limit result set to resources with one or more specific slugs.',
      type: 'array',
      items: { type: 'string' },
    },
  };
  if (hierarchical)
    args.parent = { description: 'Limit result set to resources assigned to a specific parent.', type: 'integer' };
  // The spec's collection table gives terms `offset`, hierarchical taxonomies included (WordPress: flat ones).
  if (dialect.offsetOn === 'every-taxonomy' || !hierarchical) args.offset = offsetArg();
  return args;
}
