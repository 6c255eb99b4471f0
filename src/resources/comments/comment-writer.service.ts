import { Injectable } from '@nestjs/common';
import { PostReads } from '../posts';
import { CommentEntity } from '../../core/database/entities/comment.entity';
import { RestException } from '../../core/errors/rest.exception';
import { HookRegistry } from '../../core/hooks/hook-registry.service';
import { OptionsService } from '../../core/options/options.service';
import { SiteClock } from '../../core/options/site-clock';
import { exposedMetaKeys, planMetaWrites, metaWriteChecks } from '../../core/rest/meta-fields';
import { RestRequest } from '../../core/rest/rest-request';
import { CmsExtensionRegistry } from '../../extensions/extension-registry.service';
import { checkLengths, CommentModeration, truthyOption } from './comment-moderation.service';
import { loadCommentOrFail, loadPost } from './comment-loaders';
import type { CommentWriteArgs } from './comment-schema';
import { CommentFields, CommentsService } from './comments.service';

/**
 * The writing path of the comments resource (`create_item` / `update_item` up to the stored row): the request's
 * fields for the database, the author and defaults, moderation and the save filters, the lengths, the meta writes,
 * then the row written and read back. The response (additional fields, `rest_insert_comment`, the item) is the
 * resource's. The arguments are read at the start, and `status` and `meta` again after the filters that get the
 * request (`rest_preprocess_comment`, `rest_pre_insert_comment`), which may change them.
 */
@Injectable()
export class CommentWriter {
  constructor(
    private readonly comments: CommentsService,
    private readonly posts: PostReads,
    private readonly moderation: CommentModeration,
    private readonly options: OptionsService,
    private readonly hooks: HookRegistry,
    private readonly extensions: CmsExtensionRegistry,
  ) {}

  /**
   * A new comment from the request (`POST comments`), stored and read back, with its id and whether the caller
   * moderates comments (the context of the answer).
   */
  async create(req: RestRequest): Promise<{ id: number; comment: CommentEntity; moderator: boolean }> {
    if (req.sentAtAll('id', true))
      throw new RestException('rest_comment_exists', 'Cannot create existing comment.', 400);
    const args = req.args<CommentWriteArgs>();
    if (args.type !== undefined && args.type !== 'comment')
      throw new RestException('rest_invalid_comment_type', 'Cannot create a comment with that type.', 400);
    const moderator = await req.ctx.can('moderate_comments');
    const clock = await this.clock();
    const prepared = await this.prepareForDatabase(req, args, clock, true, moderator);
    if (!prepared.content) throw new RestException('rest_comment_content_invalid', 'Invalid comment content.', 400);
    const now = clock.now();
    prepared.date ??= now.local;
    prepared.dateGmt ??= now.gmt;
    // A logged-in caller who gave no author details writes as themselves.
    if (req.ctx.isLoggedIn && !prepared.userId && !prepared.author && !prepared.authorEmail && !prepared.authorUrl) {
      const me = await this.comments.userFacts(req.ctx.user.id);
      prepared.userId = req.ctx.user.id;
      prepared.author = me?.displayName ?? '';
      prepared.authorEmail = me?.email ?? '';
      prepared.authorUrl = me?.url ?? '';
    }
    if (truthyOption(await this.options.get('require_name_email', 1)) && (!prepared.author || !prepared.authorEmail)) {
      throw new RestException(
        'rest_comment_author_data_required',
        'Creating a comment requires valid author name and email values.',
        400,
      );
    }
    const fields: CommentFields = {
      postId: prepared.postId ?? 0,
      author: prepared.author ?? '',
      authorEmail: prepared.authorEmail ?? '',
      authorUrl: prepared.authorUrl ?? '',
      authorIp: prepared.authorIp ?? '127.0.0.1',
      date: prepared.date,
      dateGmt: prepared.dateGmt,
      content: prepared.content,
      karma: prepared.karma ?? 0,
      approved: '0',
      agent: prepared.agent ?? '',
      type: 'comment',
      parent: prepared.parent ?? 0,
      userId: prepared.userId ?? 0,
    };
    checkLengths(fields);
    fields.approved = await this.moderation.allow(fields, req, moderator);
    const filtered = await this.hooks.applyFilters<CommentFields | RestException>(
      'rest_pre_insert_comment',
      fields,
      req,
    );
    if (filtered instanceof RestException) throw filtered;
    const stored = await this.moderation.filter(filtered, req);
    const after = req.args<CommentWriteArgs>();
    // Checked against the comment about to be made (its post decides edit_comment).
    const meta = await this.plannedMeta(req, after.meta, { ...stored, id: 0 });
    const id = await this.comments.create(stored, statusOf(after), meta);
    const comment = (await this.comments.findByIds([id]))[0];
    return { id, comment, moderator };
  }

  /** The route's comment updated from the request (`PUT comments/<id>`), read back. */
  async update(req: RestRequest): Promise<CommentEntity> {
    const current = await loadCommentOrFail(req, this.comments);
    const args = req.args<CommentWriteArgs>();
    if (args.type !== undefined && args.type !== (current.type || 'comment')) {
      throw new RestException('rest_comment_invalid_type', 'Sorry, you cannot change the comment type.', 404);
    }
    const moderator = await req.ctx.can('moderate_comments');
    const prepared = await this.prepareForDatabase(req, args, await this.clock(), false, moderator);
    if (prepared.content !== undefined && !prepared.content)
      throw new RestException('rest_comment_content_invalid', 'Invalid comment content.', 400);
    if (prepared.postId && !(await loadPost(req, this.posts, prepared.postId)))
      throw new RestException('rest_comment_invalid_post_id', 'Invalid post ID.', 403);
    // As WordPress does, the lengths are checked before the filters run.
    checkLengths(prepared);
    const fields = await this.moderation.filter(prepared, req);
    const after = req.args<CommentWriteArgs>();
    const status = statusOf(after);
    const meta = await this.plannedMeta(req, after.meta, current);
    const changed = await this.comments.update(current, fields, status, meta);
    if (!Object.keys(fields).length && status !== undefined && !changed) {
      throw new RestException('rest_comment_failed_edit', 'Updating comment status failed.', 500);
    }
    return (await this.comments.findByIds([current.id]))[0];
  }

  private async clock(): Promise<SiteClock> {
    return SiteClock.fromOptions(await this.options.getMany(['timezone_string', 'gmt_offset']));
  }

  /**
   * The reference's `prepare_item_for_database`: the columns the request gives (defaults on create only), then the
   * `rest_preprocess_comment` filter.
   */
  private async prepareForDatabase(
    req: RestRequest,
    args: CommentWriteArgs,
    clock: SiteClock,
    creating: boolean,
    moderator: boolean,
  ): Promise<Partial<CommentFields>> {
    const out: Partial<CommentFields> = {};
    const content = args.content;
    if (typeof content === 'string') out.content = content.trim();
    else if (content && typeof content === 'object' && typeof (content as { raw?: unknown }).raw === 'string') {
      out.content = (content as { raw: string }).raw.trim();
    }
    if (args.post !== undefined) out.postId = args.post;
    if (args.parent !== undefined) out.parent = args.parent;
    // A user as author brings their name, e-mail and URL (what the request gives besides wins).
    if (args.author !== undefined && args.author > 0) {
      const user = await this.comments.userFacts(args.author);
      if (!user) throw new RestException('rest_comment_author_invalid', 'Invalid comment author ID.', 400);
      out.userId = args.author;
      out.author = user.displayName;
      out.authorEmail = user.email;
      out.authorUrl = user.url;
    } else if (args.author !== undefined) out.userId = 0;
    if (args.author_name !== undefined) out.author = args.author_name;
    if (args.author_email !== undefined) out.authorEmail = args.author_email;
    if (args.author_url !== undefined) out.authorUrl = args.author_url;
    if (args.author_ip !== undefined && moderator) out.authorIp = args.author_ip;
    else if (creating) out.authorIp = req.ctx.ip && isIp(req.ctx.ip) ? req.ctx.ip : '127.0.0.1';
    // `author_user_agent` is an argument where the dialect makes it writable (WordPress's); else the request's.
    if (args.author_user_agent !== undefined) out.agent = args.author_user_agent;
    else if (creating) out.agent = String(req.header('user-agent') ?? '');
    if (args.karma !== undefined) out.karma = args.karma;
    if (args.date) {
      const value = clock.restDateWithGmt(args.date);
      if (value) [out.date, out.dateGmt] = value;
    } else if (args.date_gmt) {
      const value = clock.restDateWithGmt(args.date_gmt, true);
      if (value) [out.date, out.dateGmt] = value;
    }
    return this.hooks.applyFilters('rest_preprocess_comment', out, req);
  }

  /** The meta writes the request asks for (`meta`), each allowed on `comment` or refused with the reference's code. */
  private async plannedMeta(req: RestRequest, meta: unknown, comment: CommentEntity) {
    if (meta === undefined) return [];
    return planMetaWrites(
      this.registeredMeta(),
      meta,
      'comment',
      (cap, key) => req.ctx.can(cap, comment, key),
      req.ctx.authorizationRequiredCode,
      metaWriteChecks(req.ctx.wire.dialect),
    );
  }

  private registeredMeta() {
    return exposedMetaKeys(this.extensions, 'comment');
  }
}

/** The `status` asked for, read after the filters (which may have set it to anything: hence the conversion). */
function statusOf(args: CommentWriteArgs): string | undefined {
  return args.status === undefined ? undefined : String(args.status);
}

/** Whether the value looks like an IP address (IPv4 dotted, or IPv6 digits and colons). */
function isIp(value: string): boolean {
  return /^(\d{1,3}\.){3}\d{1,3}$/.test(value) || /^[0-9a-f:]+$/i.test(value);
}
