import { Injectable } from '@nestjs/common';
import { CmsExtensionRegistry } from '../../extensions/extension-registry.service';
import { HookRegistry } from '../../core/hooks/hook-registry.service';
import { RestException } from '../../core/http/rest.exception';
import { ContentRegistry } from '../../core/registry/content-registry.service';
import { TaxonomyObject } from '../../core/registry/content-types';
import { TAXONOMY_SCHEMA, taxonomyToRest } from '../../core/registry/rest-shapes';
import { RestController } from '../../core/rest/rest-controller';
import { RestRequest } from '../../core/rest/rest-request';
import { linkMap } from '../../core/rest/rest-response';
import { RestServer } from '../../core/rest/rest-server.service';
import { ItemSchema } from '../../core/schema/json-schema';

/** `taxonomies` (`?type=`) and `taxonomies/<taxonomy>`: REST-enabled taxonomies, as an object keyed by name. */
@Injectable()
export class TaxonomiesController extends RestController {
  readonly restBase = 'taxonomies';

  constructor(server: RestServer, extensions: CmsExtensionRegistry, hooks: HookRegistry, private readonly content: ContentRegistry) {
    super(server, extensions, hooks);
  }

  protected baseSchema(): ItemSchema {
    return TAXONOMY_SCHEMA as unknown as ItemSchema;
  }

  protected registerRoutes(): void {
    this.route('/taxonomies', {
      methods: 'GET',
      args: () => ({
        context: this.getContextParam({ default: 'view' }),
        type: { description: 'Limit results to resources associated with a specific post type.', type: 'string' },
      }),
      permission: (req) => this.canListInContext(req),
      handler: (req) => this.getItems(req),
    });
    this.route('/taxonomies/(?P<taxonomy>[\\w-]+)', {
      methods: 'GET',
      args: () => ({
        taxonomy: { description: 'An alphanumeric identifier for the taxonomy.', type: 'string' },
        context: this.getContextParam({ default: 'view' }),
      }),
      permission: (req) => this.canReadItem(req),
      handler: (req) => this.getItem(req),
    });
  }

  private candidates(req: RestRequest): TaxonomyObject[] {
    const type = req.get<string>('type');
    const all = this.content.restTaxonomies();
    return type ? all.filter((t) => t.object_type.includes(type)) : all;
  }

  /** `context=edit` needs `manage_terms` on at least one of the listed taxonomies. */
  private async canListInContext(req: RestRequest): Promise<true | RestException> {
    if (req.context !== 'edit') return true;
    for (const tax of this.candidates(req)) if (await req.ctx.can(tax.cap.manage_terms)) return true;
    return new RestException('rest_cannot_view', 'Sorry, you cannot view this resource with edit context.', req.ctx.authorizationRequiredCode);
  }

  private async canReadItem(req: RestRequest): Promise<boolean | RestException> {
    const tax = this.content.taxonomy(String(req.get('taxonomy')));
    if (!tax) return true;
    if (!tax.show_in_rest) return false;
    if (req.context === 'edit' && !(await req.ctx.can(tax.cap.manage_terms))) {
      return new RestException('rest_forbidden_context', 'Sorry, you are not allowed to manage this resource.', req.ctx.authorizationRequiredCode);
    }
    return true;
  }

  private async getItems(req: RestRequest): Promise<unknown> {
    const data: Record<string, unknown> = {};
    for (const tax of this.candidates(req)) {
      if (req.context === 'edit' && !(await req.ctx.can(tax.cap.manage_terms))) continue;
      data[tax.name] = this.server.toCollectionItem(await this.prepareItem(tax, req));
    }
    return data;
  }

  private getItem(req: RestRequest) {
    const tax = this.content.taxonomy(String(req.get('taxonomy')));
    if (!tax) throw new RestException('rest_taxonomy_invalid', 'Invalid resource.', 404);
    return this.prepareItem(tax, req);
  }

  private prepareItem(tax: TaxonomyObject, req: RestRequest) {
    const data = taxonomyToRest(tax) as unknown as Record<string, unknown>;
    const links = linkMap({
      collection: { href: req.ctx.restUrl(`${this.namespace}/taxonomies`) },
      [`${this.server.options.linkRelBase}items`]: { href: req.ctx.restUrl(`${tax.rest_namespace}/${tax.rest_base || tax.name}`) },
    });
    return this.prepareResponse(data, req, links, 'taxonomy', tax);
  }
}
