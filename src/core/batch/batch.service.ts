import { Inject, Injectable } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { CapabilityService } from '../auth/capability.service';
import { RequestContext } from '../auth/request-context';
import { CMS_DATA_SOURCE } from '../database/cms-data-source';
import { VersionStamps } from '../database/version-stamps';
import { writeTransaction } from '../database/write-transaction';
import { RestException } from '../errors/rest.exception';
import { HookRegistry } from '../hooks/hook-registry.service';
import { RequestReader } from '../http/request-reader';
import { Embedder } from '../rest/embedder.service';
import { filterFields } from '../rest/fields';
import { RestRequest } from '../rest/rest-request';
import { RestResponse } from '../rest/rest-response';
import { RestServer } from '../rest/rest-server.service';
import type { RouteEndpoint } from '../rest/route-types';
import type { BatchArgs, BatchRequestArgs } from './batch-args';
import { parseBatchPath } from './batch-path';

/** One answer of a batch: a request's response as WordPress envelopes it (`envelope_response`, no embedding). */
export interface BatchAnswer {
  body: unknown;
  status: number;
  /** The response's headers; `[]` when it has none (PHP's empty array). */
  headers: Record<string, string> | [];
}

/** A request of a batch, as its description read (`null`: its path could not be read). */
type Planned = { args: BatchRequestArgs; route: string; query: Record<string, unknown> } | null;

/**
 * `POST /batch/v1` (WP_REST_Server::serve_batch_request_v1): up to 25 write requests in one. Each is checked first
 * (its route, that the route allows batches, its arguments); with `validation: require-all-validate`, one that fails
 * stops them all: nothing runs, and the answer (207) gives each failure. Otherwise each request runs in turn, as an
 * API request of its own by the batch's caller: the same dispatch (arguments, permission checks, handler, hooks),
 * `Allow`, `rest_post_dispatch` and `_fields`, in-process. The answer is 207 with each response, envelope-shaped.
 *
 * A batch is not atomic: each request commits on its own, as in WordPress, and one that fails undoes nothing. The
 * version stamps (what caches and ETags see of writes) move once for the whole batch, when it ends.
 */
@Injectable()
export class BatchService {
  constructor(
    private readonly server: RestServer,
    private readonly embedder: Embedder,
    private readonly hooks: HookRegistry,
    private readonly caps: CapabilityService,
    private readonly reader: RequestReader,
    private readonly stamps: VersionStamps,
    @Inject(CMS_DATA_SOURCE) private readonly dataSource: DataSource,
  ) {}

  async serve(req: RestRequest): Promise<RestResponse> {
    const { validation, requests } = req.args<BatchArgs>();
    requests.forEach((request, i) => {
      if (typeof request.path !== 'string')
        throw new RestException('rest_invalid_param', 'Invalid parameter(s): requests', 400, {
          params: { requests: `path is a required property of requests[${i}].` },
        });
    });
    const planned = requests.map((args) => this.plan(args));
    // Every request is checked before any runs.
    const checks = planned.map((plan) => this.check(plan, req.ctx));
    if (validation === 'require-all-validate' && checks.some((check) => check !== null)) {
      const responses = [];
      for (const check of checks) responses.push(check ? await this.envelope(check.response, check.req, false) : null);
      return new RestResponse({ failed: 'validation', responses }, 207);
    }
    const responses = await this.stamps.moveOnce(
      async () => {
        const out: BatchAnswer[] = [];
        for (let i = 0; i < planned.length; i++) {
          const check = checks[i];
          if (check) out.push(await this.envelope(check.response, check.req, true));
          else out.push(await this.run(planned[i]!, req.ctx));
        }
        return out;
      },
      (carry) => writeTransaction(this.dataSource, async (em) => carry(em.queryRunner)),
    );
    return new RestResponse({ responses }, 207);
  }

  /** Reads a request's path and query string. */
  private plan(args: BatchRequestArgs): Planned {
    const path = parseBatchPath(args.path ?? '');
    return path && { args, route: path.route, query: this.reader.query(path.search) };
  }

  /** The request a batch request describes, in a context of its own (its own loaders) for the batch's caller. */
  private request(plan: NonNullable<Planned>, ctx: RequestContext): RestRequest {
    const { args, route, query } = plan;
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(args.headers ?? {}))
      headers[name.toLowerCase()] = Array.isArray(value) ? value.join(',') : String(value);
    const body = args.body && typeof args.body === 'object' && Object.keys(args.body).length ? args.body : null;
    const own = new RequestContext({
      user: ctx.user,
      caps: this.caps,
      baseUrl: ctx.baseUrl,
      apiPrefix: ctx.apiPrefix,
      crossOrigin: ctx.crossOrigin,
      ip: ctx.ip,
      wire: ctx.wire,
    });
    // The body's parameters come before the query's for every method, DELETE's too (WordPress reads a body then).
    return new RestRequest(
      {
        method: args.method ?? 'POST',
        route,
        query: structuredClone(query),
        json: body && structuredClone(body),
        headers,
      },
      own,
    );
  }

  /** A request's checks before it runs: the error response of the first that fails, or `null`. */
  private check(plan: Planned, ctx: RequestContext): { response: RestResponse; req: RestRequest } | null {
    if (!plan) {
      const req = new RestRequest({}, ctx);
      return { response: this.server.errorToResponse(PARSE_PATH_FAILED()), req };
    }
    const req = this.request(plan, ctx);
    const response = this.server.check(req, admitBatch);
    return response && { response, req };
  }

  /** Runs a request that passed its checks, as a request of its own. */
  private async run(plan: NonNullable<Planned>, ctx: RequestContext): Promise<BatchAnswer> {
    const req = this.request(plan, ctx);
    return this.envelope(await this.server.dispatch(req), req, true);
  }

  /**
   * A response as the batch gives it (WordPress's `envelope_response($response, false)`): after `Allow` (for a
   * route matched), `rest_post_dispatch` and `_fields` when `dispatched` (WordPress's `rest_post_dispatch` filters;
   * not for the failures of `require-all-validate`), its data with its `_links`, its status and its headers.
   */
  private async envelope(response: RestResponse, req: RestRequest, dispatched: boolean): Promise<BatchAnswer> {
    if (dispatched) {
      await this.server.addAllowHeader(response, req);
      response = await this.hooks.applyFilters('rest_post_dispatch', response, req);
    }
    let body = await this.embedder.responseToData(response, false, req.ctx);
    const fields = req.query._fields;
    if (dispatched && fields !== undefined && !response.isError) body = filterFields(body, fields, false);
    const headers = response.headers;
    return { body, status: response.status, headers: Object.keys(headers).length ? { ...headers } : [] };
  }
}

/** WordPress's refusal of a route that does not take batches (`allow_batch` without `v1`). */
function admitBatch(endpoint: RouteEndpoint): RestException | null {
  return endpoint.allowBatch
    ? null
    : new RestException('rest_batch_not_allowed', 'The requested route does not support batch requests.', 400);
}

const PARSE_PATH_FAILED = () => new RestException('parse_path_failed', 'Could not parse the path.', 400);
