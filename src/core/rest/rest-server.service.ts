import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { CMS_OPTIONS, ResolvedCmsOptions } from '../config/cms-options';
import { DATABASE_RETRY_AFTER_SECONDS, isDatabaseUnavailable, isLockConflict } from '../database/database-errors';
import { CoreErrors } from '../errors/error-codes';
import { RestException } from '../errors/rest.exception';
import { DialectTexts } from '../dialect/dialect-texts';
import { ContentRegistry } from '../registry/content-registry.service';
import { compactLinks } from './links';
import { argList, checkedDefaults, copyOf, sanitizeArgs, validateArgs } from './request-args';
import { RestRequest } from './rest-request';
import { RestResponse } from './rest-response';
import { describeAllowBatch, RouteDescriber } from './route-describer';
import { RouteRegistry } from './route-registry.service';
import { RouteDefinition, RouteEndpoint } from './route-types';

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

export function makeError(
  [code, message, status]: readonly [string, string, number],
  data: Record<string, unknown> = {},
): RestException {
  return new RestException(code, message, status, data);
}

/**
 * The dispatcher: matches a request against the route table, validates and coerces its arguments from the route's
 * schema (request-args.ts), runs the endpoint's guards (its permission check) and its handler, and turns the
 * result (or any error) into a response. It serves HTTP requests, the `?rest_route=` form and the internal requests
 * of `_embed` alike; top-level requests then go through ResponsePipeline (Allow, links, `_embed`,
 * `_fields`, `_envelope`), descriptions come from the RouteDescriber (SchemaModule's SchemaRegistry).
 */
@Injectable()
export class RestServer implements OnApplicationBootstrap {
  private readonly logger = new Logger('RestServer');

  constructor(
    readonly registry: RouteRegistry,
    private readonly schemas: RouteDescriber,
    @Inject(CMS_OPTIONS) readonly options: ResolvedCmsOptions,
    content: ContentRegistry,
  ) {
    this.texts = DialectTexts.of(options.wire.dialect, content);
  }

  /** The wire dialect's wording of messages and descriptions. */
  readonly texts: DialectTexts;

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
      const { route, endpoint } = match;
      matched = route;
      this.prepare(req, match);
      if (endpoint.permission) {
        const allowed = await endpoint.permission(req);
        if (allowed instanceof RestException) throw allowed;
        // 401 to anonymous callers, 403 to logged-in ones, as the spec asks (the 4.x reference always said 403).
        if (allowed !== true)
          throw new RestException(CoreErrors.forbidden[0], CoreErrors.forbidden[1], req.ctx.authorizationRequiredCode);
      }
      const result = await endpoint.handler(req);
      const response = result instanceof RestResponse ? result : new RestResponse(result);
      response.matchedRoute = route.route;
      return response;
    } catch (error) {
      return this.failed(error, matched);
    }
  }

  /**
   * What dispatch checks before the permission check, alone: the route match, `admit`'s check of the endpoint
   * matched (an error refuses it), the arguments' validation and sanitization — how `batch/v1` checks each request
   * of a batch before it runs any. The error response dispatch would answer, or `null` when the request passes.
   */
  check(req: RestRequest, admit?: (endpoint: RouteEndpoint) => RestException | null): RestResponse | null {
    let matched: RouteDefinition | undefined;
    try {
      const match = this.match(req);
      if (!match) throw makeError(CoreErrors.noRoute);
      matched = match.route;
      this.prepare(req, match, admit);
      return null;
    } catch (error) {
      return this.failed(error, matched);
    }
  }

  /** Sets the request's match, and validates, coerces and defaults its arguments (after `admit`'s check); throws. */
  private prepare(
    req: RestRequest,
    { route, endpoint, params }: { route: RouteDefinition; endpoint: RouteEndpoint; params: Record<string, string> },
    admit?: (endpoint: RouteEndpoint) => RestException | null,
  ): void {
    req.urlParams = params;
    req.restrictTo(null);
    req.endpoint = endpoint;
    req.matchedRoute = route.route;
    const refused = admit?.(endpoint);
    if (refused) throw refused;
    if (req.method === 'GET' || req.method === 'HEAD') req.sources.noteEndpoint(endpoint, req.query);
    const args = argList(endpoint);
    const defaults = checkedDefaults(endpoint.args, args);
    req.defaults = {};
    for (const name in defaults.values) {
      const value = defaults.values[name];
      // Handlers may change what they get: objects and arrays are copied, other values are immutable.
      req.defaults[name] = typeof value === 'object' && value !== null ? copyOf(value) : value;
    }
    validateArgs(req, args, defaults.checked);
    sanitizeArgs(req, args, defaults.checked);
    // From here on, only what the endpoint declares (and so validated) is readable.
    req.restrictTo(endpoint.argNames);
  }

  /** The error response of a request that failed, in the dialect's words. */
  private failed(error: unknown, matched: RouteDefinition | undefined): RestResponse {
    const response = this.errorToResponse(error);
    response.matchedRoute = matched?.route;
    this.texts.translateErrorBody(response.data, matched);
    return response;
  }

  /** Turns anything thrown into an error response; unexpected errors become a 500 without internals. */
  errorToResponse(error: unknown): RestResponse {
    if (error instanceof RestException) {
      const response = new RestResponse(error.toBody(), error.status);
      if (error.status === 429 && typeof error.data.retry_after === 'number')
        response.header('Retry-After', String(error.data.retry_after));
      return response;
    }
    // A lock conflict that outlasted the write's retries (or a read that waited out a cluster node's causality) is
    // the database being busy, not a fault of the API: the client may try again too.
    if (isDatabaseUnavailable(error) || isLockConflict(error)) {
      // The database is away or locked: a moment's trouble, not the API's fault; the client may try again.
      this.logger.warn(`Database unavailable: ${error instanceof Error ? error.message : String(error)}`);
      const response = new RestResponse(makeError(CoreErrors.databaseUnavailable).toBody(), 503);
      response.header('Retry-After', String(DATABASE_RETRY_AFTER_SECONDS));
      return response;
    }
    this.logger.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    const response = new RestResponse(makeError(CoreErrors.internal).toBody(), 500);
    response.unexpected = error;
    return response;
  }

  /** The endpoint that serves a method on a route, or `null`: for checks made before a request's body is read. */
  endpointFor(method: string, route: string): RouteEndpoint | null {
    return this.find(method.toUpperCase(), route)?.endpoint ?? null;
  }

  private match(
    req: RestRequest,
  ): { route: RouteDefinition; endpoint: RouteEndpoint; params: Record<string, string> } | null {
    return this.find(req.method, req.route);
  }

  private find(
    method: string,
    path: string,
  ): { route: RouteDefinition; endpoint: RouteEndpoint; params: Record<string, string> } | null {
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

  /** OPTIONS: the matching route's description with its schema; permission checks are not run for it. */
  private handleOptions(req: RestRequest): RestResponse {
    for (const route of this.registry.all()) {
      const m = route.regex.exec(req.route);
      if (!m) continue;
      // Path parameters are set so that the Allow header's permission checks see them.
      req.urlParams = { ...(m.groups ?? {}) };
      // Nothing was validated: the Allow header's permission checks see the path parameters only.
      req.restrictTo(NOTHING_DECLARED);
      const response = new RestResponse(
        describeAllowBatch(route, this.schemas.describe(route, 'help', req.ctx), req.ctx),
      );
      response.matchedRoute = route.route;
      return response;
    }
    return new RestResponse([]);
  }

  /** Adds `Allow`: the methods of the matched route whose permission check passes for this caller. */
  async addAllowHeader(response: RestResponse, req: RestRequest): Promise<void> {
    const route = response.matchedRoute ? this.registry.get(response.matchedRoute) : undefined;
    if (!route) return;
    // Path parameters as the permission checks read them once validated (`[\d]+` ids are integers), also when the
    // request was not validated (OPTIONS) or failed validation, as PHP reads them.
    for (const [name, value] of Object.entries(req.urlParams))
      if (typeof value === 'string' && /^\d{1,15}$/.test(value)) req.urlParams[name] = Number(value);
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

  /** An item of a collection: its data with its compacted `_links` (the reference's prepare_response_for_collection). */
  toCollectionItem(response: RestResponse): Record<string, unknown> {
    const data = response.data as Record<string, unknown>;
    if (!response.links.size) return data;
    return { ...data, _links: compactLinks(response.links, this.options.linkRelBase, this.options.wire.curie) };
  }
}

const NOTHING_DECLARED: ReadonlySet<string> = new Set();
