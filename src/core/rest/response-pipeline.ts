import { Injectable } from '@nestjs/common';
import { HookRegistry } from '../hooks/hook-registry.service';
import { Embedder, parseEmbedParam } from './embedder.service';
import { filterFields } from './fields';
import { RestRequest } from './rest-request';
import type { RestResponse } from './rest-response';
import { RestServer, ServedResponse } from './rest-server.service';

/**
 * The response pipeline of a top-level API request, after the dispatch: the `Allow` header, `rest_post_dispatch`,
 * `_links`, `_embed`, `_fields` and `_envelope`. Context filtering, item links and pagination headers are made by the
 * resource as it prepares its response (so prepared JSON can be reused untouched). `_embed` sub-requests go through
 * the dispatcher alone: their guards run, this pipeline does not. A host's own Nest interceptors run around the API's
 * one Nest route (`restHttpController`), and so around this pipeline.
 */
@Injectable()
export class ResponsePipeline {
  constructor(
    private readonly server: RestServer,
    private readonly embedder: Embedder,
    private readonly hooks: HookRegistry,
  ) {}

  /** Serves a top-level request: the dispatch, then the pipeline. */
  async serve(req: RestRequest): Promise<ServedResponse> {
    req.itemsAsText =
      req.query._fields === undefined && req.query._envelope === undefined && !this.hooks.hasHook('rest_post_dispatch');
    return this.finish(await this.server.dispatch(req), req);
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
