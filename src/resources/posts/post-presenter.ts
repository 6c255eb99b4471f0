import type { ItemSchema } from '../../core/json-schema/json-schema';
import { timingSafeEqual } from 'node:crypto';
import { ByteLru, LruEntry } from '../../core/memory/byte-lru';
import { RENDERED_HTML_CACHE } from '../../core/memory/cache-limits';
import { PostEntity } from '../../core/database/entities/post.entity';
import { mysqlToRfc3339, ZERO_DATE } from '../../core/database/mysql-date';
import { filterText } from '../../core/text/text-filter-pool';
import { OptionsService } from '../../core/options/options.service';
import { SiteClock } from '../../core/options/site-clock';
import { PostTypeObject, TaxonomyObject } from '../../core/registry/content-types';
import { ExposedMetaKey, metaResponse } from '../../core/rest/meta-fields';
import { RestRequest } from '../../core/rest/rest-request';
import { ItemMemo } from '../../core/rest/json-text';
import { LinkMap, linkMap, RestResponse } from '../../core/rest/rest-response';
import { permalink } from './permalink';
import { typeSupports } from './post-schema';
import { stickyIds } from './post-writer.service';
import { ExtrasWanted, NO_EXTRAS, PostExtras } from './post-extras';
import type { PostTypeDependencies } from './post-type-resources.service';
import { PostsService } from './posts.service';
import { textOf } from '../../core/formatting/php-serialize';

/** Site facts used while preparing posts of one request. */
export interface SiteFacts {
  home: string;
  sticky: number[];
  clock: SiteClock;
}

/** Everything loaded at once for a page of posts. */
interface Batch {
  extras: Map<number, PostExtras>;
  /** Values of registered meta keys (none asked when no key is registered). */
  meta: Map<number, Record<string, unknown[]>>;
  parents: Map<number, PostEntity>;
}

/** Approximate bytes of a {@link RenderCache} entry besides its strings. */
export const RENDERED_ENTRY_BYTES = 128;

/** One rendered field kept by a {@link RenderCache}. */
class Rendered implements LruEntry {
  used = 0;

  constructor(
    readonly cache: RenderCache,
    readonly key: string,
    readonly source: string,
    readonly html: string,
    public size: number,
  ) {}

  evicted(): void {
    this.cache.forget(this);
  }
}

/**
 * Rendered HTML of post fields, by post and field. Rendering is a pure function of the source text (and the site's
 * formatting options), so an entry is reused while its source is unchanged. Entries (their source, HTML and key,
 * two bytes a character) are kept within a size in bytes and a number of entries, the least recently used evicted
 * first; a field larger than an eighth of the size is rendered on every read (see {@link RENDERED_HTML_CACHE}).
 */
export class RenderCache {
  private readonly entries = new Map<string, Rendered>();
  readonly pool: ByteLru<Rendered>;

  constructor(maxBytes: number, maxEntries: number) {
    this.pool = new ByteLru<Rendered>('rendered-html', maxBytes, maxEntries);
  }

  get(key: string, source: string, render: () => string): string {
    return this.peek(key, source) ?? this.keep(key, source, render());
  }

  /** The HTML kept for a key while its source is unchanged, or undefined. */
  peek(key: string, source: string): string | undefined {
    const hit = this.entries.get(key);
    if (hit === undefined || hit.source !== source) return undefined;
    this.pool.touch(hit);
    return hit.html;
  }

  /** Renders a key's HTML (a large text in a worker) and keeps it; callers {@link peek} first. */
  async render(key: string, source: string, render: () => Promise<string>): Promise<string> {
    return this.keep(key, source, await render());
  }

  /** Keeps a key's HTML rendered from `source` (replacing what it kept), and returns it. */
  keep(key: string, source: string, html: string): string {
    const hit = this.entries.get(key);
    if (hit !== undefined) {
      this.entries.delete(key);
      this.pool.remove(hit);
    }
    const entry = new Rendered(
      this,
      key,
      source,
      html,
      RENDERED_ENTRY_BYTES + (key.length + source.length + html.length) * 2,
    );
    if (this.pool.admit(entry)) this.entries.set(key, entry);
    return html;
  }

  /** Forgets an entry the pool dropped. */
  forget(entry: Rendered): void {
    if (this.entries.get(entry.key) === entry) this.entries.delete(entry.key);
  }
}

const RENDERED = new RenderCache(RENDERED_HTML_CACHE.bytes, RENDERED_HTML_CACHE.entries);

/**
 * Prepares posts of one type for responses, the way the reference's `prepare_item_for_response` does: fields by the
 * type's supports, rendered HTML, password protection, dates in both time zones, and links — with everything a page
 * of posts needs loaded in a fixed number of queries.
 */
/** What a post type's resource tells the helpers that prepare and read its posts. */
export interface PostTypeView {
  type: PostTypeObject;
  namespace: string;
  restBase: string;
  taxonomies: () => TaxonomyObject[];
  registeredMeta: () => ExposedMetaKey[];
  /** The item schema with registered fields. */
  schema: () => ItemSchema;
  /** The resource's response builder (additional fields, context, links, `rest_prepare_<type>`). */
  respond: (data: Record<string, unknown>, req: RestRequest, links: LinkMap, post: PostEntity) => Promise<RestResponse>;
}

export class PostPresenter {
  private readonly type: PostTypeObject;
  private readonly namespace: string;
  private readonly restBase: string;
  private readonly taxonomies: () => TaxonomyObject[];
  private readonly registeredMeta: () => ExposedMetaKey[];
  private readonly posts: PostsService;
  private readonly options: OptionsService;
  private readonly linkRelBase: string;
  private readonly respond: PostTypeView['respond'];
  private readonly schemaOf: PostTypeView['schema'];

  /** Whether the type's schema has `parent` (every type the posts resource serves; not attachments). */
  private get hasParent(): boolean {
    return this.schemaOf().properties.parent !== undefined;
  }

  /** Made by a post type's resource: the injected services (`deps`) and what it knows of its type (`view`). */
  constructor(deps: Pick<PostTypeDependencies, 'posts' | 'options' | 'server'>, view: PostTypeView) {
    this.type = view.type;
    this.namespace = view.namespace;
    this.restBase = view.restBase;
    this.taxonomies = view.taxonomies;
    this.registeredMeta = view.registeredMeta;
    this.respond = view.respond;
    this.schemaOf = view.schema;
    this.posts = deps.posts;
    this.options = deps.options;
    this.linkRelBase = deps.server.options.linkRelBase;
  }

  /** Options every post of a request needs (home URL, sticky list, time zone), read once. */
  async siteFacts(req: RestRequest): Promise<SiteFacts> {
    const o = await this.options.getMany(['home', 'sticky_posts', 'timezone_string', 'gmt_offset']);
    return {
      home: textOf(o.home ?? req.ctx.baseUrl).replace(/\/+$/, ''),
      sticky: stickyIds(o.sticky_posts),
      clock: SiteClock.fromOptions(o),
    };
  }

  /** The terms items of this type show (see {@link PostsService.list}). */
  extrasWanted(): ExtrasWanted {
    return { taxonomies: this.taxonomies().map((t) => t.name), formats: typeSupports(this.type, 'post-formats') };
  }

  /**
   * Loads what a page of posts needs in a fixed number of queries, then prepares each post. `loaded`: extras read
   * with the posts' rows (for {@link extrasWanted}).
   */
  async prepareMany(
    posts: PostEntity[],
    req: RestRequest,
    site: SiteFacts,
    loaded?: Map<number, PostExtras>,
  ): Promise<RestResponse[]> {
    const batch = await this.batchOf(posts, req, loaded);
    const out: RestResponse[] = [];
    for (const post of posts)
      out.push(
        await this.prepareItem(post, req, site, batch, await this.readable(post, req), await this.sealed(post, req)),
      );
    return out;
  }

  /**
   * A page of posts as collection items (`toItem`). With `asText` (nothing looks into the items afterwards, see
   * `RestRequest.itemsAsText`) they come as JSON text, each reused from an earlier request while everything it is
   * made from is unchanged (see {@link inputsOf}): the rows are still read for every request, preparing and
   * serializing them again is what is saved.
   */
  async prepareCollection(
    posts: PostEntity[],
    req: RestRequest,
    site: SiteFacts,
    loaded: Map<number, PostExtras> | undefined,
    toItem: (response: RestResponse) => unknown,
    asText: () => boolean,
  ): Promise<unknown[]> {
    const batch = await this.batchOf(posts, req, loaded);
    const out: unknown[] = [];
    for (const post of posts)
      out.push(
        await this.itemOf(
          post,
          req,
          site,
          batch,
          await this.readable(post, req),
          await this.sealed(post, req),
          toItem,
          asText,
        ),
      );
    return out;
  }

  /**
   * One post the way {@link prepareCollection} gives its items (`GET <type>/<id>` while nothing looks into the
   * response after the handler), with its link on the site for the `Link` header.
   */
  async prepareOne(
    post: PostEntity,
    req: RestRequest,
    site: SiteFacts,
    toItem: (response: RestResponse) => unknown,
    asText: () => boolean,
    loaded?: Map<number, PostExtras>,
  ): Promise<{ item: unknown; link: string }> {
    const batch = await this.batchOf([post], req, loaded);
    const readable = await this.readable(post, req);
    const item = await this.itemOf(post, req, site, batch, readable, await this.sealed(post, req), toItem, asText);
    return { item, link: this.link(post, site, batch, readable) };
  }

  private async itemOf(
    post: PostEntity,
    req: RestRequest,
    site: SiteFacts,
    batch: Batch,
    readable: boolean,
    sealed: boolean,
    toItem: (response: RestResponse) => unknown,
    asText: () => boolean,
  ): Promise<unknown> {
    const inputs = asText() ? this.inputsOf(post, req, site, batch, readable, sealed) : null;
    return this.memo.reuse(
      `${post.id}\0${req.context}`,
      inputs,
      async () => toItem(await this.prepareItem(post, req, site, batch, readable, sealed)),
      asText,
    );
  }

  /**
   * Everything a collection item of this presenter is made from, as primitive values: the request's facts (API
   * URL, context, password and read rights as they apply to the post), the site's (home, time zone, sticky), every
   * column of the row, and what was loaded with it (extras, registered meta, the link with its ancestors). The
   * type, its taxonomies, meta keys and schema are fixed once the application has started; registered fields and
   * `rest_prepare_*` listeners turn serialized items off (see `RestResource.itemsAsText`).
   */
  private inputsOf(
    post: PostEntity,
    req: RestRequest,
    site: SiteFacts,
    batch: Batch,
    readable: boolean,
    sealed: boolean,
  ): unknown[] {
    const extras = batch.extras.get(post.id) ?? NO_EXTRAS;
    const inputs: unknown[] = [
      req.ctx.restUrl(''),
      req.context,
      this.locked(post, req),
      readable,
      sealed,
      site.home,
      site.clock.timezoneString,
      site.clock.gmtOffsetHours,
      site.sticky.includes(post.id),
      this.link(post, site, batch, readable),
    ];
    const record = post as unknown as Record<string, unknown>;
    for (const property of this.columns()) inputs.push(record[property]);
    inputs.push(
      extras.authorExists,
      primitive(extras.thumbnail),
      primitive(extras.template),
      extras.revisions?.count,
      extras.revisions?.last,
      extras.format,
    );
    for (const tax of this.taxonomies()) inputs.push((extras.terms[tax.name] ?? []).join(','));
    inputs.push(batch.meta.size ? JSON.stringify(batch.meta.get(post.id) ?? null) : '');
    return inputs;
  }

  private readonly memo = new ItemMemo();

  /** The row's properties, from the entity's columns. */
  private columns(): string[] {
    return (this.columnNames ??= this.posts.postColumns());
  }

  private columnNames?: string[];

  /** What a set of posts needs to be prepared, loaded together; the posts are noted as shown (`AnswerSources`). */
  private async batchOf(posts: PostEntity[], req: RestRequest, loaded?: Map<number, PostExtras>): Promise<Batch> {
    req.sources.notePosts(posts);
    const ids = posts.map((p) => p.id);
    const metaKeys = this.registeredMeta().map((m) => m.key);
    const [extras, meta, parents] = await Promise.all([
      loaded ?? this.posts.extrasOf(ids, this.extrasWanted()),
      this.posts.metaOf(ids, metaKeys),
      this.type.hierarchical ? this.parentChains(posts) : Promise.resolve(new Map<number, PostEntity>()),
    ]);
    return { extras, meta, parents };
  }

  /** Whether the caller may read the post (private posts need `read_post`). */
  private async readable(post: PostEntity, req: RestRequest): Promise<boolean> {
    return post.status === 'private' ? req.ctx.can('read_post', post) : true;
  }

  /**
   * Whether a password-protected post's text and password stay out of an edit-context answer: a collection in the
   * edit context (open to every caller with the type's `edit_posts`) holds posts its caller may not edit.
   */
  private async sealed(post: PostEntity, req: RestRequest): Promise<boolean> {
    return Boolean(post.password) && req.context === 'edit' && !(await req.ctx.can('edit_post', post));
  }

  /** Password-protected content is hidden unless the right password is sent (or the caller edits). */
  private locked(post: PostEntity, req: RestRequest): boolean {
    return (
      Boolean(post.password) &&
      req.context !== 'edit' &&
      !samePassword(post.password, req.get<string>('password') ?? '')
    );
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

  private link(post: PostEntity, site: SiteFacts, batch: Batch, readable: boolean): string {
    const viewable = post.status === 'publish' || (post.status === 'private' && readable);
    return permalink(post, this.type, site.home, batch.parents, viewable);
  }

  /**
   * One post's response. Whatever this and {@link links} read — of the request, the site, the row or the batch —
   * must be among {@link inputsOf}'s inputs, or a reused item would miss the change.
   */
  private async prepareItem(
    post: PostEntity,
    req: RestRequest,
    site: SiteFacts,
    batch: Batch,
    readable: boolean,
    sealed: boolean,
  ): Promise<RestResponse> {
    const supports = (feature: string) => typeSupports(this.type, feature);
    const edit = req.context === 'edit';
    const locked = sealed || this.locked(post, req);
    const extras = batch.extras.get(post.id) ?? NO_EXTRAS;
    const data: Record<string, unknown> = {
      id: post.id,
      date: dateResponse(post.dateGmt, post.date),
      date_gmt: dateResponse(site.clock.gmtOf(post.date, post.dateGmt)),
      guid: { rendered: post.guid, raw: post.guid },
      modified: dateResponse(post.modifiedGmt, post.modified),
      modified_gmt: dateResponse(site.clock.gmtOf(post.modified, post.modifiedGmt)),
    };
    if (edit && !sealed) data.password = post.password;
    Object.assign(data, {
      slug: post.name,
      status: post.status,
      type: post.type,
      link: this.link(post, site, batch, readable),
    });
    if (supports('title')) {
      const prefix = post.status === 'private' && !post.password ? 'p' : 't';
      const rendered =
        RENDERED.peek(`${post.id}:t`, `${prefix}${post.title}`) ??
        (await RENDERED.render(`${post.id}:t`, `${prefix}${post.title}`, () =>
          filterText('renderTitle', post.title, post.status, post.password),
        ));
      data.title = { raw: post.title, rendered };
    }
    if (supports('editor')) {
      const rendered = locked
        ? ''
        : (RENDERED.peek(`${post.id}:c`, post.content) ??
          (await RENDERED.render(`${post.id}:c`, post.content, () => filterText('renderContent', post.content))));
      data.content = { raw: sealed ? '' : post.content, rendered, protected: Boolean(post.password) };
    }
    if (supports('excerpt')) {
      // An excerpt is rendered from the excerpt, or generated from the content when there is none.
      const key = post.excerpt ? `${post.id}:e` : `${post.id}:g`;
      const source = post.excerpt || post.content;
      const rendered = locked
        ? ''
        : (RENDERED.peek(key, source) ??
          (await RENDERED.render(key, source, () => filterText('renderExcerpt', post.excerpt, post.content))));
      data.excerpt = { raw: sealed ? '' : post.excerpt, rendered, protected: Boolean(post.password) };
    }
    if (supports('author')) data.author = post.author;
    if (supports('thumbnail')) data.featured_media = Number(extras.thumbnail ?? 0) || 0;
    if (this.hasParent) data.parent = post.parent;
    if (supports('page-attributes')) data.menu_order = post.menuOrder;
    if (supports('comments')) {
      data.comment_status = post.commentStatus;
      data.ping_status = post.pingStatus;
    }
    if (this.type.name === 'post') data.sticky = site.sticky.includes(post.id);
    const template = textOf(extras.template);
    data.template = template === 'default' ? '' : template;
    if (supports('post-formats')) data.format = extras.format ?? 'standard';
    if (supports('custom-fields')) data.meta = metaResponse(this.registeredMeta(), batch.meta.get(post.id) ?? {});
    for (const tax of this.taxonomies()) data[tax.rest_base || tax.name] = extras.terms[tax.name] ?? [];
    return this.respond(data, req, this.links(post, req, batch, data), post);
  }

  private links(post: PostEntity, req: RestRequest, batch: Batch, data: Record<string, unknown>) {
    const ns = this.namespace;
    const rel = this.linkRelBase;
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
    const extras = batch.extras.get(post.id) ?? NO_EXTRAS;
    if (typeSupports(this.type, 'author') && post.author && extras.authorExists) {
      add('author', url(`${ns}/users/${post.author}`), { embeddable: true });
    }
    if (typeSupports(this.type, 'comments'))
      add('replies', url(`${ns}/comments?post=${post.id}`), { embeddable: true });
    if (typeSupports(this.type, 'revisions')) {
      const revisions = extras.revisions;
      add('version-history', url(`${ns}/${this.restBase}/${post.id}/revisions`), { count: revisions?.count ?? 0 });
      if (revisions)
        add('predecessor-version', url(`${ns}/${this.restBase}/${post.id}/revisions/${revisions.last}`), {
          id: revisions.last,
        });
    }
    if (this.type.hierarchical && post.parent > 0)
      add('up', url(`${ns}/${this.restBase}/${post.parent}`), { embeddable: true });
    if (Number(data.featured_media) > 0)
      add(`${rel}featuredmedia`, url(`${ns}/media/${Number(data.featured_media)}`), { embeddable: true });
    add(`${rel}attachment`, url(`${ns}/media?parent=${post.id}`));
    for (const tax of this.taxonomies()) {
      add(`${rel}term`, url(`${tax.rest_namespace}/${tax.rest_base || tax.name}?post=${post.id}`), {
        taxonomy: tax.name,
        embeddable: true,
      });
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

export function samePassword(stored: string, given: string): boolean {
  const a = Buffer.from(stored);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** A loaded value as a primitive input (see {@link PostPresenter.inputsOf}). */
function primitive(value: unknown): unknown {
  return value !== null && typeof value === 'object' ? JSON.stringify(value) : value;
}
