import { PostEntity } from '../../core/database/entities/post.entity';
import { RestException } from '../../core/errors/rest.exception';
import { SiteClock } from '../../core/options/site-clock';
import { ContentRegistry } from '../../core/registry/content-registry.service';
import { PostTypeObject, TaxonomyObject } from '../../core/registry/content-types';
import { exposedMetaKeys, metaSchemaProperties } from '../../core/rest/meta-fields';
import { CollectionArgs, CollectionQuery, orderArg, orderbyArg } from '../../core/rest/collection-query';
import { RestResource } from '../../core/rest/rest-resource';
import { RestRequest } from '../../core/rest/rest-request';
import { LinkMap, RestResponse } from '../../core/rest/rest-response';
import { ItemSchema, RouteArg } from '../../core/json-schema/json-schema';
import { applyFilterQueryVars, filterPage } from './filter-query-vars';
import { canReadPost, postLoader } from './post-access';
import { FuturePosts } from './future-posts.service';
import { PostInput, truthy } from './post-input';
import { PostPresenter, PostTypeView, samePassword } from './post-presenter';
import { buildPostSchema } from './post-schema';
import { PostWriter } from './post-writer.service';
import { PostQuery, PostsService } from './posts.service';
import type { PostExtras } from './post-extras';
import type { PostTypeDependencies } from './post-type-resources.service';
import { Methods } from '../../core/rest/route-types';

/** The arguments of a post type's `GET` collection, as {@link PostTypeResource.collectionArgs} declares them. */
interface PostListArgs extends CollectionArgs {
  author?: number[];
  author_exclude?: number[];
  parent?: number[];
  parent_exclude?: number[];
  after?: string;
  before?: string;
  modified_after?: string;
  modified_before?: string;
  menu_order?: number;
  tax_relation?: 'AND' | 'OR';
  sticky?: boolean;
}

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
    this.namespace = type.rest_namespace;
    this.restBase = type.rest_base || type.name;
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
    const schema = buildPostSchema(this.type, this.taxonomies(), statuses);
    if (schema.properties.meta) schema.properties.meta.properties = metaSchemaProperties(this.registeredMeta());
    return schema;
  }

  readonly readArgs = () =>
    this.itemReadArgs(POST_ID, {
      password: { description: 'The password for the post if it is password protected.', type: 'string' },
    });
  readonly createArgs = () => this.getEndpointArgsForItemSchema(Methods.CREATABLE);
  readonly updateArgs = () => this.itemUpdateArgs(POST_ID);
  readonly deleteArgs = () => this.itemDeleteArgs(POST_ID, 'Whether to bypass trash and force deletion.');

  collectionArgs(): Record<string, RouteArg> {
    const args: Record<string, RouteArg> = {
      ...this.getCollectionParams(),
      after: {
        description: 'Limit response to posts published after a given ISO8601 compliant date.',
        type: 'string',
        format: 'date-time',
      },
      modified_after: {
        description: 'Limit response to posts modified after a given ISO8601 compliant date.',
        type: 'string',
        format: 'date-time',
      },
      author: this.idListArg('Limit result set to posts assigned to specific authors.'),
      author_exclude: this.idListArg('Ensure result set excludes posts assigned to specific authors.'),
      before: {
        description: 'Limit response to posts published before a given ISO8601 compliant date.',
        type: 'string',
        format: 'date-time',
      },
      modified_before: {
        description: 'Limit response to posts modified before a given ISO8601 compliant date.',
        type: 'string',
        format: 'date-time',
      },
      exclude: this.idListArg('Ensure result set excludes specific IDs.'),
      include: this.idListArg('Limit result set to specific IDs.'),
      offset: { description: 'Offset the result set by a specific number of items.', type: 'integer' },
      order: orderArg('desc'),
      orderby: orderbyArg('Sort collection by post attribute.', 'date', [
        'author',
        'date',
        'id',
        'include',
        'modified',
        'parent',
        'relevance',
        'slug',
        'include_slugs',
        'title',
        ...(this.type.hierarchical || this.type.supports['page-attributes'] ? ['menu_order'] : []),
      ]),
      slug: {
        description: 'Limit result set to posts with one or more specific slugs.',
        type: 'array',
        items: { type: 'string' },
      },
      status: {
        default: 'publish',
        description: 'Limit result set to posts assigned one or more statuses.',
        type: 'array',
        items: { enum: [...this.content.allStatuses().map((s) => s.name), 'any'], type: 'string' },
      },
    };
    // The reference's prepare_item_for_response reads `password` for every item of a collection too.
    args.password = { description: 'The password for the posts if they are password protected.', type: 'string' };
    // The spec's `filter[<query_var>]`: read by applyFilterQueryVars, any shape (a non-object is ignored).
    args.filter = {
      description:
        'Use WP Query arguments to modify the response; private query vars require appropriate authorization.',
    };
    if (this.type.hierarchical) args.parent = this.idListArg('Limit result set to items with particular parent IDs.');
    // The spec's collection table: pages take `parent`, posts as well as pages take `parent_exclude`.
    args.parent_exclude = this.idListArg('Limit result set to all items except those of a particular parent ID.');
    if (this.type.supports['page-attributes']) {
      args.menu_order = { description: 'Limit result set to posts with a specific menu_order value.', type: 'integer' };
    }
    const taxonomies = this.taxonomies();
    if (taxonomies.length) {
      args.tax_relation = {
        description: 'Limit result set based on relationship between multiple taxonomies.',
        type: 'string',
        enum: ['AND', 'OR'],
      };
      for (const tax of taxonomies) {
        const base = tax.rest_base || tax.name;
        args[base] = this.idListArg(`Limit result set to items with specific terms assigned in the ${base} taxonomy.`);
        args[`${base}_exclude`] = this.idListArg(
          `Limit result set to items except those with specific terms assigned in the ${base} taxonomy.`,
        );
      }
    }
    if (this.type.name === 'post')
      args.sticky = { description: 'Limit result set to items that are sticky.', type: 'boolean' };
    return args;
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
  protected async shapeQuery(query: PostQuery, _req: RestRequest): Promise<PostQuery> {
    return query;
  }

  /** Loads, for all of them at once, what {@link respondItem} needs besides the presenter's batch. */
  protected async preload(_posts: PostEntity[], _req: RestRequest): Promise<void> {}

  // --- permissions ---

  async canList(req: RestRequest): Promise<true | RestException> {
    if (req.context === 'edit' && !(await req.ctx.can(this.type.cap.edit_posts))) {
      return new RestException(
        'rest_forbidden_context',
        'Sorry, you are not allowed to edit posts in this post type.',
        req.ctx.authorizationRequiredCode,
      );
    }
    return true;
  }

  protected async loadPost(req: RestRequest, message = 'Invalid post id.'): Promise<PostEntity> {
    const post = await postLoader(req, this.posts).load(Number(req.get('id')));
    if (!post || post.type !== this.type.name) throw new RestException('rest_post_invalid_id', message, 404);
    return post;
  }

  /** The reference's check_read_permission (see {@link canReadPost}). */
  protected canReadPost(post: PostEntity, req: RestRequest): Promise<boolean> {
    return canReadPost(post, req, this.content, (id) => this.posts.findById(id));
  }

  async canRead(req: RestRequest): Promise<true | RestException> {
    await this.future.catchUp();
    const post = await this.loadPost(req);
    const code = req.ctx.authorizationRequiredCode;
    if (req.context === 'edit' && !(await req.ctx.can('edit_post', post))) {
      return new RestException('rest_forbidden_context', 'Sorry, you are not allowed to edit this post.', code);
    }
    const password = req.get<string>('password');
    if (password && !samePassword(post.password, password)) {
      return new RestException('rest_post_incorrect_password', 'Incorrect post password.', 403);
    }
    if (!(await this.canReadPost(post, req)))
      return new RestException('rest_forbidden', 'Sorry, you are not allowed to do that.', code);
    return true;
  }

  /** Author and sticky checks shared by create and update (the reference's order). */
  private async checkAuthorAndSticky(req: RestRequest, verb: 'create' | 'update'): Promise<true | RestException> {
    const code = req.ctx.authorizationRequiredCode;
    const author = Number(req.get('author') ?? 0);
    if (author && author !== req.ctx.user.id && !(await req.ctx.can(this.type.cap.edit_others_posts))) {
      return new RestException('rest_cannot_edit_others', `You are not allowed to ${verb} posts as this user.`, code);
    }
    if (truthy(req.get('sticky')) && !(await req.ctx.can(this.type.cap.edit_others_posts))) {
      return new RestException('rest_cannot_assign_sticky', 'You do not have permission to make posts sticky.', code);
    }
    return true;
  }

  /** Every term sent must be one the caller may assign. */
  private async canAssignTerms(req: RestRequest): Promise<true | RestException> {
    for (const tax of this.taxonomies()) {
      const ids = req.get<number[]>(tax.rest_base || tax.name);
      if (!Array.isArray(ids) || !ids.length) continue;
      // The terms found in one query are handed to the check as rows, so it needs none per term. Ids that are not
      // terms of the taxonomy are refused when the request is read.
      for (const termId of await this.posts.termIdsIn(tax.name, ids.map(Number))) {
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
    const shared = await this.checkAuthorAndSticky(req, 'create');
    if (shared !== true) return shared;
    if (!(await req.ctx.can(this.type.cap.create_posts))) {
      return new RestException(
        'rest_cannot_create',
        'Sorry, you are not allowed to create new posts.',
        req.ctx.authorizationRequiredCode,
      );
    }
    return this.canAssignTerms(req);
  }

  async canUpdate(req: RestRequest): Promise<true | RestException> {
    const post = await this.loadPost(req, 'Post id is invalid.');
    if (!(await req.ctx.can('edit_post', post))) {
      return new RestException(
        'rest_cannot_edit',
        'Sorry, you are not allowed to update this post.',
        req.ctx.authorizationRequiredCode,
      );
    }
    const shared = await this.checkAuthorAndSticky(req, 'update');
    if (shared !== true) return shared;
    return this.canAssignTerms(req);
  }

  async canDelete(req: RestRequest): Promise<true | RestException> {
    const post = await this.loadPost(req);
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
  private async protectedSearch(req: RestRequest): Promise<PostQuery['protectedSearch']> {
    if (await req.ctx.can(this.type.cap.edit_others_posts)) return 'all';
    if (req.ctx.user.id && (await req.ctx.can(this.type.cap.edit_posts))) return { author: req.ctx.user.id };
    return undefined;
  }

  // --- handlers ---

  async getItems(req: RestRequest): Promise<RestResponse> {
    await this.future.catchUp();
    const q = CollectionQuery.of<PostListArgs>(req);
    const orderby = q.orderby('date');
    if (orderby === 'relevance' && !q.search) {
      throw new RestException(
        'rest_no_search_term_defined',
        'You need to define a search term to order by relevance.',
        400,
      );
    }
    const include = q.include;
    if (orderby === 'include' && !include.length) {
      throw new RestException(
        'rest_orderby_include_missing_include',
        'You need to define an include parameter to order by include.',
        400,
      );
    }
    const statuses = await this.statusesFor(req);
    const site = await this.presenter.siteFacts(req);
    const toMysql = (value: string | undefined) => requestDate(value, site.clock);
    const query: PostQuery = {
      type: this.type.name,
      statuses,
      include,
      exclude: q.exclude,
      authors: q.args.author ?? [],
      authorsExclude: q.args.author_exclude ?? [],
      parents: q.args.parent ?? [],
      parentsExclude: q.args.parent_exclude ?? [],
      slugs: q.slugs,
      search: q.search,
      after: toMysql(q.args.after),
      before: toMysql(q.args.before),
      modifiedAfter: toMysql(q.args.modified_after),
      modifiedBefore: toMysql(q.args.modified_before),
      menuOrder: q.args.menu_order,
      terms: this.taxonomies().flatMap((tax) => {
        const base = tax.rest_base || tax.name;
        const out: PostQuery['terms'] = [];
        const inc = (req.get<number[]>(base) ?? []).map(Number);
        const exc = (req.get<number[]>(`${base}_exclude`) ?? []).map(Number);
        if (inc.length) out.push({ taxonomy: tax.name, termIds: inc, exclude: false });
        if (exc.length) out.push({ taxonomy: tax.name, termIds: exc, exclude: true });
        return out;
      }),
      taxRelation: q.args.tax_relation === 'OR' ? 'OR' : 'AND',
      sticky: q.args.sticky !== undefined ? { ids: site.sticky, only: q.args.sticky === true } : undefined,
      orderby,
      order: q.order('DESC'),
      limit: q.limit,
      offset: q.offset,
    };
    const withVars = await applyFilterQueryVars(
      await this.shapeQuery(query, req),
      req,
      this.posts,
      await req.ctx.can(this.type.cap.edit_posts),
      site.sticky,
    );
    const filtered = await this.hooks.applyFilters(`rest_${this.type.name}_query`, withVars, req);
    if (filtered.search && filtered.protectedSearch === undefined)
      filtered.protectedSearch = await this.protectedSearch(req);
    const { posts, total, extras } = await this.posts.list(filtered, this.presenter.extrasWanted());
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

  /** The statuses asked for, each checked as the reference's sanitize_post_statuses does. */
  protected async statusesFor(req: RestRequest): Promise<string[]> {
    const asked = (req.get<string[]>('status') ?? ['publish']).map(String);
    for (const status of asked) {
      if (status === 'publish') continue;
      const allowed =
        (await req.ctx.can(this.type.cap.edit_posts)) ||
        (status === 'private' && (await req.ctx.can(this.type.cap.read_private_posts)));
      if (!allowed)
        throw new RestException('rest_invalid_param', 'Invalid parameter(s): status', 400, {
          params: { status: 'Status is forbidden.' },
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
    const force = req.get('force') === true;
    const trashable = await this.hooks.applyFilters(`rest_${this.type.name}_trashable`, true, post);
    req.set('context', 'edit');
    const previous = (await this.presenter.prepareMany([post], req, await this.presenter.siteFacts(req)))[0];
    if (force) {
      await this.writer.delete(this.type, post);
    } else {
      if (!trashable) throw new RestException('rest_trash_not_supported', 'The post does not support trashing.', 501);
      if (post.status === 'trash')
        throw new RestException('rest_already_trashed', 'The post has already been deleted.', 410);
      await this.writer.trash(this.type, post, await this.input.writeContext(req, post));
    }
    await this.hooks.doAction(`rest_delete_${this.type.name}`, post, previous, req);
    return previous;
  }

  // --- preparation ---
}

/** An RFC 3339 request date as a local MySQL datetime (compared with `post_date`, as WordPress's date queries do). */
function requestDate(value: string | undefined, clock: SiteClock): string | undefined {
  if (!value) return undefined;
  return clock.restDateWithGmt(value)?.[0];
}

const POST_ID: RouteArg = { description: 'Unique identifier for the post.', type: 'integer' };

/** `Last-Modified` of a single post: its `modified_gmt` (none while it is the zero date). */
export function lastModified(response: RestResponse, modifiedGmt: string | null | undefined): void {
  const at = modifiedGmt && !modifiedGmt.startsWith('0000') ? Date.parse(`${modifiedGmt.replace(' ', 'T')}Z`) : NaN;
  if (Number.isFinite(at)) response.header('Last-Modified', new Date(at).toUTCString());
}
