import { PostEntity } from '../../core/database/entities/post.entity';
import { ZERO_DATE, mysqlToRfc3339 } from '../../core/database/mysql-date';
import { filterText } from '../../core/text/text-filter-pool';
import { RestException } from '../../core/errors/rest.exception';
import { OptionsService } from '../../core/options/options.service';
import { SiteClock } from '../../core/options/site-clock';
import { PostTypeObject } from '../../core/registry/content-types';
import { CollectionArgs, CollectionQuery, orderArg, orderbyArg, offsetArg } from '../../core/rest/collection-query';
import { RestResource } from '../../core/rest/rest-resource';
import { RestRequest } from '../../core/rest/rest-request';
import { linkMap, RestResponse } from '../../core/rest/rest-response';
import { ItemSchema, RouteArg } from '../../core/json-schema/json-schema';
import { PostQuery, PostsService } from './posts.service';
import { PostWriter } from './post-writer.service';
import { revisionProperties } from './post-properties';
import { checkOrderby } from './post-collection-args';
import type { PostTypeDependencies } from './post-type-resources.service';

/**
 * The revisions of one post type (`posts/<id>/revisions`, `pages/<id>/revisions`, ...): list, get and delete.
 * Revisions are stored by the post writer when a title, content or excerpt changes; only those who may edit the
 * parent post see them.
 */
export class RevisionsResource extends RestResource {
  override readonly namespace: string;
  readonly restBase = 'revisions';
  private readonly parentBase: string;

  private readonly posts: PostsService;
  private readonly writer: PostWriter;
  private readonly options: OptionsService;

  /** Made by {@link PostTypeResources} for each REST post type that keeps revisions. */
  constructor(
    deps: PostTypeDependencies,
    private readonly parentType: PostTypeObject,
    private readonly parentSchema: () => ItemSchema,
  ) {
    super(deps.server, deps.extensions, deps.hooks);
    this.posts = deps.posts;
    this.writer = deps.writer;
    this.options = deps.options;
    this.namespace = parentType.rest_namespace;
    this.parentBase = parentType.rest_base || parentType.name;
  }

  protected baseSchema(): ItemSchema {
    const parent = this.parentSchema().properties;
    const props = revisionProperties();
    for (const name of ['guid', 'title', 'content', 'excerpt']) {
      if (parent[name]) {
        const { arg_options: _omit, ...copy } = parent[name];
        props[name] = structuredClone(copy);
      }
    }
    return {
      $schema: 'http://json-schema.org/draft-04/schema#',
      title: `${this.parentType.name}-revision`,
      type: 'object',
      properties: props,
    };
  }

  readonly listArgs = () => ({ parent: PARENT, ...this.collectionArgs() });
  readonly readArgs = () => ({ parent: PARENT, id: REVISION_ID, context: this.getContextParam({ default: 'view' }) });
  readonly deleteArgs = () => ({
    parent: PARENT,
    id: REVISION_ID,
    force: {
      type: 'boolean' as const,
      default: false,
      description: 'Required to be true, as revisions do not support trashing.',
    },
  });

  collectionArgs(): Record<string, RouteArg> {
    const params = this.getCollectionParams();
    delete params.per_page.default;
    return {
      ...params,
      exclude: this.idListArg('Ensure result set excludes specific IDs.'),
      include: this.idListArg('Limit result set to specific IDs.'),
      offset: offsetArg(),
      order: orderArg('desc'),
      orderby: orderbyArg('Sort collection by object attribute.', 'date', REVISION_ORDERS),
    };
  }

  // --- permissions ---

  /** The parent post when it exists (a missing one is reported by the handler). */
  private async findParent(req: RestRequest): Promise<PostEntity | null> {
    const id = req.args<RevisionArgs>().parent;
    return id > 0 ? this.posts.findById(id) : null;
  }

  async canReadRevisions(req: RestRequest): Promise<true | RestException> {
    const parent = await this.loadParent(req);
    if (!(await req.ctx.can('edit_post', parent))) {
      return new RestException(
        'rest_cannot_read',
        'Sorry, you cannot view revisions of this post.',
        req.ctx.authorizationRequiredCode,
      );
    }
    return true;
  }

  async canDelete(req: RestRequest): Promise<true | RestException> {
    if (req.ctx.wire.dialect.revisionDelete === 'post-and-revision') return this.canDeleteRevision(req);
    const allowed = await this.canReadRevisions(req);
    if (allowed !== true) return allowed;
    const revision = await this.loadRevision(req);
    // Deleting a revision is deleting part of its post's history: it needs the right to delete that post.
    const owner = await this.posts.findById(revision.parent);
    return owner && (await req.ctx.can('delete_post', owner))
      ? true
      : new RestException(
          'rest_forbidden',
          'Sorry, you are not allowed to do that.',
          req.ctx.authorizationRequiredCode,
        );
  }

  /**
   * WordPress 6.1's delete_item_permissions_check: `delete_post` of the parent, the revision, the right to read the
   * revisions, then `delete_post` of the revision itself — which `map_meta_cap` maps to `do_not_allow` (nobody may
   * delete a revision unless an extension maps `delete_post` otherwise).
   */
  private async canDeleteRevision(req: RestRequest): Promise<true | RestException> {
    const code = req.ctx.authorizationRequiredCode;
    const parent = await this.loadParent(req);
    if (!(await req.ctx.can('delete_post', parent)))
      return new RestException(
        'rest_cannot_delete',
        'Sorry, you are not allowed to delete revisions of this post.',
        code,
      );
    const revision = await this.loadRevision(req);
    const readable = await this.canReadRevisions(req);
    if (readable !== true) return readable;
    if (!(await req.ctx.can('delete_post', revision)))
      return new RestException('rest_cannot_delete', 'Sorry, you are not allowed to delete this revision.', code);
    return true;
  }

  // --- handlers ---

  private async loadParent(req: RestRequest): Promise<PostEntity> {
    const parent = await this.findParent(req);
    if (!parent || parent.type !== this.parentType.name)
      throw new RestException('rest_post_invalid_parent', 'Invalid post parent id.', 404);
    return parent;
  }

  private async loadRevision(req: RestRequest): Promise<PostEntity> {
    const id = req.args<RevisionArgs>().id;
    const revision = id > 0 ? await this.posts.findById(id) : null;
    if (!revision || revision.type !== 'revision')
      throw new RestException('rest_post_invalid_id', 'Invalid revision id.', 404);
    return revision;
  }

  async getItems(req: RestRequest): Promise<RestResponse> {
    const parent = await this.loadParent(req);
    // Every revision unless per_page is sent; any offset sent wins.
    const q = CollectionQuery.of<RevisionListArgs>(req, { perPageWhenAbsent: 0, offsetWhenSent: true });
    const orderby = q.orderby('date');
    const include = q.include;
    checkOrderby(orderby, q.args.search, include);
    const { perPage, offset } = q;
    const query: PostQuery = {
      type: 'revision',
      statuses: ['inherit'],
      include,
      exclude: q.exclude,
      authors: [],
      authorsExclude: [],
      parents: [parent.id],
      parentsExclude: [],
      slugs: [],
      search: q.search,
      // Only callers who can edit the parent list its revisions.
      protectedSearch: 'all',
      terms: [],
      taxRelation: 'AND',
      orderby,
      order: q.order('DESC'),
      limit: perPage || 1_000_000,
      offset,
    };
    const { posts: revisions, total } = await this.posts.list(
      await this.hooks.applyFilters('rest_revision_query', query, req),
    );
    const maxPages = perPage ? Math.ceil(total / perPage) : total > 0 ? 1 : 0;
    // Read after the `rest_revision_query` listeners, which get the request.
    const offsetSent = req.args<RevisionListArgs>().offset !== undefined;
    if (total > 0 && offset >= total && offsetSent) {
      throw new RestException(
        'rest_revision_invalid_offset_number',
        'The offset number requested is larger than or equal to the number of available revisions.',
        400,
      );
    }
    if (total > 0 && !offsetSent && q.page > maxPages) {
      throw new RestException(
        'rest_revision_invalid_page_number',
        'The page number requested is larger than the number of pages available.',
        400,
      );
    }
    const clock = await this.clock();
    const items: unknown[] = [];
    for (const revision of revisions)
      items.push(this.server.toCollectionItem(await this.prepare(revision, req, clock)));
    const response = new RestResponse(items);
    return this.paginate(response, req, total, `${this.namespace}/${this.parentBase}/${parent.id}/revisions`, {
      perPage: perPage || Math.max(total, 1),
    });
  }

  async getItem(req: RestRequest): Promise<RestResponse> {
    await this.loadParent(req);
    return this.prepare(await this.loadRevision(req), req, await this.clock());
  }

  async deleteItem(req: RestRequest): Promise<RestResponse> {
    if (req.args<RevisionArgs>().force !== true) {
      throw new RestException(
        'rest_trash_not_supported',
        "Revisions do not support trashing. Set 'force' to true to delete.",
        501,
      );
    }
    const revision = await this.loadRevision(req);
    // The spec answers the revision as it was in the edit context; WordPress 6.1 answers `{ deleted, previous }`,
    // `previous` in the context asked.
    const answer = req.ctx.wire.dialect.deleteAnswer;
    if (answer === 'item') req.set('context', 'edit');
    const previous = await this.prepare(revision, req, await this.clock());
    await this.writer.deleteRevision(revision);
    await this.hooks.doAction('rest_delete_revision', revision, req);
    return this.deleted(req, previous);
  }

  // --- preparation ---

  private async clock(): Promise<SiteClock> {
    return SiteClock.fromOptions(await this.options.getMany(['timezone_string', 'gmt_offset']));
  }

  /**
   * A revision (or, for an autosave that updated the author's draft, the post itself) as this resource answers it:
   * fields, context, the parent link and the `rest_prepare_revision` filter (the autosaves controller starts so).
   */
  async prepareRevision(revision: PostEntity, req: RestRequest): Promise<RestResponse> {
    return this.prepare(revision, req, await this.clock());
  }

  private async prepare(revision: PostEntity, req: RestRequest, clock: SiteClock): Promise<RestResponse> {
    const props = this.getItemSchema().properties;
    // A draft whose date floats (an autosave that updated it answers it): no date, as the reference's
    // prepare_date_response.
    const floating = revision.type !== 'revision' && revision.dateGmt === ZERO_DATE;
    const data: Record<string, unknown> = {
      author: Number(revision.author),
      date: floating ? null : mysqlToRfc3339(revision.date),
      date_gmt: floating ? null : mysqlToRfc3339(clock.gmtOf(revision.date, revision.dateGmt)),
      id: revision.id,
      modified: mysqlToRfc3339(revision.modified),
      modified_gmt: mysqlToRfc3339(
        revision.modifiedGmt === ZERO_DATE ? clock.gmtFromLocal(revision.modified) : revision.modifiedGmt,
      ),
      parent: revision.parent,
      slug: revision.name,
    };
    if (props.guid) data.guid = { rendered: revision.guid, raw: revision.guid };
    if (props.title)
      data.title = {
        raw: revision.title,
        rendered: await filterText('renderTitle', revision.title, revision.status, revision.password),
      };
    if (props.content)
      data.content = { raw: revision.content, rendered: await filterText('renderContent', revision.content) };
    if (props.excerpt)
      data.excerpt = {
        raw: revision.excerpt,
        rendered: revision.excerpt ? await filterText('excerptFilters', revision.excerpt) : '',
      };
    const links = linkMap({});
    if (revision.parent > 0)
      links.set('parent', [
        { href: req.ctx.restUrl(`${this.namespace}/${this.parentBase}/${revision.parent}`), attributes: {} },
      ]);
    return this.prepareResponse(data, req, links, 'revision', revision);
  }
}

/** The arguments of a revisions list: the parent post's id and the collection's. */
export interface RevisionListArgs extends CollectionArgs {
  parent: number;
}

/** The arguments of the routes of one revision (`force`, default `false`, on `DELETE`). */
export interface RevisionArgs {
  parent: number;
  id: number;
  context?: string;
  force?: boolean;
}

const PARENT: RouteArg = { description: 'The ID for the parent of the revision.', type: 'integer' };
const REVISION_ID: RouteArg = { description: 'Unique identifier for the revision.', type: 'integer' };
/** The orders a list of revisions takes. */
const REVISION_ORDERS = ['date', 'id', 'include', 'relevance', 'slug', 'include_slugs', 'title'];
