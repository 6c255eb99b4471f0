import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import { from, lastValueFrom, mergeMap, Observable } from 'rxjs';
import { HookRegistry } from '../hooks/hook-registry.service';
import { Embedder, parseEmbedParam } from './embedder.service';
import { filterFields } from './fields';
import { RestRequest } from './rest-request';
import type { RestResponse } from './rest-response';
import { RestServer, ServedResponse } from './rest-server.service';

/** The context type interceptors and guards see for an API handler (`context.getType()`). */
const REST_CONTEXT_TYPE = 'cms-rest';

/**
 * The response pipeline of a top-level API request, as one Nest interceptor around the dispatch: the `Allow`
 * header, `rest_post_dispatch`, `_links`, `_embed`, `_fields` and `_envelope`. Context filtering, item links and
 * pagination headers are made by the resource as it prepares its response (so prepared JSON can be reused
 * untouched). `_embed` sub-requests go through the dispatcher alone: their guards run, this interceptor does not.
 * One interceptor, called directly (no `AsyncResource` per request, as Nest's consumer adds).
 */
@Injectable()
export class RestResponseInterceptor implements NestInterceptor<RestResponse, ServedResponse> {
  constructor(
    private readonly server: RestServer,
    private readonly embedder: Embedder,
    private readonly hooks: HookRegistry,
  ) {}

  /**
   * Serves a top-level request: dispatch, then this interceptor's pipeline. The same steps as {@link intercept},
   * without an observable in between (the API's own hot path).
   */
  async serve(req: RestRequest): Promise<ServedResponse> {
    req.itemsAsText =
      req.query._fields === undefined && req.query._envelope === undefined && !this.hooks.hasHook('rest_post_dispatch');
    return this.finish(await this.server.dispatch(req), req);
  }

  /** As a Nest interceptor around anything that dispatches a `RestRequest` (argument 0) to a `RestResponse`. */
  intercept(context: ExecutionContext, next: CallHandler<RestResponse>): Observable<ServedResponse> {
    const req = context.getArgByIndex<RestRequest>(0);
    return next.handle().pipe(mergeMap((response) => this.finish(response, req)));
  }

  /** `serve` through {@link intercept}, as Nest runs an interceptor (for tests and hosts that compose it). */
  serveIntercepted(req: RestRequest): Promise<ServedResponse> {
    req.itemsAsText =
      req.query._fields === undefined && req.query._envelope === undefined && !this.hooks.hasHook('rest_post_dispatch');
    const context = new ExecutionContextHost([req], RestServer, this.serve);
    context.setType(REST_CONTEXT_TYPE);
    return lastValueFrom(this.intercept(context, { handle: () => from(this.server.dispatch(req)) }));
  }

  private async finish(dispatched: RestResponse, req: RestRequest): Promise<ServedResponse> {
    await this.server.addAllowHeader(dispatched, req);
    const response: RestResponse = await this.hooks.applyFilters('rest_post_dispatch', dispatched, req);
    const embed = parseEmbedParam(req.query._embed);
    let data = await this.embedder.responseToData(response, embed, req.ctx, req.itemsAsText);
    const fields = req.query._fields;
    if (fields !== undefined && !response.isError) data = filterFields(data, fields, embed !== false);
    const outcome = { matchedRoute: response.matchedRoute, unexpected: response.unexpected };
    if (req.query._envelope !== undefined) {
      return {
        status: 200,
        headers: {},
        data: { body: data, status: response.status, headers: response.headers },
        ...outcome,
      };
    }
    return { status: response.status, headers: response.headers, data, ...outcome };
  }
}
