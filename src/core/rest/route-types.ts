import type { RestException } from '../errors/rest.exception';
import type { ItemSchema, RouteArg } from '../json-schema/json-schema';
import type { RestRequest } from './rest-request';

/** HTTP method sets of the reference (`WP_REST_Server::READABLE` etc.). */
export const Methods = {
  READABLE: ['GET'],
  CREATABLE: ['POST'],
  EDITABLE: ['POST', 'PUT', 'PATCH'],
  DELETABLE: ['DELETE'],
  ALLMETHODS: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
} as const;

/** What a permission check answers: allowed (`true`), refused with the generic 403 (`false`), or a specific error. */
export type PermissionResult = boolean | RestException;

/** What a handler returns: response data, or a full response (status, headers, links). Errors are thrown. */
export type HandlerResult = unknown;

/** One endpoint of a route: its methods, arguments, permission check and handler. */
export interface EndpointDefinition {
  methods: string | readonly string[];
  /** Returns the response data, or a `RestResponse` (status, headers, links), or a promise of either. */
  handler: (req: RestRequest) => HandlerResult;
  /** The reference's `permission_callback`; runs after argument validation, before the handler. */
  permission?: (req: RestRequest) => Promise<PermissionResult> | PermissionResult;
  /**
   * Arguments, declared as JSON Schema plus options. A function is resolved when the route table is frozen,
   * so arguments derived from an item schema include the fields extensions registered.
   */
  args?: Record<string, RouteArg> | (() => Record<string, RouteArg>);
  /** Hidden endpoints are served but not listed in the index. */
  showInIndex?: boolean;
  /**
   * Whether the handler and permission check see only the parameters `args` declares (validated and sanitized),
   * the route's path parameters and those they set themselves: `req.get()` answers `undefined` for anything else.
   * Default `true`; routes that extensions register with `registerRoute` default to `false`, as the reference lets
   * a handler read any parameter.
   */
  strictArgs?: boolean;
  /**
   * Whether the endpoint takes files in a `multipart/form-data` body. Other endpoints refuse multipart bodies with
   * 413 before reading them; these read them after authentication, within the multipart limits.
   */
  acceptsFiles?: boolean;
  /**
   * Whether the response cache may keep this GET's anonymous answers (see `ResponseCache`): they must depend on
   * the stored data, the URL and the wire names only. Default `true`; routes that extensions register with
   * `registerRoute` default to `false` (their handlers may read the time, the network, anything) and opt in.
   */
  cacheable?: boolean;
  /**
   * For the response cache: whether this GET's answer to `query` depends on the content of posts (titles, text,
   * meta, modification times) other than through the posts it shows, which note themselves as they are prepared
   * (see `AnswerSources`) — a search, an order by title. Default `true`; `false` lets a cached answer outlive an
   * edit of a post it does not show (`VersionStamps.narrow`).
   */
  readsPostContent?: boolean | ((query: Record<string, unknown>) => boolean);
  /**
   * What a successful answer holds, for the OpenAPI document: one item of the route's schema, a list of them, or an
   * object of them keyed by name (`types`, `statuses`, `taxonomies`). Default: a list when the endpoint takes
   * `per_page`, else one item.
   */
  returns?: 'item' | 'list' | 'map';
  /**
   * Whether a `batch/v1` request may call this endpoint: WordPress's `allow_batch: { v1: true }` (posts of every
   * type but attachments, terms). Default `false`.
   */
  allowBatch?: boolean;
}

/** A normalised endpoint, as stored in the registry. */
export interface RouteEndpoint extends Required<
  Omit<EndpointDefinition, 'methods' | 'permission' | 'args' | 'returns'>
> {
  returns?: EndpointDefinition['returns'];
  methods: string[];
  /** With `strictArgs`: the names of `args`, set when the table is frozen. */
  argNames: ReadonlySet<string> | null;
  permission?: EndpointDefinition['permission'];
  args: Record<string, RouteArg>;
  /** Resolves `args` when the table is frozen (declared lazily). */
  argsFactory?: () => Record<string, RouteArg>;
}

/** Options of a route as a whole. */
export interface RouteOptions {
  /** The item schema, answered by OPTIONS and `context=help`. */
  schema?: () => ItemSchema;
  /** Replace instead of merging with an existing registration of the same route. */
  override?: boolean;
}

/** A registered route. */
export interface RouteDefinition {
  namespace: string;
  /** The route key as shown in the index, e.g. `/cms/v2/types/(?P<type>[\w-]+)`. */
  route: string;
  regex: RegExp;
  endpoints: RouteEndpoint[];
  schema?: () => ItemSchema;
}
