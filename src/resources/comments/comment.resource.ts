import { Injectable } from '@nestjs/common';
import { PostReads } from '../posts';
import { CommentEntity } from '../../core/database/entities/comment.entity';
import { HookRegistry } from '../../core/hooks/hook-registry.service';
import { OptionsService } from '../../core/options/options.service';
import { SiteClock } from '../../core/options/site-clock';
import { ContentRegistry } from '../../core/registry/content-registry.service';
import { exposedMetaKeys } from '../../core/rest/meta-fields';
import { metaProperty } from '../../core/rest/meta-property';
import { CollectionQuery } from '../../core/rest/collection-query';
import { RestResource } from '../../core/rest/rest-resource';
import { RestRequest } from '../../core/rest/rest-request';
import { RestResponse } from '../../core/rest/rest-response';
import { RestServer } from '../../core/rest/rest-server.service';
import { RestException } from '../../core/errors/rest.exception';
import { Methods } from '../../core/rest/route-types';
import { ItemSchema, RouteArg } from '../../core/json-schema/json-schema';
import { CmsExtensionRegistry } from '../../extensions/extension-registry.service';
import { commentLoader, loadCommentOrFail, loadPost } from './comment-loaders';
import { CommentPolicies } from './comment-policies';
import { CommentPresenter } from './comment-presenter';
import { CommentQuery, commentQueryOf } from './comment-query';
import {
  COMMENT_ID,
  commentCollectionArgs,
  CommentDeleteArgs,
  CommentListArgs,
  commentProperties,
} from './comment-schema';
import { CommentWriter } from './comment-writer.service';
import { CommentPage, CommentsService } from './comments.service';

/**
 * The reference's comments controller (routes in CommentsHandlers, who may do what in CommentPolicies): threads on
 * posts (and comments without a post, for moderators), moderation by the site's discussion settings, trash, private
 * query parameters, and every page of comments — or the replies of a page of posts — loaded in a fixed number of
 * queries. Comments are prepared by its CommentPresenter and written by CommentWriter.
 */
@Injectable()
export class CommentResource extends RestResource {
  override readonly namespace = 'cms/v2';
  readonly restBase = 'comments';
  private readonly presenter: CommentPresenter;

  constructor(
    server: RestServer,
    extensions: CmsExtensionRegistry,
    hooks: HookRegistry,
    content: ContentRegistry,
    private readonly comments: CommentsService,
    private readonly posts: PostReads,
    private readonly options: OptionsService,
    private readonly policies: CommentPolicies,
    private readonly writer: CommentWriter,
  ) {
    super(server, extensions, hooks);
    this.presenter = new CommentPresenter(
      { comments, posts, options, content },
      {
        namespace: this.namespace,
        restBase: this.restBase,
        registeredMeta: () => this.registeredMeta(),
        ...this.responseBuilders<CommentEntity>('comment'),
      },
    );
  }

  // --- schema and arguments ---

  protected baseSchema(): ItemSchema {
    const props = commentProperties(this.server.options.wire.dialect.comments);
    props.meta = metaProperty(this.registeredMeta());
    return { $schema: 'http://json-schema.org/draft-04/schema#', title: 'comment', type: 'object', properties: props };
  }

  /** The published schema leaves `author_avatar_urls` out while the site shows no avatars, as the reference does. */
  override getPublicItemSchema(): ItemSchema {
    const schema = super.getPublicItemSchema();
    if (this.presenter.avatarsShown) return schema;
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
    return commentCollectionArgs(
      this.getCollectionParams(),
      (d) => this.idListArg(d),
      this.server.options.wire.dialect.comments,
    );
  }

  // --- handlers ---

  async getItems(req: RestRequest): Promise<RestResponse> {
    // absint(); an empty offset pages.
    const q = CollectionQuery.of<CommentListArgs>(req, { absoluteOffset: true });
    let query = await commentQueryOf(req, q, await this.clock());
    query = await this.hooks.applyFilters('rest_comment_query', query, req);
    const { comments, total } = await this.page(query, req);
    const batch = await this.presenter.batchOf(comments, req);
    const site = await this.presenter.siteFacts(req);
    const readable: CommentEntity[] = [];
    for (const comment of comments)
      if (await this.policies.canReadComment(comment, req, batch.posts.get(comment.postId) ?? null))
        readable.push(comment);
    const items = await this.presenter.collectionItems(readable, req, batch, site);
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
    const comment = await loadCommentOrFail(req, this.comments);
    if (comment.postId && !(await loadPost(req, this.posts, comment.postId)))
      throw new RestException('rest_post_invalid_id', 'Invalid post id.', 404);
    return this.presenter.prepareOne(comment, req);
  }

  async createItem(req: RestRequest): Promise<RestResponse> {
    const { id, comment, moderator } = await this.writer.create(req);
    await this.updateAdditionalFields(comment, req);
    await this.hooks.doAction('rest_insert_comment', comment, req, true);
    req.set('context', moderator ? 'edit' : 'view');
    commentLoader(req, this.comments).clear(id);
    const response = await this.presenter.prepareOne(comment, req);
    return this.created(response, req, `${this.namespace}/${this.restBase}/${id}`);
  }

  async updateItem(req: RestRequest): Promise<RestResponse> {
    const comment = await this.writer.update(req);
    await this.updateAdditionalFields(comment, req);
    await this.hooks.doAction('rest_insert_comment', comment, req, false);
    req.set('context', 'edit');
    return this.presenter.prepareOne(comment, req);
  }

  async deleteItem(req: RestRequest): Promise<RestResponse> {
    const comment = await loadCommentOrFail(req, this.comments);
    const { force } = req.args<CommentDeleteArgs>();
    const trashable = await this.hooks.applyFilters('rest_comment_trashable', true, comment);
    req.set('context', 'edit');
    const previous = await this.presenter.prepareOne(comment, req);
    if (force) {
      await this.comments.delete(comment);
      await this.hooks.doAction('rest_delete_comment', comment, previous, req);
      return this.deleted(req, previous);
    }
    if (!trashable) throw new RestException('rest_trash_not_supported', 'The comment does not support trashing.', 501);
    if (comment.approved === 'trash')
      throw new RestException('rest_already_trashed', 'The comment has already been trashed.', 410);
    await this.comments.trash(comment);
    await this.hooks.doAction('rest_delete_comment', comment, previous, req);
    if (req.ctx.wire.dialect.trashAnswer === 'before') return previous;
    // WordPress answers the comment as trashed.
    const [trashed] = await this.comments.findByIds([comment.id]);
    return this.presenter.prepareOne(trashed ?? comment, req);
  }

  private async clock(): Promise<SiteClock> {
    return SiteClock.fromOptions(await this.options.getMany(['timezone_string', 'gmt_offset']));
  }
}
