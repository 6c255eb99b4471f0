import { RestException } from '../../core/errors/rest.exception';
import { OptionsService } from '../../core/options/options.service';
import { ContentRegistry } from '../../core/registry/content-registry.service';
import { TaxonomyObject } from '../../core/registry/content-types';
import { exposedMetaKeys, metaResponse, metaSchemaProperties, planMetaWrites } from '../../core/rest/meta-fields';
import { ItemMemo } from '../../core/rest/json-text';
import { CollectionArgs, CollectionQuery, orderArg, orderbyArg } from '../../core/rest/collection-query';
import { RestResource } from '../../core/rest/rest-resource';
import { RestRequest } from '../../core/rest/rest-request';
import { linkMap, RestResponse } from '../../core/rest/rest-response';
import { ItemSchema, JsonSchema, RouteArg } from '../../core/json-schema/json-schema';
import { sanitizeTextField } from '../../core/formatting/sanitize-text';
import { sanitizeTitle, wpKsesPost } from '../../core/formatting';
import { wpFilterKses } from '../../core/formatting/kses';
import { DESCRIPTION_BYTES, TEXT_COLUMN_BYTES } from '../../core/text/text-limits';
import { sanitizeSavedName } from '../../core/formatting/esc-url';
import { TermQuery, TermRow, TermsService } from './terms.service';
import type { TaxonomyDependencies } from './taxonomy-resources.service';
import { Methods } from '../../core/rest/route-types';

/** The arguments of a taxonomy's `GET` collection, as {@link TermResource.collectionArgs} declares them. */
interface TermListArgs extends CollectionArgs {
  hide_empty?: boolean;
  post?: number;
  parent?: number;
}

/**
 * The reference's terms controller, one instance per REST taxonomy (routes in TermsHandlers) (`categories`, `tags`, extension taxonomies with
 * a `rest_base`): list, create, get, update and delete terms; a term is reachable only through its own taxonomy's
 * route.
 */
export class TermResource extends RestResource {
  override readonly namespace: string;
  readonly restBase: string;

  private readonly content: ContentRegistry;
  private readonly terms: TermsService;
  private readonly options: OptionsService;

  /** Made by {@link TaxonomyResources}, once per REST taxonomy, from the services it was given by DI. */
  constructor(
    deps: TaxonomyDependencies,
    private readonly taxonomy: TaxonomyObject,
  ) {
    super(deps.server, deps.extensions, deps.hooks);
    this.content = deps.content;
    this.terms = deps.terms;
    this.options = deps.options;
    this.namespace = taxonomy.rest_namespace;
    this.restBase = taxonomy.rest_base || taxonomy.name;
  }

  protected baseSchema(): ItemSchema {
    const all: Array<'view' | 'embed' | 'edit'> = ['view', 'embed', 'edit'];
    const props: Record<string, JsonSchema> = {
      id: { description: 'Unique identifier for the resource.', type: 'integer', context: all, readonly: true },
      count: {
        description: 'Number of published posts for the resource.',
        type: 'integer',
        context: ['view', 'edit'],
        readonly: true,
      },
      description: { description: 'HTML description of the resource.', type: 'string', context: ['view', 'edit'] },
      link: { description: 'URL to the resource.', type: 'string', format: 'uri', context: all, readonly: true },
      name: { description: 'HTML title for the resource.', type: 'string', context: all, required: true },
      slug: {
        description: 'An alphanumeric identifier for the resource unique to its type.',
        type: 'string',
        context: all,
      },
      taxonomy: {
        description: 'Type attribution for the resource.',
        type: 'string',
        enum: this.content.allTaxonomies().map((t) => t.name),
        context: all,
        readonly: true,
      },
    };
    // The reference's wp_filter_post_kses, then WordPress's pre_term_description filter (wp_filter_kses).
    props.description.arg_options = {
      sanitize: (v) => wpFilterKses(wpKsesPost(String(v))),
      maxBytes: DESCRIPTION_BYTES,
    };
    props.name.arg_options = { sanitize: (v) => sanitizeTextField(String(v)), maxBytes: TEXT_COLUMN_BYTES };
    props.slug.arg_options = { sanitize: (v) => sanitizeTitle(String(v)), maxBytes: TEXT_COLUMN_BYTES };
    if (this.taxonomy.hierarchical)
      props.parent = {
        description: 'The id for the parent of the resource.',
        type: 'integer',
        context: ['view', 'edit'],
      };
    props.meta = {
      description: 'Meta fields.',
      type: 'object',
      context: ['view', 'edit'],
      properties: metaSchemaProperties(this.registeredMeta()),
    };
    const title = this.taxonomy.name === 'post_tag' ? 'tag' : this.taxonomy.name;
    return { $schema: 'http://json-schema.org/draft-04/schema#', title, type: 'object', properties: props };
  }

  private registeredMeta() {
    return exposedMetaKeys(this.extensions, 'term', this.taxonomy.name);
  }

  readonly readArgs = () => this.itemReadArgs(TERM_ID);
  readonly createArgs = () => this.getEndpointArgsForItemSchema(Methods.CREATABLE);
  readonly updateArgs = () => this.itemUpdateArgs(TERM_ID);
  readonly deleteArgs = () =>
    this.itemDeleteArgs(TERM_ID, 'Required to be true, as resource does not support trashing.');

  collectionArgs(): Record<string, RouteArg> {
    const args: Record<string, RouteArg> = {
      ...this.getCollectionParams(),
      exclude: this.idListArg('Ensure result set excludes specific ids.'),
      include: this.idListArg('Limit result set to specific ids.'),
      order: orderArg('asc'),
      orderby: orderbyArg('Sort collection by resource attribute.', 'name', [
        'id',
        'include',
        'name',
        'slug',
        'include_slugs',
        'term_group',
        'description',
        'count',
      ]),
      hide_empty: {
        description: 'Whether to hide resources not assigned to any posts.',
        type: 'boolean',
        default: false,
      },
      post: {
        description: 'Limit result set to resources assigned to a specific post.',
        type: 'integer',
        default: null,
      },
      slug: {
        description: 'Limit result set to resources with one or more specific slugs.',
        type: 'array',
        items: { type: 'string' },
      },
    };
    if (this.taxonomy.hierarchical)
      args.parent = { description: 'Limit result set to resources assigned to a specific parent.', type: 'integer' };
    // The spec's collection table gives terms `offset`, hierarchical taxonomies included.
    args.offset = { description: 'Offset the result set by a specific number of items.', type: 'integer' };
    return args;
  }

  // --- permissions ---

  async canRead(req: RestRequest): Promise<true | RestException> {
    if (req.context === 'edit' && !(await req.ctx.can(this.taxonomy.cap.edit_terms))) {
      return new RestException(
        'rest_forbidden_context',
        'Sorry, you cannot view this resource with edit context.',
        req.ctx.authorizationRequiredCode,
      );
    }
    return true;
  }

  async canCreate(req: RestRequest): Promise<true | RestException> {
    if (await req.ctx.can(this.taxonomy.cap.manage_terms)) return true;
    return new RestException(
      'rest_cannot_create',
      'Sorry, you cannot create new resource.',
      req.ctx.authorizationRequiredCode,
    );
  }

  async canUpdate(req: RestRequest): Promise<true | RestException> {
    const term = await this.loadTerm(req);
    if (await req.ctx.can('edit_term', term.termId)) return true;
    return new RestException(
      'rest_cannot_update',
      'Sorry, you cannot update resource.',
      req.ctx.authorizationRequiredCode,
    );
  }

  async canDelete(req: RestRequest): Promise<true | RestException> {
    const term = await this.loadTerm(req);
    if (await req.ctx.can('delete_term', term.termId)) return true;
    return new RestException(
      'rest_cannot_delete',
      'Sorry, you cannot delete resource.',
      req.ctx.authorizationRequiredCode,
    );
  }

  // --- handlers ---

  private async loadTerm(req: RestRequest): Promise<TermRow> {
    const term = await this.termLoader(req).load(Number(req.get('id')));
    if (!term) throw new RestException('rest_term_invalid', "Resource doesn't exist.", 404);
    return term;
  }

  /** Terms of this taxonomy by id, batched across a request and its embedded sub-requests. */
  private termLoader(req: RestRequest) {
    return req.ctx.loader<number, TermRow | null>(`terms:${this.taxonomy.name}`, async (ids) => {
      const rows = await this.terms.findByIds(this.taxonomy.name, ids);
      return ids.map((id) => rows.find((r) => r.termId === id) ?? null);
    });
  }

  async getItems(req: RestRequest): Promise<RestResponse> {
    if (!this.taxonomy.hierarchical && req.sentAtAll('parent')) {
      throw new RestException(
        'rest_taxonomy_not_hierarchical',
        'Can not filter resources by parent, taxonomy is not hierarchical.',
        400,
      );
    }
    const q = CollectionQuery.of<TermListArgs>(req);
    const { offset, perPage } = q;
    const order = q.order('ASC');
    const orderby = q.orderby('name');
    let terms: TermRow[];
    let total: number;
    const postId = q.args.post ?? 0;
    if (postId) {
      // The terms of one post: sorted like the reference sorts them, then paged.
      // Loaded through a request-wide loader: the `cms:term` links of a page of posts (`_embed`) cost one query.
      const ofPost = await req.ctx
        .loader<number, TermRow[]>(`terms-of-post:${this.taxonomy.name}`, async (ids) => {
          const found = await this.terms.ofPosts(this.taxonomy.name, ids);
          return ids.map((id) => found.get(id) ?? []);
        })
        .load(postId);
      const all = sortTerms(ofPost, orderby, order);
      total = all.length;
      terms = all.slice(offset, offset + perPage);
    } else {
      const query: TermQuery = {
        taxonomy: this.taxonomy.name,
        include: q.include,
        exclude: q.exclude,
        search: q.search,
        slugs: q.slugs,
        parent: this.taxonomy.hierarchical ? q.args.parent : undefined,
        hideEmpty: q.args.hide_empty === true,
        orderby,
        order,
        limit: perPage,
        offset,
      };
      const filtered = await this.hooks.applyFilters(`rest_${this.taxonomy.name}_query`, query, req);
      ({ terms, total } = await this.terms.list(filtered));
    }
    const response = new RestResponse(await this.collectionItems(terms, req));
    return this.paginate(response, req, total, `${this.namespace}/${this.restBase}`, {
      page: Math.ceil(offset / perPage + 1),
    });
  }

  async getItem(req: RestRequest): Promise<RestResponse> {
    const term = await this.loadTerm(req);
    if (this.itemsAsText(req, this.taxonomy.name))
      return new RestResponse((await this.collectionItems([term], req))[0]);
    return this.prepareOne(term, req);
  }

  private async checkParent(req: RestRequest): Promise<number | undefined> {
    if (!this.taxonomy.hierarchical) {
      // A flat taxonomy does not declare `parent`: sending one is refused, its value never read.
      if (req.sentAtAll('parent'))
        throw new RestException(
          'rest_taxonomy_not_hierarchical',
          'Can not set resource parent, taxonomy is not hierarchical.',
          400,
        );
      return undefined;
    }
    if (!req.has('parent')) return undefined;
    const parent = Number(req.get('parent'));
    if (parent === 0) return 0;
    const [found] = await this.terms.findByIds(this.taxonomy.name, [parent]);
    if (!found) throw new RestException('rest_term_invalid', "Parent resource doesn't exist.", 400);
    return parent;
  }

  async createItem(req: RestRequest): Promise<RestResponse> {
    const parent = (await this.checkParent(req)) ?? 0;
    const name = String(req.get('name') ?? '').trim();
    if (!name) throw new RestException('empty_term_name', 'A name is required for this term.', 400);
    let input = {
      name: sanitizeSavedName(name),
      slug: req.get<string>('slug') || sanitizeTitle(name),
      slugGiven: Boolean(req.get<string>('slug')),
      description: String(req.get('description') ?? ''),
      parent,
    };
    input = await this.hooks.applyFilters(`rest_pre_insert_${this.taxonomy.name}`, input, req);
    const meta = await this.plannedMeta(req, { termId: 0, taxonomy: this.taxonomy.name });
    const termId = await this.terms.create(this.taxonomy.name, this.taxonomy.hierarchical, input, meta);
    const [term] = await this.terms.findByIds(this.taxonomy.name, [termId]);
    await this.updateAdditionalFields(term, req);
    await this.hooks.doAction(`rest_insert_${this.taxonomy.name}`, term, req, true);
    req.set('context', 'view');
    const response = await this.prepareOne(term, req);
    return this.created(response, req, `${this.namespace}/${this.restBase}/${termId}`);
  }

  async updateItem(req: RestRequest): Promise<RestResponse> {
    const current = await this.loadTerm(req);
    const parent = await this.checkParent(req);
    let input: { name?: string; slug?: string; description?: string; parent?: number } = {};
    if (req.has('name')) {
      const name = String(req.get('name')).trim();
      if (!name) throw new RestException('empty_term_name', 'A name is required for this term.', 400);
      input.name = sanitizeSavedName(name);
    }
    if (req.has('slug')) input.slug = String(req.get('slug'));
    if (req.has('description')) input.description = String(req.get('description'));
    if (parent !== undefined) input.parent = parent;
    input = await this.hooks.applyFilters(`rest_pre_insert_${this.taxonomy.name}`, input, req);
    const meta = await this.plannedMeta(req, { termId: current.termId, taxonomy: current.taxonomy });
    await this.terms.update(current, this.taxonomy.hierarchical, input, meta);
    const [term] = await this.terms.findByIds(this.taxonomy.name, [current.termId]);
    await this.updateAdditionalFields(term, req);
    await this.hooks.doAction(`rest_insert_${this.taxonomy.name}`, term, req, false);
    req.set('context', 'view');
    return this.prepareOne(term, req);
  }

  async deleteItem(req: RestRequest): Promise<RestResponse> {
    if (req.get('force') !== true)
      throw new RestException('rest_trash_not_supported', 'Resource does not support trashing.', 501);
    const term = await this.loadTerm(req);
    req.set('context', 'view');
    const previous = await this.prepareOne(term, req);
    await this.terms.delete(term, Number(await this.options.get('default_category', 0)));
    await this.hooks.doAction(`rest_delete_${this.taxonomy.name}`, term, previous, req);
    return previous;
  }

  private async plannedMeta(req: RestRequest, term: { termId: number; taxonomy: string }) {
    if (!req.has('meta')) return [];
    return planMetaWrites(
      this.registeredMeta(),
      req.get('meta'),
      'term',
      (cap, key) => req.ctx.can(cap, term.termId || { termId: 0, taxonomy: term.taxonomy }, key),
      req.ctx.authorizationRequiredCode,
    );
  }

  // --- preparation ---

  private async prepareOne(term: TermRow, req: RestRequest): Promise<RestResponse> {
    return this.prepareItem(term, req, await this.batchOf([term], req));
  }

  /**
   * Terms as collection items; as JSON text while nothing looks into them afterwards (`itemsAsText`), each reused
   * while everything it is made from is unchanged (the request's API URL and context, the term's row, link and
   * meta).
   */
  private async collectionItems(terms: TermRow[], req: RestRequest): Promise<unknown[]> {
    const batch = await this.batchOf(terms, req);
    return this.reusedItems(this.memo, terms, req, this.taxonomy.name, {
      key: (term) => term.termId,
      inputs: (term) => [
        req.ctx.restUrl(''),
        req.context,
        this.termLink(term, batch.home, batch.ancestors),
        term.termId,
        term.count,
        term.description,
        term.name,
        term.slug,
        term.taxonomy,
        term.parent,
        batch.ancestors.has(term.parent),
        batch.meta.size ? JSON.stringify(batch.meta.get(term.termId) ?? null) : '',
      ],
      build: (term) => this.prepareItem(term, req, batch),
    });
  }

  private readonly memo = new ItemMemo();

  /** What preparing terms needs, loaded for all of them at once: home URL, registered meta, ancestors. */
  private async batchOf(terms: TermRow[], req: RestRequest): Promise<TermBatch> {
    const home = String((await this.options.get('home', req.ctx.baseUrl)) ?? req.ctx.baseUrl).replace(/\/+$/, '');
    const metaKeys = this.registeredMeta().map((m) => m.key);
    // Through a request-wide loader: the terms embedded for a page of posts read their meta in one query.
    const metaLoader = req.ctx.loader<number, Record<string, unknown[]>>(
      `term-meta:${this.taxonomy.name}`,
      async (ids) => {
        const found = await this.terms.metaOf([...ids], metaKeys);
        return ids.map((id) => found.get(id) ?? {});
      },
    );
    const meta = new Map<number, Record<string, unknown[]>>();
    if (metaKeys.length && terms.length) {
      const values = await metaLoader.loadMany(terms.map((t) => t.termId));
      terms.forEach((t, i) => meta.set(t.termId, values[i] instanceof Error ? {} : values[i]));
    }
    const ancestors = this.taxonomy.hierarchical ? await this.ancestorsOf(terms, req) : new Map<number, TermRow>();
    return { home, meta, ancestors };
  }

  /**
   * One term's response. Whatever this reads of the request, the term or the batch must be among the inputs of
   * {@link collectionItems}, or a reused item would miss the change.
   */
  private async prepareItem(term: TermRow, req: RestRequest, batch: TermBatch): Promise<RestResponse> {
    const data: Record<string, unknown> = {
      id: term.termId,
      count: term.count,
      description: term.description,
      link: this.termLink(term, batch.home, batch.ancestors),
      name: term.name,
      slug: term.slug,
      taxonomy: term.taxonomy,
    };
    if (this.taxonomy.hierarchical) data.parent = term.parent;
    data.meta = metaResponse(this.registeredMeta(), batch.meta.get(term.termId) ?? {});
    return this.prepareResponse(data, req, this.links(term, req, batch.ancestors), this.taxonomy.name, term);
  }

  /** Ancestors of hierarchical terms (for links and `up`), loaded level by level. */
  private async ancestorsOf(terms: TermRow[], req: RestRequest): Promise<Map<number, TermRow>> {
    const known = new Map<number, TermRow>(terms.map((t) => [t.termId, t]));
    let wanted = [...new Set(terms.map((t) => t.parent).filter((id) => id > 0 && !known.has(id)))];
    for (let depth = 0; wanted.length && depth < 20; depth++) {
      const rows = (await this.termLoader(req).loadMany(wanted)).filter(
        (r): r is TermRow => Boolean(r) && !(r instanceof Error),
      );
      for (const row of rows) known.set(row.termId, row);
      wanted = [...new Set(rows.map((t) => t.parent).filter((id) => id > 0 && !known.has(id)))];
    }
    return known;
  }

  /** `get_term_link()` with `/%postname%/` permalinks. */
  private termLink(term: TermRow, home: string, ancestors: Map<number, TermRow>): string {
    const rewrite = this.taxonomy.rewrite;
    if (!rewrite) {
      return this.taxonomy.query_var
        ? `${home}/?${this.taxonomy.query_var}=${term.slug}`
        : `${home}/?taxonomy=${this.taxonomy.name}&term=${term.slug}`;
    }
    const path = [term.slug];
    if (rewrite.hierarchical) {
      let parent = term.parent ? ancestors.get(term.parent) : undefined;
      for (let i = 0; parent && i < 20; i++) {
        path.unshift(parent.slug);
        parent = parent.parent ? ancestors.get(parent.parent) : undefined;
      }
    }
    return `${home}/${rewrite.slug}/${path.join('/')}/`;
  }

  private links(term: TermRow, req: RestRequest, ancestors: Map<number, TermRow>) {
    const ns = this.namespace;
    const url = (path: string) => req.ctx.restUrl(path);
    const links = linkMap({
      self: { href: url(`${ns}/${this.restBase}/${term.termId}`) },
      collection: { href: url(`${ns}/${this.restBase}`) },
      about: { href: url(`${ns}/taxonomies/${this.taxonomy.name}`) },
    });
    if (term.parent > 0 && ancestors.has(term.parent)) {
      links.set('up', [{ href: url(`${ns}/${this.restBase}/${term.parent}`), attributes: { embeddable: true } }]);
    }
    const types = this.taxonomy.object_type.map((name) => this.content.postType(name)).filter((t) => t?.show_in_rest);
    if (types.length) {
      const rel = `${this.server.options.linkRelBase}post_type`;
      links.set(
        rel,
        types.map((t) => ({
          href: url(`${t!.rest_namespace}/${t!.rest_base || t!.name}?${this.restBase}=${term.termId}`),
          attributes: {},
        })),
      );
    }
    return links;
  }
}

/** What preparing a set of terms loads once (see `TermResource.batchOf`). */
interface TermBatch {
  home: string;
  meta: Map<number, Record<string, unknown[]>>;
  ancestors: Map<number, TermRow>;
}

/** The reference's sorting of a post's terms: name order kept for name/include, else by the column. */
function sortTerms(terms: TermRow[], orderby: string, order: 'ASC' | 'DESC'): TermRow[] {
  const key: Record<string, (t: TermRow) => number | string> = {
    id: (t) => t.termId,
    slug: (t) => t.slug,
    term_group: (t) => t.group,
    description: (t) => t.description,
    count: (t) => t.count,
  };
  const pick = key[orderby];
  const sorted = pick ? [...terms].sort((a, b) => (pick(a) < pick(b) ? -1 : pick(a) > pick(b) ? 1 : 0)) : [...terms];
  return order === 'ASC' ? sorted : sorted.reverse();
}

const TERM_ID: RouteArg = { description: 'Unique identifier for the resource.', type: 'integer' };
