import { Injectable } from '@nestjs/common';
import { RestRoute } from '../rest/rest-route.decorator';
import { OptionsService } from '../options/options.service';
import { SchemaRegistry } from './schema-registry.service';
import { RestException } from '../errors/rest.exception';
import { RestRequest } from '../rest/rest-request';
import { linkMap, RestResponse } from '../rest/rest-response';
import { RestServer } from '../rest/rest-server.service';
import { describeAllowBatch } from '../rest/route-describer';

const CONTEXT_ARG = { type: 'string' as const, default: 'view', enum: ['view', 'help'] };

/**
 * The API index (`/`) and one index per namespace (`/cms/v2`, ...): site facts, namespaces and the description
 * of every route (with schemas under `context=help`). Namespace indexes also list all namespaces, so a client
 * can detect features from either.
 */
@Injectable()
export class IndexRoutes {
  constructor(
    private readonly server: RestServer,
    private readonly options: OptionsService,
    private readonly schemas: SchemaRegistry,
  ) {
    // Every namespace gets its index as soon as its first route is registered, as in the reference.
    server.registry.onNewNamespace = (namespace) =>
      server.registry.register(namespace, '', {
        methods: 'GET',
        args: { namespace: { default: namespace }, context: CONTEXT_ARG },
        handler: (req) => this.namespaceIndex(req, namespace),
      });
  }

  /** `GET /`: the API index. (Namespace indexes are registered as their namespaces appear, above.) */
  @RestRoute('/', { namespace: '', methods: 'GET', args: { context: CONTEXT_ARG }, readsPostContent: false })
  async index(req: RestRequest): Promise<RestResponse> {
    const o = await this.options.getMany([
      'blogname',
      'blogdescription',
      'siteurl',
      'home',
      'gmt_offset',
      'timezone_string',
    ]);
    const response = new RestResponse({
      name: o.blogname ?? '',
      description: o.blogdescription ?? '',
      url: o.siteurl ?? req.ctx.baseUrl,
      home: o.home ?? req.ctx.baseUrl,
      gmt_offset: Number(o.gmt_offset ?? 0) || 0,
      timezone_string: o.timezone_string ?? '',
      namespaces: this.server.registry.namespaces(),
      authentication: [],
      routes: this.routes(req),
    });
    response.addLinks(linkMap({ help: { href: 'https://developer.wordpress.org/rest-api/' } }));
    return response;
  }

  /** The descriptions of the routes (of one namespace), with `allow_batch` where the dialect shows it. */
  private routes(req: RestRequest, namespace?: string): Record<string, unknown> {
    const described = this.schemas.describeAll(req.ctx, req.context, namespace);
    if (!req.ctx.wire.dialect.describesAllowBatch) return described;
    for (const key of Object.keys(described)) {
      const route = this.server.registry.get(key);
      if (route) described[key] = describeAllowBatch(route, described[key] as Record<string, unknown>, req.ctx);
    }
    return described;
  }

  private namespaceIndex(req: RestRequest, namespace: string): RestResponse {
    const asked = String(req.get('namespace') ?? namespace);
    if (!this.server.registry.namespaces().includes(asked)) {
      throw new RestException('rest_invalid_namespace', 'The specified namespace could not be found.', 404);
    }
    const response = new RestResponse({
      namespace: asked,
      routes: this.routes(req, asked),
      namespaces: this.server.registry.namespaces(),
    });
    response.addLinks(linkMap({ up: { href: req.ctx.restUrl('') } }));
    return response;
  }
}
