import { ItemSchema, JSON_SCHEMA_DRAFT, RestContext, RouteArg } from '../../core/json-schema/json-schema';
import type { CollectionArgs } from '../../core/rest/collection-query';
import { ANY_SUBTYPE } from './searcher';

/** The arguments of `GET search`, validated and coerced (defaults filled). */
export interface SearchArgs extends CollectionArgs {
  type: string;
  subtype: string[];
  include: number[];
  exclude: number[];
}

/** The types and subtypes of the route's handlers, each once, in the handlers' order. */
export interface SearchKinds {
  types: string[];
  subtypes: string[];
}

const viewEmbed: RestContext[] = ['view', 'embed'];

/** The item schema of a search result (WP_REST_Search_Controller::get_item_schema). */
export function searchItemSchema({ types, subtypes }: SearchKinds): ItemSchema {
  return {
    $schema: JSON_SCHEMA_DRAFT,
    title: 'search-result',
    type: 'object',
    properties: {
      id: {
        description: 'Unique identifier for the object.',
        type: ['integer', 'string'],
        context: viewEmbed,
        readonly: true,
      },
      title: { description: 'The title for the object.', type: 'string', context: viewEmbed, readonly: true },
      url: { description: 'URL to the object.', type: 'string', format: 'uri', context: viewEmbed, readonly: true },
      type: { description: 'Object type.', type: 'string', enum: types, context: viewEmbed, readonly: true },
      subtype: { description: 'Object subtype.', type: 'string', enum: subtypes, context: viewEmbed, readonly: true },
    },
  };
}

/**
 * The route's own arguments, after the shared collection ones (WP_REST_Search_Controller::get_collection_params):
 * `type` (the first handler's by default), `subtype` (`any` by default), `exclude` and `include`.
 */
export function searchArgs(
  { types, subtypes }: SearchKinds,
  idList: (d: string) => RouteArg,
): Record<string, RouteArg> {
  return {
    type: {
      default: types[0],
      description: 'Limit results to items of an object type.',
      type: 'string',
      enum: types,
    },
    subtype: {
      default: ANY_SUBTYPE,
      description: 'Limit results to items of one or more object subtypes.',
      type: 'array',
      items: { enum: [...subtypes, ANY_SUBTYPE], type: 'string' },
    },
    exclude: idList('Ensure result set excludes specific IDs.'),
    include: idList('Limit result set to specific IDs.'),
  };
}
