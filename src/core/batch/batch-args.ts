import type { JsonSchema, RouteArg } from '../json-schema/json-schema';

/** The most requests a batch may hold (WordPress's `rest_get_max_batch_size`, unfiltered). */
export const MAX_BATCH_SIZE = 25;

/** The methods a request of a batch may use; `POST` when it names none. */
export const BATCH_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** One request of a batch, as validated: its method, path (with its query string), body and headers. */
export interface BatchRequestArgs {
  method?: string;
  path?: string;
  body?: Record<string, unknown>;
  headers?: Record<string, string | string[]>;
}

/** The arguments of `POST /batch/v1` as validated. */
export interface BatchArgs {
  validation: 'require-all-validate' | 'normal';
  requests: BatchRequestArgs[];
}

/** PHP's empty `array()`, which WordPress's descriptions show as `[]`: no properties declared. */
const NO_PROPERTIES = [] as unknown as Record<string, JsonSchema>;

/** The arguments of `POST /batch/v1`, as WP_REST_Server::__construct declares them. */
export const BATCH_ARGS: Record<string, RouteArg> = {
  validation: {
    type: 'string',
    enum: ['require-all-validate', 'normal'],
    default: 'normal',
  },
  requests: {
    required: true,
    type: 'array',
    maxItems: MAX_BATCH_SIZE,
    items: {
      type: 'object',
      properties: {
        method: { type: 'string', enum: [...BATCH_METHODS], default: 'POST' },
        path: { type: 'string', required: true },
        body: { type: 'object', properties: NO_PROPERTIES, additionalProperties: true },
        headers: {
          type: 'object',
          properties: NO_PROPERTIES,
          additionalProperties: { type: ['string', 'array'], items: { type: 'string' } },
        },
      },
    },
  },
};
