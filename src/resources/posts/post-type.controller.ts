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
import { Methods } from '../../core/rest/route-types';
import { exposedMetaKeys, metaResponse, metaSchemaProperties } from '../../core/rest/meta-fields';
import { ItemSchema, RouteArg } from '../../core/schema/json-schema';
import { CmsExtensionRegistry } from '../../extensions/extension-registry.service';
import { renderContent, renderExcerpt, renderTitle } from '../../core/formatting';
import { buildPostSchema, typeSupports } from './post-schema';
import { applyFilterQueryVars } from './filter-query-vars';
import { PostQuery, PostsService } from './posts.service';

/** Site facts used while preparing posts of one request. */
interface SiteFacts {
  home: string;
  sticky: number[];
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
 * Rendered HTML by source text. Rendering is a pure function of the text (and the site's formatting options), so
 * repeated reads of the same post reuse it; entries are evicted oldest first.
 */
class RenderCache {
  private readonly entries = new Map<string, string>();

  constructor(private readonly max: number) {}

  get(key: string, render: () => string): string {
    const hit = this.entries.get(key);
    if (hit !== undefined) return hit;
    const value = render();
    if (this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, value);
    return value;
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
    const base = `/${this.restBase}`;
    this.route(base, {
      methods: Methods.READABLE,
      args: () => this.collectionArgs(),
      permission: (req) => this.canList(req),
      handler: (req) => this.getItems(req),
    });
    this.route(`${base}/(?P<id>[\\d]+)`, {
      methods: Methods.READABLE,
      args: () => ({
        id: { description: 'Unique identifier for the post.', type: 'integer' },
        context: this.getContextParam({ default: 'view' }),
        password: { description: 'The password for the post if it is password protected.', type: 'string' },
      }),
      permission: (req) => this.canRead(req),
      handler: (req) => this.getItem(req),
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
        args[base] = { description: `Limit result set to items with specific terms assigned in the ${tax.name} taxonomy.`, type: 'array', items: { type: 'integer' }, default: [] };
        args[`${base}_exclude`] = { description: `Limit result set to items except those with specific terms assigned in the ${tax.name} taxonomy.`, type: 'array', items: { type: 'integer' }, default: [] };
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

  private async loadPost(req: RestRequest): Promise<PostEntity> {
    const post = await req.ctx.loader<number, PostEntity | null>('posts', async (ids) => {
      const rows = await this.posts.findByIds(ids);
      return ids.map((id) => rows.find((r) => r.id === id) ?? null);
    }).load(Number(req.get('id')));
    if (!post || post.type !== this.type.name) throw new RestException('rest_post_invalid_id', 'Invalid post id.', 404);
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

  // --- handlers ---

  private async getItems(req: RestRequest): Promise<RestResponse> {
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

  // --- preparation ---

  private async siteFacts(req: RestRequest): Promise<SiteFacts> {
    const o = await this.options.getMany(['home', 'sticky_posts']);
    const sticky = Array.isArray(o.sticky_posts) ? o.sticky_posts.map(Number) : [];
    return { home: String(o.home ?? req.ctx.baseUrl).replace(/\/+$/, ''), sticky };
  }

  /** Loads what a page of posts needs in a fixed number of queries, then prepares each post. */
  private async prepareMany(posts: PostEntity[], req: RestRequest, site: SiteFacts): Promise<RestResponse[]> {
    const ids = posts.map((p) => p.id);
    const taxonomies = this.taxonomies();
    const metaKeys = [...BASE_META_KEYS, ...this.registeredMeta().map((m) => m.key)];
    const [terms, formats, meta, authors, revisions, parents] = await Promise.all([
      this.posts.termsOf(ids, taxonomies.map((t) => t.name)),
      typeSupports(this.type, 'post-formats') ? this.posts.formatsOf(ids) : Promise.resolve(new Map<number, string>()),
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
    if (viewable && post.name) {
      if (this.type.name === 'post') return `${site.home}/${post.name}/`;
      if (this.type.hierarchical) {
        const path: string[] = [post.name];
        let parent = post.parent ? batch.parents.get(post.parent) : undefined;
        for (let i = 0; parent && i < 20; i++) {
          path.unshift(parent.name);
          parent = parent.parent ? batch.parents.get(parent.parent) : undefined;
        }
        return this.type.name === 'page' ? `${site.home}/${path.join('/')}/` : `${site.home}/${this.type.name}/${path.join('/')}/`;
      }
      return `${site.home}/${this.type.name}/${post.name}/`;
    }
    if (this.type.name === 'post') return `${site.home}/?p=${post.id}`;
    if (this.type.name === 'page') return `${site.home}/?page_id=${post.id}`;
    return `${site.home}/?post_type=${this.type.name}&p=${post.id}`;
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
      date_gmt: dateResponse(post.dateGmt === ZERO_DATE ? post.date : post.dateGmt),
      guid: { rendered: post.guid, raw: post.guid },
      modified: dateResponse(post.modifiedGmt, post.modified),
      modified_gmt: dateResponse(post.modifiedGmt === ZERO_DATE ? post.modified : post.modifiedGmt),
    };
    if (edit) data.password = post.password;
    Object.assign(data, { slug: post.name, status: post.status, type: post.type, link: this.link(post, site, batch, readable) });
    if (supports('title')) {
      const prefix = post.status === 'private' && !post.password ? 'p' : 't';
      const rendered = RENDERED.get(`${prefix}\0${post.title}`, () => renderTitle(post.title, { status: post.status, password: post.password }));
      data.title = { raw: post.title, rendered };
    }
    if (supports('editor')) {
      const rendered = locked ? '' : RENDERED.get(`c\0${post.content}`, () => renderContent(post.content));
      data.content = { raw: post.content, rendered, protected: Boolean(post.password) };
    }
    if (supports('excerpt')) {
      const rendered = locked ? '' : RENDERED.get(`e\0${post.excerpt}\0${post.excerpt ? '' : post.content}`, () => renderExcerpt(post.excerpt, post.content));
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

/** An ISO 8601 request date as a MySQL datetime (site time zone UTC). */
function toMysql(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const d = new Date(/[zZ]|[+-]\d{2}:?\d{2}$/.test(value) ? value : `${value}Z`);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString().slice(0, 19).replace('T', ' ');
}
