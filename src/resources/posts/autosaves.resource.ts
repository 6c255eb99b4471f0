import { DataSource } from 'typeorm';
import { PostEntity } from '../../core/database/entities/post.entity';
import { takeWriteTurn, writeTransaction } from '../../core/database/write-transaction';
import { RestException } from '../../core/errors/rest.exception';
import { ItemSchema, RouteArg } from '../../core/json-schema/json-schema';
import { PostTypeObject } from '../../core/registry/content-types';
import { exposedMetaKeys } from '../../core/rest/meta-fields';
import { RestRequest } from '../../core/rest/rest-request';
import { RestResource } from '../../core/rest/rest-resource';
import { RestResponse } from '../../core/rest/rest-response';
import { Methods } from '../../core/rest/route-types';
import { AutosavePreviews } from './autosave-previews';
import { findAutosave, listAutosaves, lockedByAnother, putAutosave } from './autosave-store';
import { FuturePosts } from './future-posts.service';
import { PostInput } from './post-input';
import { AutosaveWriteContext } from './post-revision-save';
import type { PostTypeDependencies } from './post-type-resources.service';
import { PostTypeResource } from './post-type.resource';
import { PostWriter } from './post-writer.service';
import { PostsService } from './posts.service';
import { RevisionsResource } from './revisions.resource';

/** What an autosaves resource works with besides the post type's services. */
export interface AutosaveParts {
  /** The resource of the parent type: its update arguments and permission check. */
  parent: PostTypeResource;
  /** The revisions resource of the parent type: the revision schema, answer and read permission. */
  revisions: RevisionsResource;
  previews: AutosavePreviews;
  dataSource: DataSource;
}

/**
 * The autosaves of one post type (`posts/<id>/autosaves`, WordPress 5.0's WP_REST_Autosaves_Controller): every
 * user's autosave of a post, the newest one, and saving the caller's — into the post itself when it is the caller's
 * own draft, else into the caller's own autosave revision (`{parent}-autosave-v1`, one per user).
 */
export class AutosavesResource extends RestResource {
  override readonly namespace: string;
  readonly restBase = 'autosaves';
  private readonly parentBase: string;
  private readonly input: PostInput;
  private readonly posts: PostsService;
  private readonly writer: PostWriter;
  private readonly future: FuturePosts;

  /** Made by {@link AutosaveResources} for each post type the posts routes serve. */
  constructor(
    deps: PostTypeDependencies,
    private readonly type: PostTypeObject,
    private readonly parts: AutosaveParts,
  ) {
    super(deps.server, deps.extensions, deps.hooks);
    this.posts = deps.posts;
    this.writer = deps.writer;
    this.future = deps.future;
    this.namespace = type.rest_namespace;
    this.parentBase = type.rest_base || type.name;
    // The parent type's prepare_item_for_database: the row's fields a request asks for, filtered as saved.
    this.input = new PostInput(deps, {
      type,
      namespace: this.namespace,
      restBase: this.parentBase,
      taxonomies: () => deps.content.restTaxonomies().filter((t) => t.object_type.includes(type.name)),
      registeredMeta: () => exposedMetaKeys(deps.extensions, 'post', type.name),
      schema: () => parts.parent.getItemSchema(),
      respond: () => Promise.reject(new Error('An autosave answers through its own resource.')),
    });
  }

  /** The revision schema with `preview_link`. */
  protected baseSchema(): ItemSchema {
    const schema = this.parts.revisions.getItemSchema();
    return {
      ...schema,
      properties: {
        ...schema.properties,
        preview_link: {
          description: 'Preview link for the post.',
          type: 'string',
          format: 'uri',
          context: ['edit'],
          readonly: true,
        },
      },
    };
  }

  readonly listArgs = () => ({ parent: PARENT, context: this.getContextParam({ default: 'view' }) });
  // The parent's own `parent` argument (pages') wins over the route's, as WordPress merges them.
  readonly createArgs = () => ({ parent: PARENT, ...this.parts.parent.getEndpointArgsForItemSchema(Methods.EDITABLE) });
  readonly readArgs = () => ({ parent: PARENT, id: AUTOSAVE_ID, context: this.getContextParam({ default: 'view' }) });

  // --- permissions ---

  /**
   * The post the collection route names: its `id` path parameter, which no argument declares (as in WordPress),
   * read as an integer; 0 when it is none.
   */
  private postIdOf(req: RestRequest): number {
    const value = req.get('id');
    const id = typeof value === 'number' ? value : /^\d+$/.test(String(value)) ? Number(value) : 0;
    return Number.isSafeInteger(id) && id > 0 ? id : 0;
  }

  /** The parent post the collection route names (the revisions controller's get_parent). */
  private async loadParent(req: RestRequest): Promise<PostEntity> {
    const id = this.postIdOf(req);
    const parent = id ? await this.posts.findById(id) : null;
    if (!parent || parent.type !== this.type.name)
      throw new RestException('rest_post_invalid_parent', 'Invalid post parent id.', 404);
    return parent;
  }

  async canList(req: RestRequest): Promise<true | RestException> {
    const parent = await this.loadParent(req);
    if (!(await req.ctx.can('edit_post', parent))) {
      return new RestException(
        'rest_cannot_read',
        'Sorry, you are not allowed to view autosaves of this post.',
        req.ctx.authorizationRequiredCode,
      );
    }
    return true;
  }

  /** The newest autosave is read with the revisions' permission check, as in WordPress. */
  canRead(req: RestRequest): Promise<true | RestException> {
    return this.parts.revisions.canReadRevisions(req);
  }

  /** Saving an autosave needs what updating the post needs (the parent type's update_item_permissions_check). */
  canCreate(req: RestRequest): Promise<true | RestException> {
    const id = this.postIdOf(req);
    if (!id) return Promise.resolve(new RestException('rest_post_invalid_id', 'Invalid item ID.', 404));
    // The posts' check reads the post's id as an integer.
    req.set('id', id);
    return this.parts.parent.policies.canUpdate(req);
  }

  // --- handlers ---

  async getItems(req: RestRequest): Promise<RestResponse> {
    const parent = await this.loadParent(req);
    const autosaves = await listAutosaves(this.parts.dataSource, parent.id);
    // Every autosave of the post previews at the same address, for the same caller.
    const link =
      autosaves.length && req.context === 'edit'
        ? await this.parts.previews.linkOf(autosaves[0], req, parent)
        : undefined;
    const items: unknown[] = [];
    for (const autosave of autosaves) items.push(this.server.toCollectionItem(await this.prepare(autosave, req, link)));
    return new RestResponse(items);
  }

  /** The newest autosave of the post, whoever made it (the route's `id` is not read, as in WordPress). */
  async getItem(req: RestRequest): Promise<RestResponse> {
    const parentId = req.args<{ parent: number }>().parent;
    if (!(parentId > 0)) throw new RestException('rest_post_invalid_id', 'Invalid post parent ID.', 404);
    const autosave = await findAutosave(this.parts.dataSource, parentId);
    if (!autosave)
      throw new RestException('rest_post_no_autosave', 'There is no autosave revision for this post.', 404);
    return this.prepare(autosave, req);
  }

  async createItem(req: RestRequest): Promise<RestResponse> {
    const post = await this.posts.findById(this.postIdOf(req));
    if (!post || post.type !== this.type.name) throw new RestException('rest_post_invalid_id', 'Invalid post ID.', 404);
    const ctx = await this.input.writeContext(req, post);
    const fields = await this.input.fields(req, post, ctx.clock);
    const draft = post.status === 'draft' || post.status === 'auto-draft';
    let saved: PostEntity | null;
    if (
      draft &&
      Number(post.author) === ctx.actor &&
      !(await lockedByAnother(this.parts.dataSource, post.id, ctx.actor))
    ) {
      // The author's own draft, nobody else editing it: the post itself is saved, without a revision.
      const autosaving: AutosaveWriteContext = { ...ctx, doingAutosave: true };
      saved = await this.writer.update(this.type, post, fields, {}, autosaving);
      if (saved.status === 'future') this.future.scheduled(saved.dateGmt);
    } else {
      const texts = { title: fields.title, content: fields.content, excerpt: fields.excerpt };
      const id = await writeTransaction(this.parts.dataSource, async (em) => {
        // One autosave per user: two saves of the same user take turns.
        await takeWriteTurn(em);
        return putAutosave(em, post, texts, ctx);
      });
      if (id === null) {
        throw new RestException(
          'rest_autosave_no_changes',
          'There is nothing to save. The autosave and the post content are the same.',
          400,
        );
      }
      saved = await this.posts.findById(id);
      if (!saved) throw new RestException('rest_post_invalid_id', 'Invalid post ID.', 404);
    }
    req.set('context', 'edit');
    return this.prepare(saved, req);
  }

  // --- preparation ---

  /**
   * An autosave as the revisions resource answers it, with its `preview_link` (edit context), registered fields,
   * the context's fields and the `rest_prepare_autosave` filter. `previewLink`: the link, when already known.
   */
  private async prepare(autosave: PostEntity, req: RestRequest, previewLink?: string): Promise<RestResponse> {
    const response = await this.parts.revisions.prepareRevision(autosave, req);
    const data = { ...(response.data as Record<string, unknown>) };
    if (req.context === 'edit') data.preview_link = previewLink ?? (await this.parts.previews.linkOf(autosave, req));
    response.data = this.filterByContext(await this.addAdditionalFields(data, req), req.context);
    return this.hooks.applyFilters('rest_prepare_autosave', response, autosave, req);
  }
}

const PARENT: RouteArg = { description: 'The ID for the parent of the autosave.', type: 'integer' };
const AUTOSAVE_ID: RouteArg = { description: 'The ID for the autosave.', type: 'integer' };
