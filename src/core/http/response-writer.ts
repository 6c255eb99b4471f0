import type { IncomingMessage, ServerResponse } from 'node:http';
import { Inject, Injectable } from '@nestjs/common';
import { CMS_OPTIONS, ResolvedCmsOptions } from '../config/cms-options';
import { bodyEtag, CachedAnswer, encodedEtag, noneMatchHits } from '../cache/response-cache';
import { toJsonBytes } from '../rest/json-text';
import type { ServedResponse } from '../rest/rest-server.service';
import { compressBody, ContentCoding, negotiateEncoding, varyOnEncoding } from './compression';
import type { HttpExchange } from './http-exchange';
import { RequestFacts, requestFacts } from './request-facts';

/** An answer to write: status, headers and the data to encode as JSON. */
export type WrittenAnswer = Pick<ServedResponse, 'status' | 'headers' | 'data'>;

/**
 * The response writer: an API answer with the API's headers (JSON, no-cache, nosniff, discovery, CORS), its strong
 * `ETag` and `304` on a matching `If-None-Match`, and the body compressed where the client accepts it.
 */
@Injectable()
export class ResponseWriter {
  constructor(@Inject(CMS_OPTIONS) private readonly options: ResolvedCmsOptions) {}

  /** The site's base URL: the configured one, else the request's own scheme and host. */
  baseUrl(facts: RequestFacts): string {
    return this.options.baseUrl ?? `${facts.protocol}://${facts.host}`;
  }

  /**
   * Writes an answer with the API's headers. A successful read carries a strong `ETag` (the cached answer's, else the
   * body's SHA-1) and is answered `304` without a body when `If-None-Match` names it.
   */
  write(
    exchange: HttpExchange,
    served: WrittenAnswer,
    cached?: Pick<CachedAnswer, 'body' | 'etag' | 'encodedBody'>,
  ): void {
    const { req, res } = exchange;
    const headers = this.apiHeaders(exchange);
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

  /** `304 Not Modified` for a revalidated read: the API's headers and the validators, no body. */
  writeNotModified(exchange: HttpExchange, validators: Record<string, string>): void {
    const { 'Content-Type': _type, ...headers } = this.apiHeaders(exchange);
    if (this.options.compression) headers.Vary = varyOnEncoding(headers.Vary);
    exchange.res.writeHead(304, { ...headers, ...validators });
    exchange.res.end();
  }

  /**
   * Writes the API's headers without a body: for an error the host's exception filters answer (CORS and no-cache
   * hold for it too).
   */
  writeHeadersOnly(res: ServerResponse, req: IncomingMessage): void {
    const mount = `/${this.options.routePrefix}`;
    const headers = this.apiHeaders({
      req,
      res,
      baseUrl: this.baseUrl(requestFacts(req)),
      mount,
      origin: req.headers.origin,
    });
    for (const name in headers) if (!res.headersSent) res.setHeader(name, headers[name]);
  }

  /**
   * The headers every API response carries: JSON, nosniff, discovery, CORS for a browser origin, and no-cache (to
   * every caller, or, as the dialect says, to logged-in callers only, as WordPress sends them).
   */
  private apiHeaders({ baseUrl, mount, origin, loggedIn }: HttpExchange): Record<string, string> {
    const headers: Record<string, string> = {
      'Content-Type': 'application/json; charset=UTF-8',
      'X-Robots-Tag': 'noindex',
      Link: `<${baseUrl}${mount}/>; rel="https://api.w.org/"`,
      'X-Content-Type-Options': 'nosniff',
      'Access-Control-Expose-Headers': this.options.wire.corsExposeHeaders,
      'Access-Control-Allow-Headers': this.options.wire.corsAllowHeaders,
    };
    if (loggedIn || this.options.wire.dialect.noCacheHeadersFor === 'everyone') {
      headers.Expires = 'Wed, 11 Jan 1984 05:00:00 GMT';
      headers['Cache-Control'] = 'no-cache, must-revalidate, max-age=0';
    }
    if (origin) {
      headers['Access-Control-Allow-Origin'] = origin;
      headers['Access-Control-Allow-Methods'] = 'OPTIONS, GET, POST, PUT, PATCH, DELETE';
      headers['Access-Control-Allow-Credentials'] = 'true';
      headers.Vary = 'Origin';
    }
    return headers;
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
}
