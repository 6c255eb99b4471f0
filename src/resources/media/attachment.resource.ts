import { invalidParam } from '../../core/rest/request-args';
import { PostTypeResource } from '../posts';
import type { PostPolicies, PostPolicyView, PostQuery, PostReads, PostTypeDependencies } from '../posts';
import { PostEntity } from '../../core/database/entities/post.entity';
import { wpKsesPost } from '../../core/formatting';
import { PostTypeObject } from '../../core/registry/content-types';
import { RestRequest } from '../../core/rest/rest-request';
import { LinkMap, RestResponse } from '../../core/rest/rest-response';
import { RestException } from '../../core/errors/rest.exception';
import { ItemSchema, RouteArg } from '../../core/json-schema/json-schema';
import { sanitizeFileName, splitExtension } from './file-names';
import { DecodeLimits, ImageMeta, imageDimensions, readImageMeta } from './image-processor';
import type { MediaStorage } from '../../core/config/media-storage';
import { UploadJournal } from './upload-journal';
import { attachmentCollectionArgs, attachmentSchema, MediaListArgs, MediaWriteArgs } from './attachment-schema';
import { ALT, factsLoader } from './attachment-facts';
import { AttachmentFiles } from './attachment-files';
import { AttachmentPolicies } from './attachment-policies';
import { AttachmentPresenter } from './attachment-presenter';
import { checkUploadType, receiveUpload } from './upload-receiver';

/** What the media resource works with besides the posts machinery. */
export interface MediaDependencies extends PostTypeDependencies {
  /** The request-wide loader of posts (attachments' parents). */
  readonly reads: PostReads;
  readonly storage: MediaStorage;
  /** Notes files whose row is being written, for the next start after a crash (see UploadJournal). */
  readonly journal: UploadJournal;
  /** The URL of an uploaded file, from its path relative to the uploads root. */
  fileUrl(relativePath: string, req: RestRequest): Promise<string>;
  /** The MIME types uploads may have (by extension list). */
  allowedTypes(): Readonly<Record<string, string>>;
  /** The bounds on decoding an image to make its sizes. */
  readonly decodeLimits: DecodeLimits;
}

/**
 * The reference's attachments controller (`media`): the posts resource of the `attachment` type, plus uploads (a
 * raw body named by `Content-Disposition`, or a multipart `file`), files kept in a {@link MediaStorage}, image
 * sizes and embedded metadata, and the media fields of the responses.
 */
export class AttachmentResource extends PostTypeResource {
  private readonly mediaFields: AttachmentPresenter;
  private readonly files: AttachmentFiles;

  constructor(
    private readonly deps: MediaDependencies,
    type: PostTypeObject,
  ) {
    super(deps, type);
    this.mediaFields = new AttachmentPresenter(deps);
    this.files = new AttachmentFiles(deps);
  }

  // --- schema and arguments ---

  protected override readsPassword(): boolean {
    return this.server.options.wire.dialect.posts.mediaReadPassword;
  }

  protected override baseSchema(): ItemSchema {
    return attachmentSchema(super.baseSchema(), this.server.options.wire.dialect.posts);
  }

  override collectionArgs(): Record<string, RouteArg> {
    return attachmentCollectionArgs(super.collectionArgs(), this.deps.allowedTypes());
  }

  // --- reading ---

  /** Attachments are listed as `inherit`, `private` or `trash`; the last two need the type's `edit_posts`. */
  protected override async statusesFor(req: RestRequest, asked: string[]): Promise<string[]> {
    for (const status of asked) {
      if (status === 'inherit') continue;
      if (!(await req.ctx.can(this.type.cap.edit_posts))) {
        throw invalidParam(req, 'status', 'Status is forbidden.', {
          code: 'rest_forbidden_status',
          data: { status: req.ctx.authorizationRequiredCode },
        });
      }
    }
    return asked;
  }

  protected override async shapeQuery(query: PostQuery, args: MediaListArgs): Promise<PostQuery> {
    const { media_type: mediaType, mime_type: mimeType } = args;
    const shaped = { ...query };
    if (mediaType) shaped.mimePrefix = mediaType;
    // An exact type is used only when it is one uploads may have.
    if (mimeType && Object.values(this.deps.allowedTypes()).includes(mimeType)) shaped.mimeTypes = [mimeType];
    return shaped;
  }

  protected override async preload(posts: PostEntity[], req: RestRequest): Promise<void> {
    await Promise.all([
      factsLoader(req, this.posts).loadMany(posts.map((p) => p.id)),
      this.deps.reads.loader(req).loadMany([...new Set(posts.map((p) => p.parent).filter((id) => id > 0))]),
    ]);
  }

  /** Items are built each time: what they are made of includes meta the reused-item inputs do not cover. */
  protected override itemsAsText(): boolean {
    return false;
  }

  protected override async respondItem(
    data: Record<string, unknown>,
    req: RestRequest,
    links: LinkMap,
    post: PostEntity,
  ): Promise<RestResponse> {
    const facts = await factsLoader(req, this.posts).load(post.id);
    await this.mediaFields.addFields(data, post, facts, req);
    this.mediaFields.pruneLinks(links);
    return super.respondItem(data, req, links, post);
  }

  // --- permissions (see AttachmentPolicies) ---

  protected override policiesOf(view: PostPolicyView): PostPolicies {
    return new AttachmentPolicies(view);
  }

  // --- writing ---

  /** An attachment hangs off a post or a page, never off an attachment or a revision. */
  private async checkParentType(post: number | undefined): Promise<void> {
    if (!post) return;
    const parent = await this.posts.findById(post);
    if (parent && (parent.type === 'revision' || parent.type === 'attachment'))
      throw new RestException('rest_invalid_param', 'Invalid parent type.', 400);
  }

  override async createItem(req: RestRequest): Promise<RestResponse> {
    if (req.sentAtAll('id', true)) throw new RestException('rest_post_exists', 'Cannot create existing post.', 400);
    const args = req.args<MediaWriteArgs>();
    await this.checkParentType(args.post);
    const upload = await receiveUpload(req);
    const cleanName = sanitizeFileName(upload.name, this.deps.allowedTypes());
    const type = await checkUploadType(cleanName, upload.path, upload.declaredType, this.deps.allowedTypes());
    const { base } = splitExtension(cleanName);
    const ctx = await this.input.writeContext(req);
    const now = ctx.clock.now().local;
    const dir = `${now.slice(0, 4)}/${now.slice(5, 7)}`;
    // What does not depend on the file's name: the image's size and embedded metadata, the row's fields.
    const dims = type.mime.startsWith('image/') ? await imageDimensions(upload.path) : null;
    const imageMeta: ImageMeta | null = dims ? await readImageMeta(upload.path) : null;
    const fields = await this.input.fields(req, null, ctx.clock);
    const titleSent = args.title !== undefined && fields.title !== undefined && fields.title !== '';
    if (!titleSent) {
      const embedded = imageMeta?.title.trim() ?? '';
      fields.title =
        embedded && !/^\d+(\.\d+)?$/.test(embedded)
          ? embedded
          : splitExtension(upload.name.split(/[\\/]/).pop() ?? upload.name).base;
    }
    const caption = textParam(args.caption);
    fields.excerpt = caption ?? (imageMeta?.caption.trim() || '');
    fields.content = textParam(args.description) ?? '';
    fields.status = fields.status === 'private' ? 'private' : 'inherit';
    fields.parent = args.post ?? 0;
    fields.mimeType = type.mime;
    const relations = await this.input.relations(req, null);
    const otherMeta = relations.meta ?? [];
    const stored = { upload, cleanName, base, type, dir, dims, imageMeta, altText: args.alt_text };
    const post = await this.files.store(stored, req, (guid, meta) => {
      fields.guid = guid;
      relations.meta = [...otherMeta, ...meta];
      return this.writer.create(this.type, fields, relations, ctx);
    });
    await this.updateAdditionalFields(post, req);
    req.set('context', 'edit');
    const response = (await this.presenter.prepareMany([post], req, await this.presenter.siteFacts(req)))[0];
    await this.hooks.doAction('rest_insert_attachment', post, req, true);
    return this.created(response, req, `${this.namespace}/${this.restBase}/${post.id}`);
  }

  override async updateItem(req: RestRequest): Promise<RestResponse> {
    const before = await this.loadPost(req, 'Post id is invalid.');
    const args = req.args<MediaWriteArgs>();
    await this.checkParentType(args.post);
    const ctx = await this.input.writeContext(req, before);
    const fields = await this.input.fields(req, before, ctx.clock);
    const caption = textParam(args.caption);
    const description = textParam(args.description);
    if (caption !== undefined) fields.excerpt = caption;
    if (description !== undefined) fields.content = description;
    if (args.post !== undefined) fields.parent = args.post;
    const relations = await this.input.relations(req, before);
    if (args.alt_text !== undefined)
      relations.meta = [...(relations.meta ?? []), { key: ALT, action: 'single', value: args.alt_text }];
    const post = await this.writer.update(this.type, before, fields, relations, ctx);
    await this.updateAdditionalFields(post, req);
    req.set('context', 'edit');
    const response = (await this.presenter.prepareMany([post], req, await this.presenter.siteFacts(req)))[0];
    await this.hooks.doAction('rest_insert_attachment', post, req, false);
    return response;
  }

  /** Attachments have no trash: only `force=true` deletes, the row, its meta, the file and every size. */
  override async deleteItem(req: RestRequest): Promise<RestResponse> {
    const post = await this.loadPost(req);
    if (req.args<{ force: boolean }>().force !== true) {
      throw new RestException(
        'rest_trash_not_supported',
        "The post does not support trashing. Set 'force=true' to delete.",
        501,
      );
    }
    await this.preload([post], req);
    req.set('context', 'edit');
    const previous = (await this.presenter.prepareMany([post], req, await this.presenter.siteFacts(req)))[0];
    const facts = await factsLoader(req, this.posts).load(post.id);
    // The row, then the files; a crash between them leaves the files to the journal.
    await this.files.remove(facts, () => this.writer.delete(this.type, post));
    await this.hooks.doAction('rest_delete_attachment', post, previous, req);
    return this.deleted(req, previous);
  }
}

/** A caption or description sent as a string or as `{raw}`. */
function textParam(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (value && typeof value === 'object' && typeof (value as { raw?: unknown }).raw === 'string')
    return wpKsesPost((value as { raw: string }).raw);
  return undefined;
}
