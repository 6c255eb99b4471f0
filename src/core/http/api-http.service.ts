import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { Inject, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import multer from 'multer';
import { randomUUID } from 'node:crypto';
import { createWriteStream, mkdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseQuery } from 'qs';
import { CMS_OPTIONS, ResolvedCmsOptions } from '../../cms-options';
import { AuthenticationService } from '../auth/authentication.service';
import { CapabilityService } from '../auth/capability.service';
import { RequestContext } from '../auth/request-context';
import { toJsonBytes } from '../rest/json-text';
import { RestRequest, UploadedFile } from '../rest/rest-request';
import { RestServer, ServedResponse } from '../rest/rest-server.service';
import { RestResponseInterceptor } from '../rest/rest-response.interceptor';
import { CoreErrors } from '../rest/error-codes';
import { RequestFacts, requestFacts } from './request-facts';
import { markMatchedRoute, markUser } from './request-marks';
import { RestException } from '../rest/rest.exception';
import { simpleQuery } from '../rest/simple-query';
import {
  bodyEtag,
  CachedAnswer,
  encodedEtag,
  matchHits,
  noneMatchHits,
  noneMatchTag,
  ResponseCache,
  storable,
} from '../cache/response-cache';
import { compressBody, ContentCoding, negotiateEncoding, varyOnEncoding } from './compression';
import { ApiDocs } from './api-docs';
import { requestTarget } from './request-target';
import type { DataSource } from 'typeorm';
import { CMS_DATA_SOURCE } from '../database/cms-data-source';
import { callerKeyOf, ReplicaRouter, replicaRouterOf } from '../database/replica-routing';
import { RedisCallerMarks } from '../database/redis-caller-marks';
import { CmsRedis } from '../redis/cms-redis.service';

// PHP's reading: a repeated name without brackets keeps its last value (`a=1&a=2` is `a=2`); `a[]=1&a[]=2` is a list.
const QUERY_OPTIONS = { depth: 5, arrayLimit: 1000, parameterLimit: 2000, duplicates: 'last' as const };
/**
 * Bounds of a multipart body, besides its total size (the body limit): files, text fields, parts, and the length of
 * a field's name. A body beyond any of them is refused with 413 as soon as the bound is passed.
 */
export const MULTIPART_LIMITS = { files: 10, fields: 200, parts: 210, fieldNameSize: 200 } as const;
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

interface ParsedBody {
  body: Record<string, unknown>;
  json: Record<string, unknown> | null;
  files: UploadedFile[];
  raw: Buffer | null;
  /** A raw upload streamed to a temporary file (routes that take files). */
  rawFile?: { path: string; size: number } | null;
}

/** Content types whose body is parameters, not a file: read into memory within the body limit. */
const PARAMETER_TYPES = new Set(['', 'application/json', 'application/x-www-form-urlencoded']);

/**
 * What one API request served over HTTP came to: written already, or (for the Nest route) an unexpected error the
 * host's exception filters should see.
 */
export interface HttpOutcome {
  /** The route pattern that matched (e.g. `/cms/v2/posts/(?P<id>[\d]+)`), for APM and interceptors. */
  matchedRoute?: string;
  /** An error no handler expected: answered already with a 500 by the fast paths, thrown by the Nest route. */
  unexpected?: unknown;
}

/**
 * The HTTP side of the API, transport to and from the RestServer: parses the query (PHP-style bracket keys), the
 * body (JSON, urlencoded, multipart), applies method overrides, authenticates, hands the request to the RestServer
 * and writes the response with the API's headers (no-cache, nosniff, discovery, CORS). Three ways in: the Nest
 * route at the route prefix ({@link serveMounted}), the `?rest_route=` form on `/` ({@link serveRestRoute}), and
 * the standalone server's fast path ahead of Nest ({@link serveFirst}).
 */
@Injectable()
export class ApiHttpService {
  private readonly upload: ReturnType<typeof multer>;
  /** The read replicas' router, when the data source has replicas: each request then runs in its routing scope. */
  private readonly replicas: ReplicaRouter | undefined;

  constructor(
    private readonly server: RestServer,
    private readonly pipeline: RestResponseInterceptor,
    private readonly auth: AuthenticationService,
    private readonly caps: CapabilityService,
    @Inject(CMS_OPTIONS) private readonly options: ResolvedCmsOptions,
    private readonly cache: ResponseCache,
    private readonly docs: ApiDocs,
    @Inject(CMS_DATA_SOURCE) dataSource: DataSource,
    redis: CmsRedis,
  ) {
    this.replicas = replicaRouterOf(dataSource);
    // The marks of callers who wrote are the fleet's with Redis (every node sends their reads to the primary).
    if (this.replicas && redis.client && !(this.replicas.marks instanceof RedisCallerMarks))
      this.replicas.marks = new RedisCallerMarks(redis);
    // Files go to temporary files as they arrive, never whole into memory (removed once the request is answered).
    this.upload = multer({
      storage: multer.diskStorage({ destination: (_req, _file, done) => done(null, uploadTempDir()) }),
      limits: { ...MULTIPART_LIMITS, fileSize: options.uploadLimit, fieldSize: options.bodyLimit },
    });
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
      this.docs.serve(req, res, route, this.baseUrl(requestFacts(req)));
      return {};
    }
    return this.serve(req, res, route, mount, this.queryOf(url.search), false);
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
      if (this.docs.serves(req.method, route)) return this.docs.serve(req, res, route, this.baseUrl(requestFacts(req)));
      await this.serve(req, res, route, prefix, this.queryOf(url.search), true);
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
      const query = this.queryOf(url.search);
      if (typeof query.rest_route === 'string') {
        const route = query.rest_route;
        delete query.rest_route;
        await this.serve(req, res, route, prefix, query, true);
        return;
      }
    }
    const facts = requestFacts(req);
    res.setHeader('Link', `<${this.baseUrl(facts)}${prefix}/>; rel="https://api.w.org/"`);
    if (this.options.serveSiteRoot && (req.method === 'GET' || req.method === 'HEAD')) {
      // A server that is only this API still answers its home page, so clients can discover the API from it.
      res.statusCode = 200;
      res.setHeader('Content-Type', 'application/json; charset=UTF-8');
      res.end(
        req.method === 'HEAD'
          ? undefined
          : JSON.stringify({ name: 'cms-api', api: `${this.baseUrl(facts)}${prefix}/` }),
      );
      return;
    }
    return next();
  }

  /** The parameters of a query string (`?a=1&b=2`, or without its `?`). */
  private queryOf(query: string): Record<string, unknown> {
    const search = query.charCodeAt(0) === 0x3f ? query.slice(1) : query;
    return simpleQuery(search) ?? parseQuery(search, QUERY_OPTIONS);
  }

  /**
   * One API request: `route` within the API (`/cms/v2/posts`), `mount` the API root's path (`/cms-json`). With
   * `answerUnexpected` an unexpected error is answered here with a 500; without, the caller throws it on.
   */
  private async serve(
    req: IncomingMessage,
    res: ServerResponse,
    rawRoute: string,
    mount: string,
    query: Record<string, unknown>,
    answerUnexpected: boolean,
  ): Promise<HttpOutcome> {
    const outcome = this.replicas
      ? await this.serveRouted(this.replicas, req, () =>
          this.serveRequest(req, res, rawRoute, mount, query, answerUnexpected),
        )
      : await this.serveRequest(req, res, rawRoute, mount, query, answerUnexpected);
    if (outcome.matchedRoute) markMatchedRoute(req, outcome.matchedRoute);
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

  private async serveRequest(
    req: IncomingMessage,
    res: ServerResponse,
    rawRoute: string,
    mount: string,
    query: Record<string, unknown>,
    answerUnexpected: boolean,
  ): Promise<HttpOutcome> {
    const facts = requestFacts(req);
    let route: string;
    try {
      route = decodeURIComponent(rawRoute).replace(/\/+$/, '') || '/';
    } catch {
      route = '/__invalid__';
    }
    const apiRoot = mount.replace(/^\/+/, '');
    const method = this.method(req, query);
    const origin = req.headers.origin;
    const baseUrl = this.baseUrl(facts);
    const ip = facts.ip;
    const crossOrigin = isCrossOrigin(req, baseUrl, facts);
    const temporary: string[] = [];
    try {
      // Every read sees the version stamps first (a query started after it arrived): caches of this node that hold
      // data another node changed are cleared before it runs (totals, options), and its answer may be cached.
      const stamps =
        this.cache.enabled && (method === 'GET' || method === 'HEAD') ? await this.cache.currentStamps() : undefined;
      const headers = lowerHeaders(req);
      const extraHeaders: Record<string, string> = {};
      const authenticate = (body: Record<string, unknown>) =>
        this.auth
          .authenticate({
            method,
            headers,
            query,
            body,
            cookies: parseCookies(req.headers.cookie),
            ip,
            crossOrigin,
            setResponseHeader: (name, value) => (extraHeaders[name] = value),
          })
          // The user is left on the request for the request log.
          .then((user) => markUser(req, user));
      let parsed: ParsedBody;
      let user: Awaited<ReturnType<typeof authenticate>>;
      const contentType = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
      // Whether the route takes files: looked up only for bodies that may be files (not on the GET path).
      const takesFiles = () => this.server.endpointFor(method, route)?.acceptsFiles === true;
      if (isMultipart(req) && !isPreParsed(req)) {
        // Files are read only by a route that takes them, and only once the caller is known: anything else is
        // refused before a byte of the body is read (the connection is closed rather than drained).
        try {
          const files = takesFiles();
          this.refuseDeclaredOverLimit(req, res, files);
          user = await authenticate({});
          if (!files) throw new RestException(...CoreErrors.multipartNotAccepted);
        } catch (error) {
          closeAfterResponse(req, res);
          throw error;
        }
        parsed = await this.parseMultipart(req, res);
        temporary.push(...parsed.files.map((f) => f.path));
      } else if (
        !PARAMETER_TYPES.has(contentType) &&
        BODY_METHODS.has((req.method ?? '').toUpperCase()) &&
        !isPreParsed(req) &&
        takesFiles()
      ) {
        // A raw upload: the caller first, then the body streamed to a temporary file within the upload limit.
        try {
          this.refuseDeclaredOverLimit(req, res, true);
          user = await authenticate({});
        } catch (error) {
          closeAfterResponse(req, res);
          throw error;
        }
        const file = await streamToTempFile(req, this.options.uploadLimit, () => closeAfterResponse(req, res));
        temporary.push(file.path);
        parsed = { body: {}, json: null, files: [], raw: null, rawFile: file.size ? file : null };
      } else {
        parsed = await this.parseBody(req, res);
        user = await authenticate(parsed.json ?? parsed.body);
      }
      // An anonymous read in view or embed context depends on public data only: its answer may come from the
      // response cache, and goes into it (see ResponseCache).
      const cacheKey =
        stamps &&
        user.id === 0 &&
        (req.method === 'GET' || req.method === 'HEAD') &&
        isPublicContext(query) &&
        !Object.keys(extraHeaders).length
          ? this.cache.keyOf(baseUrl, mount, route, query, this.options.wire)
          : undefined;
      if (cacheKey && stamps) {
        const found = this.cache.lookup(cacheKey, stamps);
        const hit = found instanceof Promise ? await found : found;
        if (hit) {
          this.write(res, req, baseUrl, mount, { status: hit.status, headers: hit.headers, data: null }, origin, hit);
          return { matchedRoute: hit.matchedRoute };
        }
        // A revalidation of an answer built under the same stamps: 304 without rows or a body.
        // The tag the client holds names the representation it has (identity or compressed): the 304 repeats it.
        const sent = noneMatchTag(req.headers['if-none-match'], this.cache.etagOf(cacheKey, stamps));
        if (sent) {
          this.writeNotModified(res, baseUrl, mount, origin, { ETag: sent });
          return {};
        }
      }
      const ctx = new RequestContext(user, this.caps, baseUrl, apiRoot, crossOrigin, ip, this.options.wire);
      if (cacheKey && stamps)
        ctx.embeddedAnswers = this.cache.embeddedAnswers(baseUrl, mount, this.options.wire, stamps, ctx.sources);
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
      if (req.headers['if-match'] !== undefined && method !== 'GET' && method !== 'HEAD' && method !== 'OPTIONS')
        await this.checkIfMatch(restReq, req.headers['if-match']);
      const served = await this.pipeline.serve(restReq);
      if (served.unexpected !== undefined && !answerUnexpected)
        return { matchedRoute: served.matchedRoute, unexpected: served.unexpected };
      const answer = { ...served, headers: { ...extraHeaders, ...served.headers } };
      const entry =
        cacheKey && stamps && served.status === 200 && storable(served.headers) && !ctx.sources.uncacheable
          ? this.cache.store(
              cacheKey,
              stamps,
              ctx.sources,
              served.status,
              served.headers,
              toJsonBytes(served.data),
              served.matchedRoute,
            )
          : undefined;
      this.write(res, req, baseUrl, mount, answer, origin, entry);
      return { matchedRoute: served.matchedRoute };
    } catch (error) {
      const response = this.server.errorToResponse(error);
      if (response.unexpected !== undefined && !answerUnexpected) return { unexpected: response.unexpected };
      this.write(
        res,
        req,
        baseUrl,
        mount,
        { status: response.status, headers: response.headers, data: response.data },
        origin,
      );
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
    const facts = requestFacts(req);
    const headers = this.apiHeaders(this.baseUrl(facts), `/${this.options.routePrefix}`, req.headers.origin);
    for (const name in headers) if (!res.headersSent) res.setHeader(name, headers[name]);
  }

  private baseUrl(facts: RequestFacts): string {
    return this.options.baseUrl ?? `${facts.protocol}://${facts.host}`;
  }

  /** `_method` in the query wins, then `X-HTTP-Method-Override`. */
  private method(req: IncomingMessage, query: Record<string, unknown>): string {
    const header = req.headers['x-http-method-override'];
    const override = typeof query._method === 'string' ? query._method : Array.isArray(header) ? header[0] : header;
    return (override || req.method || 'GET').toUpperCase();
  }

  private async parseBody(
    req: IncomingMessage & { body?: unknown; files?: unknown },
    res: ServerResponse,
  ): Promise<ParsedBody> {
    if (!BODY_METHODS.has((req.method ?? 'GET').toUpperCase()) && !Number(req.headers['content-length']))
      return { body: {}, json: null, files: [], raw: null };
    const empty: ParsedBody = { body: {}, json: null, files: [], raw: null };
    const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
    // A host app's body parser may have consumed the body already (the stream has ended).
    const preParsed = isPreParsed(req);
    if (type === 'multipart/form-data' && preParsed)
      return { ...empty, body: (req.body as Record<string, unknown>) ?? {} };
    if (preParsed) {
      const body = (req.body ?? {}) as Record<string, unknown>;
      return type === 'application/json' ? { ...empty, json: body } : { ...empty, body };
    }
    this.refuseDeclaredOverLimit(req, res);
    const raw = await readBody(req, this.options.bodyLimit, () => closeAfterResponse(req, res));
    if (!raw.length) return empty;
    if (type === 'application/json') {
      try {
        const json: unknown = JSON.parse(raw.toString('utf8'));
        return {
          ...empty,
          raw,
          json: json && typeof json === 'object' && !Array.isArray(json) ? (json as Record<string, unknown>) : {},
        };
      } catch {
        throw new RestException(...CoreErrors.invalidJson);
      }
    }
    if (type === '' || type === 'application/x-www-form-urlencoded') {
      return { ...empty, raw, body: parseQuery(raw.toString('utf8'), QUERY_OPTIONS) };
    }
    return { ...empty, raw };
  }

  /** A body whose declared length passes the limit is refused before it is read. */
  private refuseDeclaredOverLimit(req: IncomingMessage, res: ServerResponse, upload = false): void {
    const limit = upload ? this.options.uploadLimit : this.options.bodyLimit;
    if (Number(req.headers['content-length'] ?? 0) > limit) {
      closeAfterResponse(req, res);
      throw upload ? uploadTooLarge(this.options.uploadLimit) : new RestException(...CoreErrors.tooLarge);
    }
  }

  /**
   * Reads a multipart body within the body limit (counted on the wire, whatever the parts declare) and
   * {@link MULTIPART_LIMITS}; past any of them the read stops and the request is refused with 413.
   */
  private async parseMultipart(
    req: IncomingMessage & { body?: unknown; files?: unknown },
    res: ServerResponse,
  ): Promise<ParsedBody> {
    // An upload and the fields that come with it, counted on the wire.
    const limit = this.options.uploadLimit;
    await new Promise<void>((resolve, reject) => {
      let settled = false;
      let received = 0;
      const fail = (error: RestException) => {
        if (settled) return;
        settled = true;
        closeAfterResponse(req, res);
        req.unpipe();
        reject(error);
      };
      const count = (chunk: Buffer) => {
        received += chunk.length;
        if (received > limit) {
          req.off('data', count);
          fail(uploadTooLarge(this.options.uploadLimit));
        }
      };
      req.on('data', count);
      this.upload.any()(req as Request, res as never, (err: unknown) => {
        req.off('data', count);
        if (err) {
          // Parts written before the failure are removed.
          for (const f of (req.files as Express.Multer.File[] | undefined) ?? [])
            void rm(f.path, { force: true }).catch(() => undefined);
          return fail(
            (err as { code?: string }).code === 'LIMIT_FILE_SIZE'
              ? uploadTooLarge(this.options.uploadLimit)
              : multipartError(err),
          );
        }
        if (!settled) {
          settled = true;
          resolve();
        }
      });
    });
    const files = ((req.files as Express.Multer.File[] | undefined) ?? []).map((f) => ({
      fieldName: f.fieldname,
      originalName: f.originalname,
      mimeType: f.mimetype,
      size: f.size,
      path: f.path,
    }));
    // Multer reads bracketed field names (`categories[]`, `meta[key]`) into nested values itself.
    return { body: { ...((req.body as Record<string, unknown>) ?? {}) }, json: null, files, raw: null };
  }

  /** The headers every API response carries: JSON, no-cache, nosniff, discovery, CORS for a browser origin. */
  private apiHeaders(baseUrl: string, mount: string, origin: string | undefined): Record<string, string> {
    const headers: Record<string, string> = {
      'Content-Type': 'application/json; charset=UTF-8',
      'X-Robots-Tag': 'noindex',
      Link: `<${baseUrl}${mount}/>; rel="https://api.w.org/"`,
      'X-Content-Type-Options': 'nosniff',
      'Access-Control-Expose-Headers': this.options.wire.corsExposeHeaders,
      'Access-Control-Allow-Headers': this.options.wire.corsAllowHeaders,
      Expires: 'Wed, 11 Jan 1984 05:00:00 GMT',
      'Cache-Control': 'no-cache, must-revalidate, max-age=0',
    };
    if (origin) {
      headers['Access-Control-Allow-Origin'] = origin;
      headers['Access-Control-Allow-Methods'] = 'OPTIONS, GET, POST, PUT, PATCH, DELETE';
      headers['Access-Control-Allow-Credentials'] = 'true';
      headers.Vary = 'Origin';
    }
    return headers;
  }

  /**
   * Writes an answer with the API's headers. A successful read carries a strong `ETag` (the cached answer's, else the
   * body's SHA-1) and is answered `304` without a body when `If-None-Match` names it.
   */
  private write(
    res: ServerResponse,
    req: IncomingMessage,
    baseUrl: string,
    mount: string,
    served: Pick<ServedResponse, 'status' | 'headers' | 'data'>,
    origin: string | undefined,
    cached?: Pick<CachedAnswer, 'body' | 'etag' | 'encodedBody'>,
  ): void {
    const headers = this.apiHeaders(baseUrl, mount, origin);
    for (const name in served.headers) {
      // A response header replaces a default of the same name, whatever its case (names differing in length differ).
      if (!(name in headers)) {
        const lower = name.toLowerCase();
        for (const existing in headers)
          if (existing.length === name.length && existing.toLowerCase() === lower) delete headers[existing];
      }
      headers[name] = served.headers[name];
    }
    const read = served.status === 200 && (req.method === 'GET' || req.method === 'HEAD');
    if (req.method === 'HEAD' && !read) {
      res.writeHead(served.status, headers);
      res.end();
      return;
    }
    // Encoded once here (prepared items once for all requests): its length is the header, and the socket takes the
    // bytes as they are.
    const body = cached?.body ?? toJsonBytes(served.data);
    const coding = this.codingFor(req, headers, body.length);
    if (read) {
      // One validator per representation; If-None-Match with any of them is a 304.
      const identity = cached?.etag ?? bodyEtag(body);
      headers.ETag = coding ? encodedEtag(identity, coding) : identity;
      if (noneMatchHits(req.headers['if-none-match'], identity)) {
        const { 'Content-Type': _type, ...rest } = headers;
        res.writeHead(304, rest);
        res.end();
        return;
      }
    }
    let out = body;
    if (coding) {
      out = cached ? cached.encodedBody(coding, (b) => compressBody(b, coding)) : compressBody(body, coding);
      headers['Content-Encoding'] = coding;
    }
    headers['Content-Length'] = String(out.length);
    res.writeHead(served.status, headers);
    if (req.method === 'HEAD') res.end();
    else res.end(out);
  }

  /**
   * The coding of an answer's body when compression is on (see {@link compressBody}): `Vary: Accept-Encoding` is
   * added to the headers, and a body of at least the threshold is compressed when the client accepts it. HEAD
   * answers describe the identity body.
   */
  private codingFor(req: IncomingMessage, headers: Record<string, string>, length: number): ContentCoding | undefined {
    const compression = this.options.compression;
    if (!compression) return undefined;
    headers.Vary = varyOnEncoding(headers.Vary);
    if (length < compression.threshold || req.method === 'HEAD') return undefined;
    for (const name in headers) if (name.length === 16 && name.toLowerCase() === 'content-encoding') return undefined;
    return negotiateEncoding(req.headers['accept-encoding']);
  }

  /** `304 Not Modified` for a revalidated read: the API's headers and the validators, no body. */
  private writeNotModified(
    res: ServerResponse,
    baseUrl: string,
    mount: string,
    origin: string | undefined,
    validators: Record<string, string>,
  ): void {
    const { 'Content-Type': _type, ...headers } = this.apiHeaders(baseUrl, mount, origin);
    if (this.options.compression) headers.Vary = varyOnEncoding(headers.Vary);
    res.writeHead(304, { ...headers, ...validators });
    res.end();
  }

  /**
   * `If-Match` on a write: the target's current representation — a GET of the same route by the same caller, in
   * `edit` or `view` context — must carry one of the ETags given, or the write is refused with `412` before it
   * runs, so that two editors do not overwrite each other. When the caller cannot read the target at all, the
   * write's own checks answer (404, 401/403).
   */
  private async checkIfMatch(restReq: RestRequest, header: string): Promise<void> {
    let readable = false;
    for (const context of ['edit', 'view']) {
      const get = new RestRequest(
        {
          method: 'GET',
          route: restReq.route,
          query: { context },
          body: {},
          json: null,
          files: [],
          headers: {},
          rawBody: null,
          rawFile: null,
        },
        restReq.ctx,
      );
      const served = await this.pipeline.serve(get);
      if (served.status !== 200) continue;
      readable = true;
      if (matchHits(header, bodyEtag(toJsonBytes(served.data)))) return;
    }
    if (readable)
      throw new RestException(
        'rest_precondition_failed',
        'The resource has changed since the ETag given in If-Match was sent.',
        412,
      );
  }
}

/** Whether a read asks for the `view` or `embed` context (or none: `view`). */
function isPublicContext(query: Record<string, unknown>): boolean {
  return query.context === undefined || query.context === 'view' || query.context === 'embed';
}

const UPPER_CASE = /[A-Z]/;

function lowerHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  const headers = req.headers;
  // Node gives the names in lower case already; a host app's request object may not.
  for (const k in headers) {
    const v = headers[k];
    if (v !== undefined) out[UPPER_CASE.test(k) ? k.toLowerCase() : k] = Array.isArray(v) ? v.join(',') : v;
  }
  return out;
}

/** A browser request from a page of another origin (the `Origin` header names a different site). */
function isCrossOrigin(req: IncomingMessage, baseUrl: string, facts: RequestFacts): boolean {
  const origin = req.headers.origin;
  if (req.headers['sec-fetch-site'] === 'cross-site') return true;
  if (!origin) return false;
  try {
    const own = new URL(baseUrl).origin;
    const host = `${facts.protocol}://${facts.host}`;
    return origin !== own && origin !== host;
  } catch {
    return true;
  }
}

export function parseCookies(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (header ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i < 0) continue;
    try {
      out[part.slice(0, i).trim()] = decodeURIComponent(part.slice(i + 1).trim());
    } catch {
      out[part.slice(0, i).trim()] = part.slice(i + 1).trim();
    }
  }
  return out;
}

function isMultipart(req: IncomingMessage): boolean {
  return /^multipart\/form-data\s*(;|$)/i.test(req.headers['content-type'] ?? '');
}

/** Whether a host app's body parser consumed the body already (the stream has ended). */
function isPreParsed(req: IncomingMessage): boolean {
  return req.readableEnded || (req as { _body?: boolean })._body === true;
}

/**
 * Ends the connection once the response is sent, so the rest of a refused body is not read (Node would otherwise
 * read and discard it to keep the connection alive).
 */
function closeAfterResponse(req: IncomingMessage, res: ServerResponse): void {
  if (res.getHeader('Connection') === 'close') return;
  res.shouldKeepAlive = false;
  res.setHeader('Connection', 'close');
  lingerOnClose(req);
}

/** How long, and how much, a refused body is still read and dropped after the answer went out. */
const LINGER_MS = 2000;
const LINGER_BYTES = 16 * 1024 * 1024;

/**
 * A lingering close, as Apache and nginx do it: once the answer is written the server closes its side for
 * writing, then reads and drops what the client is still sending, for at most {@link LINGER_MS} and
 * {@link LINGER_BYTES}, before it lets the socket go. Closing at once would answer the client's next bytes with a
 * TCP reset, and a reset makes the client's stack drop the answer it has not read yet: a client uploading a file
 * over the limit would see "connection reset" instead of the 413.
 */
function lingerOnClose(req: IncomingMessage): void {
  const socket = req.socket;
  // Node calls destroySoon() when a `Connection: close` answer has finished.
  socket.destroySoon = function lingeringClose(this: Socket): void {
    if (this.writable) this.end();
    let dropped = 0;
    const stop = () => {
      clearTimeout(timer);
      this.destroy();
    };
    const timer = setTimeout(stop, LINGER_MS);
    timer.unref();
    this.on('data', (chunk: Buffer) => {
      dropped += chunk.length;
      if (dropped > LINGER_BYTES) stop();
    });
    this.once('end', stop);
    this.once('close', () => clearTimeout(timer));
    req.removeAllListeners('data');
    req.resume();
    this.resume();
  };
}

/** Reads a body of at most `limit` bytes; past it, stops reading, calls `refused` and rejects with 413. */
function readBody(req: IncomingMessage, limit: number, refused: () => void): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.removeAllListeners('data');
        req.pause();
        refused();
        reject(new RestException(...CoreErrors.tooLarge));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** The directory of uploads being received (the system's temporary directory). */
function uploadTempDir(): string {
  const dir = join(tmpdir(), 'cms-api-uploads');
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** A body over the upload limit. */
function uploadTooLarge(limit: number): RestException {
  return new RestException(
    'rest_upload_too_large',
    `The file is larger than this site accepts (${limit} bytes).`,
    413,
    { max_bytes: limit },
  );
}

/**
 * Streams a request body to a new temporary file, counting bytes on the wire: past `limit` the read stops, the
 * partial file is removed and the request is refused with 413.
 */
function streamToTempFile(
  req: IncomingMessage,
  limit: number,
  refused: () => void,
): Promise<{ path: string; size: number }> {
  const path = join(uploadTempDir(), `${randomUUID()}.upload`);
  return new Promise((resolve, reject) => {
    const out = createWriteStream(path, { flags: 'wx', mode: 0o600 });
    let size = 0;
    let failed = false;
    const fail = (error: unknown) => {
      if (failed) return;
      failed = true;
      req.unpipe(out);
      out.destroy();
      void rm(path, { force: true }).catch(() => undefined);
      reject(error);
    };
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.pause();
        refused();
        fail(uploadTooLarge(limit));
      }
    });
    req.on('error', fail);
    out.on('error', fail);
    out.on('finish', () => !failed && resolve({ path, size }));
    req.pipe(out);
  });
}

function multipartError(err: unknown): RestException {
  const code = (err as { code?: string }).code;
  if (code === 'LIMIT_FILE_SIZE') return new RestException(...CoreErrors.tooLarge);
  if (typeof code === 'string' && code.startsWith('LIMIT_')) return new RestException(...CoreErrors.multipartTooLarge);
  return new RestException(
    'rest_invalid_multipart',
    `The multipart body could not be read: ${(err as Error).message}`,
    400,
  );
}
