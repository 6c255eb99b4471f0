import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { CMS_DATA_SOURCE } from '../database/cms-data-source';
import { PostEntity } from '../database/entities/post.entity';
import { textOf } from '../formatting/php-serialize';
import { RestRoute } from '../rest/rest-route.decorator';
import { OptionsService } from '../options/options.service';
import { SchemaRegistry } from './schema-registry.service';
import { RestException } from '../errors/rest.exception';
import { RestRequest } from '../rest/rest-request';
import { linkMap, RestResponse } from '../rest/rest-response';
import { RestServer } from '../rest/rest-server.service';
import { describeAllowBatch } from '../rest/route-describer';

const CONTEXT_ARG = { type: 'string' as const, default: 'view', enum: ['view', 'help'] };
/** WordPress's `context` of the indexes: any value is taken (only `help` changes the answer). */
const ANY_CONTEXT_ARG = { default: 'view' };

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
    @Inject(CMS_DATA_SOURCE) private readonly dataSource: DataSource,
  ) {
    const context = server.options.wire.dialect.indexesTakeContext ? CONTEXT_ARG : ANY_CONTEXT_ARG;
    // Every namespace gets its index as soon as its first route is registered, as in the reference.
    server.registry.onNewNamespace = (namespace) =>
      server.registry.register(namespace, '', {
        methods: 'GET',
        args: { namespace: { default: namespace }, context },
        handler: (req) => this.namespaceIndex(req, namespace),
      });
  }

  /** `GET /`: the API index. (Namespace indexes are registered as their namespaces appear, above.) */
  @RestRoute('/', {
    namespace: '',
    methods: 'GET',
    args: (h: IndexRoutes) => ({
      context: h.server.options.wire.dialect.indexesTakeContext ? CONTEXT_ARG : ANY_CONTEXT_ARG,
    }),
    readsPostContent: false,
  })
  async index(req: RestRequest): Promise<RestResponse> {
    const o = await this.options.getMany([
      'blogname',
      'blogdescription',
      'siteurl',
      'home',
      'gmt_offset',
      'timezone_string',
      'site_icon',
      'stylesheet',
    ]);
    const later = req.ctx.wire.dialect.laterIndexFields;
    const response = new RestResponse({
      name: o.blogname ?? '',
      description: o.blogdescription ?? '',
      url: o.siteurl ?? req.ctx.baseUrl,
      home: o.home ?? req.ctx.baseUrl,
      gmt_offset: Number(o.gmt_offset ?? 0) || 0,
      timezone_string: o.timezone_string ?? '',
      namespaces: this.server.registry.namespaces(),
      authentication: later ? this.authentication(textOf(o.siteurl ?? req.ctx.baseUrl)) : [],
      routes: this.routes(req),
    });
    response.addLinks(linkMap({ help: { href: 'https://developer.wordpress.org/rest-api/' } }));
    if (later) await this.addSiteImages(response, req, textOf(o.stylesheet), Number(o.site_icon ?? 0) || 0);
    return response;
  }

  /** WordPress 5.6+'s `authentication`: where an application asks a user for an application password. */
  private authentication(siteUrl: string): Record<string, unknown> {
    const authorization = `${siteUrl.replace(/\/+$/, '')}/wp-admin/authorize-application.php`;
    return { 'application-passwords': { endpoints: { authorization } } };
  }

  /**
   * WordPress 5.8+'s `site_logo` (the theme's `custom_logo`), `site_icon` and `site_icon_url`, each image linked as
   * `featuredmedia` (add_site_logo_to_index, add_site_icon_to_index).
   */
  private async addSiteImages(response: RestResponse, req: RestRequest, stylesheet: string, icon: number) {
    const mods = stylesheet ? await this.options.get(`theme_mods_${stylesheet}`, null) : null;
    const logo =
      Number((mods && typeof mods === 'object' ? (mods as Record<string, unknown>).custom_logo : 0) ?? 0) || 0;
    const data = response.data as Record<string, unknown>;
    data.site_logo = logo;
    data.site_icon = icon;
    data.site_icon_url = icon ? await this.iconUrl(icon) : '';
    const media = `${this.server.options.linkRelBase}featuredmedia`;
    for (const [id, type] of [
      [logo, 'site_logo'],
      [icon, 'site_icon'],
    ] as const) {
      if (!id) continue;
      const list = response.links.get(media) ?? [];
      list.push({ href: req.ctx.restUrl(`cms/v2/media/${id}`), attributes: { embeddable: true, type } });
      response.links.set(media, list);
    }
  }

  /** The address of the site icon's file (the attachment's `guid`, its original upload). */
  private async iconUrl(id: number): Promise<string> {
    const icon = await this.dataSource.getRepository(PostEntity).findOne({ where: { id, type: 'attachment' } });
    return icon?.guid ?? '';
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
      // The spec's namespace indexes also list the namespaces; WordPress's do not.
      ...(req.ctx.wire.dialect.laterIndexFields ? {} : { namespaces: this.server.registry.namespaces() }),
    });
    response.addLinks(linkMap({ up: { href: req.ctx.restUrl('') } }));
    return response;
  }
}
