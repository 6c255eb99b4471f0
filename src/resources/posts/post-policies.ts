import { PostEntity } from '../../core/database/entities/post.entity';
import { RestException } from '../../core/errors/rest.exception';
import { PostTypeObject, TaxonomyObject } from '../../core/registry/content-types';
import { RestRequest } from '../../core/rest/rest-request';
import { FuturePosts } from './future-posts.service';
import { samePassword } from './post-content';
import type { PostReadArgs, PostWriteArgs } from './post-schema';
import { PostQuery, PostsService } from './posts.service';

/** What the permission checks of a post type's routes read of its resource. */
export interface PostPolicyView {
  type: PostTypeObject;
  posts: PostsService;
  future: FuturePosts;
  taxonomies: () => TaxonomyObject[];
  /** The post a route names (`rest_post_invalid_id`, 404, with `message`, when it is not one of this type). */
  loadPost: (req: RestRequest, message?: string) => Promise<PostEntity>;
  /** The reference's check_read_permission. */
  canReadPost: (post: PostEntity, req: RestRequest) => Promise<boolean>;
}

/**
 * The object-level permission checks of a post type's routes, the reference's `*_permissions_check` in its order
 * and with its codes: the context asked, the post's password and status, author, stickiness and terms sent.
 */
export class PostPolicies {
  constructor(protected readonly view: PostPolicyView) {}

  async canList(req: RestRequest): Promise<true | RestException> {
    if (req.context === 'edit' && !(await req.ctx.can(this.view.type.cap.edit_posts))) {
      return new RestException(
        'rest_forbidden_context',
        'Sorry, you are not allowed to edit posts in this post type.',
        req.ctx.authorizationRequiredCode,
      );
    }
    return true;
  }

  async canRead(req: RestRequest): Promise<true | RestException> {
    await this.view.future.catchUp();
    const post = await this.view.loadPost(req);
    const code = req.ctx.authorizationRequiredCode;
    if (req.context === 'edit' && !(await req.ctx.can('edit_post', post))) {
      return new RestException('rest_forbidden_context', 'Sorry, you are not allowed to edit this post.', code);
    }
    const { password } = req.args<PostReadArgs>();
    if (password && !samePassword(post.password, password)) {
      return new RestException('rest_post_incorrect_password', 'Incorrect post password.', 403);
    }
    if (!(await this.view.canReadPost(post, req)))
      return new RestException('rest_forbidden', 'Sorry, you are not allowed to do that.', code);
    return true;
  }

  /** Author and sticky checks shared by create and update (the reference's order). */
  private async checkAuthorAndSticky(
    req: RestRequest,
    args: PostWriteArgs,
    verb: 'create' | 'update',
  ): Promise<true | RestException> {
    const code = req.ctx.authorizationRequiredCode;
    const author = args.author ?? 0;
    if (author && author !== req.ctx.user.id && !(await req.ctx.can(this.view.type.cap.edit_others_posts))) {
      return new RestException('rest_cannot_edit_others', `You are not allowed to ${verb} posts as this user.`, code);
    }
    if (args.sticky === true && !(await this.canMakeSticky(req))) {
      return new RestException('rest_cannot_assign_sticky', 'You do not have permission to make posts sticky.', code);
    }
    return true;
  }

  /** Whether the caller may make a post of the type sticky, as the dialect says (the dialect's `posts.stickyNeeds`). */
  private async canMakeSticky(req: RestRequest): Promise<boolean> {
    const cap = this.view.type.cap;
    if (await req.ctx.can(cap.edit_others_posts)) return true;
    return req.ctx.wire.dialect.posts.stickyNeeds === 'edit-others-or-publish' && req.ctx.can(cap.publish_posts);
  }

  /** Every term sent must be one the caller may assign. */
  private async canAssignTerms(req: RestRequest, args: PostWriteArgs): Promise<true | RestException> {
    for (const tax of this.view.taxonomies()) {
      const ids = args[tax.rest_base || tax.name] as number[] | undefined;
      if (!Array.isArray(ids) || !ids.length) continue;
      // The terms found in one query are handed to the check as rows, so it needs none per term. Ids that are not
      // terms of the taxonomy are refused when the request is read.
      for (const termId of await this.view.posts.termIdsIn(tax.name, ids)) {
        if (!(await req.ctx.can('assign_term', { termId, taxonomy: tax.name }))) {
          return new RestException(
            'rest_cannot_assign_term',
            'Sorry, you are not allowed to assign the provided terms.',
            req.ctx.authorizationRequiredCode,
          );
        }
      }
    }
    return true;
  }

  async canCreate(req: RestRequest): Promise<true | RestException> {
    if (req.sentAtAll('id', true)) return new RestException('rest_post_exists', 'Cannot create existing post.', 400);
    const args = req.args<PostWriteArgs>();
    const shared = await this.checkAuthorAndSticky(req, args, 'create');
    if (shared !== true) return shared;
    if (!(await req.ctx.can(this.view.type.cap.create_posts))) {
      return new RestException(
        'rest_cannot_create',
        'Sorry, you are not allowed to create new posts.',
        req.ctx.authorizationRequiredCode,
      );
    }
    return this.canAssignTerms(req, args);
  }

  async canUpdate(req: RestRequest): Promise<true | RestException> {
    const post = await this.view.loadPost(req, 'Post id is invalid.');
    if (!(await req.ctx.can('edit_post', post))) {
      return new RestException(
        'rest_cannot_edit',
        'Sorry, you are not allowed to update this post.',
        req.ctx.authorizationRequiredCode,
      );
    }
    const args = req.args<PostWriteArgs>();
    const shared = await this.checkAuthorAndSticky(req, args, 'update');
    if (shared !== true) return shared;
    return this.canAssignTerms(req, args);
  }

  async canDelete(req: RestRequest): Promise<true | RestException> {
    const post = await this.view.loadPost(req);
    if (!(await req.ctx.can('delete_post', post))) {
      return new RestException(
        'rest_cannot_delete',
        'Sorry, you are not allowed to delete posts.',
        req.ctx.authorizationRequiredCode,
      );
    }
    return true;
  }

  /**
   * Whose password-protected posts a search may find: those the caller can edit (anyone's with the type's
   * `edit_others_posts`, else its own with `edit_posts`); nobody's for anonymous callers.
   */
  async protectedSearch(req: RestRequest): Promise<PostQuery['protectedSearch']> {
    if (await req.ctx.can(this.view.type.cap.edit_others_posts)) return 'all';
    if (req.ctx.user.id && (await req.ctx.can(this.view.type.cap.edit_posts))) return { author: req.ctx.user.id };
    return undefined;
  }
}
