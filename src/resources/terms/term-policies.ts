import { RestException } from '../../core/errors/rest.exception';
import type { TaxonomyObject } from '../../core/registry/content-types';
import type { RestRequest } from '../../core/rest/rest-request';
import type { TermRow } from './terms.service';

/**
 * Who may do what with a taxonomy's terms (the reference's `*_permissions_check`): the taxonomy's `edit_terms` to
 * read in the edit context, `manage_terms` to create, `edit_term` / `delete_term` of the term to change it.
 */
export class TermPolicies {
  constructor(
    private readonly taxonomy: TaxonomyObject,
    /** The term the request names, or `rest_term_invalid`. */
    private readonly loadTerm: (req: RestRequest) => Promise<TermRow>,
  ) {}

  /** Reading one term: WordPress's check answers the 404 of a missing term itself (the dialect's). */
  async canReadItem(req: RestRequest): Promise<true | RestException> {
    if (req.ctx.wire.dialect.readChecksFindTheItem) await this.loadTerm(req);
    return this.canRead(req);
  }

  async canRead(req: RestRequest): Promise<true | RestException> {
    if (req.context === 'edit' && !(await req.ctx.can(this.taxonomy.cap.edit_terms))) {
      return new RestException(
        'rest_forbidden_context',
        'Sorry, you cannot view this resource with edit context.',
        req.ctx.authorizationRequiredCode,
      );
    }
    return true;
  }

  /**
   * What creating a term needs (the dialect's `terms.createNeeds`): `manage_terms`, or WordPress 6.1's `edit_terms` in
   * a hierarchical taxonomy and `assign_terms` in a flat one.
   */
  private createCapability(req: RestRequest): string {
    const cap = this.taxonomy.cap;
    if (req.ctx.wire.dialect.terms.createNeeds === 'manage_terms') return cap.manage_terms;
    return this.taxonomy.hierarchical ? cap.edit_terms : cap.assign_terms;
  }

  async canCreate(req: RestRequest): Promise<true | RestException> {
    if (await req.ctx.can(this.createCapability(req))) return true;
    return new RestException(
      'rest_cannot_create',
      'Sorry, you cannot create new resource.',
      req.ctx.authorizationRequiredCode,
    );
  }

  async canUpdate(req: RestRequest): Promise<true | RestException> {
    const term = await this.loadTerm(req);
    if (await req.ctx.can('edit_term', term.termId)) return true;
    return new RestException(
      'rest_cannot_update',
      'Sorry, you cannot update resource.',
      req.ctx.authorizationRequiredCode,
    );
  }

  async canDelete(req: RestRequest): Promise<true | RestException> {
    const term = await this.loadTerm(req);
    if (await req.ctx.can('delete_term', term.termId)) return true;
    return new RestException(
      'rest_cannot_delete',
      'Sorry, you cannot delete resource.',
      req.ctx.authorizationRequiredCode,
    );
  }
}
