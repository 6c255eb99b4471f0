import type { IncomingMessage, ServerResponse } from 'node:http';
import { Inject, Injectable, NestMiddleware } from '@nestjs/common';
import type { Request } from 'express';
import multer from 'multer';
import { parse as parseQuery } from 'qs';
import { CMS_OPTIONS, ResolvedCmsOptions } from '../../cms-options';
import { AuthenticationService } from '../auth/authentication.service';
import { CapabilityService } from '../auth/capability.service';
import { RequestContext } from '../auth/request-context';
import { toJsonBytes } from '../rest/json-text';
import { RestRequest, UploadedFile } from '../rest/rest-request';
import { RestServer, ServedResponse } from '../rest/rest-server.service';
import { CoreErrors } from './error-codes';
import { RequestFacts, requestFacts } from './request-facts';
import { RestException } from './rest.exception';
import { simpleQuery } from './simple-query';

const QUERY_OPTIONS = { depth: 5, arrayLimit: 1000, parameterLimit: 2000 };
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

interface ParsedBody {
  body: Record<string, unknown>;
  json: Record<string, unknown> | null;
  files: UploadedFile[];
  raw: Buffer | null;
}

/**
 * The HTTP front of the API. It answers requests under `/{prefix}/…` and the `/?rest_route=/…` form: parses the
 * query (PHP-style bracket keys), the body (JSON, urlencoded, multipart), applies method overrides, authenticates,
 * hands the request to the RestServer and writes the response with the API's headers (no-cache, nosniff,
 * discovery, CORS). Every other response of the site gets the API discovery `Link` header.
 */
@Injectable()
export class RestHttpMiddleware implements NestMiddleware {
  private readonly upload: ReturnType<typeof multer>;

  constructor(
    private readonly server: RestServer,
    private readonly auth: AuthenticationService,
    private readonly caps: CapabilityService,
    @Inject(CMS_OPTIONS) private readonly options: ResolvedCmsOptions,
  ) {
    this.upload = multer({ storage: multer.memoryStorage(), limits: { fileSize: options.bodyLimit, fields: 1000, files: 20 } });
  }

  /**
   * Whether a request is for the API by its path alone (`/{prefix}` and below): a server can hand those to
   * {@link use} before any other routing. The `?rest_route=` form is recognised by `use` itself.
   */
  isApiPath(url: string): boolean {
    const prefix = `/${this.options.routePrefix}`;
    if (!url.startsWith(prefix)) return false;
    const next = url.charAt(prefix.length);
    return next === '' || next === '/' || next === '?';
  }

  async use(req: IncomingMessage, res: ServerResponse, next: () => void): Promise<void> {
    const url = new URL((req as Partial<Request>).originalUrl ?? req.url ?? '/', 'http://localhost');
    const prefix = `/${this.options.routePrefix}`;
    const facts = requestFacts(req);
    const search = url.search.replace(/^\?/, '');
    const query = (simpleQuery(search) ?? parseQuery(search, QUERY_OPTIONS)) as Record<string, unknown>;
    let route: string;
    if (url.pathname === prefix || url.pathname.startsWith(`${prefix}/`)) {
      route = url.pathname.slice(prefix.length);
    } else if (typeof query.rest_route === 'string' && (url.pathname === '/' || url.pathname === '')) {
      route = query.rest_route;
      delete query.rest_route;
    } else {
      res.setHeader('Link', `<${this.baseUrl(facts)}${prefix}/>; rel="https://api.w.org/"`);
      if (this.options.serveSiteRoot && url.pathname === '/' && (req.method === 'GET' || req.method === 'HEAD')) {
        // A server that is only this API still answers its home page, so clients can discover the API from it.
        res.statusCode = 200;
        res.setHeader('Content-Type', 'application/json; charset=UTF-8');
        res.end(req.method === 'HEAD' ? undefined : JSON.stringify({ name: 'cms-api', api: `${this.baseUrl(facts)}${prefix}/` }));
        return;
      }
      return next();
    }
    try {
      route = decodeURIComponent(route).replace(/\/+$/, '') || '/';
    } catch {
      route = '/__invalid__';
    }

    const method = this.method(req, query);
    const origin = req.headers.origin;
    const baseUrl = this.baseUrl(facts);
    const ip = facts.ip;
    const crossOrigin = isCrossOrigin(req, baseUrl, facts);
    try {
      const parsed = await this.parseBody(req, res);
      const headers = lowerHeaders(req);
      const extraHeaders: Record<string, string> = {};
      const user = await this.auth.authenticate({
        method,
        headers,
        query,
        body: parsed.json ?? parsed.body,
        cookies: parseCookies(req.headers.cookie),
        ip,
        crossOrigin,
        setResponseHeader: (name, value) => (extraHeaders[name] = value),
      });
      const ctx = new RequestContext(user, this.caps, baseUrl, this.options.routePrefix, crossOrigin, ip);
      const restReq = new RestRequest(
        { method, route, query, body: parsed.body, json: parsed.json, files: parsed.files, headers, rawBody: parsed.raw },
        ctx,
      );
      const served = await this.server.serve(restReq);
      this.write(res, req, baseUrl, { ...served, headers: { ...extraHeaders, ...served.headers } }, origin);
    } catch (error) {
      const response = this.server.errorToResponse(error);
      this.write(res, req, baseUrl, { status: response.status, headers: response.headers, data: response.data }, origin);
    }
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

  private async parseBody(req: IncomingMessage & { body?: unknown; files?: unknown }, res: ServerResponse): Promise<ParsedBody> {
    const empty: ParsedBody = { body: {}, json: null, files: [], raw: null };
    const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
    if (!BODY_METHODS.has((req.method ?? 'GET').toUpperCase()) && !Number(req.headers['content-length'])) return empty;
    // A host app's body parser may have consumed the body already (the stream has ended).
    const preParsed = req.readableEnded || (req as { _body?: boolean })._body === true;
    if (type === 'multipart/form-data') {
      if (preParsed) return { ...empty, body: (req.body as Record<string, unknown>) ?? {} };
      await new Promise<void>((resolve, reject) =>
        this.upload.any()(req as Request, res as never, (err: unknown) => (err ? reject(multipartError(err)) : resolve())),
      );
      const files = ((req.files as Express.Multer.File[] | undefined) ?? []).map((f) => ({
        fieldName: f.fieldname,
        originalName: f.originalname,
        mimeType: f.mimetype,
        size: f.size,
        buffer: f.buffer,
      }));
      // Multer reads bracketed field names (`categories[]`, `meta[key]`) into nested values itself.
      return { body: { ...((req.body as Record<string, unknown>) ?? {}) }, json: null, files, raw: null };
    }
    if (preParsed) {
      const body = (req.body ?? {}) as Record<string, unknown>;
      return type === 'application/json' ? { ...empty, json: body } : { ...empty, body };
    }
    const raw = await readBody(req, this.options.bodyLimit);
    if (!raw.length) return empty;
    if (type === 'application/json') {
      try {
        const json: unknown = JSON.parse(raw.toString('utf8'));
        return { ...empty, raw, json: json && typeof json === 'object' && !Array.isArray(json) ? (json as Record<string, unknown>) : {} };
      } catch {
        throw new RestException(...CoreErrors.invalidJson);
      }
    }
    if (type === '' || type === 'application/x-www-form-urlencoded') {
      return { ...empty, raw, body: parseQuery(raw.toString('utf8'), QUERY_OPTIONS) as Record<string, unknown> };
    }
    return { ...empty, raw };
  }

  private write(res: ServerResponse, req: IncomingMessage, baseUrl: string, served: ServedResponse, origin: string | undefined): void {
    const headers: Record<string, string> = {
      'Content-Type': 'application/json; charset=UTF-8',
      'X-Robots-Tag': 'noindex',
      Link: `<${baseUrl}/${this.options.routePrefix}/>; rel="https://api.w.org/"`,
      'X-Content-Type-Options': 'nosniff',
      'Access-Control-Expose-Headers': 'X-CMS-Total, X-CMS-TotalPages, Link',
      'Access-Control-Allow-Headers': 'Authorization, X-CMS-Nonce, Content-Disposition, Content-MD5, Content-Type',
      Expires: 'Wed, 11 Jan 1984 05:00:00 GMT',
      'Cache-Control': 'no-cache, must-revalidate, max-age=0',
    };
    if (origin) {
      headers['Access-Control-Allow-Origin'] = origin;
      headers['Access-Control-Allow-Methods'] = 'OPTIONS, GET, POST, PUT, PATCH, DELETE';
      headers['Access-Control-Allow-Credentials'] = 'true';
      headers.Vary = 'Origin';
    }
    for (const name in served.headers) {
      // A response header replaces a default of the same name, whatever its case.
      const lower = name.toLowerCase();
      for (const existing in headers) if (existing !== name && existing.toLowerCase() === lower) delete headers[existing];
      headers[name] = served.headers[name];
    }
    if (req.method === 'HEAD') {
      res.writeHead(served.status, headers);
      res.end();
      return;
    }
    // Encoded once here (prepared items once for all requests): its length is the header, and the socket takes the
    // bytes as they are.
    const body = toJsonBytes(served.data);
    headers['Content-Length'] = String(body.length);
    res.writeHead(served.status, headers);
    res.end(body);
  }
}

function lowerHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(',') : v;
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

function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > limit) {
      req.resume();
      reject(new RestException(...CoreErrors.tooLarge));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.removeAllListeners('data');
        req.resume();
        reject(new RestException(...CoreErrors.tooLarge));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function multipartError(err: unknown): RestException {
  const code = (err as { code?: string }).code;
  if (code === 'LIMIT_FILE_SIZE') return new RestException(...CoreErrors.tooLarge);
  return new RestException('rest_invalid_multipart', `The multipart body could not be read: ${(err as Error).message}`, 400);
}
