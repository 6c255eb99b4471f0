import type { PostEntity } from '../../core/database/entities/post.entity';
import { RestException } from '../../core/errors/rest.exception';
import type { ContentRegistry } from '../../core/registry/content-registry.service';
import type { TaxonomyObject } from '../../core/registry/content-types';
import { isPostStatusViewable } from '../../core/registry/post-statuses';
import { isPostTypeViewable } from '../../core/registry/post-types';
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
    /** A post by id, through the request's loader. */
    private readonly loadPost: (req: RestRequest, id: number) => Promise<PostEntity | null>,
    private readonly content: ContentRegistry,
  ) {}

  /**
   * Listing terms: as reading them, and the terms of one post (`post`) only when the post exists (`400
   * rest_post_invalid_id`) and its terms may be read (WordPress 6.0.3's check_read_terms_permission_for_post: a post
   * of a type in this taxonomy that is publicly viewable or that the caller may `read_post`), so that the terms of a
   * draft or private post are not told to those who cannot read it.
   */
  async canList(req: RestRequest): Promise<true | RestException> {
    const read = await this.canRead(req);
    if (read !== true) return read;
    const postId = req.args<{ post?: number }>().post;
    if (!postId) return true;
    const post = await this.loadPost(req, postId);
    if (!post) return new RestException('rest_post_invalid_id', 'Invalid post ID.', 400);
    // Its status and type decide who may read its terms: a cached answer follows its edits.
    req.sources.notePosts([post]);
    if (await this.canReadTermsOf(post, req)) return true;
    return new RestException(
      'rest_forbidden_context',
      'Sorry, you are not allowed to view terms for this post.',
      req.ctx.authorizationRequiredCode,
    );
  }

  private async canReadTermsOf(post: PostEntity, req: RestRequest): Promise<boolean> {
    if (!this.taxonomy.object_type.includes(post.type)) return false;
    const type = this.content.postType(post.type);
    const status = this.content.status(post.status);
    if (type && status && isPostTypeViewable(type) && isPostStatusViewable(status)) return true;
    return req.ctx.can('read_post', post);
  }

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
