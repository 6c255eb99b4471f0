import { Injectable } from '@nestjs/common';
import { RestException } from '../../core/errors/rest.exception';
import { TaxonomyObject } from '../../core/registry/content-types';
import { TAXONOMY_SCHEMA, taxonomyToRest } from '../../core/registry/rest-shapes';
import { RestRequest } from '../../core/rest/rest-request';
import { linkMap } from '../../core/rest/rest-response';
import { ItemSchema } from '../../core/json-schema/json-schema';
import { ContentRegistryResource } from './content-registry.resource';

/** The arguments of `GET taxonomies` (the permission check reads `type` too, as it comes). */
export interface TaxonomyListArgs {
  type?: string;
}

/**
 * The arguments of `GET taxonomies/<taxonomy>`. `taxonomy` is the path's string once validated; the permission check
 * also runs where it was not (the `Allow` header: as sent, a query parameter winning), so it converts it.
 */
export interface TaxonomyItemArgs {
  taxonomy: string;
}

/** `taxonomies` (`?type=`) and `taxonomies/<taxonomy>`: REST-enabled taxonomies, as an object keyed by name (routes in TaxonomiesHandlers). */
@Injectable()
export class TaxonomiesResource extends ContentRegistryResource {
  readonly restBase = 'taxonomies';

  protected baseSchema(): ItemSchema {
    return TAXONOMY_SCHEMA as unknown as ItemSchema;
  }

  readonly listArgs = () => ({
    context: this.getContextParam({ default: 'view' }),
    type: { description: 'Limit results to resources associated with a specific post type.', type: 'string' as const },
  });

  readonly itemArgs = () => ({
    taxonomy: { description: 'An alphanumeric identifier for the taxonomy.', type: 'string' as const },
    context: this.getContextParam({ default: 'view' }),
  });

  /** context=edit needs manage_terms on at least one of the listed taxonomies. */
  canList(req: RestRequest) {
    return this.canListInContext(req, this.candidates(req), manageTerms);
  }

  getItems(req: RestRequest) {
    return this.keyedCollection(
      this.candidates(req),
      req,
      (tax) => tax.name,
      (tax) => req.context !== 'edit' || req.ctx.can(manageTerms(tax)),
      (tax) => this.prepareItem(tax, req),
    );
  }

  /** REST-enabled taxonomies, of the post type `type` when given. */
  private candidates(req: RestRequest): TaxonomyObject[] {
    const type = req.args<TaxonomyListArgs>().type;
    const all = this.content.listedTaxonomies();
    return type ? all.filter((t) => t.object_type.includes(type)) : all;
  }

  async canReadItem(req: RestRequest): Promise<boolean | RestException> {
    const tax = this.content.taxonomy(String(req.args<TaxonomyItemArgs>().taxonomy));
    if (!tax) return true;
    if (!tax.show_in_rest) return false;
    if (req.context === 'edit' && !(await req.ctx.can(tax.cap.manage_terms))) {
      return new RestException(
        'rest_forbidden_context',
        'Sorry, you are not allowed to manage this resource.',
        req.ctx.authorizationRequiredCode,
      );
    }
    return true;
  }

  getItem(req: RestRequest) {
    const tax = this.content.taxonomy(req.args<TaxonomyItemArgs>().taxonomy);
    if (!tax) throw new RestException('rest_taxonomy_invalid', 'Invalid resource.', 404);
    return this.prepareItem(tax, req);
  }

  private prepareItem(tax: TaxonomyObject, req: RestRequest) {
    const data = taxonomyToRest(tax) as unknown as Record<string, unknown>;
    // The namespace as the wire names it (`wp/v2` with WordPress's names).
    data.rest_namespace = req.ctx.wire.namespace(tax.rest_namespace);
    const links = linkMap({
      collection: { href: req.ctx.restUrl(`${this.namespace}/taxonomies`) },
      [`${this.server.options.linkRelBase}items`]: {
        href: req.ctx.restUrl(`${tax.rest_namespace}/${tax.rest_base || tax.name}`),
      },
    });
    return this.prepareResponse(data, req, links, 'taxonomy', tax);
  }
}

const manageTerms = (tax: TaxonomyObject) => tax.cap.manage_terms;
