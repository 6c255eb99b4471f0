import { Inject, Injectable } from '@nestjs/common';
import { CMS_OPTIONS, ResolvedCmsOptions } from '../config/cms-options';
import type { CurrentUser } from '../auth/current-user';
import type { RequestContext } from '../auth/request-context';
import { CachedAnswer, noneMatchTag, ResponseCache, storable } from '../cache/response-cache';
import type { Stamps } from '../database/version-stamps';
import { toJsonBytes } from '../rest/json-text';
import type { ServedResponse } from '../rest/rest-server.service';
import type { HttpExchange, HttpOutcome } from './http-exchange';
import { ResponseWriter } from './response-writer';

/** A read whose answer may come from the response cache and go into it: its key and the stamps it saw first. */
export interface CacheTicket {
  key: string;
  stamps: Stamps;
}

/** The request a ticket is asked for: its method, route and query, its caller and the headers it set already. */
export interface CacheCandidate {
  method: string;
  route: string;
  query: Record<string, unknown>;
  user: CurrentUser;
  /** Response headers the request set before it was served (authentication's): such an answer is the caller's. */
  ownHeaders: Record<string, string>;
}

/**
 * The cache gate in front of the dispatcher (see ResponseCache): the version stamps a read sees first, the answer
 * kept for an anonymous read in a public context (or `304` for its revalidation), and the answer kept once served.
 */
@Injectable()
export class CacheGate {
  constructor(
    private readonly cache: ResponseCache,
    private readonly writer: ResponseWriter,
    @Inject(CMS_OPTIONS) private readonly options: ResolvedCmsOptions,
  ) {}

  /**
   * The version stamps a read sees before anything else (a query started after it arrived): caches of this node that
   * hold data another node changed are cleared before it runs (totals, options), and its answer may be cached.
   */
  stampsFor(method: string): Promise<Stamps> | undefined {
    return this.cache.enabled && (method === 'GET' || method === 'HEAD') ? this.cache.currentStamps() : undefined;
  }

  /**
   * The ticket of a read that depends on public data only: an anonymous GET or HEAD in the `view` or `embed`
   * context, which set no header of its own.
   */
  ticket(exchange: HttpExchange, stamps: Stamps | undefined, candidate: CacheCandidate): CacheTicket | undefined {
    const { method, route, query, user, ownHeaders } = candidate;
    if (!stamps || user.id !== 0 || (method !== 'GET' && method !== 'HEAD') || !isPublicContext(query)) return;
    for (const _name in ownHeaders) return;
    return { key: this.cache.keyOf(exchange.baseUrl, exchange.mount, route, query, this.options.wire), stamps };
  }

  /**
   * Answers a read from the cache when it can: the answer kept under the same stamps, or `304` without rows or a
   * body for the revalidation of an answer built under them (the tag the client holds names the representation it
   * has, identity or compressed: the 304 repeats it). `undefined` when the read must be served.
   */
  async answer(exchange: HttpExchange, ticket: CacheTicket): Promise<HttpOutcome | undefined> {
    const found = this.cache.lookup(ticket.key, ticket.stamps);
    const hit = found instanceof Promise ? await found : found;
    if (hit) {
      this.writer.write(exchange, { status: hit.status, headers: hit.headers, data: null }, hit);
      return { matchedRoute: hit.matchedRoute };
    }
    const sent = noneMatchTag(exchange.req.headers['if-none-match'], this.cache.etagOf(ticket.key, ticket.stamps));
    if (!sent) return undefined;
    this.writer.writeNotModified(exchange, { ETag: sent });
    return {};
  }

  /** Gives the request's `_embed` sub-requests the answers kept under the ticket's stamps. */
  open(exchange: HttpExchange, ticket: CacheTicket, ctx: RequestContext): void {
    const { baseUrl, mount } = exchange;
    ctx.embeddedAnswers = this.cache.embeddedAnswers(baseUrl, mount, this.options.wire, ticket.stamps, ctx.sources);
  }

  /** Keeps a successful answer that may be kept; the entry kept, for the writer to send its body and tag. */
  keep(ticket: CacheTicket, ctx: RequestContext, served: ServedResponse): CachedAnswer | undefined {
    if (served.status !== 200 || !storable(served.headers) || ctx.sources.uncacheable) return undefined;
    return this.cache.store(ticket.key, ticket.stamps, ctx.sources, {
      status: served.status,
      headers: served.headers,
      body: toJsonBytes(served.data),
      matchedRoute: served.matchedRoute,
    });
  }
}

/** Whether a read asks for the `view` or `embed` context (or none: `view`). */
function isPublicContext(query: Record<string, unknown>): boolean {
  return query.context === undefined || query.context === 'view' || query.context === 'embed';
}
