import { RestException } from '../../core/errors/rest.exception';
import { OptionsService } from '../../core/options/options.service';
import { TaxonomyObject } from '../../core/registry/content-types';
import { exposedMetaKeys, planMetaWrites, metaWriteChecks } from '../../core/rest/meta-fields';
import { ItemMemo } from '../../core/rest/json-text';
import { CollectionArgs, CollectionQuery } from '../../core/rest/collection-query';
import { restRouteOf } from '../../core/rest/rest-base';
import { RestResource } from '../../core/rest/rest-resource';
import { RestRequest } from '../../core/rest/rest-request';
import { RestResponse } from '../../core/rest/rest-response';
import { ItemSchema, RouteArg } from '../../core/json-schema/json-schema';
import { sanitizeTitle } from '../../core/formatting';
import { sanitizeSavedName } from '../../core/formatting/esc-url';
import { TermQuery, TermRow, TermsService } from './terms.service';
import type { TaxonomyDependencies } from './taxonomy-resources.service';
import { Methods } from '../../core/rest/route-types';
import { postTermsLoader, termLoader } from './term-loaders';
import { TermPolicies } from './term-policies';
import { TermBatch, TermPresenter } from './term-presenter';
import { TERM_ID, termCollectionArgs, termSchema } from './term-schema';
import type { TermDeleteArgs, TermIdArgs, TermWriteArgs } from './term-schema';

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

  private readonly terms: TermsService;
  private readonly options: OptionsService;
  /** Who may do what with the taxonomy's terms: the routes' `@Allow` policies. */
  readonly policies: TermPolicies;
  private readonly presenter: TermPresenter;
  private readonly allTaxonomies: () => string[];

  /** Made by {@link TaxonomyResources}, once per REST taxonomy, from the services it was given by DI. */
  constructor(
    deps: TaxonomyDependencies,
    private readonly taxonomy: TaxonomyObject,
  ) {
    super(deps.server, deps.extensions, deps.hooks);
    ({ namespace: this.namespace, restBase: this.restBase } = restRouteOf(taxonomy));
    this.terms = deps.terms;
    this.options = deps.options;
    this.allTaxonomies = () => deps.content.allTaxonomies().map((t) => t.name);
    this.policies = new TermPolicies(
      taxonomy,
      (req) => this.loadTerm(req),
      (req, id) => this.terms.postLoader(req).load(id),
      deps.content,
    );
    this.presenter = new TermPresenter(deps, {
      taxonomy,
      namespace: this.namespace,
      restBase: this.restBase,
      registeredMeta: () => this.registeredMeta(),
    });
  }

  protected baseSchema(): ItemSchema {
    return termSchema(
      this.taxonomy,
      this.allTaxonomies(),
      this.registeredMeta(),
      this.server.options.wire.dialect.terms,
    );
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
    return termCollectionArgs(
      this.getCollectionParams(),
      (d) => this.idListArg(d),
      this.taxonomy.hierarchical,
      this.server.options.wire.dialect.terms,
    );
  }

  // --- handlers ---

  private async loadTerm(req: RestRequest): Promise<TermRow> {
    const term = await termLoader(req, this.terms, this.taxonomy.name).load(Number(req.args<TermIdArgs>().id));
    if (!term) throw new RestException('rest_term_invalid', "Resource doesn't exist.", 404);
    return term;
  }

  async getItems(req: RestRequest): Promise<RestResponse> {
    if (!this.taxonomy.hierarchical && req.sentAtAll('parent') && req.ctx.wire.dialect.terms.flatParentRefused) {
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
      // The terms of one post (loaded through a request-wide loader): sorted like the reference sorts them, then paged.
      const ofPost = await postTermsLoader(req, this.terms, this.taxonomy.name).load(postId);
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

  private async checkParent(req: RestRequest, args: TermWriteArgs): Promise<number | undefined> {
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
    const parent = args.parent;
    if (parent === undefined) return undefined;
    if (parent === 0) return 0;
    const [found] = await this.terms.findByIds(this.taxonomy.name, [parent]);
    if (!found) throw new RestException('rest_term_invalid', "Parent resource doesn't exist.", 400);
    return parent;
  }

  async createItem(req: RestRequest): Promise<RestResponse> {
    const args = req.args<TermWriteArgs>();
    const parent = (await this.checkParent(req, args)) ?? 0;
    const name = (args.name ?? '').trim();
    if (!name) throw new RestException('empty_term_name', 'A name is required for this term.', 400);
    let input = {
      name: sanitizeSavedName(name),
      slug: args.slug || sanitizeTitle(name),
      slugGiven: Boolean(args.slug),
      description: args.description ?? '',
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
    const args = req.args<TermWriteArgs>();
    const parent = await this.checkParent(req, args);
    let input: { name?: string; slug?: string; description?: string; parent?: number } = {};
    if (args.name !== undefined) {
      const name = args.name.trim();
      if (!name) throw new RestException('empty_term_name', 'A name is required for this term.', 400);
      input.name = sanitizeSavedName(name);
    }
    if (args.slug !== undefined) input.slug = args.slug;
    if (args.description !== undefined) input.description = args.description;
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
    if (req.args<TermDeleteArgs>().force !== true)
      throw new RestException('rest_trash_not_supported', 'Resource does not support trashing.', 501);
    const term = await this.loadTerm(req);
    req.set('context', 'view');
    const previous = await this.prepareOne(term, req);
    await this.terms.delete(term, Number(await this.options.get('default_category', 0)));
    await this.hooks.doAction(`rest_delete_${this.taxonomy.name}`, term, previous, req);
    return this.deleted(req, previous);
  }

  private async plannedMeta(req: RestRequest, term: { termId: number; taxonomy: string }) {
    // Read after the `rest_pre_insert_*` filter, which may change the request.
    const meta = req.args<TermWriteArgs>().meta;
    if (meta === undefined) return [];
    return planMetaWrites(
      this.registeredMeta(),
      meta,
      'term',
      (cap, key) => req.ctx.can(cap, term.termId || { termId: 0, taxonomy: term.taxonomy }, key),
      req.ctx.authorizationRequiredCode,
      metaWriteChecks(req.ctx.wire.dialect),
    );
  }

  // --- preparation ---

  private async prepareOne(term: TermRow, req: RestRequest): Promise<RestResponse> {
    return this.prepareItem(term, req, await this.presenter.batchOf([term], req));
  }

  /**
   * Terms as collection items; as JSON text while nothing looks into them afterwards (`itemsAsText`), each reused
   * while everything it is made from is unchanged (the request's API URL and context, the term's row, link and
   * meta).
   */
  private async collectionItems(terms: TermRow[], req: RestRequest): Promise<unknown[]> {
    const batch = await this.presenter.batchOf(terms, req);
    return this.reusedItems(this.memo, terms, req, this.taxonomy.name, {
      key: (term) => term.termId,
      inputs: (term) => this.presenter.inputs(term, req, batch),
      build: (term) => this.prepareItem(term, req, batch),
    });
  }

  private readonly memo = new ItemMemo();

  /** One term's response (see {@link TermPresenter.data}). */
  private async prepareItem(term: TermRow, req: RestRequest, batch: TermBatch): Promise<RestResponse> {
    const data = this.presenter.data(term, batch);
    return this.prepareResponse(data, req, this.presenter.links(term, req, batch.ancestors), this.taxonomy.name, term);
  }
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
