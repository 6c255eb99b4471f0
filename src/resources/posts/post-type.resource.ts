import { invalidParam } from '../../core/rest/request-args';
import { PostEntity } from '../../core/database/entities/post.entity';
import { RestException } from '../../core/errors/rest.exception';
import { ContentRegistry } from '../../core/registry/content-registry.service';
import { PostTypeObject, TaxonomyObject } from '../../core/registry/content-types';
import { exposedMetaKeys, metaSchemaProperties } from '../../core/rest/meta-fields';
import { CollectionQuery } from '../../core/rest/collection-query';
import { restRouteOf } from '../../core/rest/rest-base';
import { RestResource } from '../../core/rest/rest-resource';
import { RestRequest } from '../../core/rest/rest-request';
import { LinkMap, RestResponse } from '../../core/rest/rest-response';
import { ItemSchema, RouteArg } from '../../core/json-schema/json-schema';
import { applyFilterQueryVars, filterPage } from './filter-query-vars';
import { canReadPost, postLoader } from './post-access';
import { POST_ID, postCollectionArgs, PostListArgs, postListQuery } from './post-collection-args';
import { FuturePosts } from './future-posts.service';
import { PostInput } from './post-input';
import { PostPolicies, PostPolicyView } from './post-policies';
import { PostPresenter, PostTypeView } from './post-presenter';
import { buildPostSchema, typeSupports, type PostDeleteArgs } from './post-schema';
import { schemaLinks } from './post-edit-extras';
import { PostWriter } from './post-writer.service';
import { checkTemplateArg } from './post-template';
import { PostQuery, PostsService } from './posts.service';
import type { PostExtras } from './post-extras';
import type { PostTypeDependencies } from './post-type-resources.service';
import { Methods } from '../../core/rest/route-types';

/**
 * The reference's posts controller, one instance per REST post type (routes in PostsHandlers) (`posts`, `pages`, extension types with a
 * `rest_base`): routes, read permissions by status, password protection, fields filtered by the type's supports,
 * links, and everything a page of posts needs loaded in a fixed number of queries.
 */
export class PostTypeResource extends RestResource {
  override readonly namespace: string;
  readonly restBase: string;
  protected readonly input: PostInput;
  protected readonly presenter: PostPresenter;

  protected readonly content: ContentRegistry;
  protected readonly posts: PostsService;
  protected readonly writer: PostWriter;
  private readonly future: FuturePosts;
  /** The page templates the type offers (`file → name`), as registered now. */
  private readonly pageTemplates: () => Record<string, string>;
  /** Who may do what with this type's posts: the `@Allow` policies of its routes. */
  readonly policies: PostPolicies;

  /** Made by {@link PostTypeResources}, once per REST post type, from the services it was given by DI. */
  constructor(
    deps: PostTypeDependencies,
    protected readonly type: PostTypeObject,
  ) {
    super(deps.server, deps.extensions, deps.hooks);
    this.content = deps.content;
    this.posts = deps.posts;
    this.writer = deps.writer;
    this.future = deps.future;
    this.pageTemplates = () => deps.extensions.pageTemplates(type.name);
    ({ namespace: this.namespace, restBase: this.restBase } = restRouteOf(type));
    const view: PostTypeView = {
      type,
      namespace: this.namespace,
      restBase: this.restBase,
      taxonomies: () => this.taxonomies(),
      registeredMeta: () => this.registeredMeta(),
      schema: () => this.getItemSchema(),
      respond: (data, req, links, post) => this.respondItem(data, req, links, post),
    };
    this.presenter = new PostPresenter(deps, view);
    this.input = new PostInput(deps, view);
    this.policies = this.policiesOf({
      type,
      posts: this.posts,
      future: this.future,
      taxonomies: () => this.taxonomies(),
      loadPost: (req, message) => this.loadPost(req, message),
      canReadPost: (post, req) => this.canReadPost(post, req),
    });
  }

  protected registeredMeta() {
    return exposedMetaKeys(this.extensions, 'post', this.type.name);
  }

  private taxonomies(): TaxonomyObject[] {
    return this.content.restTaxonomies().filter((t) => t.object_type.includes(this.type.name));
  }

  protected baseSchema(): ItemSchema {
    const statuses = this.content
      .allStatuses()
      .filter((s) => !s.internal)
      .map((s) => s.name)
      .filter((s) => s !== 'trash');
    const dialect = this.server.options.wire.dialect.posts;
    const schema = buildPostSchema(this.type, this.taxonomies(), statuses, dialect);
    if (dialect.editExtras) {
      const author = typeSupports(this.type, 'author');
      const item = `${this.namespace}/${this.restBase}/{id}`;
      schema.links = schemaLinks(this.type, this.taxonomies(), author, item, this.server.options.linkRelBase);
    }
    if (schema.properties.meta) schema.properties.meta.properties = metaSchemaProperties(this.registeredMeta());
    return schema;
  }

  readonly readArgs = () =>
    this.itemReadArgs(
      POST_ID,
      this.readsPassword()
        ? { password: { description: 'The password for the post if it is password protected.', type: 'string' } }
        : {},
    );

  /** Whether reading one item takes `password` (media: as the dialect says). */
  protected readsPassword(): boolean {
    return true;
  }
  readonly createArgs = () => this.getEndpointArgsForItemSchema(Methods.CREATABLE);

  /** With WordPress's template check, `template` is checked as its check_template does (see post-template.ts). */
  override getEndpointArgsForItemSchema(methods: readonly string[] = Methods.CREATABLE): Record<string, RouteArg> {
    const args = super.getEndpointArgsForItemSchema(methods);
    if (args.template && this.server.options.wire.dialect.posts.templateCheck === 'refuse-unknown') {
      // A new post has no template; an update's current one is known to the handler only.
      const current = methods.length === 1 && methods[0] === 'POST' ? '' : undefined;
      args.template = {
        ...args.template,
        validate: (value) => checkTemplateArg(value, this.pageTemplates(), current),
      };
    }
    return args;
  }
  readonly updateArgs = () => this.itemUpdateArgs(POST_ID);
  readonly deleteArgs = () => this.itemDeleteArgs(POST_ID, 'Whether to bypass trash and force deletion.');

  collectionArgs(): Record<string, RouteArg> {
    return postCollectionArgs(this.type, {
      collectionParams: this.getCollectionParams(),
      idListArg: (description) => this.idListArg(description),
      statuses: this.content.allStatuses().map((s) => s.name),
      taxonomies: this.taxonomies(),
      dialect: this.server.options.wire.dialect.posts,
    });
  }

  /** The response of one prepared post (attachments add their own fields here). */
  protected respondItem(
    data: Record<string, unknown>,
    req: RestRequest,
    links: LinkMap,
    post: PostEntity,
  ): Promise<RestResponse> {
    return this.prepareResponse(data, req, links, this.type.name, post);
  }

  /** The collection query of a request, before `rest_{type}_query` (attachments add their MIME filters here). */
  protected async shapeQuery(query: PostQuery, _args: PostListArgs): Promise<PostQuery> {
    return query;
  }

  /** Loads, for all of them at once, what {@link respondItem} needs besides the presenter's batch. */
  protected async preload(_posts: PostEntity[], _req: RestRequest): Promise<void> {}

  // --- permissions (see PostPolicies) ---

  /** The policies of this type's routes (attachments check more when uploading). */
  protected policiesOf(view: PostPolicyView): PostPolicies {
    return new PostPolicies(view);
  }

  protected async loadPost(req: RestRequest, message = 'Invalid post id.'): Promise<PostEntity> {
    const post = await postLoader(req, this.posts).load(req.args<{ id: number }>().id);
    if (!post || post.type !== this.type.name) throw new RestException('rest_post_invalid_id', message, 404);
    return post;
  }

  /** The reference's check_read_permission (see {@link canReadPost}). */
  protected canReadPost(post: PostEntity, req: RestRequest): Promise<boolean> {
    return canReadPost(post, req, this.content, (id) => this.posts.findById(id));
  }

  // --- handlers ---

  async getItems(req: RestRequest): Promise<RestResponse> {
    await this.future.catchUp();
    const q = CollectionQuery.of<PostListArgs>(req);
    const statuses = await this.statusesFor(req, q.args.status);
    const site = await this.presenter.siteFacts(req);
    const query = postListQuery(q, {
      type: this.type,
      taxonomies: this.taxonomies(),
      statuses,
      clock: site.clock,
      sticky: site.sticky,
      orderby: 'date',
      order: 'DESC',
    });
    const withVars = await applyFilterQueryVars(
      await this.shapeQuery(query, q.args),
      req,
      q.args,
      this.posts,
      await req.ctx.can(this.type.cap.edit_posts),
      site.sticky,
    );
    const filtered = await this.hooks.applyFilters(`rest_${this.type.name}_query`, withVars, req);
    if (filtered.search && filtered.protectedSearch === undefined)
      filtered.protectedSearch = await this.policies.protectedSearch(req);
    const { posts, total, extras } = await this.posts.list(filtered, this.presenter.extrasWanted());
    // WordPress refuses a page past the last one (the spec answers it empty, with the totals).
    if (req.ctx.wire.dialect.posts.pastLastPageRefused && total > 0 && q.page > Math.ceil(total / filtered.limit))
      throw new RestException(
        'rest_post_invalid_page_number',
        'The page number requested is larger than the number of pages available.',
        400,
      );
    const readable: PostEntity[] = [];
    for (const post of posts) if (await this.canReadPost(post, req)) readable.push(post);
    await this.preload(readable, req);
    const items = await this.presenter.prepareCollection(
      readable,
      req,
      site,
      extras,
      (r) => this.server.toCollectionItem(r),
      () => this.itemsAsText(req, this.type.name),
    );
    const response = new RestResponse(items);
    // `filter[posts_per_page]` changes the page size the totals are computed with.
    return this.paginate(response, req, total, `${this.namespace}/${this.restBase}`, {
      perPage: filtered.limit,
      ...filterPage(req),
    });
  }

  /** The statuses `asked` for (the `status` argument), each checked as the reference's sanitize_post_statuses does. */
  protected async statusesFor(req: RestRequest, asked: string[]): Promise<string[]> {
    for (const status of asked) {
      if (status === 'publish') continue;
      const allowed =
        (await req.ctx.can(this.type.cap.edit_posts)) ||
        (status === 'private' && (await req.ctx.can(this.type.cap.read_private_posts)));
      if (!allowed)
        throw invalidParam(req, 'status', 'Status is forbidden.', {
          code: 'rest_forbidden_status',
          data: { status: req.ctx.authorizationRequiredCode },
        });
    }
    if (asked.includes('any')) {
      return this.content
        .allStatuses()
        .filter((s) => !s.exclude_from_search && s.name !== 'trash' && s.name !== 'auto-draft')
        .map((s) => s.name);
    }
    return asked;
  }

  async getItem(req: RestRequest): Promise<RestResponse> {
    const post = await this.loadPost(req);
    const site = await this.presenter.siteFacts(req);
    // Through a request-wide loader: the posts embedded for a page of comments (`up`) read theirs in one query.
    const extras = await req.ctx
      .loader<number, PostExtras | undefined>(`post-extras:${this.type.name}`, async (ids) => {
        const found = await this.posts.extrasOf([...ids], this.presenter.extrasWanted());
        return ids.map((id) => found.get(id));
      })
      .load(post.id);
    const loaded = extras ? new Map([[post.id, extras]]) : undefined;
    await this.preload([post], req);
    const asText = () => this.itemsAsText(req, this.type.name);
    if (asText()) {
      const { item, link } = await this.presenter.prepareOne(
        post,
        req,
        site,
        (r) => this.server.toCollectionItem(r),
        asText,
        loaded,
      );
      const response = new RestResponse(item);
      lastModified(response, post.modifiedGmt);
      if (this.type.public || this.type.publicly_queryable)
        response.header('Link', `<${link}>; rel="alternate"; type=text/html`, false);
      return response;
    }
    const response = (await this.presenter.prepareMany([post], req, site, loaded))[0];
    lastModified(response, post.modifiedGmt);
    // Viewable types point to the item's page on the site.
    if (this.type.public || this.type.publicly_queryable) {
      const link = (response.data as { link?: string }).link;
      if (link) response.header('Link', `<${link}>; rel="alternate"; type=text/html`, false);
    }
    return response;
  }

  async createItem(req: RestRequest): Promise<RestResponse> {
    if (req.sentAtAll('id', true)) throw new RestException('rest_post_exists', 'Cannot create existing post.', 400);
    const ctx = await this.input.writeContext(req);
    const fields = await this.input.fields(req, null, ctx.clock);
    const relations = await this.input.relations(req, null);
    const post = await this.writer.create(this.type, fields, relations, ctx);
    if (post.status === 'future') this.future.scheduled(post.dateGmt);
    await this.updateAdditionalFields(post, req);
    await this.hooks.doAction(`rest_insert_${this.type.name}`, post, req, true);
    req.set('context', 'edit');
    const response = (await this.presenter.prepareMany([post], req, await this.presenter.siteFacts(req)))[0];
    return this.created(response, req, `${this.namespace}/${this.restBase}/${post.id}`);
  }

  async updateItem(req: RestRequest): Promise<RestResponse> {
    const before = await this.loadPost(req, 'Post id is invalid.');
    const ctx = await this.input.writeContext(req, before);
    const fields = await this.input.fields(req, before, ctx.clock);
    const relations = await this.input.relations(req, before);
    const post = await this.writer.update(this.type, before, fields, relations, ctx);
    if (post.status === 'future') this.future.scheduled(post.dateGmt);
    await this.updateAdditionalFields(post, req);
    await this.hooks.doAction(`rest_insert_${this.type.name}`, post, req, false);
    req.set('context', 'edit');
    return (await this.presenter.prepareMany([post], req, await this.presenter.siteFacts(req)))[0];
  }

  async deleteItem(req: RestRequest): Promise<RestResponse> {
    const post = await this.loadPost(req);
    const force = req.args<PostDeleteArgs>().force === true;
    const trashable = await this.hooks.applyFilters(`rest_${this.type.name}_trashable`, true, post);
    req.set('context', 'edit');
    const previous = (await this.presenter.prepareMany([post], req, await this.presenter.siteFacts(req)))[0];
    if (force) {
      await this.writer.delete(this.type, post);
      await this.hooks.doAction(`rest_delete_${this.type.name}`, post, previous, req);
      return this.deleted(req, previous);
    }
    if (!trashable) throw new RestException('rest_trash_not_supported', 'The post does not support trashing.', 501);
    if (post.status === 'trash')
      throw new RestException('rest_already_trashed', 'The post has already been deleted.', 410);
    await this.writer.trash(this.type, post, await this.input.writeContext(req, post));
    await this.hooks.doAction(`rest_delete_${this.type.name}`, post, previous, req);
    if (req.ctx.wire.dialect.trashAnswer === 'before') return previous;
    // WordPress answers the post as trashed.
    const trashed = (await this.posts.findById(post.id)) ?? post;
    return (await this.presenter.prepareMany([trashed], req, await this.presenter.siteFacts(req)))[0];
  }

  // --- preparation ---
}

/** `Last-Modified` of a single post: its `modified_gmt` (none while it is the zero date). */
export function lastModified(response: RestResponse, modifiedGmt: string | null | undefined): void {
  const at = modifiedGmt && !modifiedGmt.startsWith('0000') ? Date.parse(`${modifiedGmt.replace(' ', 'T')}Z`) : NaN;
  if (Number.isFinite(at)) response.header('Last-Modified', new Date(at).toUTCString());
}
