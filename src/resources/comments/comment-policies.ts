import { Injectable } from '@nestjs/common';
import { PostReads } from '../posts';
import { CommentEntity } from '../../core/database/entities/comment.entity';
import { PostEntity } from '../../core/database/entities/post.entity';
import { RestException } from '../../core/errors/rest.exception';
import { parseIdList } from '../../core/json-schema/validate';
import { HookRegistry } from '../../core/hooks/hook-registry.service';
import { OptionsService } from '../../core/options/options.service';
import { ContentRegistry } from '../../core/registry/content-registry.service';
import { RestRequest } from '../../core/rest/rest-request';
import { truthyOption } from './comment-moderation.service';
import { loadComment, loadCommentOrFail, loadPost } from './comment-loaders';
import type { CommentCheckArgs } from './comment-schema';
import { CommentsService } from './comments.service';

/**
 * Who may do what with comments (the `@Allow` policies of CommentsHandlers): the reference's `*_permissions_check`
 * of the comments controller, with its error codes, and the read check of each comment of a page. Each reads the
 * request's arguments when it runs, converting them as it uses them (see {@link CommentCheckArgs}).
 */
@Injectable()
export class CommentPolicies {
  constructor(
    private readonly content: ContentRegistry,
    private readonly comments: CommentsService,
    private readonly posts: PostReads,
    private readonly options: OptionsService,
    private readonly hooks: HookRegistry,
  ) {}

  private can(req: RestRequest, cap: string, ...args: unknown[]): Promise<boolean> {
    return req.ctx.can(cap, ...args);
  }

  /**
   * The reference's `check_read_post_permission`: the post's type is shown in the API and the post is readable;
   * a password-protected post's comments need the post's password (when one post or one comment is asked for) or
   * the right to edit it.
   */
  private async canReadPostOf(post: PostEntity, req: RestRequest): Promise<boolean> {
    const type = this.content.postType(post.type);
    if (!type || !type.show_in_rest) return false;
    if (post.password) {
      const args = req.args<CommentCheckArgs>();
      const single = parseIdList(args.post).length === 1 || args.id !== undefined;
      const password = args.password as string | undefined;
      if (!(single && password && this.posts.passwordMatches(post, password))) return this.can(req, 'edit_post', post);
    }
    return this.posts.canRead(post, req);
  }

  /** The reference's `check_read_permission` of one comment. */
  async canReadComment(comment: CommentEntity, req: RestRequest, post: PostEntity | null): Promise<boolean> {
    if (post && comment.approved === '1' && (await this.canReadPostOf(post, req))) return true;
    if (!req.ctx.isLoggedIn) return false;
    if (!comment.postId && !(await this.can(req, 'moderate_comments'))) return false;
    if (comment.userId && comment.userId === req.ctx.user.id) return true;
    return this.can(req, 'edit_comment', comment);
  }

  /** The reference's `check_edit_permission`: logged in, and a moderator or allowed `edit_comment` on it. */
  private async canEditComment(comment: CommentEntity, req: RestRequest): Promise<boolean> {
    if (!req.ctx.isLoggedIn) return false;
    return (await this.can(req, 'moderate_comments')) || this.can(req, 'edit_comment', comment);
  }

  async canList(req: RestRequest): Promise<true | RestException> {
    const code = req.ctx.authorizationRequiredCode;
    const args = req.args<CommentCheckArgs>();
    for (const id of parseIdList(args.post)) {
      if (id) {
        const post = await loadPost(req, this.posts, id);
        if (post && !(await this.canReadPostOf(post, req))) {
          return new RestException('rest_cannot_read_post', 'Sorry, you cannot read the post for this comment.', code);
        }
      } else if (!(await this.can(req, 'moderate_comments'))) {
        return new RestException('rest_cannot_read', 'Sorry, you cannot read comments without a post.', code);
      }
    }
    if (req.context === 'edit' && !(await this.can(req, 'moderate_comments'))) {
      return new RestException('rest_forbidden_context', 'Sorry, you cannot view comments with edit context.', code);
    }
    if (!(await this.can(req, 'edit_posts')) && !(await this.can(req, 'moderate_comments'))) {
      const forbidden: string[] = [];
      // PHP's `! empty()`: 0, '' and [] are not there.
      for (const name of ['author', 'author_exclude', 'author_email', 'karma'] as const) {
        const value = args[name];
        if (
          value !== undefined &&
          value !== '' &&
          value !== 0 &&
          value !== '0' &&
          !(Array.isArray(value) && !value.length)
        )
          forbidden.push(name);
      }
      if (args.type !== 'comment') forbidden.push('type');
      if (args.status !== 'approve') forbidden.push('status');
      if (forbidden.length)
        return new RestException(
          'rest_forbidden_param',
          `Query parameter not permitted: ${forbidden.join(', ')}`,
          code,
        );
    }
    return true;
  }

  async canRead(req: RestRequest): Promise<true | RestException> {
    const comment = await loadComment(req, this.comments);
    // The spec's check lets a missing comment through to the handler's 404; WordPress's answers the 404 itself.
    if (!comment)
      return req.ctx.wire.dialect.readChecksFindTheItem
        ? new RestException('rest_comment_invalid_id', 'Invalid comment id.', 404)
        : true;
    // The reference's order: the comment, its post, then the context.
    const code = req.ctx.authorizationRequiredCode;
    const post = await loadPost(req, this.posts, comment.postId);
    if (!(await this.canReadComment(comment, req, post)))
      return new RestException('rest_cannot_read', 'Sorry, you cannot read this comment.', code);
    if (post && !(await this.canReadPostOf(post, req))) {
      return new RestException('rest_cannot_read_post', 'Sorry, you cannot read the post for this comment.', code);
    }
    if (req.context === 'edit' && !(await this.can(req, 'moderate_comments'))) {
      return new RestException(
        'rest_forbidden_context',
        'Sorry, you cannot view this comment with edit context.',
        code,
      );
    }
    return true;
  }

  async canCreate(req: RestRequest): Promise<true | RestException> {
    const code = req.ctx.authorizationRequiredCode;
    if (!req.ctx.isLoggedIn) {
      const loginRequired = () =>
        new RestException('rest_comment_login_required', 'Sorry, you must be logged in to comment.', 401);
      if (truthyOption(await this.options.get('comment_registration', 0))) return loginRequired();
      // `rest_allow_anonymous_comments`: WordPress 4.7.2+ lets anonymous visitors comment only when an extension
      // says so; the spec lets them by default (the dialect's `comments.anonymousByDefault`).
      const byDefault = req.ctx.wire.dialect.comments.anonymousByDefault;
      if (!(await this.hooks.applyFilters('rest_allow_anonymous_comments', byDefault, req))) return loginRequired();
    }
    const moderator = await this.can(req, 'moderate_comments');
    const args = req.args<CommentCheckArgs>();
    if (args.author !== undefined && Number(args.author) !== req.ctx.user.id && !moderator) {
      return new RestException('rest_comment_invalid_author', 'Comment author invalid.', code);
    }
    if (args.author_ip !== undefined && !moderator && args.author_ip !== req.ctx.ip) {
      return new RestException(
        'rest_comment_invalid_author_ip',
        "Sorry, you are not allowed to edit 'author_ip' for comments.",
        code,
      );
    }
    if (args.karma !== undefined && Number(args.karma) > 0 && !moderator) {
      return new RestException('rest_comment_invalid_karma', 'Sorry, you cannot set karma for comments.', code);
    }
    if (args.status !== undefined && !moderator) {
      return new RestException('rest_comment_invalid_status', 'Sorry, you cannot set status for comments.', code);
    }
    const postId = Number(args.post ?? 0);
    if (!postId) {
      if (!moderator || req.ctx.wire.dialect.comments.createNeedsPost)
        return new RestException(
          'rest_comment_invalid_post_id',
          'Sorry, you cannot create this comment without a post.',
          code,
        );
      return true;
    }
    const post = await loadPost(req, this.posts, postId);
    if (!post)
      return new RestException(
        'rest_comment_invalid_post_id',
        'Sorry, you cannot create this comment without a post.',
        code,
      );
    if (post.status === 'draft')
      return new RestException(
        'rest_comment_draft_post',
        'Sorry, you are not allowed to create a comment on this post.',
        code,
      );
    if (post.status === 'trash')
      return new RestException(
        'rest_comment_trash_post',
        'Sorry, you are not allowed to create a comment on this post.',
        code,
      );
    if (!(await this.canReadPostOf(post, req)))
      return new RestException('rest_cannot_read_post', 'Sorry, you cannot read the post for this comment.', code);
    if (!(await this.commentsOpen(post)))
      return new RestException('rest_comment_closed', 'Sorry, comments are closed on this post.', 403);
    return true;
  }

  async canUpdate(req: RestRequest): Promise<true | RestException> {
    const comment = await loadCommentOrFail(req, this.comments);
    const code = req.ctx.authorizationRequiredCode;
    if (!(await this.canEditComment(comment, req)))
      return new RestException('rest_cannot_edit', 'Sorry, you can not edit this comment.', code);
    if (req.args<CommentCheckArgs>().status !== undefined && !(await this.can(req, 'moderate_comments'))) {
      return new RestException('rest_comment_invalid_status', 'Sorry, you cannot set status for comments.', code);
    }
    return true;
  }

  async canDelete(req: RestRequest): Promise<true | RestException> {
    const comment = await loadCommentOrFail(req, this.comments);
    if (!(await this.canEditComment(comment, req))) {
      return new RestException(
        'rest_cannot_delete',
        'Sorry, you can not delete this comment.',
        req.ctx.authorizationRequiredCode,
      );
    }
    return true;
  }

  /** `comments_open()`: the post's comment status, closed after `close_comments_days_old` days when the site says so. */
  private async commentsOpen(post: PostEntity): Promise<boolean> {
    if (post.commentStatus !== 'open') return false;
    const o = await this.options.getMany(['close_comments_for_old_posts', 'close_comments_days_old']);
    if (!truthyOption(o.close_comments_for_old_posts) || post.type !== 'post') return true;
    const days = Number(o.close_comments_days_old ?? 0);
    if (!days) return true;
    const published = Date.parse(`${post.dateGmt.replace(' ', 'T')}Z`);
    return !(Number.isFinite(published) && Date.now() - published > days * 86_400_000);
  }
}
