import type { IncomingMessage, ServerResponse } from 'node:http';
import { rm } from 'node:fs/promises';
import { Inject, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import type { DataSource } from 'typeorm';
import { CMS_OPTIONS, ResolvedCmsOptions } from '../config/cms-options';
import { AuthenticationService } from '../auth/authentication.service';
import { CapabilityService } from '../auth/capability.service';
import { RequestContext } from '../auth/request-context';
import { CMS_DATA_SOURCE } from '../database/cms-data-source';
import { RedisCallerMarks } from '../database/redis-caller-marks';
import { callerKeyOf, ReplicaRouter, replicaRouterOf } from '../database/replica-routing';
import { CmsRedis } from '../redis/cms-redis.service';
import { ResponsePipeline } from '../rest/response-pipeline';
import { RestRequest } from '../rest/rest-request';
import { RestServer } from '../rest/rest-server.service';
import { ApiDocs } from './api-docs';
import { CacheGate } from './cache-gate';
import type { HttpExchange, HttpOutcome } from './http-exchange';
import { checkIfMatch, checksIfMatch } from './if-match';
import { requestFacts } from './request-facts';
import { isCrossOrigin, lowerHeaders, parseCookies } from './request-headers';
import { markMatchedRoute, markUser } from './request-marks';
import { RequestReader } from './request-reader';
import { requestTarget } from './request-target';
import { ResponseWriter } from './response-writer';

export type { HttpOutcome } from './http-exchange';

/** One API request as it arrives: `route` within the API (`/cms/v2/posts`), `mount` the API root's path (`/cms-json`). */
interface ApiCall {
  req: IncomingMessage;
  res: ServerResponse;
  route: string;
  mount: string;
  query: Record<string, unknown>;
  /** Whether an unexpected error is answered here with a 500; without, the caller throws it on (the Nest route). */
  answerUnexpected: boolean;
}

/**
 * The HTTP side of the API, transport to and from the RestServer, as a small orchestrator: the request is read
 * ({@link RequestReader}), its caller authenticated, the cache gate asked ({@link CacheGate}), the request served by
 * the {@link ResponsePipeline}, and the answer written ({@link ResponseWriter}). Three ways in: the Nest route at the
 * route prefix ({@link serveMounted}), the `?rest_route=` form on `/` ({@link serveRestRoute}), and the standalone
 * server's fast path ahead of Nest ({@link serveFirst}).
 */
@Injectable()
export class ApiHttpService {
  /** The read replicas' router, when the data source has replicas: each request then runs in its routing scope. */
  private readonly replicas: ReplicaRouter | undefined;

  constructor(
    private readonly server: RestServer,
    private readonly pipeline: ResponsePipeline,
    private readonly reader: RequestReader,
    private readonly writer: ResponseWriter,
    private readonly gate: CacheGate,
    private readonly auth: AuthenticationService,
    private readonly caps: CapabilityService,
    @Inject(CMS_OPTIONS) private readonly options: ResolvedCmsOptions,
    private readonly docs: ApiDocs,
    @Inject(CMS_DATA_SOURCE) dataSource: DataSource,
    redis: CmsRedis,
  ) {
    this.replicas = replicaRouterOf(dataSource);
    // The marks of callers who wrote are the fleet's with Redis (every node sends their reads to the primary).
    if (this.replicas && redis.client && !(this.replicas.marks instanceof RedisCallerMarks))
      this.replicas.marks = new RedisCallerMarks(redis);
  }

  /** Whether a URL is for the API by its path alone (`/{prefix}` and below), as the fast path sees it. */
  isApiPath(url: string): boolean {
    const prefix = `/${this.options.routePrefix}`;
    if (!url.startsWith(prefix)) return false;
    const next = url.charAt(prefix.length);
    return next === '' || next === '/' || next === '?';
  }

  /**
   * Serves a request Nest routed to the API's controller. The API root is where the route prefix sits in the path,
   * below whatever the host mounts it under (`setGlobalPrefix`, `RouterModule`), and links use it.
   */
  async serveMounted(req: IncomingMessage, res: ServerResponse): Promise<HttpOutcome> {
    const url = requestTarget((req as Partial<Request>).originalUrl ?? req.url ?? '/');
    const segment = `/${this.options.routePrefix}`;
    const path = url.pathname;
    let at = -1;
    for (let i = path.indexOf(segment); i >= 0; i = path.indexOf(segment, i + 1)) {
      const next = path.charAt(i + segment.length);
      if (next === '' || next === '/') {
        at = i;
        break;
      }
    }
    const mount = at < 0 ? segment : path.slice(0, at + segment.length);
    const route = at < 0 ? '/' : path.slice(at + segment.length);
    if (this.docs.serves(req.method, route)) {
      this.docs.serve(req, res, route, this.writer.baseUrl(requestFacts(req)));
      return {};
    }
    return this.serve({ req, res, route, mount, query: this.reader.query(url.search), answerUnexpected: false });
  }

  /**
   * The standalone fast path: answers `/{prefix}/…` (and `/?rest_route=` when enabled) straight from Node's server;
   * calls `next` for anything else.
   */
  async serveFirst(req: IncomingMessage, res: ServerResponse, next: () => void): Promise<void> {
    const url = requestTarget(req.url ?? '/');
    const prefix = `/${this.options.routePrefix}`;
    if (url.pathname === prefix || url.pathname.startsWith(`${prefix}/`)) {
      const route = url.pathname.slice(prefix.length);
      if (this.docs.serves(req.method, route))
        return this.docs.serve(req, res, route, this.writer.baseUrl(requestFacts(req)));
      await this.serve({
        req,
        res,
        route,
        mount: prefix,
        query: this.reader.query(url.search),
        answerUnexpected: true,
      });
      return;
    }
    return this.serveRestRoute(req, res, next);
  }

  /**
   * The host's `/`: the `?rest_route=/…` form of the API when enabled (`restRouteQuery`), else the discovery `Link`
   * header (and, with `serveSiteRoot`, a small page about the site). Anything else goes to `next`.
   */
  async serveRestRoute(req: IncomingMessage, res: ServerResponse, next: () => void): Promise<void> {
    const raw = (req as Partial<Request>).originalUrl ?? req.url ?? '/';
    // Only `/` (with or without a query): checked before anything is parsed.
    if (raw !== '/' && !raw.startsWith('/?')) return next();
    const url = requestTarget(raw);
    const prefix = `/${this.options.routePrefix}`;
    if (this.options.restRouteQuery && url.search.includes('rest_route=')) {
      const query = this.reader.query(url.search);
      if (typeof query.rest_route === 'string') {
        const route = query.rest_route;
        delete query.rest_route;
        await this.serve({ req, res, route, mount: prefix, query, answerUnexpected: true });
        return;
      }
    }
    const facts = requestFacts(req);
    res.setHeader('Link', `<${this.writer.baseUrl(facts)}${prefix}/>; rel="https://api.w.org/"`);
    if (this.options.serveSiteRoot && (req.method === 'GET' || req.method === 'HEAD')) {
      // A server that is only this API still answers its home page, so clients can discover the API from it.
      res.statusCode = 200;
      res.setHeader('Content-Type', 'application/json; charset=UTF-8');
      res.end(
        req.method === 'HEAD'
          ? undefined
          : JSON.stringify({ name: 'cms-api', api: `${this.writer.baseUrl(facts)}${prefix}/` }),
      );
      return;
    }
    return next();
  }

  /** One API request, in its read replicas' routing scope when there are replicas. */
  private async serve(call: ApiCall): Promise<HttpOutcome> {
    const outcome = this.replicas
      ? await this.serveRouted(this.replicas, call.req, () => this.serveRequest(call))
      : await this.serveRequest(call);
    if (outcome.matchedRoute) markMatchedRoute(call.req, outcome.matchedRoute);
    return outcome;
  }

  /**
   * One API request with read replicas: `serve` run in the routing scope chosen at its start (see
   * replica-routing.ts). A request that is not a read marks its caller again once answered, so the read-after-write
   * window counts from the answer.
   */
  private async serveRouted(
    router: ReplicaRouter,
    req: IncomingMessage,
    serve: () => Promise<HttpOutcome>,
  ): Promise<HttpOutcome> {
    const headers = req.headers;
    const caller = callerKeyOf(requestFacts(req).ip, headers.authorization, headers.cookie);
    const window = this.options.readAfterWriteSeconds * 1000;
    const scope = await router.scopeFor(req.method, caller, window);
    try {
      return await router.run(scope, serve);
    } finally {
      if (req.method !== 'GET' && req.method !== 'HEAD') await router.markSafely(caller, window);
    }
  }

  private async serveRequest(call: ApiCall): Promise<HttpOutcome> {
    const { req, res, query } = call;
    const facts = requestFacts(req);
    let route: string;
    try {
      route = decodeURIComponent(call.route).replace(/\/+$/, '') || '/';
    } catch {
      route = '/__invalid__';
    }
    const method = this.reader.method(req, query);
    const exchange: HttpExchange = {
      req,
      res,
      baseUrl: this.writer.baseUrl(facts),
      mount: call.mount,
      origin: req.headers.origin,
    };
    const crossOrigin = isCrossOrigin(req, exchange.baseUrl, facts);
    let temporary: string[] = [];
    try {
      const stamps = await this.gate.stampsFor(method);
      const headers = lowerHeaders(req);
      const ownHeaders: Record<string, string> = {};
      const admitted = await this.reader.admit(req, res, {
        takesFiles: () => this.server.endpointFor(method, route)?.acceptsFiles === true,
        authenticate: (body) =>
          this.auth
            .authenticate({
              method,
              headers,
              query,
              body,
              cookies: parseCookies(req.headers.cookie),
              ip: facts.ip,
              crossOrigin,
              setResponseHeader: (name, value) => (ownHeaders[name] = value),
            })
            // The user is left on the request for the request log.
            .then((user) => markUser(req, user)),
      });
      const { parsed, user } = admitted;
      temporary = admitted.temporary;
      exchange.loggedIn = user.id > 0;
      const ticket = this.gate.ticket(exchange, stamps, {
        method: req.method ?? 'GET',
        route,
        query,
        user,
        ownHeaders,
      });
      if (ticket) {
        const answered = await this.gate.answer(exchange, ticket);
        if (answered) return answered;
      }
      const ctx = new RequestContext({
        user,
        caps: this.caps,
        baseUrl: exchange.baseUrl,
        apiPrefix: call.mount.replace(/^\/+/, ''),
        crossOrigin,
        ip: facts.ip,
        wire: this.options.wire,
      });
      if (ticket) this.gate.open(exchange, ticket, ctx);
      const restReq = new RestRequest(
        {
          method,
          route,
          query,
          body: parsed.body,
          json: parsed.json,
          files: parsed.files,
          headers,
          rawBody: parsed.raw,
          rawFile: parsed.rawFile ?? null,
        },
        ctx,
      );
      const ifMatch = req.headers['if-match'];
      if (ifMatch !== undefined && checksIfMatch(method)) await checkIfMatch(this.pipeline, restReq, ifMatch);
      const served = await this.pipeline.serve(restReq);
      if (served.unexpected !== undefined && !call.answerUnexpected)
        return { matchedRoute: served.matchedRoute, unexpected: served.unexpected };
      const kept = ticket ? this.gate.keep(ticket, ctx, served) : undefined;
      this.writer.write(exchange, { ...served, headers: { ...ownHeaders, ...served.headers } }, kept);
      return { matchedRoute: served.matchedRoute };
    } catch (error) {
      const response = this.server.errorToResponse(error);
      if (response.unexpected !== undefined && !call.answerUnexpected) return { unexpected: response.unexpected };
      this.writer.write(exchange, response);
      return {};
    } finally {
      if (temporary.length) void Promise.all(temporary.map((file) => rm(file, { force: true }))).catch(() => undefined);
    }
  }

  /**
   * Writes the API's headers without a body: for an error the host's exception filters answer (CORS and no-cache
   * hold for it too).
   */
  writeHeadersOnly(res: ServerResponse, req: IncomingMessage): void {
    this.writer.writeHeadersOnly(res, req);
  }
}
