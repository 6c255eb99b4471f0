import { Injectable } from '@nestjs/common';
import { PLAIN_LINK_STATUSES, PostsService, canReadPost, permalink, postLoader, samePassword } from '../posts';
import { CommentEntity } from '../../core/database/entities/comment.entity';
import { PostEntity } from '../../core/database/entities/post.entity';
import { mysqlToRfc3339 } from '../../core/database/mysql-date';
import { renderCommentText } from '../../core/formatting';
import { AvatarSettings, avatarUrls, showAvatars } from '../../core/formatting/avatar';
import { HookRegistry } from '../../core/hooks/hook-registry.service';
import { OptionsService } from '../../core/options/options.service';
import { SiteClock } from '../../core/options/site-clock';
import { ContentRegistry } from '../../core/registry/content-registry.service';
import { exposedMetaKeys, metaResponse, metaSchemaProperties, planMetaWrites } from '../../core/rest/meta-fields';
import { CollectionQuery } from '../../core/rest/collection-query';
import { RestResource } from '../../core/rest/rest-resource';
import { RestRequest } from '../../core/rest/rest-request';
import { ItemMemo } from '../../core/rest/json-text';
import { linkMap, RestResponse } from '../../core/rest/rest-response';
import { RestServer } from '../../core/rest/rest-server.service';
import { RestException } from '../../core/errors/rest.exception';
import { Methods } from '../../core/rest/route-types';
import { ItemSchema, RouteArg } from '../../core/json-schema/json-schema';
import { parseIdList } from '../../core/json-schema/validate';
import { CmsExtensionRegistry } from '../../extensions/extension-registry.service';
import { checkLengths, CommentModeration, truthyOption } from './comment-moderation.service';
import { COMMENT_ID, commentCollectionArgs, CommentListArgs, commentProperties } from './comment-schema';
import { CommentFields, CommentPage, CommentQuery, CommentsService } from './comments.service';
import { textOf } from '../../core/formatting/php-serialize';

/** What preparing comments needs from the site's options, read once per request. */
interface SiteFacts extends AvatarSettings {
  home: string;
  showAvatars: boolean;
  useSmilies: boolean;
  siteUrl: string;
}

/** What preparing a set of comments loads once for all of them. */
interface CommentBatch {
  posts: Map<number, PostEntity>;
  /** Ancestors of hierarchical posts, for their links. */
  parents: Map<number, PostEntity>;
  withChildren: Set<number>;
  meta: Map<number, Record<string, unknown[]>>;
}

/**
 * The reference's comments controller (routes in CommentsHandlers): threads on posts (and comments without a
 * post, for moderators), moderation by the site's discussion settings, trash, private query parameters, and every
 * page of comments — or the replies of a page of posts — loaded in a fixed number of queries.
 */
@Injectable()
export class CommentResource extends RestResource {
  override readonly namespace = 'cms/v2';
  readonly restBase = 'comments';

  constructor(
    server: RestServer,
    extensions: CmsExtensionRegistry,
    hooks: HookRegistry,
    private readonly content: ContentRegistry,
    private readonly comments: CommentsService,
    private readonly posts: PostsService,
    private readonly options: OptionsService,
    private readonly moderation: CommentModeration,
  ) {
    super(server, extensions, hooks);
  }

  // --- schema and arguments ---

  protected baseSchema(): ItemSchema {
    const props = commentProperties();
    props.meta = {
      description: 'Meta fields.',
      type: 'object',
      context: ['view', 'edit'],
      properties: metaSchemaProperties(this.registeredMeta()),
    };
    return { $schema: 'http://json-schema.org/draft-04/schema#', title: 'comment', type: 'object', properties: props };
  }

  /**
   * Whether the site shows avatars (on in a fresh install), as last read by this node with a comments request: the
   * published schema leaves `author_avatar_urls` out while it is off, as the reference does.
   */
  private avatarsShown = true;

  override getPublicItemSchema(): ItemSchema {
    const schema = super.getPublicItemSchema();
    if (this.avatarsShown) return schema;
    const { author_avatar_urls: _avatars, ...properties } = schema.properties;
    return { ...schema, properties };
  }

  private registeredMeta() {
    return exposedMetaKeys(this.extensions, 'comment');
  }

  readonly readArgs = () =>
    this.itemReadArgs(COMMENT_ID, {
      password: {
        description: 'The password for the parent post of the comment (if the post is password protected).',
        type: 'string',
      },
    });
  readonly createArgs = () => this.getEndpointArgsForItemSchema(Methods.CREATABLE);
  readonly updateArgs = () => this.itemUpdateArgs(COMMENT_ID);
  readonly deleteArgs = (): Record<string, RouteArg> => ({
    ...this.itemDeleteArgs(COMMENT_ID, 'Whether to bypass trash and force deletion.'),
    password: {
      description: 'The password for the parent post of the comment (if the post is password protected).',
      type: 'string',
    },
  });

  collectionArgs(): Record<string, RouteArg> {
    return commentCollectionArgs(this.getCollectionParams(), (d) => this.idListArg(d));
  }

  // --- loading ---

  private commentLoader(req: RestRequest) {
    return req.ctx.loader<number, CommentEntity | null>('comments', async (ids) => {
      const rows = await this.comments.findByIds(ids);
      return ids.map((id) => rows.find((r) => r.id === id) ?? null);
    });
  }

  private postLoader(req: RestRequest) {
    return postLoader(req, this.posts);
  }

  private async loadPost(req: RestRequest, id: number): Promise<PostEntity | null> {
    return id > 0 ? this.postLoader(req).load(id) : null;
  }

  private async loadComment(req: RestRequest): Promise<CommentEntity | null> {
    const id = Number(req.get('id'));
    return Number.isInteger(id) && id > 0 ? this.commentLoader(req).load(id) : null;
  }

  private async loadCommentOrFail(req: RestRequest): Promise<CommentEntity> {
    const comment = await this.loadComment(req);
    if (!comment) throw new RestException('rest_comment_invalid_id', 'Invalid comment id.', 404);
    return comment;
  }

  private async siteFacts(req: RestRequest): Promise<SiteFacts> {
    const o = await this.options.getMany([
      'home',
      'siteurl',
      'show_avatars',
      'avatar_default',
      'avatar_rating',
      'use_smilies',
    ]);
    const facts: SiteFacts = {
      home: textOf(o.home ?? req.ctx.baseUrl).replace(/\/+$/, ''),
      siteUrl: textOf(o.siteurl ?? o.home ?? req.ctx.baseUrl).replace(/\/+$/, ''),
      showAvatars: showAvatars(o.show_avatars),
      avatarDefault: textOf(o.avatar_default ?? 'mystery'),
      avatarRating: textOf(o.avatar_rating ?? 'G'),
      useSmilies: o.use_smilies === undefined ? true : Boolean(Number(o.use_smilies)),
    };
    this.avatarsShown = facts.showAvatars;
    return facts;
  }

  // --- permissions ---

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
      const single = parseIdList(req.get('post')).length === 1 || req.has('id');
      const password = req.get<string>('password');
      if (!(single && password && samePassword(post.password, password))) return this.can(req, 'edit_post', post);
    }
    return canReadPost(post, req, this.content, (id) => this.loadPost(req, id));
  }

  /** The reference's `check_read_permission` of one comment. */
  private async canReadComment(comment: CommentEntity, req: RestRequest, post: PostEntity | null): Promise<boolean> {
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
    for (const id of parseIdList(req.get('post'))) {
      if (id) {
        const post = await this.loadPost(req, id);
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
      for (const name of ['author', 'author_exclude', 'author_email', 'karma']) {
        const value = req.get(name);
        if (
          value !== undefined &&
          value !== '' &&
          value !== 0 &&
          value !== '0' &&
          !(Array.isArray(value) && !value.length)
        )
          forbidden.push(name);
      }
      if (req.get('type') !== 'comment') forbidden.push('type');
      if (req.get('status') !== 'approve') forbidden.push('status');
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
    const comment = await this.loadComment(req);
    if (!comment) return true;
    // The reference's order: the comment, its post, then the context.
    const code = req.ctx.authorizationRequiredCode;
    const post = await this.loadPost(req, comment.postId);
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
    if (!req.ctx.isLoggedIn && truthyOption(await this.options.get('comment_registration', 0))) {
      return new RestException('rest_comment_login_required', 'Sorry, you must be logged in to comment.', 401);
    }
    const moderator = await this.can(req, 'moderate_comments');
    if (req.has('author') && Number(req.get('author')) !== req.ctx.user.id && !moderator) {
      return new RestException('rest_comment_invalid_author', 'Comment author invalid.', code);
    }
    if (req.has('author_ip') && !moderator && req.get('author_ip') !== req.ctx.ip) {
      return new RestException(
        'rest_comment_invalid_author_ip',
        "Sorry, you are not allowed to edit 'author_ip' for comments.",
        code,
      );
    }
    if (req.has('karma') && Number(req.get('karma')) > 0 && !moderator) {
      return new RestException('rest_comment_invalid_karma', 'Sorry, you cannot set karma for comments.', code);
    }
    if (req.has('status') && !moderator) {
      return new RestException('rest_comment_invalid_status', 'Sorry, you cannot set status for comments.', code);
    }
    const postId = Number(req.get('post') ?? 0);
    if (!postId) {
      if (!moderator)
        return new RestException(
          'rest_comment_invalid_post_id',
          'Sorry, you cannot create this comment without a post.',
          code,
        );
      return true;
    }
    const post = await this.loadPost(req, postId);
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
    const comment = await this.loadCommentOrFail(req);
    const code = req.ctx.authorizationRequiredCode;
    if (!(await this.canEditComment(comment, req)))
      return new RestException('rest_cannot_edit', 'Sorry, you can not edit this comment.', code);
    if (req.has('status') && !(await this.can(req, 'moderate_comments'))) {
      return new RestException('rest_comment_invalid_status', 'Sorry, you cannot set status for comments.', code);
    }
    return true;
  }

  async canDelete(req: RestRequest): Promise<true | RestException> {
    const comment = await this.loadCommentOrFail(req);
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

  // --- handlers ---

  async getItems(req: RestRequest): Promise<RestResponse> {
    // absint(); an empty offset pages.
    const q = CollectionQuery.of<CommentListArgs>(req, { absoluteOffset: true });
    const clock = await this.clock();
    const date = (name: string) => {
      const value = req.get<string>(name);
      return value ? (clock.restDateWithGmt(value)?.[0] ?? undefined) : undefined;
    };
    let query: CommentQuery = {
      postIn: parseIdList(req.get('post')),
      parentIn: parseIdList(req.get('parent')),
      parentNotIn: parseIdList(req.get('parent_exclude')),
      include: parseIdList(q.include),
      exclude: parseIdList(q.exclude),
      authorIn: parseIdList(req.get('author')),
      authorNotIn: parseIdList(req.get('author_exclude')),
      authorEmail: req.get<string>('author_email') || undefined,
      karma: req.has('karma') ? Math.abs(Math.trunc(Number(req.get('karma')))) : undefined,
      search: q.search ?? '',
      restrictedSearch: !(await this.can(req, 'moderate_comments')),
      status: String(req.get('status') ?? 'approve'),
      type: String(req.get('type') ?? 'comment'),
      after: date('after'),
      before: date('before'),
      orderby: q.orderby('date_gmt'),
      order: q.order('DESC'),
      limit: q.limit,
      offset: q.offset,
    };
    query = await this.hooks.applyFilters('rest_comment_query', query, req);
    const { comments, total } = await this.page(query, req);
    const batch = await this.batchOf(comments, req);
    const site = await this.siteFacts(req);
    const readable: CommentEntity[] = [];
    for (const comment of comments)
      if (await this.canReadComment(comment, req, batch.posts.get(comment.postId) ?? null)) readable.push(comment);
    const items = await this.collectionItems(readable, req, batch, site);
    // The page of the Link header is the request's, as the reference's (also with an offset).
    return this.paginate(new RestResponse(items), req, total, `${this.namespace}/${this.restBase}`, q);
  }

  /**
   * A page of the query. The comments of one post with nothing else special about the query (the `replies` of
   * each post of a page, embedded) go through a request-wide loader, so a page of posts costs one query for all.
   */
  private async page(query: CommentQuery, req: RestRequest): Promise<CommentPage> {
    const onePost = query.postIn.length === 1 && query.postIn[0] > 0;
    if (!onePost || query.orderby === 'include') return this.comments.list(query);
    const { postIn, ...rest } = query;
    const key = JSON.stringify(rest);
    return req.ctx
      .loader<number, CommentPage>(`comments-of-post:${key}`, async (ids) => {
        const pages = await this.comments.pagesOfPosts(rest, ids);
        return ids.map((id) => pages.get(id) ?? { comments: [], total: 0 });
      })
      .load(postIn[0]);
  }

  async getItem(req: RestRequest): Promise<RestResponse> {
    const comment = await this.loadCommentOrFail(req);
    if (comment.postId && !(await this.loadPost(req, comment.postId)))
      throw new RestException('rest_post_invalid_id', 'Invalid post id.', 404);
    return this.prepareOne(comment, req);
  }

  async createItem(req: RestRequest): Promise<RestResponse> {
    if (req.sentAtAll('id', true))
      throw new RestException('rest_comment_exists', 'Cannot create existing comment.', 400);
    if (req.has('type') && req.get('type') !== 'comment')
      throw new RestException('rest_invalid_comment_type', 'Cannot create a comment with that type.', 400);
    const moderator = await this.can(req, 'moderate_comments');
    const clock = await this.clock();
    const prepared = await this.prepareForDatabase(req, clock, true, moderator);
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
    // Checked against the comment about to be made (its post decides edit_comment).
    const meta = await this.plannedMeta(req, { ...stored, id: 0 });
    const status = req.has('status') ? String(req.get('status')) : undefined;
    const id = await this.comments.create(stored, status, meta);
    const comment = (await this.comments.findByIds([id]))[0];
    await this.updateAdditionalFields(comment, req);
    await this.hooks.doAction('rest_insert_comment', comment, req, true);
    req.set('context', moderator ? 'edit' : 'view');
    this.commentLoader(req).clear(id);
    const response = await this.prepareOne(comment, req);
    return this.created(response, req, `${this.namespace}/${this.restBase}/${id}`);
  }

  async updateItem(req: RestRequest): Promise<RestResponse> {
    const current = await this.loadCommentOrFail(req);
    if (req.has('type') && req.get('type') !== (current.type || 'comment')) {
      throw new RestException('rest_comment_invalid_type', 'Sorry, you cannot change the comment type.', 404);
    }
    const moderator = await this.can(req, 'moderate_comments');
    const prepared = await this.prepareForDatabase(req, await this.clock(), false, moderator);
    if (prepared.content !== undefined && !prepared.content)
      throw new RestException('rest_comment_content_invalid', 'Invalid comment content.', 400);
    if (prepared.postId && !(await this.loadPost(req, prepared.postId)))
      throw new RestException('rest_comment_invalid_post_id', 'Invalid post ID.', 403);
    // As WordPress does, the lengths are checked before the filters run.
    checkLengths(prepared);
    const fields = await this.moderation.filter(prepared, req);
    const status = req.has('status') ? String(req.get('status')) : undefined;
    const meta = await this.plannedMeta(req, current);
    const changed = await this.comments.update(current, fields, status, meta);
    if (!Object.keys(fields).length && status !== undefined && !changed) {
      throw new RestException('rest_comment_failed_edit', 'Updating comment status failed.', 500);
    }
    const comment = (await this.comments.findByIds([current.id]))[0];
    await this.updateAdditionalFields(comment, req);
    await this.hooks.doAction('rest_insert_comment', comment, req, false);
    req.set('context', 'edit');
    return this.prepareOne(comment, req);
  }

  async deleteItem(req: RestRequest): Promise<RestResponse> {
    const comment = await this.loadCommentOrFail(req);
    const force = req.get('force') === true;
    const trashable = await this.hooks.applyFilters('rest_comment_trashable', true, comment);
    req.set('context', 'edit');
    const previous = await this.prepareOne(comment, req);
    if (force) await this.comments.delete(comment);
    else {
      if (!trashable)
        throw new RestException('rest_trash_not_supported', 'The comment does not support trashing.', 501);
      if (comment.approved === 'trash')
        throw new RestException('rest_already_trashed', 'The comment has already been trashed.', 410);
      await this.comments.trash(comment);
    }
    await this.hooks.doAction('rest_delete_comment', comment, previous, req);
    return previous;
  }

  // --- writing ---

  private async clock(): Promise<SiteClock> {
    return SiteClock.fromOptions(await this.options.getMany(['timezone_string', 'gmt_offset']));
  }

  /**
   * The reference's `prepare_item_for_database`: the columns the request gives (defaults on create only), then the
   * `rest_preprocess_comment` filter.
   */
  private async prepareForDatabase(
    req: RestRequest,
    clock: SiteClock,
    creating: boolean,
    moderator: boolean,
  ): Promise<Partial<CommentFields>> {
    const out: Partial<CommentFields> = {};
    const content = req.get<unknown>('content');
    if (typeof content === 'string') out.content = content.trim();
    else if (content && typeof content === 'object' && typeof (content as { raw?: unknown }).raw === 'string') {
      out.content = (content as { raw: string }).raw.trim();
    }
    if (req.has('post')) out.postId = Number(req.get('post'));
    if (req.has('parent')) out.parent = Number(req.get('parent'));
    // A user as author brings their name, e-mail and URL (what the request gives besides wins).
    if (req.has('author') && Number(req.get('author')) > 0) {
      const user = await this.comments.userFacts(Number(req.get('author')));
      if (!user) throw new RestException('rest_comment_author_invalid', 'Invalid comment author ID.', 400);
      out.userId = Number(req.get('author'));
      out.author = user.displayName;
      out.authorEmail = user.email;
      out.authorUrl = user.url;
    } else if (req.has('author')) out.userId = 0;
    if (req.has('author_name')) out.author = String(req.get('author_name'));
    if (req.has('author_email')) out.authorEmail = String(req.get('author_email'));
    if (req.has('author_url')) out.authorUrl = String(req.get('author_url'));
    if (req.has('author_ip') && moderator) out.authorIp = String(req.get('author_ip'));
    else if (creating) out.authorIp = req.ctx.ip && isIp(req.ctx.ip) ? req.ctx.ip : '127.0.0.1';
    if (creating) out.agent = String(req.header('user-agent') ?? '');
    if (req.has('karma')) out.karma = Number(req.get('karma'));
    if (req.get('date')) {
      const value = clock.restDateWithGmt(String(req.get('date')));
      if (value) [out.date, out.dateGmt] = value;
    } else if (req.get('date_gmt')) {
      const value = clock.restDateWithGmt(String(req.get('date_gmt')), true);
      if (value) [out.date, out.dateGmt] = value;
    }
    return this.hooks.applyFilters('rest_preprocess_comment', out, req);
  }

  private async plannedMeta(req: RestRequest, comment: CommentEntity) {
    if (!req.has('meta')) return [];
    return planMetaWrites(
      this.registeredMeta(),
      req.get('meta'),
      'comment',
      (cap, key) => req.ctx.can(cap, comment, key),
      req.ctx.authorizationRequiredCode,
    );
  }

  // --- preparation ---

  private async prepareOne(comment: CommentEntity, req: RestRequest): Promise<RestResponse> {
    const batch = await this.batchOf([comment], req);
    return this.prepareItem(comment, req, batch, await this.siteFacts(req));
  }

  /** Everything preparing these comments needs, loaded for all of them at once. */
  private async batchOf(comments: CommentEntity[], req: RestRequest): Promise<CommentBatch> {
    const postIds = [...new Set(comments.map((c) => c.postId).filter((id) => id > 0))];
    const posts = new Map<number, PostEntity>();
    const found = await this.postLoader(req).loadMany(postIds);
    found.forEach((p) => p && !(p instanceof Error) && posts.set(p.id, p));
    const parents = new Map<number, PostEntity>();
    let wanted = [...new Set([...posts.values()].map((p) => p.parent).filter((id) => id > 0))];
    for (let depth = 0; wanted.length && depth < 20; depth++) {
      const rows = (await this.postLoader(req).loadMany(wanted)).filter(
        (r): r is PostEntity => Boolean(r) && !(r instanceof Error),
      );
      rows.forEach((r) => parents.set(r.id, r));
      wanted = [...new Set(rows.map((r) => r.parent).filter((id) => id > 0 && !parents.has(id)))];
    }
    const ids = comments.map((c) => c.id);
    const childLoader = req.ctx.loader<number, boolean>('comment-has-children', async (keys) => {
      const set = await this.comments.withChildren(keys);
      return keys.map((k) => set.has(k));
    });
    const withChildren = new Set<number>();
    (await childLoader.loadMany(ids)).forEach((has, i) => has === true && withChildren.add(ids[i]));
    const metaKeys = this.registeredMeta().map((m) => m.key);
    const meta = new Map<number, Record<string, unknown[]>>();
    if (metaKeys.length && ids.length) {
      const metaLoader = req.ctx.loader<number, Record<string, unknown[]>>('comment-meta', async (keys) => {
        const values = await this.comments.metaOf([...keys], metaKeys);
        return keys.map((k) => values.get(k) ?? {});
      });
      (await metaLoader.loadMany(ids)).forEach((v, i) => meta.set(ids[i], v instanceof Error ? {} : v));
    }
    return { posts, parents, withChildren, meta };
  }

  private readonly memo = new ItemMemo();

  /**
   * Comments as collection items; as JSON text while nothing looks into them afterwards (`itemsAsText`), each reused
   * while everything it is made from is unchanged: the request's API URL, context and scheme, the site's facts, the
   * comment's row, its post's link and route, its replies, its meta.
   */
  private collectionItems(
    comments: CommentEntity[],
    req: RestRequest,
    batch: CommentBatch,
    site: SiteFacts,
  ): Promise<unknown[]> {
    return this.reusedItems(this.memo, comments, req, 'comment', {
      key: (c) => c.id,
      inputs: (c) => {
        const post = batch.posts.get(c.postId) ?? null;
        return [
          req.ctx.restUrl(''),
          req.ctx.baseUrl,
          req.context,
          site.siteUrl,
          site.showAvatars,
          site.avatarDefault,
          site.avatarRating,
          site.useSmilies,
          c.postId,
          c.parent,
          c.userId,
          c.author,
          c.authorEmail,
          c.authorUrl,
          c.authorIp,
          c.agent,
          c.date,
          c.dateGmt,
          c.content,
          c.karma,
          c.approved,
          c.type,
          this.commentLink(c, post, batch, site),
          post?.type ?? '',
          batch.withChildren.has(c.id),
          batch.meta.size ? JSON.stringify(batch.meta.get(c.id) ?? null) : '',
        ];
      },
      build: (c) => this.prepareItem(c, req, batch, site),
    });
  }

  /**
   * One comment's response. Whatever this and {@link links} read — of the request, the site, the row or the batch —
   * must be among {@link collectionItems}' inputs, or a reused item would miss the change.
   */
  private async prepareItem(
    comment: CommentEntity,
    req: RestRequest,
    batch: CommentBatch,
    site: SiteFacts,
  ): Promise<RestResponse> {
    const post = batch.posts.get(comment.postId) ?? null;
    const data: Record<string, unknown> = {
      id: comment.id,
      post: comment.postId,
      parent: comment.parent,
      author: comment.userId,
      author_name: comment.author,
      author_email: comment.authorEmail,
      author_url: comment.authorUrl,
      author_ip: comment.authorIp,
      author_user_agent: comment.agent,
      date: mysqlToRfc3339(comment.date),
      date_gmt: mysqlToRfc3339(comment.dateGmt),
      content: {
        rendered: renderCommentText(comment.content, { siteUrl: site.siteUrl, useSmilies: site.useSmilies }),
        raw: comment.content,
      },
      karma: comment.karma,
      link: this.commentLink(comment, post, batch, site),
      status: comment.approved === '1' ? 'approved' : comment.approved === '0' ? 'hold' : comment.approved,
      type: comment.type || 'comment',
    };
    if (site.showAvatars)
      data.author_avatar_urls = avatarUrls(comment.authorEmail, site, req.ctx.baseUrl.startsWith('https:'));
    data.meta = metaResponse(this.registeredMeta(), batch.meta.get(comment.id) ?? {});
    return this.prepareResponse(data, req, this.links(comment, post, batch, req), 'comment', comment);
  }

  /** `get_comment_link()` with `/%postname%/` permalinks and comments not paged. */
  private commentLink(comment: CommentEntity, post: PostEntity | null, batch: CommentBatch, site: SiteFacts): string {
    const type = post ? this.content.postType(post.type) : undefined;
    const base =
      post && type ? permalink(post, type, site.home, batch.parents, !PLAIN_LINK_STATUSES.includes(post.status)) : '';
    return `${base}#comment-${comment.id}`;
  }

  private links(comment: CommentEntity, post: PostEntity | null, batch: CommentBatch, req: RestRequest) {
    const ns = this.namespace;
    const url = (path: string) => req.ctx.restUrl(path);
    const links = linkMap({
      self: { href: url(`${ns}/${this.restBase}/${comment.id}`) },
      collection: { href: url(`${ns}/${this.restBase}`) },
    });
    if (comment.userId)
      links.set('author', [{ href: url(`${ns}/users/${comment.userId}`), attributes: { embeddable: true } }]);
    const type = post ? this.content.postType(post.type) : undefined;
    if (post && type) {
      const base = type.rest_base || type.name;
      links.set('up', [
        {
          href: url(`${type.rest_namespace}/${base}/${post.id}`),
          attributes: { embeddable: true, post_type: post.type },
        },
      ]);
    }
    if (comment.parent)
      links.set('in-reply-to', [
        { href: url(`${ns}/${this.restBase}/${comment.parent}`), attributes: { embeddable: true } },
      ]);
    if (batch.withChildren.has(comment.id))
      links.set('children', [{ href: url(`${ns}/${this.restBase}?parent=${comment.id}`), attributes: {} }]);
    return links;
  }
}

function isIp(value: string): boolean {
  return /^(\d{1,3}\.){3}\d{1,3}$/.test(value) || /^[0-9a-f:]+$/i.test(value);
}
