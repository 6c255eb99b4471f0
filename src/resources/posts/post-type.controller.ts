import { timingSafeEqual } from 'node:crypto';
import { PostEntity } from '../../core/database/entities/post.entity';
import { ZERO_DATE, mysqlToRfc3339 } from '../../core/database/mysql-date';
import { HookRegistry } from '../../core/hooks/hook-registry.service';
import { RestException } from '../../core/http/rest.exception';
import { OptionsService } from '../../core/options/options.service';
import { ContentRegistry } from '../../core/registry/content-registry.service';
import { PostTypeObject, TaxonomyObject } from '../../core/registry/content-types';
import { RestController } from '../../core/rest/rest-controller';
import { RestRequest } from '../../core/rest/rest-request';
import { linkMap, RestResponse } from '../../core/rest/rest-response';
import { RestServer } from '../../core/rest/rest-server.service';
import { exposedMetaKeys, metaResponse, metaSchemaProperties } from '../../core/rest/meta-fields';
import { ItemSchema, RouteArg } from '../../core/schema/json-schema';
import { CmsExtensionRegistry } from '../../extensions/extension-registry.service';
import { convertInvalidEntities, renderContent, renderExcerpt, renderTitle, wpKsesPost, wpTargetedLinkRel } from '../../core/formatting';
import { wpFilterKses } from '../../core/formatting/kses';
import { SiteClock } from '../../core/options/site-clock';
import { planMetaWrites } from '../../core/rest/meta-fields';
import { PostFields, PostRelations, PostWriter, stickyIds, WriteContext } from './post-writer.service';
import { FuturePosts } from './future-posts.service';
import { permalink } from './permalink';
import { buildPostSchema, typeSupports } from './post-schema';
import { applyFilterQueryVars } from './filter-query-vars';
import { PostQuery, PostsService } from './posts.service';

/** Site facts used while preparing posts of one request. */
interface SiteFacts {
  home: string;
  sticky: number[];
  clock: SiteClock;
}

/** Everything loaded at once for a page of posts. */
interface Batch {
  terms: Map<number, Record<string, number[]>>;
  formats: Map<number, string>;
  meta: Map<number, Record<string, unknown[]>>;
  authors: Set<number>;
  revisions: Map<number, { count: number; last: number }>;
  parents: Map<number, PostEntity>;
}

const BASE_META_KEYS = ['_thumbnail_id', '_wp_page_template'];

/**
 * Rendered HTML of post fields, by post and field. Rendering is a pure function of the source text (and the site's
 * formatting options), so an entry is reused while its source is unchanged; entries are evicted oldest first.
 */
class RenderCache {
  private readonly entries = new Map<string, { source: string; html: string }>();

  constructor(private readonly max: number) {}

  get(key: string, source: string, render: () => string): string {
    const hit = this.entries.get(key);
    if (hit !== undefined && hit.source === source) return hit.html;
    const html = render();
    if (!hit && this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, { source, html });
    return html;
  }
}

const RENDERED = new RenderCache(4000);

/**
 * The reference's posts controller, one instance per REST post type (`posts`, `pages`, extension types with a
 * `rest_base`): routes, read permissions by status, password protection, fields filtered by the type's supports,
 * links, and everything a page of posts needs loaded in a fixed number of queries.
 */
export class PostTypeController extends RestController {
  override readonly namespace: string;
  readonly restBase: string;

  constructor(
    server: RestServer,
    extensions: CmsExtensionRegistry,
    hooks: HookRegistry,
    private readonly type: PostTypeObject,
    private readonly content: ContentRegistry,
    private readonly posts: PostsService,
    private readonly options: OptionsService,
    private readonly writer: PostWriter,
    private readonly future: FuturePosts,
  ) {
    super(server, extensions, hooks);
    this.namespace = type.rest_namespace;
    this.restBase = type.rest_base || type.name;
  }

  /** Registers the routes (called while the route table is being completed). */
  register(): void {
    this.registerRoutes();
  }

  private taxonomies(): TaxonomyObject[] {
    return this.content.restTaxonomies().filter((t) => t.object_type.includes(this.type.name));
  }

  protected baseSchema(): ItemSchema {
    const statuses = this.content.allStatuses().filter((s) => !s.internal).map((s) => s.name).filter((s) => s !== 'trash');
    const schema = buildPostSchema(this.type, this.taxonomies(), statuses);
    if (schema.properties.meta) schema.properties.meta.properties = metaSchemaProperties(this.registeredMeta());
    return schema;
  }

  protected registerRoutes(): void {
    this.registerCrudRoutes(`/${this.restBase}`, {
      id: { description: 'Unique identifier for the post.', type: 'integer' },
      collectionArgs: () => this.collectionArgs(),
      readArgs: () => ({ password: { description: 'The password for the post if it is password protected.', type: 'string' } }),
      forceDescription: 'Whether to bypass trash and force deletion.',
      list: { permission: (req) => this.canList(req), handler: (req) => this.getItems(req) },
      create: { permission: (req) => this.canCreate(req), handler: (req) => this.createItem(req) },
      read: { permission: (req) => this.canRead(req), handler: (req) => this.getItem(req) },
      update: { permission: (req) => this.canUpdate(req), handler: (req) => this.updateItem(req) },
      remove: { permission: (req) => this.canDelete(req), handler: (req) => this.deleteItem(req) },
    });
  }

  private collectionArgs(): Record<string, RouteArg> {
    const ids = (description: string): RouteArg => ({ description, type: 'array', items: { type: 'integer' }, default: [] });
    const args: Record<string, RouteArg> = {
      ...this.getCollectionParams(),
      after: { description: 'Limit response to posts published after a given ISO8601 compliant date.', type: 'string', format: 'date-time' },
      modified_after: { description: 'Limit response to posts modified after a given ISO8601 compliant date.', type: 'string', format: 'date-time' },
      author: { description: 'Limit result set to posts assigned to specific authors.', type: 'array', items: { type: 'integer' }, default: [] },
      author_exclude: { description: 'Ensure result set excludes posts assigned to specific authors.', type: 'array', items: { type: 'integer' }, default: [] },
      before: { description: 'Limit response to posts published before a given ISO8601 compliant date.', type: 'string', format: 'date-time' },
      modified_before: { description: 'Limit response to posts modified before a given ISO8601 compliant date.', type: 'string', format: 'date-time' },
      exclude: ids('Ensure result set excludes specific IDs.'),
      include: ids('Limit result set to specific IDs.'),
      offset: { description: 'Offset the result set by a specific number of items.', type: 'integer' },
      order: { description: 'Order sort attribute ascending or descending.', type: 'string', default: 'desc', enum: ['asc', 'desc'] },
      orderby: {
        description: 'Sort collection by post attribute.',
        type: 'string',
        default: 'date',
        enum: ['author', 'date', 'id', 'include', 'modified', 'parent', 'relevance', 'slug', 'include_slugs', 'title', ...(this.type.hierarchical || this.type.supports['page-attributes'] ? ['menu_order'] : [])],
      },
      slug: { description: 'Limit result set to posts with one or more specific slugs.', type: 'array', items: { type: 'string' } },
      status: {
        default: 'publish',
        description: 'Limit result set to posts assigned one or more statuses.',
        type: 'array',
        items: { enum: [...this.content.allStatuses().map((s) => s.name), 'any'], type: 'string' },
      },
    };
    if (this.type.hierarchical) {
      args.parent = ids('Limit result set to items with particular parent IDs.');
      args.parent_exclude = ids('Limit result set to all items except those of a particular parent ID.');
    }
    if (this.type.supports['page-attributes']) {
      args.menu_order = { description: 'Limit result set to posts with a specific menu_order value.', type: 'integer' };
    }
    const taxonomies = this.taxonomies();
    if (taxonomies.length) {
      args.tax_relation = { description: 'Limit result set based on relationship between multiple taxonomies.', type: 'string', enum: ['AND', 'OR'] };
      for (const tax of taxonomies) {
        const base = tax.rest_base || tax.name;
        args[base] = { description: `Limit result set to items with specific terms assigned in the ${base} taxonomy.`, type: 'array', items: { type: 'integer' }, default: [] };
        args[`${base}_exclude`] = { description: `Limit result set to items except those with specific terms assigned in the ${base} taxonomy.`, type: 'array', items: { type: 'integer' }, default: [] };
      }
    }
    if (this.type.name === 'post') args.sticky = { description: 'Limit result set to items that are sticky.', type: 'boolean' };
    return args;
  }

  // --- permissions ---

  private async canList(req: RestRequest): Promise<true | RestException> {
    if (req.context === 'edit' && !(await req.ctx.can(this.type.cap.edit_posts))) {
      return new RestException('rest_forbidden_context', 'Sorry, you are not allowed to edit posts in this post type.', req.ctx.authorizationRequiredCode);
    }
    return true;
  }

  private async loadPost(req: RestRequest, message = 'Invalid post id.'): Promise<PostEntity> {
    const post = await req.ctx.loader<number, PostEntity | null>('posts', async (ids) => {
      const rows = await this.posts.findByIds(ids);
      return ids.map((id) => rows.find((r) => r.id === id) ?? null);
    }).load(Number(req.get('id')));
    if (!post || post.type !== this.type.name) throw new RestException('rest_post_invalid_id', message, 404);
    return post;
  }

  /** The reference's check_read_permission: published or public status, the capability, or an inherited parent. */
  private async canReadPost(post: PostEntity, req: RestRequest): Promise<boolean> {
    if (post.status === 'publish') return true;
    const status = this.content.status(post.status);
    if (status?.public) return true;
    if (await req.ctx.can('read_post', post)) return true;
    if (post.status === 'inherit') {
      if (post.parent > 0) {
        const parent = await this.posts.findById(post.parent);
        if (parent) return this.canReadPost(parent, req);
      }
      return true;
    }
    return false;
  }

  private async canRead(req: RestRequest): Promise<true | RestException> {
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
    if (!(await this.canReadPost(post, req))) return new RestException('rest_forbidden', 'Sorry, you are not allowed to do that.', 403);
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
      // Ids that are not terms of the taxonomy are skipped here and when the terms are stored.
      for (const termId of await this.posts.termIdsIn(tax.name, ids.map(Number))) {
        if (!(await req.ctx.can('assign_term', termId))) {
          return new RestException('rest_cannot_assign_term', 'Sorry, you are not allowed to assign the provided terms.', req.ctx.authorizationRequiredCode);
        }
      }
    }
    return true;
  }

  private async canCreate(req: RestRequest): Promise<true | RestException> {
    if (req.get('id')) return new RestException('rest_post_exists', 'Cannot create existing post.', 400);
    const shared = await this.checkAuthorAndSticky(req, 'create');
    if (shared !== true) return shared;
    if (!(await req.ctx.can(this.type.cap.create_posts))) {
      return new RestException('rest_cannot_create', 'Sorry, you are not allowed to create new posts.', req.ctx.authorizationRequiredCode);
    }
    return this.canAssignTerms(req);
  }

  private async canUpdate(req: RestRequest): Promise<true | RestException> {
    const post = await this.loadPost(req, 'Post id is invalid.');
    if (!(await req.ctx.can('edit_post', post))) {
      return new RestException('rest_cannot_edit', 'Sorry, you are not allowed to update this post.', req.ctx.authorizationRequiredCode);
    }
    const shared = await this.checkAuthorAndSticky(req, 'update');
    if (shared !== true) return shared;
    return this.canAssignTerms(req);
  }

  private async canDelete(req: RestRequest): Promise<true | RestException> {
    const post = await this.loadPost(req);
    if (!(await req.ctx.can('delete_post', post))) {
      return new RestException('rest_cannot_delete', 'Sorry, you are not allowed to delete posts.', req.ctx.authorizationRequiredCode);
    }
    return true;
  }

  // --- handlers ---

  private async getItems(req: RestRequest): Promise<RestResponse> {
    await this.future.catchUp();
    const orderby = String(req.get('orderby'));
    if (orderby === 'relevance' && !req.get('search')) {
      throw new RestException('rest_no_search_term_defined', 'You need to define a search term to order by relevance.', 400);
    }
    const include = (req.get<number[]>('include') ?? []).map(Number);
    if (orderby === 'include' && !include.length) {
      throw new RestException('rest_orderby_include_missing_include', 'You need to define an include parameter to order by include.', 400);
    }
    const statuses = await this.statusesFor(req);
    const perPage = Number(req.get('per_page'));
    const page = Number(req.get('page'));
    const offset = Number(req.get('offset') ?? 0) > 0 ? Number(req.get('offset')) : (page - 1) * perPage;
    const site = await this.siteFacts(req);
    const toMysql = (value: string | undefined) => requestDate(value, site.clock);
    const query: PostQuery = {
      type: this.type.name,
      statuses,
      include,
      exclude: (req.get<number[]>('exclude') ?? []).map(Number),
      authors: (req.get<number[]>('author') ?? []).map(Number),
      authorsExclude: (req.get<number[]>('author_exclude') ?? []).map(Number),
      parents: (req.get<number[]>('parent') ?? []).map(Number),
      parentsExclude: (req.get<number[]>('parent_exclude') ?? []).map(Number),
      slugs: (req.get<string[]>('slug') ?? []).map(String),
      search: req.get<string>('search') || undefined,
      after: toMysql(req.get<string>('after')),
      before: toMysql(req.get<string>('before')),
      modifiedAfter: toMysql(req.get<string>('modified_after')),
      modifiedBefore: toMysql(req.get<string>('modified_before')),
      menuOrder: req.has('menu_order') ? Number(req.get('menu_order')) : undefined,
      terms: this.taxonomies().flatMap((tax) => {
        const base = tax.rest_base || tax.name;
        const out: PostQuery['terms'] = [];
        const inc = (req.get<number[]>(base) ?? []).map(Number);
        const exc = (req.get<number[]>(`${base}_exclude`) ?? []).map(Number);
        if (inc.length) out.push({ taxonomy: tax.name, termIds: inc, exclude: false });
        if (exc.length) out.push({ taxonomy: tax.name, termIds: exc, exclude: true });
        return out;
      }),
      taxRelation: req.get('tax_relation') === 'OR' ? 'OR' : 'AND',
      sticky: req.has('sticky') ? { ids: site.sticky, only: req.get('sticky') === true } : undefined,
      orderby,
      order: req.get('order') === 'asc' ? 'ASC' : 'DESC',
      limit: perPage,
      offset,
    };
    const withVars = await applyFilterQueryVars(query, req, this.posts, await req.ctx.can(this.type.cap.edit_posts));
    const filtered = await this.hooks.applyFilters(`rest_${this.type.name}_query`, withVars, req);
    const { posts, total } = await this.posts.list(filtered);
    const readable: PostEntity[] = [];
    for (const post of posts) if (await this.canReadPost(post, req)) readable.push(post);
    const prepared = await this.prepareMany(readable, req, site);
    const response = new RestResponse(prepared.map((r) => this.server.toCollectionItem(r)));
    // `filter[posts_per_page]` changes the page size the totals are computed with.
    if (filtered.limit !== perPage) req.set('per_page', filtered.limit);
    return this.paginate(response, req, total, `${this.namespace}/${this.restBase}`);
  }

  /** The statuses asked for, each checked as the reference's sanitize_post_statuses does. */
  private async statusesFor(req: RestRequest): Promise<string[]> {
    const asked = (req.get<string[]>('status') ?? ['publish']).map(String);
    for (const status of asked) {
      if (status === 'publish') continue;
      const allowed = (await req.ctx.can(this.type.cap.edit_posts)) || (status === 'private' && (await req.ctx.can(this.type.cap.read_private_posts)));
      if (!allowed) throw new RestException('rest_invalid_param', 'Invalid parameter(s): status', 400, { params: { status: 'Status is forbidden.' } });
    }
    if (asked.includes('any')) {
      return this.content.allStatuses().filter((s) => !s.exclude_from_search && s.name !== 'trash' && s.name !== 'auto-draft').map((s) => s.name);
    }
    return asked;
  }

  private async getItem(req: RestRequest): Promise<RestResponse> {
    const post = await this.loadPost(req);
    const response = (await this.prepareMany([post], req, await this.siteFacts(req)))[0];
    // Viewable types point to the item's page on the site.
    if (this.type.public || this.type.publicly_queryable) {
      const link = (response.data as { link?: string }).link;
      if (link) response.header('Link', `<${link}>; rel="alternate"; type=text/html`, false);
    }
    return response;
  }


  private async createItem(req: RestRequest): Promise<RestResponse> {
    if (req.get('id')) throw new RestException('rest_post_exists', 'Cannot create existing post.', 400);
    const ctx = await this.writeContext(req);
    const fields = await this.fieldsFromRequest(req, null, ctx.clock);
    const relations = await this.relationsFromRequest(req, null);
    const post = await this.writer.create(this.type, fields, relations, ctx);
    if (post.status === 'future') this.future.scheduled(post.dateGmt);
    await this.updateAdditionalFields(post, req);
    await this.hooks.doAction(`rest_insert_${this.type.name}`, post, req, true);
    req.set('context', 'edit');
    const response = (await this.prepareMany([post], req, await this.siteFacts(req)))[0];
    return this.created(response, req, `${this.namespace}/${this.restBase}/${post.id}`);
  }

  private async updateItem(req: RestRequest): Promise<RestResponse> {
    const before = await this.loadPost(req, 'Post id is invalid.');
    const ctx = await this.writeContext(req, before);
    const fields = await this.fieldsFromRequest(req, before, ctx.clock);
    const relations = await this.relationsFromRequest(req, before);
    const post = await this.writer.update(this.type, before, fields, relations, ctx);
    if (post.status === 'future') this.future.scheduled(post.dateGmt);
    await this.updateAdditionalFields(post, req);
    await this.hooks.doAction(`rest_insert_${this.type.name}`, post, req, false);
    req.set('context', 'edit');
    return (await this.prepareMany([post], req, await this.siteFacts(req)))[0];
  }

  private async deleteItem(req: RestRequest): Promise<RestResponse> {
    const post = await this.loadPost(req);
    const force = req.get('force') === true;
    const trashable = await this.hooks.applyFilters(`rest_${this.type.name}_trashable`, true, post);
    req.set('context', 'edit');
    const previous = (await this.prepareMany([post], req, await this.siteFacts(req)))[0];
    if (force) {
      await this.writer.delete(this.type, post);
    } else {
      if (!trashable) throw new RestException('rest_trash_not_supported', 'The post does not support trashing.', 501);
      if (post.status === 'trash') throw new RestException('rest_already_trashed', 'The post has already been deleted.', 410);
      await this.writer.trash(this.type, post, await this.writeContext(req, post));
    }
    await this.hooks.doAction(`rest_delete_${this.type.name}`, post, previous, req);
    return previous;
  }

  private async writeContext(req: RestRequest, before?: PostEntity): Promise<WriteContext> {
    const o = await this.options.getMany(['timezone_string', 'gmt_offset', 'home', 'default_category', 'default_comment_status', 'default_ping_status', 'permalink_structure']);
    const canPublish = before ? await req.ctx.can('publish_post', before) : await req.ctx.can(this.type.cap.publish_posts);
    return {
      actor: req.ctx.user.id,
      clock: SiteClock.fromOptions(o),
      canPublish,
      templates: this.extensions.pageTemplates(this.type.name),
      home: String(o.home ?? req.ctx.baseUrl).replace(/\/+$/, ''),
      defaultCategory: Number(o.default_category ?? 0),
      defaultCommentStatus: String(o.default_comment_status ?? 'open'),
      defaultPingStatus: String(o.default_ping_status ?? 'open'),
      permalinkStructure: String(o.permalink_structure ?? ''),
    };
  }

  /** The row changes a request asks for (the reference's prepare_item_for_database). */
  private async fieldsFromRequest(req: RestRequest, before: PostEntity | null, clock: SiteClock): Promise<PostFields> {
    const props = this.getItemSchema().properties;
    const f: PostFields = {};
    const filtered = !(await req.ctx.can('unfiltered_html'));
    const text = (name: 'title' | 'content' | 'excerpt'): string | undefined => {
      if (!props[name]) return undefined;
      const value = req.get<unknown>(name);
      let raw: string | undefined;
      if (typeof value === 'string') raw = value;
      else if (value && typeof value === 'object' && 'raw' in value) {
        const r = (value as { raw: unknown }).raw;
        // An empty title sent as an object is ignored, as in the reference.
        if (name !== 'title' || (r !== '' && r !== null && r !== undefined)) raw = r === null || r === undefined ? '' : String(r);
      } else if (typeof value === 'number' || typeof value === 'boolean') raw = String(value);
      return raw === undefined ? undefined : sanitizeSavedText(name, raw, filtered);
    };
    f.title = text('title');
    f.content = text('content');
    f.excerpt = text('excerpt');

    const status = req.get<string>('status');
    if (props.status && status !== undefined && (!before || before.status !== status)) f.status = await this.checkStatus(req, status);

    const params = req.params();
    if (props.date && req.get('date')) {
      const value = clock.restDateWithGmt(String(req.get('date')));
      if (value && (!before || before.date !== value[0])) f.date = value;
    } else if (props.date_gmt && req.get('date_gmt')) {
      const value = clock.restDateWithGmt(String(req.get('date_gmt')), true);
      if (value && (!before || before.dateGmt !== value[1])) f.date = value;
    }
    if (('date' in params && params.date === null) || ('date_gmt' in params && params.date_gmt === null)) f.date = null;

    if (props.slug && req.has('slug')) f.name = String(req.get('slug'));
    if (props.author && req.get('author')) {
      const author = Number(req.get('author'));
      if (author !== req.ctx.user.id && !(await this.posts.existingUsers([author])).has(author)) {
        throw new RestException('rest_invalid_author', 'Invalid author id.', 400);
      }
      f.author = author;
    }
    if (props.password && req.has('password')) {
      const password = String(req.get('password'));
      f.password = password;
      if (password !== '') {
        if (props.sticky && truthy(req.get('sticky'))) throw new RestException('rest_invalid_field', 'A post can not be sticky and have a password.', 400);
        if (before && (await this.writer.isSticky(before.id))) throw new RestException('rest_invalid_field', 'A sticky post can not be password protected.', 400);
      }
    }
    if (props.sticky && truthy(req.get('sticky')) && before && before.password && !(req.has('password') && req.get('password') === '')) {
      throw new RestException('rest_invalid_field', 'A password protected post can not be set to sticky.', 400);
    }
    if (props.parent && req.has('parent')) {
      const parent = Number(req.get('parent'));
      if (parent !== 0) {
        const found = parent > 0 ? await this.posts.findById(parent) : null;
        if (!found) throw new RestException('rest_post_invalid_id', 'Invalid post parent id.', 400);
      }
      f.parent = Math.max(parent, 0);
    }
    if (props.menu_order && req.has('menu_order')) f.menuOrder = Math.trunc(Number(req.get('menu_order')));
    if (props.comment_status && req.get('comment_status')) f.commentStatus = String(req.get('comment_status'));
    if (props.ping_status && req.get('ping_status')) f.pingStatus = String(req.get('ping_status'));
    return f;
  }

  /** The reference's handle_status_param: publishing (and private posts) need `publish_posts`. */
  private async checkStatus(req: RestRequest, status: string): Promise<string> {
    const code = req.ctx.authorizationRequiredCode;
    if (status === 'draft' || status === 'pending') return status;
    if (status === 'private' || status === 'publish' || status === 'future') {
      if (!(await req.ctx.can(this.type.cap.publish_posts))) {
        const what = status === 'private' ? 'create private posts' : 'publish posts';
        throw new RestException('rest_cannot_publish', `Sorry, you are not allowed to ${what} in this post type.`, code);
      }
      return status;
    }
    return this.content.status(status) ? status : 'draft';
  }

  /** Sticky flag, featured image, format, template, terms and meta a request asks for. */
  private async relationsFromRequest(req: RestRequest, before: PostEntity | null): Promise<PostRelations> {
    const props = this.getItemSchema().properties;
    const r: PostRelations = {};
    if (props.sticky && req.has('sticky')) r.sticky = truthy(req.get('sticky'));
    if (props.featured_media && req.has('featured_media')) r.featuredMedia = Math.max(0, Math.trunc(Number(req.get('featured_media'))));
    if (props.format && req.get('format')) r.format = String(req.get('format'));
    if (props.template && req.has('template')) r.template = String(req.get('template'));
    const terms = new Map<string, number[]>();
    for (const tax of this.taxonomies()) {
      const base = tax.rest_base || tax.name;
      const value = req.get<unknown>(base);
      if (value === undefined) continue;
      const ids = [...new Set((Array.isArray(value) ? value : [value]).map((v) => Math.trunc(Number(v))))];
      // Every id must be a term of this taxonomy: a wrong one is an error rather than silently dropped.
      const known = new Set(await this.posts.termIdsIn(tax.name, ids));
      const unknown = ids.filter((id) => !known.has(id));
      if (unknown.length) {
        throw new RestException('rest_invalid_param', `Invalid parameter(s): ${base}`, 400, {
          params: { [base]: `${unknown.join(', ')} ${unknown.length === 1 ? 'is not a term' : 'are not terms'} of the ${tax.name} taxonomy.` },
        });
      }
      terms.set(tax.name, ids);
    }
    if (terms.size) r.terms = terms;
    if (props.meta && req.has('meta')) {
      // A new post does not exist yet: its key permissions are those of a post of this type by the caller.
      const target = before ?? { id: 0, type: this.type.name, status: 'draft', author: req.ctx.user.id, parent: 0 };
      r.meta = await planMetaWrites(this.registeredMeta(), req.get('meta'), 'post', (cap, key) => req.ctx.can(cap, target, key));
    }
    return r;
  }

  // --- preparation ---

  private async siteFacts(req: RestRequest): Promise<SiteFacts> {
    const o = await this.options.getMany(['home', 'sticky_posts', 'timezone_string', 'gmt_offset']);
    return { home: String(o.home ?? req.ctx.baseUrl).replace(/\/+$/, ''), sticky: stickyIds(o.sticky_posts), clock: SiteClock.fromOptions(o) };
  }

  /** Loads what a page of posts needs in a fixed number of queries, then prepares each post. */
  private async prepareMany(posts: PostEntity[], req: RestRequest, site: SiteFacts): Promise<RestResponse[]> {
    const ids = posts.map((p) => p.id);
    const taxonomies = this.taxonomies();
    const metaKeys = [...BASE_META_KEYS, ...this.registeredMeta().map((m) => m.key)];
    const [{ terms, formats }, meta, authors, revisions, parents] = await Promise.all([
      this.posts.termsOf(ids, taxonomies.map((t) => t.name), typeSupports(this.type, 'post-formats')),
      this.posts.metaOf(ids, metaKeys),
      this.posts.existingUsers([...new Set(posts.map((p) => p.author).filter((a) => a > 0))]),
      typeSupports(this.type, 'revisions') ? this.posts.revisionsOf(ids) : Promise.resolve(new Map<number, { count: number; last: number }>()),
      this.type.hierarchical ? this.parentChains(posts) : Promise.resolve(new Map<number, PostEntity>()),
    ]);
    const batch: Batch = { terms, formats, meta, authors, revisions, parents };
    const out: RestResponse[] = [];
    for (const post of posts) out.push(await this.prepareItem(post, req, site, batch));
    return out;
  }

  /** Ancestors of hierarchical posts (for page links), loaded level by level. */
  private async parentChains(posts: PostEntity[]): Promise<Map<number, PostEntity>> {
    const known = new Map<number, PostEntity>(posts.map((p) => [p.id, p]));
    let wanted = [...new Set(posts.map((p) => p.parent).filter((id) => id > 0 && !known.has(id)))];
    for (let depth = 0; wanted.length && depth < 20; depth++) {
      const rows = await this.posts.findByIds(wanted);
      for (const row of rows) known.set(row.id, row);
      wanted = [...new Set(rows.map((p) => p.parent).filter((id) => id > 0 && !known.has(id)))];
    }
    return known;
  }

  private registeredMeta() {
    return exposedMetaKeys(this.extensions, 'post', this.type.name);
  }

  private link(post: PostEntity, site: SiteFacts, batch: Batch, readable: boolean): string {
    const viewable = post.status === 'publish' || (post.status === 'private' && readable);
    return permalink(post, this.type, site.home, batch.parents, viewable);
  }

  private async prepareItem(post: PostEntity, req: RestRequest, site: SiteFacts, batch: Batch): Promise<RestResponse> {
    const supports = (feature: string) => typeSupports(this.type, feature);
    const edit = req.context === 'edit';
    // Password-protected content is hidden unless the right password is sent (or the caller edits).
    const locked = Boolean(post.password) && !edit && !samePassword(post.password, req.get<string>('password') ?? '');
    const meta = batch.meta.get(post.id) ?? {};
    const readable = post.status === 'private' ? await req.ctx.can('read_post', post) : true;
    const data: Record<string, unknown> = {
      id: post.id,
      date: dateResponse(post.dateGmt, post.date),
      date_gmt: dateResponse(site.clock.gmtOf(post.date, post.dateGmt)),
      guid: { rendered: post.guid, raw: post.guid },
      modified: dateResponse(post.modifiedGmt, post.modified),
      modified_gmt: dateResponse(site.clock.gmtOf(post.modified, post.modifiedGmt)),
    };
    if (edit) data.password = post.password;
    Object.assign(data, { slug: post.name, status: post.status, type: post.type, link: this.link(post, site, batch, readable) });
    if (supports('title')) {
      const prefix = post.status === 'private' && !post.password ? 'p' : 't';
      const rendered = RENDERED.get(`${post.id}:t`, `${prefix}${post.title}`, () => renderTitle(post.title, { status: post.status, password: post.password }));
      data.title = { raw: post.title, rendered };
    }
    if (supports('editor')) {
      const rendered = locked ? '' : RENDERED.get(`${post.id}:c`, post.content, () => renderContent(post.content));
      data.content = { raw: post.content, rendered, protected: Boolean(post.password) };
    }
    if (supports('excerpt')) {
      // An excerpt is rendered from the excerpt, or generated from the content when there is none.
      const key = post.excerpt ? `${post.id}:e` : `${post.id}:g`;
      const rendered = locked ? '' : RENDERED.get(key, post.excerpt || post.content, () => renderExcerpt(post.excerpt, post.content));
      data.excerpt = { raw: post.excerpt, rendered, protected: Boolean(post.password) };
    }
    if (supports('author')) data.author = post.author;
    if (supports('thumbnail')) data.featured_media = Number(meta._thumbnail_id?.[0] ?? 0) || 0;
    if (this.type.hierarchical) data.parent = post.parent;
    if (supports('page-attributes')) data.menu_order = post.menuOrder;
    if (supports('comments')) {
      data.comment_status = post.commentStatus;
      data.ping_status = post.pingStatus;
    }
    if (this.type.name === 'post') data.sticky = site.sticky.includes(post.id);
    const template = String(meta._wp_page_template?.[0] ?? '');
    data.template = template === 'default' ? '' : template;
    if (supports('post-formats')) data.format = batch.formats.get(post.id) ?? 'standard';
    if (supports('custom-fields')) data.meta = metaResponse(this.registeredMeta(), meta);
    const terms = batch.terms.get(post.id) ?? {};
    for (const tax of this.taxonomies()) data[tax.rest_base || tax.name] = terms[tax.name] ?? [];
    return this.prepareResponse(data, req, this.links(post, req, batch, data), this.type.name, post);
  }

  private links(post: PostEntity, req: RestRequest, batch: Batch, data: Record<string, unknown>) {
    const ns = this.namespace;
    const rel = this.server.options.linkRelBase;
    const url = (path: string) => req.ctx.restUrl(path);
    const links = linkMap({
      self: { href: url(`${ns}/${this.restBase}/${post.id}`) },
      collection: { href: url(`${ns}/${this.restBase}`) },
      about: { href: url(`${ns}/types/${this.type.name}`) },
    });
    const add = (relName: string, href: string, attrs: Record<string, unknown> = {}) => {
      const list = links.get(relName) ?? [];
      list.push({ href, attributes: attrs });
      links.set(relName, list);
    };
    if (typeSupports(this.type, 'author') && post.author && batch.authors.has(post.author)) {
      add('author', url(`${ns}/users/${post.author}`), { embeddable: true });
    }
    if (typeSupports(this.type, 'comments')) add('replies', url(`${ns}/comments?post=${post.id}`), { embeddable: true });
    if (typeSupports(this.type, 'revisions')) {
      const revisions = batch.revisions.get(post.id);
      add('version-history', url(`${ns}/${this.restBase}/${post.id}/revisions`), { count: revisions?.count ?? 0 });
      if (revisions) add('predecessor-version', url(`${ns}/${this.restBase}/${post.id}/revisions/${revisions.last}`), { id: revisions.last });
    }
    if (this.type.hierarchical && post.parent > 0) add('up', url(`${ns}/${this.restBase}/${post.parent}`), { embeddable: true });
    if (Number(data.featured_media) > 0) add(`${rel}featuredmedia`, url(`${ns}/media/${data.featured_media}`), { embeddable: true });
    add(`${rel}attachment`, url(`${ns}/media?parent=${post.id}`));
    for (const tax of this.taxonomies()) {
      add(`${rel}term`, url(`${tax.rest_namespace}/${tax.rest_base || tax.name}?post=${post.id}`), { taxonomy: tax.name, embeddable: true });
    }
    return links;
  }
}

/** The reference's prepare_date_response: `null` for a zero GMT date, else the date as RFC 3339 without offset. */
function dateResponse(dateGmt: string, date?: string): string | null {
  if (date !== undefined) return mysqlToRfc3339(date);
  if (!dateGmt || dateGmt === ZERO_DATE) return null;
  return mysqlToRfc3339(dateGmt);
}

function samePassword(stored: string, given: string): boolean {
  const a = Buffer.from(stored);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** An RFC 3339 request date as a local MySQL datetime (compared with `post_date`, as WordPress's date queries do). */
function requestDate(value: string | undefined, clock: SiteClock): string | undefined {
  if (!value) return undefined;
  return clock.restDateWithGmt(value)?.[0];
}

function truthy(value: unknown): boolean {
  return value === true || value === 'true' || value === '1' || value === 1;
}

/**
 * What WordPress's save filters do to a title, content or excerpt: `rel="noopener"` on links opening a new window,
 * invalid entities fixed, titles trimmed, and — for users without `unfiltered_html` — HTML limited by kses (the
 * short list for titles, the post list for the rest).
 */
function sanitizeSavedText(field: 'title' | 'content' | 'excerpt', raw: string, filtered: boolean): string {
  let text = field === 'title' ? phpTrimWhitespace(raw) : convertInvalidEntities(raw);
  text = wpTargetedLinkRel(text);
  if (filtered) text = field === 'title' ? wpFilterKses(text) : wpKsesPost(text);
  return text;
}

/** PHP's `trim()` with its default characters. */
function phpTrimWhitespace(text: string): string {
  return text.replace(/^[ \t\n\r\0\x0B]+|[ \t\n\r\0\x0B]+$/g, '');
}
