import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { CMS_OPTIONS, ResolvedCmsOptions } from '../../cms-options';
import { RequestContext } from '../auth/request-context';
import { HookRegistry } from '../hooks/hook-registry.service';
import { CoreErrors } from './error-codes';
import { simpleQuery } from './simple-query';
import { RestException } from './rest.exception';
import { JsonSchema, RouteArg } from '../schema/json-schema';
import { sanitizeArg, validateArg } from '../schema/validate';
import { JsonText, withMembers } from './json-text';
import { compactLinks } from './links';
import { RestRequest } from './rest-request';
import { RestResponse } from './rest-response';
import { RouteRegistry } from './route-registry.service';
import { SchemaRegistry } from '../schema/schema-registry.service';
import { RouteDefinition, RouteEndpoint } from './route-types';
import { parse as parseQuery } from 'qs';

/** Argument keywords shown in the index and OPTIONS (the reference's allowed schema keywords). */

/** What the HTTP layer writes: status, headers and JSON data (`undefined` body for HEAD). */
export interface ServedResponse {
  status: number;
  headers: Record<string, string>;
  data: unknown;
  /** The route pattern that matched, if one did. */
  matchedRoute?: string;
  /** The error behind a 500 no handler expected (see {@link RestResponse.unexpected}). */
  unexpected?: unknown;
}

export function makeError([code, message, status]: readonly [string, string, number], data: Record<string, unknown> = {}): RestException {
  return new RestException(code, message, status, data);
}

/**
 * The REST server: matches a request against the route table, validates and coerces its arguments from the
 * route's schema, runs the permission check and the handler, and turns the result (or any error) into a
 * response; then adds the `Allow` header, `_links`, `_embed`, `_fields` and `_envelope` handling. It serves
 * HTTP requests, the `?rest_route=` form and internal requests (embedding) alike.
 */
@Injectable()
export class RestServer implements OnApplicationBootstrap {
  private readonly logger = new Logger('RestServer');

  constructor(
    readonly registry: RouteRegistry,
    private readonly schemas: SchemaRegistry,
    private readonly hooks: HookRegistry,
    @Inject(CMS_OPTIONS) readonly options: ResolvedCmsOptions,
  ) {}

  onApplicationBootstrap(): void {
    this.registry.freeze();
  }

  /** Runs one request through the route table; never throws. */
  async dispatch(req: RestRequest): Promise<RestResponse> {
    let matched: RouteDefinition | undefined;
    try {
      if (req.method === 'OPTIONS') return this.handleOptions(req);
      const match = this.match(req);
      if (!match) throw makeError(CoreErrors.noRoute);
      const { route, endpoint, params } = match;
      matched = route;
      req.urlParams = params;
      req.restrictTo(null);
      req.endpoint = endpoint;
      req.matchedRoute = route.route;
      const args = argList(endpoint);
      const defaults = checkedDefaults(endpoint.args, args);
      req.defaults = {};
      for (const name in defaults.values) {
        const value = defaults.values[name];
        // Handlers may change what they get: objects and arrays are copied, other values are immutable.
        req.defaults[name] = typeof value === 'object' && value !== null ? copyOf(value) : value;
      }
      this.validate(req, args, defaults.checked);
      this.sanitize(req, args, defaults.checked);
      // From here on, only what the endpoint declares (and so validated) is readable.
      req.restrictTo(endpoint.argNames);
      if (endpoint.permission) {
        const allowed = await endpoint.permission(req);
        if (allowed instanceof RestException) throw allowed;
        // 401 to anonymous callers, 403 to logged-in ones, as the spec asks (the 4.x reference always said 403).
        if (allowed !== true) throw new RestException(CoreErrors.forbidden[0], CoreErrors.forbidden[1], req.ctx.authorizationRequiredCode);
      }
      const result = await endpoint.handler(req);
      const response = result instanceof RestResponse ? result : new RestResponse(result);
      response.matchedRoute = route.route;
      return response;
    } catch (error) {
      const response = this.errorToResponse(error);
      response.matchedRoute = matched?.route;
      return response;
    }
  }

  /** Turns anything thrown into an error response; unexpected errors become a 500 without internals. */
  errorToResponse(error: unknown): RestResponse {
    if (error instanceof RestException) {
      const response = new RestResponse(error.toBody(), error.status);
      if (error.status === 429 && typeof error.data.retry_after === 'number') response.header('Retry-After', String(error.data.retry_after));
      return response;
    }
    this.logger.error(error instanceof Error ? error.stack ?? error.message : String(error));
    const response = new RestResponse(makeError(CoreErrors.internal).toBody(), 500);
    response.unexpected = error;
    return response;
  }

  /** The endpoint that serves a method on a route, or `null`: for checks made before a request's body is read. */
  endpointFor(method: string, route: string): RouteEndpoint | null {
    return this.find(method.toUpperCase(), route)?.endpoint ?? null;
  }

  private match(req: RestRequest): { route: RouteDefinition; endpoint: RouteEndpoint; params: Record<string, string> } | null {
    return this.find(req.method, req.route);
  }

  private find(method: string, path: string): { route: RouteDefinition; endpoint: RouteEndpoint; params: Record<string, string> } | null {
    for (const route of this.registry.candidates(path)) {
      const m = route.regex.exec(path);
      if (!m) continue;
      const endpoint =
        route.endpoints.find((e) => e.methods.includes(method)) ??
        (method === 'HEAD' ? route.endpoints.find((e) => e.methods.includes('GET')) : undefined);
      if (!endpoint) continue;
      return { route, endpoint, params: { ...(m.groups ?? {}) } };
    }
    return null;
  }

  /** Validates the request's parameters; a default in `checked` was validated once, and only a sent value is. */
  private validate(req: RestRequest, args: ReadonlyArray<[string, RouteArg]>, checked: ReadonlySet<string>): void {
    const missing = args.filter(([name, arg]) => arg.required === true && !req.has(name)).map(([name]) => name);
    if (missing.length) {
      throw new RestException('rest_missing_callback_param', `Missing parameter(s): ${missing.join(', ')}`, 400, { params: missing });
    }
    const invalid: Record<string, string> = {};
    for (const [name, arg] of args) {
      if (checked.has(name) ? !req.sent(name) : !req.has(name)) continue;
      const message = validateArg(req.get(name), arg, name);
      if (message) invalid[name] = message;
    }
    if (Object.keys(invalid).length) {
      throw new RestException('rest_invalid_param', `Invalid parameter(s): ${Object.keys(invalid).join(', ')}`, 400, { params: invalid });
    }
  }

  /** Sanitizes the request's parameters; a default in `checked` is sanitized already, and only a sent value is. */
  private sanitize(req: RestRequest, args: ReadonlyArray<[string, RouteArg]>, checked: ReadonlySet<string>): void {
    for (const [name, arg] of args) {
      if (checked.has(name) ? req.sent(name) : req.has(name)) req.set(name, sanitizeArg(req.get(name), arg, name));
    }
  }

  /** OPTIONS: the matching route's description with its schema; permission checks are not run for it. */
  private handleOptions(req: RestRequest): RestResponse {
    for (const route of this.registry.all()) {
      const m = route.regex.exec(req.route);
      if (!m) continue;
      // Path parameters are set so that the Allow header's permission checks see them.
      req.urlParams = { ...(m.groups ?? {}) };
      // Nothing was validated: the Allow header's permission checks see the path parameters only.
      req.restrictTo(NOTHING_DECLARED);
      const response = new RestResponse(this.schemas.describe(route, 'help', req.ctx));
      response.matchedRoute = route.route;
      return response;
    }
    return new RestResponse([]);
  }

  /** Adds `Allow`: the methods of the matched route whose permission check passes for this caller. */
  async addAllowHeader(response: RestResponse, req: RestRequest): Promise<void> {
    const route = response.matchedRoute ? this.registry.get(response.matchedRoute) : undefined;
    if (!route) return;
    const allowed: string[] = [];
    for (const endpoint of route.endpoints) {
      let ok = true;
      if (endpoint.permission) {
        try {
          ok = (await endpoint.permission(req)) === true;
        } catch {
          ok = false;
        }
      }
      if (ok) for (const m of endpoint.methods) if (!allowed.includes(m)) allowed.push(m);
    }
    if (allowed.length) response.header('Allow', allowed.join(', '));
  }

  /** The full pipeline after dispatch: Allow, `rest_post_dispatch`, links, `_embed`, `_fields`, `_envelope`. */
  async serve(req: RestRequest): Promise<ServedResponse> {
    req.itemsAsText = req.query._fields === undefined && req.query._envelope === undefined && !this.hooks.hasHook('rest_post_dispatch');
    let response = await this.dispatch(req);
    await this.addAllowHeader(response, req);
    response = await this.hooks.applyFilters('rest_post_dispatch', response, req);
    const embed = parseEmbedParam(req.query._embed);
    let data = await this.responseToData(response, embed, req.ctx, req.itemsAsText);
    const fields = req.query._fields;
    if (fields !== undefined && !response.isError) data = filterFields(data, fields, embed !== false);
    const outcome = { matchedRoute: response.matchedRoute, unexpected: response.unexpected };
    if (req.query._envelope !== undefined) {
      return { status: 200, headers: {}, data: { body: data, status: response.status, headers: response.headers }, ...outcome };
    }
    return { status: response.status, headers: response.headers, data, ...outcome };
  }

  /**
   * Compacts a response's links into its data (`_links`) and embeds linked resources when asked. `asText`: items
   * and what is embedded in them may come as JSON text (`RestRequest.itemsAsText`, for the request and its
   * sub-requests).
   */
  async responseToData(response: RestResponse, embed: false | true | string[], ctx: RequestContext, asText = false): Promise<unknown> {
    let data = response.data;
    if (response.links.size && (isPlainObject(data) || data instanceof JsonText)) {
      const fields = data instanceof JsonText ? (JSON.parse(data.text) as Record<string, unknown>) : data;
      data = { ...fields, _links: compactLinks(response.links, this.options.linkRelBase) };
    }
    if (embed !== false && !response.isError) {
      if (Array.isArray(data)) data = await this.embedAll(data, embed, ctx, asText);
      else if (isPlainObject(data) || data instanceof JsonText) [data] = await this.embedAll([data], embed, ctx, asText);
    }
    return data;
  }

  /** An item of a collection: its data with its compacted `_links` (the reference's prepare_response_for_collection). */
  toCollectionItem(response: RestResponse): Record<string, unknown> {
    const data = response.data as Record<string, unknown>;
    if (!response.links.size) return data;
    return { ...data, _links: compactLinks(response.links, this.options.linkRelBase) };
  }

  /**
   * Embeds the embeddable links of every item. All sub-requests of all items are started together and each
   * distinct URL is requested once, so request-scoped loaders batch them into a fixed number of queries.
   */
  private async embedAll(items: unknown[], embed: true | string[], ctx: RequestContext, asText: boolean): Promise<unknown[]> {
    const pending = new Map<string, Promise<unknown>>();
    const wanted = (rel: string) => rel !== 'self' && (embed === true || embed.includes(rel));
    for (const item of items) {
      const links = linksOf(item);
      if (!links) continue;
      for (const [rel, list] of Object.entries(links)) {
        if (!wanted(rel) || !Array.isArray(list)) continue;
        for (const link of list) {
          const href = String(link.href);
          if (link.embeddable && !pending.has(href)) pending.set(href, this.embedOne(href, ctx, asText));
        }
      }
    }
    if (!pending.size) return items;
    const results = new Map<string, unknown>();
    await Promise.all([...pending].map(async ([href, p]) => results.set(href, await p)));
    return items.map((item) => {
      const links = linksOf(item);
      if (!links) return item;
      const embedded: Record<string, unknown[]> = {};
      for (const [rel, list] of Object.entries(links)) {
        if (!wanted(rel) || !Array.isArray(list)) continue;
        const values = list.map((link) => (link.embeddable ? results.get(String(link.href)) : []));
        if (values.some((v) => !isEmpty(v))) embedded[rel] = values;
      }
      if (!Object.keys(embedded).length) return item;
      if (item instanceof JsonText) return withMembers(item, { _embedded: embedded });
      // Embedded JSON text goes into JSON text only: an object item keeps objects.
      if (asText) return withMembers(new JsonText(JSON.stringify(item)), { _embedded: embedded });
      return { ...(item as object), _embedded: embedded };
    });
  }

  private async embedOne(href: string, ctx: RequestContext, asText: boolean): Promise<unknown> {
    const target = this.requestFromUrl(href, ctx);
    if (!target) return [];
    if (target.query.context === undefined) target.query.context = 'embed';
    target.itemsAsText = asText && !this.hooks.hasHook('rest_post_dispatch');
    let response = await this.dispatch(target);
    response = await this.hooks.applyFilters('rest_post_dispatch', response, target);
    return this.responseToData(response, false, ctx, target.itemsAsText);
  }

  /** Builds an internal GET request from an API URL (pretty or `?rest_route=` form); `null` if not ours. */
  requestFromUrl(href: string, ctx: RequestContext): RestRequest | null {
    const simple = simpleApiUrl(href, ctx.restUrl(''));
    if (simple) return new RestRequest({ method: 'GET', route: simple.route, query: simple.query }, ctx);
    let url: URL;
    try {
      url = new URL(href, ctx.baseUrl);
    } catch {
      return null;
    }
    const query = parseQuery(url.search.replace(/^\?/, ''), { depth: 5, arrayLimit: 1000 }) as Record<string, unknown>;
    const prefix = `/${this.options.routePrefix}`;
    let route: string | null = null;
    if (typeof query.rest_route === 'string') {
      route = query.rest_route;
      delete query.rest_route;
    } else if (url.pathname === prefix || url.pathname.startsWith(`${prefix}/`)) {
      route = url.pathname.slice(prefix.length) || '/';
    }
    if (route === null) return null;
    return new RestRequest({ method: 'GET', route: decodeURIComponent(route), query }, ctx);
  }
}

const ARG_LISTS = new WeakMap<Record<string, RouteArg>, ReadonlyArray<[string, RouteArg]>>();

const NOTHING_DECLARED: ReadonlySet<string> = new Set();

/** An endpoint's arguments as a list, made once per set of arguments (endpoints get theirs when the table freezes). */
/**
 * An endpoint's default values, each validated and sanitized once when that gives the same result for every request:
 * a schema default that validates (`checked`: its value here is the sanitized one). A default with its own validate or
 * sanitize callback, or one that does not validate, is checked with each request, as a sent value is.
 */
function checkedDefaults(
  argsObject: Record<string, RouteArg>,
  args: ReadonlyArray<[string, RouteArg]>,
): { values: Record<string, unknown>; checked: ReadonlySet<string> } {
  let prepared = CHECKED_DEFAULTS.get(argsObject);
  if (!prepared) {
    const values: Record<string, unknown> = {};
    const checked = new Set<string>();
    for (const [name, arg] of args) {
      const value = arg.default;
      if (value === undefined || value === null) continue;
      if (arg.validate || arg.sanitize || validateArg(value, arg, name) !== null) {
        values[name] = value;
        continue;
      }
      values[name] = sanitizeArg(typeof value === 'object' ? copyOf(value) : value, arg, name);
      checked.add(name);
    }
    prepared = { values, checked };
    CHECKED_DEFAULTS.set(argsObject, prepared);
  }
  return prepared;
}

const CHECKED_DEFAULTS = new WeakMap<Record<string, RouteArg>, { values: Record<string, unknown>; checked: ReadonlySet<string> }>();

function argList(endpoint: RouteEndpoint): ReadonlyArray<[string, RouteArg]> {
  let list = ARG_LISTS.get(endpoint.args);
  if (!list) {
    list = Object.entries(endpoint.args);
    ARG_LISTS.set(endpoint.args, list);
  }
  return list;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The `_links` of an item, as data or as they are in its JSON text. */
function linksOf(item: unknown): Record<string, Array<Record<string, unknown>>> | undefined {
  const links = item instanceof JsonText ? item.links : isPlainObject(item) ? item._links : undefined;
  return links as Record<string, Array<Record<string, unknown>>> | undefined;
}

function isEmpty(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (value instanceof JsonText) return value.text === '{}' || value.text === '[]';
  if (Array.isArray(value)) return value.length === 0;
  return isPlainObject(value) && Object.keys(value).length === 0;
}

/** `_embed` present → `true` (all) or the list of relations asked for. */
export function parseEmbedParam(value: unknown): false | true | string[] {
  if (value === undefined) return false;
  if (value === '' || value === '1' || value === 'true' || value === true) return true;
  const list = (Array.isArray(value) ? value.map(String) : String(value).split(',')).map((s) => s.trim()).filter(Boolean);
  return list.length ? list : true;
}

/** Keeps only the fields named in `_fields` (dotted paths reach into objects). */
export function filterFields(data: unknown, fieldsParam: unknown, embedding: boolean): unknown {
  const fields = (Array.isArray(fieldsParam) ? fieldsParam.map(String) : String(fieldsParam).split(','))
    .map((s) => s.trim())
    .filter(Boolean);
  if (!fields.length) return data;
  if (embedding && !fields.includes('_embedded')) fields.push('_embedded', '_links');
  const pick = (item: unknown): unknown => {
    if (!isPlainObject(item)) return item;
    const out: Record<string, unknown> = {};
    for (const field of fields) {
      const path = field.split('.');
      let src: unknown = item;
      let dst: Record<string, unknown> = out;
      for (let i = 0; i < path.length; i++) {
        if (!isPlainObject(src) || !(path[i] in src)) break;
        const value: unknown = src[path[i]];
        if (i === path.length - 1) dst[path[i]] = value;
        else {
          if (!isPlainObject(dst[path[i]])) dst[path[i]] = {};
          dst = dst[path[i]] as Record<string, unknown>;
          src = value;
        }
      }
    }
    return out;
  };
  return Array.isArray(data) ? data.map(pick) : pick(data);
}

/** A copy of a default value: lists of plain values (the usual `[]` or `['publish']`) by slicing, others deeply. */
function copyOf<T>(value: T): T {
  if (Array.isArray(value) && value.every((item) => item === null || typeof item !== 'object')) return value.slice() as T;
  return structuredClone(value);
}

/**
 * The route and query of a link under the API's own URL (`base`) whose query is plain `key=value` pairs — the
 * links items carry (`users/7`, `categories?post=12`) — read without a URL parser or `qs`; `null` for anything
 * else (brackets, `+`, repeated keys, `rest_route`, bad escapes), which the full parsers read.
 */
export function simpleApiUrl(href: string, base: string): { route: string; query: Record<string, unknown> } | null {
  if (!href.startsWith(base) || /[#+[\]]/.test(href)) return null;
  const mark = href.indexOf('?', base.length);
  const query = simpleQuery(mark < 0 ? '' : href.slice(mark + 1));
  if (!query || 'rest_route' in query) return null;
  try {
    return { route: `/${decodeURIComponent(mark < 0 ? href.slice(base.length) : href.slice(base.length, mark))}`, query };
  } catch {
    return null;
  }
}
