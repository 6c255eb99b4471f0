import type { ResponseBuilders } from '../../core/rest/rest-resource';
import type { ItemSchema } from '../../core/json-schema/json-schema';
import { PostEntity } from '../../core/database/entities/post.entity';
import { mysqlToRfc3339, ZERO_DATE } from '../../core/database/mysql-date';
import { OptionsService } from '../../core/options/options.service';
import { SiteClock } from '../../core/options/site-clock';
import { PostTypeObject, TaxonomyObject } from '../../core/registry/content-types';
import { ExposedMetaKey, metaResponse } from '../../core/rest/meta-fields';
import { RestRequest } from '../../core/rest/rest-request';
import { ItemMemo } from '../../core/rest/json-text';
import { RestResponse } from '../../core/rest/rest-response';
import { permalink } from '../../core/rest/permalink';
import { isLocked, isSealed, renderedTexts } from './post-content';
import { BLOCKS_CONTROLLER } from './post-access';
import { postLinks, PostRoutes } from './post-links';
import { typeSupports } from './post-schema';
import { stickyIds } from './post-relations';
import { ExtrasWanted, NO_EXTRAS, PostExtras } from './post-extras';
import type { PostTypeDependencies } from './post-type-resources.service';
import { PostsService } from './posts.service';
import { textOf } from '../../core/formatting/php-serialize';
import { hasBlocks } from '../../core/formatting/blocks';
import type { LinkMap } from '../../core/rest/rest-response';
import {
  availableActions,
  type EditExtras,
  hasSamplePermalink,
  permalinkTemplate,
  sampleSlugWanted,
} from './post-edit-extras';

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
  /** With the dialect's `editExtras`, in the edit context: the sample slugs and the caller's actions. */
  edit?: EditExtras;
}

/**
 * One post being prepared: the request, the site, what was loaded with it and what the caller may see of it
 * (`readable`: a private post needs `read_post`; `sealed`: see {@link isSealed}).
 */
interface Preparing {
  post: PostEntity;
  req: RestRequest;
  site: SiteFacts;
  batch: Batch;
  readable: boolean;
  sealed: boolean;
}

/** What a post type's resource tells the helpers that prepare and read its posts (with its response builder). */
export interface PostTypeView extends Pick<ResponseBuilders<PostEntity>, 'respond'> {
  type: PostTypeObject;
  namespace: string;
  restBase: string;
  taxonomies: () => TaxonomyObject[];
  registeredMeta: () => ExposedMetaKey[];
  /** The item schema with registered fields. */
  schema: () => ItemSchema;
}

/**
 * Prepares posts of one type for responses, the way the reference's `prepare_item_for_response` does: fields by the
 * type's supports, rendered HTML, password protection, dates in both time zones, and links — with everything a page
 * of posts needs loaded in a fixed number of queries.
 */
export class PostPresenter {
  private readonly type: PostTypeObject;
  private readonly taxonomies: () => TaxonomyObject[];
  private readonly registeredMeta: () => ExposedMetaKey[];
  private readonly posts: PostsService;
  private readonly options: OptionsService;
  private readonly routes: PostRoutes;
  private readonly respond: PostTypeView['respond'];
  private readonly schemaOf: PostTypeView['schema'];

  /** Whether the type's schema has `parent` (every type the posts resource serves; not attachments). */
  private get hasParent(): boolean {
    return this.schemaOf().properties.parent !== undefined;
  }

  /** Made by a post type's resource: the injected services (`deps`) and what it knows of its type (`view`). */
  constructor(deps: Pick<PostTypeDependencies, 'posts' | 'options' | 'server'>, view: PostTypeView) {
    this.type = view.type;
    this.taxonomies = view.taxonomies;
    this.registeredMeta = view.registeredMeta;
    this.respond = view.respond;
    this.schemaOf = view.schema;
    this.posts = deps.posts;
    this.options = deps.options;
    this.routes = {
      type: view.type,
      namespace: view.namespace,
      restBase: view.restBase,
      taxonomies: view.taxonomies,
      linkRelBase: deps.server.options.linkRelBase,
    };
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
    for (const post of posts) out.push(await this.prepareItem(await this.preparing(post, req, site, batch)));
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
    for (const post of posts) out.push(await this.itemOf(await this.preparing(post, req, site, batch), toItem, asText));
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
    const p = await this.preparing(post, req, site, await this.batchOf([post], req, loaded));
    return { item: await this.itemOf(p, toItem, asText), link: this.link(p) };
  }

  /** What the caller may see of a post, asked in this order: whether it may read it, then whether it is sealed. */
  private async preparing(post: PostEntity, req: RestRequest, site: SiteFacts, batch: Batch): Promise<Preparing> {
    const readable = await this.readable(post, req);
    return { post, req, site, batch, readable, sealed: await isSealed(post, req) };
  }

  private async itemOf(
    p: Preparing,
    toItem: (response: RestResponse) => unknown,
    asText: () => boolean,
  ): Promise<unknown> {
    const inputs = asText() ? this.inputsOf(p) : null;
    return this.memo.reuse(
      `${p.post.id}\0${p.req.context}`,
      inputs,
      async () => toItem(await this.prepareItem(p)),
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
  private inputsOf(p: Preparing): unknown[] {
    const { post, req, site, batch } = p;
    const extras = batch.extras.get(post.id) ?? NO_EXTRAS;
    const inputs: unknown[] = [
      req.ctx.restUrl(''),
      req.context,
      isLocked(post, req),
      p.readable,
      p.sealed,
      site.home,
      site.clock.timezoneString,
      site.clock.gmtOffsetHours,
      site.sticky.includes(post.id),
      this.link(p),
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
    inputs.push(batch.edit?.samples.get(post.id), batch.edit?.actions.join(','));
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
    const editExtras = req.context === 'edit' && req.ctx.wire.dialect.posts.editExtras;
    const [extras, meta, parents, edit] = await Promise.all([
      loaded ?? this.posts.extrasOf(ids, this.extrasWanted()),
      this.posts.metaOf(ids, metaKeys),
      this.type.hierarchical ? this.parentChains(posts) : Promise.resolve(new Map<number, PostEntity>()),
      editExtras ? this.editExtrasOf(posts, req) : undefined,
    ]);
    return { extras, meta, parents, edit };
  }

  /** The edit context's extras of a set of posts (one query for the sample slugs of them all). */
  private async editExtrasOf(posts: PostEntity[], req: RestRequest): Promise<EditExtras> {
    const supportsAuthor = typeSupports(this.type, 'author');
    const samples = new Map<number, string>();
    const [actions] = await Promise.all([
      availableActions(this.type, this.taxonomies(), supportsAuthor, req),
      (async () => {
        if (!hasSamplePermalink(this.type) || !posts.length) return;
        const structure = textOf(await this.options.get('permalink_structure', ''));
        const wanted = posts.map((post) => sampleSlugWanted(post, this.type));
        const slugs = await this.posts.uniqueSlugs(wanted, structure);
        posts.forEach((post, i) => samples.set(post.id, slugs[i]));
      })(),
    ]);
    return { samples, actions };
  }

  /** Whether the caller may read the post (private posts need `read_post`). */
  private async readable(post: PostEntity, req: RestRequest): Promise<boolean> {
    return post.status === 'private' ? req.ctx.can('read_post', post) : true;
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

  private link({ post, site, batch, readable }: Preparing): string {
    const viewable = post.status === 'publish' || (post.status === 'private' && readable);
    return permalink(post, this.type, site.home, batch.parents, viewable);
  }

  /**
   * One post's response. Whatever this and {@link postLinks} read — of the request, the site, the row or the batch
   * — must be among {@link inputsOf}'s inputs, or a reused item would miss the change.
   */
  private async prepareItem(p: Preparing): Promise<RestResponse> {
    const { post, req, site, batch, sealed } = p;
    const supports = (feature: string) => typeSupports(this.type, feature);
    const edit = req.context === 'edit';
    const locked = sealed || isLocked(post, req);
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
      link: this.link(p),
    });
    Object.assign(data, await renderedTexts(post, supports, locked, sealed));
    // WP_REST_Blocks_Controller::filter_response_by_context: no rendered texts.
    if (this.type.rest_controller_class === BLOCKS_CONTROLLER)
      for (const name of ['title', 'content']) delete (data[name] as Record<string, unknown> | undefined)?.rendered;
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
    const links = postLinks(post, req, this.routes, extras, data.featured_media);
    if (batch.edit) this.addEditExtras(data, links, post, batch.edit, p);
    return this.respond(data, req, links, post);
  }

  /** WordPress 5.0+'s edit-context extras of one post (see post-edit-extras.ts). */
  private addEditExtras(
    data: Record<string, unknown>,
    links: LinkMap,
    post: PostEntity,
    edit: EditExtras,
    { site, batch }: Preparing,
  ): void {
    if (data.content && typeof data.content === 'object')
      (data.content as Record<string, unknown>).block_version = hasBlocks(post.content) ? 1 : 0;
    const sample = edit.samples.get(post.id);
    if (sample !== undefined) {
      if (this.type.name !== 'attachment')
        data.permalink_template = permalinkTemplate(post, this.type, site.home, batch.parents);
      data.generated_slug = sample;
    }
    const self = links.get('self')?.[0]?.href;
    if (self)
      for (const rel of edit.actions) links.set(`${this.routes.linkRelBase}${rel}`, [{ href: self, attributes: {} }]);
  }
}

/** The reference's prepare_date_response: `null` for a zero GMT date, else the date as RFC 3339 without offset. */
function dateResponse(dateGmt: string, date?: string): string | null {
  if (date !== undefined) return mysqlToRfc3339(date);
  if (!dateGmt || dateGmt === ZERO_DATE) return null;
  return mysqlToRfc3339(dateGmt);
}

/** A loaded value as a primitive input (see {@link PostPresenter.inputsOf}). */
function primitive(value: unknown): unknown {
  return value !== null && typeof value === 'object' ? JSON.stringify(value) : value;
}
