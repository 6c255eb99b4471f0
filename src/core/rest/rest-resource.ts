import { OnModuleInit } from '@nestjs/common';
import { CMS_NAMESPACE } from '../config/cms-options';
import type { RegisteredFields } from '../registry/field-types';
import { HookRegistry } from '../hooks/hook-registry.service';
import { RestException } from '../errors/rest.exception';
import { filterByContext, contextsOfSchema } from '../json-schema/filter-by-context';
import { ItemSchema, JsonSchema, RouteArg } from '../json-schema/json-schema';
import { ItemMemo } from './json-text';
import { RestRequest } from './rest-request';
import { LinkMap, RestResponse } from './rest-response';
import { RestServer } from './rest-server.service';
import { Methods } from './route-types';

/**
 * The longest `Link` header of a collection page, in characters: Node's HTTP client refuses headers over 16 KiB in
 * all, and proxies read 4 to 8 KiB by default (nginx's `proxy_buffer_size`).
 */
export const LINK_HEADER_LIMIT = 8 * 1024;

/** How one object's collection item is kept as JSON text: its key, the inputs that decide it, and its builder. */
export interface ReusedItem<T> {
  key: (object: T) => number;
  inputs: (object: T) => unknown[];
  build: (object: T) => Promise<RestResponse>;
}

/** The base class's response builders for objects of one kind, its hook suffix bound ({@link RestResource.responseBuilders}). */
export interface ResponseBuilders<T> {
  /** An item response in the reference's order (fields, context, links, `rest_prepare_<suffix>`). */
  respond: (data: Record<string, unknown>, req: RestRequest, links: LinkMap, object: T) => Promise<RestResponse>;
  /** Collection items, as JSON text reused from a memo while their inputs are unchanged (when nothing looks into them). */
  reuse: (memo: ItemMemo, objects: readonly T[], req: RestRequest, item: ReusedItem<T>) => Promise<unknown[]>;
}

/**
 * The shared base of every resource (the reference's `WP_REST_Controller`): item schema with registered fields,
 * route arguments derived from the schema, context filtering, additional fields, response preparation with
 * links and the `rest_prepare_*` filter, and collection pagination headers. A resource declares its routes in
 * `registerRoutes()`, its schema in `baseSchema()`, and fills in handlers and permission checks.
 */
export abstract class RestResource implements OnModuleInit {
  /** Namespace of the routes (default `cms/v2`). */
  readonly namespace: string = CMS_NAMESPACE;
  /** Route base, e.g. `types`. */
  abstract readonly restBase: string;
  private schemaCache?: ItemSchema;

  constructor(
    protected readonly server: RestServer,
    protected readonly extensions: RegisteredFields,
    protected readonly hooks: HookRegistry,
  ) {}

  onModuleInit(): void {
    this.registerRoutes();
  }

  /**
   * Registers the resource's routes with `this.route(...)`. Resources of the API declare theirs on a handlers
   * class instead (`@RestRoute`); extensions may use either.
   */
  protected registerRoutes(): void {}

  /** The resource's own item schema (registered fields are added by `getItemSchema`). */
  protected abstract baseSchema(): ItemSchema;

  protected route(path: string, endpoints: Parameters<RestServer['registry']['register']>[2], withSchema = true): void {
    this.server.registry.register(
      this.namespace,
      path,
      endpoints,
      withSchema ? { schema: () => this.getPublicItemSchema() } : {},
    );
  }

  /** Arguments to read one item: its id, `context` (default `view`) and `extra`. */
  itemReadArgs(id: RouteArg, extra: Record<string, RouteArg> = {}): Record<string, RouteArg> {
    return { id, context: this.getContextParam({ default: 'view' }), ...extra };
  }

  /** Arguments to update one item: its id and every writable field (no defaults, none required). */
  itemUpdateArgs(id: RouteArg): Record<string, RouteArg> {
    return { id, ...this.getEndpointArgsForItemSchema(Methods.EDITABLE) };
  }

  /** Arguments to delete one item: its id and `force`. */
  itemDeleteArgs(id: RouteArg, forceDescription: string): Record<string, RouteArg> {
    return { id, force: { type: 'boolean', default: false, description: forceDescription } };
  }

  /** The object type fields are registered on: the schema title. */
  get objectType(): string {
    return this.getItemSchema().title;
  }

  /** The item schema with the registered additional fields. Cached once the registries are frozen. */
  getItemSchema(): ItemSchema {
    if (this.schemaCache) return this.schemaCache;
    // Shallow copies: properties may carry functions (`arg_options`), and only the property map is extended here.
    const base = this.baseSchema();
    const schema: ItemSchema = { ...base, properties: { ...base.properties } };
    for (const [name, field] of this.extensions.restFields(schema.title)) {
      if (field.schema) schema.properties[name] = field.schema;
    }
    if (this.server.registry.isFrozen) this.schemaCache = schema;
    return schema;
  }

  /** The schema as published (without `arg_options`). */
  getPublicItemSchema(): ItemSchema {
    const schema = this.getItemSchema();
    const properties: Record<string, JsonSchema> = {};
    for (const [key, prop] of Object.entries(schema.properties)) {
      const { arg_options: _omit, ...rest } = prop;
      // The reference encodes an empty property map as an empty JSON array (e.g. `meta` without registered keys).
      if (rest.properties && !Object.keys(rest.properties).length) (rest as Record<string, unknown>).properties = [];
      properties[key] = rest;
    }
    return { ...schema, properties };
  }

  /** The `context` argument: enum from the schema's contexts. */
  getContextParam(extra: Partial<RouteArg> = {}): RouteArg {
    return {
      description: 'Scope under which the request is made; determines fields present in response.',
      type: 'string',
      enum: contextsOfSchema(this.getItemSchema().properties),
      checkedFirst: true,
      ...extra,
    };
  }

  /** The base collection arguments: context, page, per_page, search. */
  getCollectionParams(): Record<string, RouteArg> {
    return {
      context: this.getContextParam({ default: 'view' }),
      page: {
        description: 'Current page of the collection.',
        type: 'integer',
        default: 1,
        minimum: 1,
        checkedFirst: true,
      },
      per_page: {
        description: 'Maximum number of items to be returned in result set.',
        type: 'integer',
        default: 10,
        minimum: 1,
        maximum: 100,
        checkedFirst: true,
      },
      search: { description: 'Limit results to those matching a string.', type: 'string', checkedFirst: true },
    };
  }

  /** A collection argument holding a list of ids (`include`, `exclude`, `author`, a taxonomy's term ids...). */
  protected idListArg(description: string): RouteArg {
    return { description, type: 'array', items: { type: 'integer' }, default: [] };
  }

  /** Arguments for a create or update endpoint: one per writable schema property. */
  getEndpointArgsForItemSchema(methods: readonly string[] = Methods.CREATABLE): Record<string, RouteArg> {
    const creating = methods.length === 1 && methods[0] === 'POST';
    const args: Record<string, RouteArg> = {};
    for (const [name, prop] of Object.entries(this.getItemSchema().properties)) {
      if (prop.readonly) continue;
      const { context: _c, readonly: _r, arg_options, default: def, required, ...rest } = prop;
      // WordPress gives each a validate callback (rest_validate_request_arg) unless its arg_options say otherwise.
      const arg: RouteArg = { ...rest, checkedFirst: true };
      if (creating && def !== undefined) arg.default = def;
      if (creating && required === true) arg.required = true;
      const options = { ...(arg_options ?? {}) };
      if (!creating) {
        delete options.required;
        delete options.default;
      }
      args[name] = { ...arg, ...options };
    }
    // WordPress 6.1's `meta` (check_meta_is_array, no sanitize callback): any object or list passes as it is; its
    // registered keys' values are checked as they are written (meta-fields.ts, writtenMetaValue).
    if (args.meta && this.server.options.wire.dialect.metaChecks === 'when-written')
      args.meta = { ...args.meta, validate: isPhpArray, sanitize: (value) => value };
    return args;
  }

  /** Adds the values of registered fields to an item (before context filtering). */
  async addAdditionalFields(data: Record<string, unknown>, req: RestRequest): Promise<Record<string, unknown>> {
    const type = this.objectType;
    for (const [name, field] of this.extensions.restFields(type)) {
      if (!field.get) continue;
      // Its callback may read any post: the answer depends on all posts' content (see AnswerSources).
      req.sources.content = true;
      data[name] = await field.get(data, name, req, type);
    }
    return data;
  }

  /** Stores the registered fields sent in the request; a failing callback aborts with its error. */
  async updateAdditionalFields(object: unknown, req: RestRequest): Promise<void> {
    const type = this.objectType;
    for (const [name, field] of this.extensions.restFields(type)) {
      if (!field.update || !req.sent(name)) continue;
      const result = await field.update(req.get(name), object, name, req, type);
      if (result instanceof RestException) throw result;
    }
  }

  filterByContext(data: Record<string, unknown>, context: string): Record<string, unknown> {
    const filtered = filterByContext(data, this.getItemSchema().properties, context);
    // The reference encodes a `meta` object left without keys as an empty JSON array.
    const meta = filtered.meta;
    if (meta && typeof meta === 'object' && !Array.isArray(meta) && !Object.keys(meta).length) filtered.meta = [];
    return filtered;
  }

  /**
   * Whether items may be served as JSON text (`RestRequest.itemsAsText`): also nothing of this
   * controller looks into them after they are built — no registered field, no `rest_prepare_{hookSuffix}` listener —
   * and no `rest_post_dispatch` listener was added since the request began. Asked again while items are prepared.
   */
  protected itemsAsText(req: RestRequest, hookSuffix: string): boolean {
    return (
      req.itemsAsText &&
      !this.hooks.hasHook(`rest_prepare_${hookSuffix}`) &&
      !this.hooks.hasHook('rest_post_dispatch') &&
      this.extensions.restFields(this.objectType).size === 0
    );
  }

  /** {@link prepareResponse} and {@link reusedItems} bound to one hook suffix, as a resource hands them to its presenter. */
  protected responseBuilders<T>(hookSuffix: string): ResponseBuilders<T> {
    return {
      respond: (data, req, links, object) => this.prepareResponse(data, req, links, hookSuffix, object),
      reuse: (memo, objects, req, item) => this.reusedItems(memo, objects, req, hookSuffix, item),
    };
  }

  /**
   * Collection items of `objects`: JSON text reused from `memo` while the object's inputs are unchanged, when
   * {@link itemsAsText} holds (asked again once each item is built); built item objects otherwise.
   */
  protected async reusedItems<T>(
    memo: ItemMemo,
    objects: readonly T[],
    req: RestRequest,
    hookSuffix: string,
    item: ReusedItem<T>,
  ): Promise<unknown[]> {
    const asText = () => this.itemsAsText(req, hookSuffix);
    const out: unknown[] = [];
    for (const object of objects) {
      const inputs = asText() ? item.inputs(object) : null;
      const build = async () => this.server.toCollectionItem(await item.build(object));
      out.push(await memo.reuse(`${item.key(object)}\0${req.context}`, inputs, build, asText));
    }
    return out;
  }

  /**
   * Builds an item response in the reference's order: additional fields, context filtering, links, then the
   * `rest_prepare_{hookSuffix}` filter.
   */
  protected async prepareResponse(
    data: Record<string, unknown>,
    req: RestRequest,
    links: LinkMap,
    hookSuffix: string,
    object: unknown,
  ): Promise<RestResponse> {
    const withFields = await this.addAdditionalFields(data, req);
    const response = new RestResponse(this.filterByContext(withFields, req.context));
    response.addLinks(links);
    return this.hooks.applyFilters(`rest_prepare_${hookSuffix}`, response, object, req);
  }

  /** A `201 Created` response with the `Location` of the new item (`path` relative to the API root). */
  protected created(response: RestResponse, req: RestRequest, path: string): RestResponse {
    response.status = 201;
    response.header('Location', req.ctx.restUrl(path));
    return response;
  }

  /**
   * What a permanent delete answers, as the wire dialect says (`deleteAnswer`): the item as it was (`previous`, the
   * spec's), or `{ deleted: true, previous }` with the item's data (WordPress's).
   */
  protected deleted(req: RestRequest, previous: RestResponse): RestResponse {
    if (req.ctx.wire.dialect.deleteAnswer === 'item') return previous;
    return new RestResponse({ deleted: true, previous: previous.data });
  }

  /**
   * Sets `X-CMS-Total`, `X-CMS-TotalPages` (by their wire names: `X-WP-Total`, …) and the `Link` next/prev headers of a collection response. The page size
   * is the request's `per_page` unless the query used another one (`perPage`).
   */
  protected paginate(
    response: RestResponse,
    req: RestRequest,
    total: number,
    collectionPath: string,
    used: PageUsed = {},
  ): RestResponse {
    const perPage = used.perPage ?? Number(req.get('per_page') ?? 10);
    const page = used.page ?? Number(req.get('page') ?? 1);
    const totalPages = Math.ceil(total / perPage);
    const wire = this.server.options.wire;
    response.header(wire.totalHeader, String(total));
    response.header(wire.totalPagesHeader, String(totalPages));
    // The current query, `page` replaced where it was (add_query_arg) or added at the end, written the way PHP's
    // http_build_query writes it (indexed brackets).
    const pairs: string[] = [];
    let pageAt = -1;
    for (const [key, value] of Object.entries(req.query)) {
      if (key === 'page') {
        pageAt = pairs.length;
        continue;
      }
      if (value === undefined) continue;
      appendQuery(pairs, key, value, used.omit, req.ctx.wire.dialect.bareFalseInLinks);
    }
    if (pageAt < 0) pageAt = pairs.length;
    const base = req.ctx.restUrl(collectionPath);
    const withPage = (n: number) =>
      `${base}?${[...pairs.slice(0, pageAt), `page=${n}`, ...pairs.slice(pageAt)].join('&')}`;
    const prev = page > 1 ? withPage(used.prevUnclamped ? page - 1 : Math.min(page - 1, Math.max(totalPages, 1))) : '';
    const next = totalPages > page ? withPage(page + 1) : '';
    // Links that would make the header longer than clients and proxies read (a query of thousands of parameters
    // repeated twice) are left out; the total headers still say how many pages there are.
    if (prev.length + next.length > LINK_HEADER_LIMIT) return response;
    if (prev) response.linkHeader('prev', prev);
    if (next) response.linkHeader('next', next);
    return response;
  }
}

/** The page a collection answered, where it is not the request's `page`/`per_page`, and query keys its links drop. */
export interface PageUsed {
  page?: number;
  perPage?: number;
  /** Keys as written in the query (`filter[paged]`), left out of the links. */
  omit?: ReadonlySet<string>;
  /** `prev` is the page before the asked one even past the last page (WP_REST_Search_Controller's). */
  prevUnclamped?: boolean;
}

function appendQuery(
  pairs: string[],
  key: string,
  value: unknown,
  omit: ReadonlySet<string> | undefined,
  bareFalse: boolean,
): void {
  if (omit?.has(key)) return;
  if (Array.isArray(value)) value.forEach((v, i) => appendQuery(pairs, `${key}[${i}]`, v, omit, bareFalse));
  else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) appendQuery(pairs, `${key}[${k}]`, v, omit, bareFalse);
  } else if (value === '' || (value === false && bareFalse)) pairs.push(encodeURIComponent(key));
  // http_build_query writes booleans as 1 and 0 (the reference's links: `sticky=0`); WordPress 6.1 urlencodes them
  // first (urlencode_deep), false becoming '' (a bare `sticky`).
  else if (typeof value === 'boolean') pairs.push(`${encodeURIComponent(key)}=${value ? 1 : 0}`);
  else pairs.push(`${encodeURIComponent(key)}=${encodeURIComponent(String(value))}`);
}

/** Whether a value is what PHP reads as an array: a JSON object or list. */
function isPhpArray(value: unknown): boolean {
  return typeof value === 'object' && value !== null;
}
