import { createHash } from 'node:crypto';
import { PostTypeResource, permalink, postLoader } from '../posts';
import type { PostQuery, PostTypeDependencies } from '../posts';
import { createReadStream } from 'node:fs';
import { Logger } from '@nestjs/common';
import { fromFile as sniffFile } from 'file-type';
import { PostEntity } from '../../core/database/entities/post.entity';
import { maybeSerialize, textOf } from '../../core/formatting/php-serialize';
import { applyExcerptFilters, escAttr, escHtml, renderContent, stripAllTags, wpKsesPost } from '../../core/formatting';
import { escUrlRaw } from '../../core/formatting/esc-url';
import { PostTypeObject } from '../../core/registry/content-types';
import { MetaOp } from '../../core/rest/meta-fields';
import { RestRequest, UploadedFile } from '../../core/rest/rest-request';
import { LinkMap, RestResponse } from '../../core/rest/rest-response';
import { RestException } from '../../core/errors/rest.exception';
import { ItemSchema, RouteArg } from '../../core/json-schema/json-schema';
import {
  ALLOWED_MIME_TYPES,
  fileNameOfDisposition,
  fitFileName,
  mimeOfName,
  SCRIPTABLE_MIME_TYPES,
  sanitizeFileName,
  splitExtension,
} from './file-names';
import {
  DecodeLimits,
  DEFAULT_IMAGE_SIZES,
  generateSizes,
  GeneratedSize,
  ImageMeta,
  imageDimensions,
  ImageSize,
  readAudioVideoMeta,
  readImageMeta,
} from './image-processor';
import type { MediaStorage } from '../../core/config/media-storage';
import { UploadJournal } from './upload-journal';
import { attachmentCollectionArgs, attachmentSchema } from './attachment-schema';

/** The md5 of a file, hex, read as a stream. */
async function md5OfFile(file: string): Promise<string> {
  const hash = createHash('md5');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** What the media resource works with besides the posts machinery. */
export interface MediaDependencies extends PostTypeDependencies {
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

/** An attachment's stored facts (`_wp_attached_file`, `_wp_attachment_metadata`, `_wp_attachment_image_alt`). */
interface AttachmentFacts {
  file: string;
  metadata: Record<string, unknown> | null;
  alt: string;
}

const ATTACHED_FILE = '_wp_attached_file';
const METADATA = '_wp_attachment_metadata';
const ALT = '_wp_attachment_image_alt';

/** Types that are text, with no signature to sniff: their extension decides. */
const SIGNATURELESS = new Set(['image/svg+xml', 'application/javascript', 'application/xml']);

/** Image types sizes are made for. */
const RESIZABLE = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp', 'image/avif', 'image/tiff']);

/**
 * The reference's attachments controller (`media`): the posts resource of the `attachment` type, plus uploads (a
 * raw body named by `Content-Disposition`, or a multipart `file`), files kept in a {@link MediaStorage}, image
 * sizes and embedded metadata, and the media fields of the responses.
 */
export class AttachmentResource extends PostTypeResource {
  private readonly storage: MediaStorage;
  private readonly logger = new Logger('Media');

  constructor(
    private readonly deps: MediaDependencies,
    type: PostTypeObject,
  ) {
    super(deps, type);
    this.storage = deps.storage;
  }

  // --- schema and arguments ---

  protected override baseSchema(): ItemSchema {
    return attachmentSchema(super.baseSchema());
  }

  override collectionArgs(): Record<string, RouteArg> {
    return attachmentCollectionArgs(super.collectionArgs(), this.deps.allowedTypes());
  }

  // --- reading ---

  /** Attachments are listed as `inherit`, `private` or `trash`; the last two need the type's `edit_posts`. */
  protected override async statusesFor(req: RestRequest): Promise<string[]> {
    const asked = (req.get<string[]>('status') ?? ['inherit']).map(String);
    for (const status of asked) {
      if (status === 'inherit') continue;
      if (!(await req.ctx.can(this.type.cap.edit_posts))) {
        throw new RestException('rest_invalid_param', 'Invalid parameter(s): status', 400, {
          params: { status: 'Status is forbidden.' },
        });
      }
    }
    return asked;
  }

  protected override async shapeQuery(query: PostQuery, req: RestRequest): Promise<PostQuery> {
    const mediaType = req.get<string>('media_type');
    const mimeType = req.get<string>('mime_type');
    const shaped = { ...query };
    if (mediaType) shaped.mimePrefix = mediaType;
    // An exact type is used only when it is one uploads may have.
    if (mimeType && Object.values(this.deps.allowedTypes()).includes(mimeType)) shaped.mimeTypes = [mimeType];
    return shaped;
  }

  /** Stored facts of attachments, batched across a request and its embedded sub-requests. */
  private factsLoader(req: RestRequest) {
    return req.ctx.loader<number, AttachmentFacts>('attachment-facts', async (ids) => {
      const meta = await this.posts.metaOf([...ids], [ATTACHED_FILE, METADATA, ALT]);
      return ids.map((id) => {
        const m = meta.get(id) ?? {};
        const metadata = m[METADATA]?.[0];
        return {
          file: textOf(m[ATTACHED_FILE]?.[0]),
          metadata:
            metadata && typeof metadata === 'object' && !Array.isArray(metadata)
              ? (metadata as Record<string, unknown>)
              : null,
          alt: textOf(m[ALT]?.[0]),
        };
      });
    });
  }

  private postLoader(req: RestRequest) {
    return postLoader(req, this.posts);
  }

  protected override async preload(posts: PostEntity[], req: RestRequest): Promise<void> {
    await Promise.all([
      this.factsLoader(req).loadMany(posts.map((p) => p.id)),
      this.postLoader(req).loadMany([...new Set(posts.map((p) => p.parent).filter((id) => id > 0))]),
    ]);
  }

  /**
   * `get_attachment_link()` with `/%postname%/` permalinks (WordPress 6.1, attachment pages on): under its published
   * parent's address, at the site's root when unattached, else the plain `?attachment_id=` form.
   */
  private async attachmentLink(post: PostEntity, req: RestRequest): Promise<string> {
    const home = String((await this.deps.options.get('home', req.ctx.baseUrl)) ?? req.ctx.baseUrl).replace(/\/+$/, '');
    const parent = post.parent > 0 ? await this.postLoader(req).load(post.parent) : null;
    const parentType = parent ? this.content.postType(parent.type) : undefined;
    if (post.name && post.status === 'inherit') {
      if (!post.parent) return `${home}/${post.name}/`;
      if (parent && parentType && parent.status === 'publish' && parent.name) {
        return `${permalink(parent, parentType, home, new Map(), true).replace(/\/?$/, '/')}${post.name}/`;
      }
    }
    return `${home}/?attachment_id=${post.id}`;
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
    const facts = await this.factsLoader(req).load(post.id);
    delete data.template;
    delete data.password;
    data.alt_text = facts.alt;
    data.caption = { raw: post.excerpt, rendered: applyExcerptFilters(post.excerpt) };
    data.description = {
      raw: post.content,
      rendered: `${await this.prependAttachment(post, facts, req)}${renderContent(post.content)}`,
    };
    data.media_type = post.mimeType.startsWith('image/') ? 'image' : 'file';
    data.mime_type = post.mimeType;
    data.media_details = await this.mediaDetails(post, facts, req);
    data.post = post.parent > 0 ? post.parent : null;
    data.source_url = facts.file ? await this.deps.fileUrl(facts.file, req) : post.guid;
    data.missing_image_sizes = [];
    data.link = await this.attachmentLink(post, req);
    links.delete('version-history');
    links.delete('predecessor-version');
    // Attachments of an attachment do not exist.
    for (const rel of [...links.keys()]) if (rel.endsWith('attachment')) links.delete(rel);
    return super.respondItem(data, req, links, post);
  }

  /**
   * WordPress's `prepend_attachment` (a `the_content` filter for attachments), followed by a line break: for an image
   * its medium-sized rendition (`wp_get_attachment_image`: dimensions, `srcset` of the sizes of the same shape,
   * `sizes`) linked to the file, for other files a link named by the title. Audio and video get no player markup
   * (WordPress's shortcodes): nothing is prepended for them.
   */
  private async prependAttachment(post: PostEntity, facts: AttachmentFacts, req: RestRequest): Promise<string> {
    const mime = post.mimeType;
    if (mime.startsWith('audio/') || mime.startsWith('video/')) return '';
    const url = facts.file ? await this.deps.fileUrl(facts.file, req) : post.guid;
    let text = '';
    const meta = facts.metadata;
    if (mime.startsWith('image/') && meta && Number(meta.width) > 0 && Number(meta.height) > 0) {
      const dir = facts.file.includes('/') ? facts.file.slice(0, facts.file.lastIndexOf('/') + 1) : '';
      const full = { file: facts.file.slice(dir.length), width: Number(meta.width), height: Number(meta.height) };
      const stored =
        meta.sizes && typeof meta.sizes === 'object'
          ? (meta.sizes as Record<string, { file?: string; width?: number; height?: number }>)
          : {};
      const sizes = Object.values(stored)
        .filter((size) => size && size.file)
        .map((size) => ({ file: String(size.file), width: Number(size.width), height: Number(size.height) }));
      const medium = stored.medium?.file
        ? { file: String(stored.medium.file), width: Number(stored.medium.width), height: Number(stored.medium.height) }
        : null;
      // Without a medium size, the full image scaled down to the medium bounds (image_constrain_size_for_editor).
      const chosen = medium ?? { ...full, ...constrain(full.width, full.height, 300, 300) };
      const src = await this.deps.fileUrl(`${dir}${chosen.file}`, req);
      const attrs = [
        `width="${chosen.width}"`,
        `height="${chosen.height}"`,
        `src="${escAttr(src)}"`,
        'class="attachment-medium size-medium"',
        `alt="${escAttr(stripAllTags(facts.alt).trim())}"`,
        'decoding="async"',
        'loading="lazy"',
      ];
      // wp_calculate_image_srcset: the sizes of the same shape (within a pixel), at most 2048 wide, the src first.
      const sources = new Map<number, string>();
      let srcMatched = false;
      for (const size of [...sizes, full]) {
        const isSrc = !srcMatched && size.file === chosen.file;
        if (isSrc) srcMatched = true;
        if (size.width > 2048 && !isSrc) continue;
        if (!matchesRatio(chosen.width, chosen.height, size.width, size.height)) continue;
        const entry = `${await this.deps.fileUrl(`${dir}${size.file}`, req)} ${size.width}w`;
        if (isSrc) {
          const rest = [...sources].filter(([width]) => width !== size.width);
          sources.clear();
          sources.set(size.width, entry);
          for (const [width, value] of rest) sources.set(width, value);
        } else {
          sources.set(size.width, entry);
        }
      }
      if (sources.size >= 2)
        attrs.push(
          `srcset="${escAttr([...sources.values()].join(', '))}"`,
          `sizes="(max-width: ${chosen.width}px) 100vw, ${chosen.width}px"`,
        );
      text = `<img ${attrs.join(' ')} />`;
    }
    if (text === '') text = post.title || escHtml(facts.file.slice(facts.file.lastIndexOf('/') + 1));
    return `<p class="attachment"><a href='${escUrlRaw(url)
      .replace(/'/g, '&#039;')
      .replace(/&(?!#?\w+;)/g, '&#038;')}'>${text}</a></p>\n`;
  }

  /** The stored metadata, each size with `mime_type` and its URL, and the `full` size (`{}` when there is none). */
  private async mediaDetails(
    post: PostEntity,
    facts: AttachmentFacts,
    req: RestRequest,
  ): Promise<Record<string, unknown>> {
    const meta = facts.metadata;
    if (!meta) return {};
    const out: Record<string, unknown> = { ...meta };
    const dir = facts.file.includes('/') ? facts.file.slice(0, facts.file.lastIndexOf('/') + 1) : '';
    const sizes: Record<string, unknown> = {};
    const stored =
      meta.sizes && typeof meta.sizes === 'object' ? (meta.sizes as Record<string, Record<string, unknown>>) : {};
    for (const [name, size] of Object.entries(stored)) {
      const { 'mime-type': mime, ...rest } = size;
      sizes[name] = {
        ...rest,
        mime_type: mime ?? post.mimeType,
        source_url: await this.deps.fileUrl(`${dir}${String(size.file)}`, req),
      };
    }
    if (meta.width !== undefined && facts.file) {
      sizes.full = {
        file: facts.file.slice(dir.length),
        width: Number(meta.width),
        height: Number(meta.height),
        mime_type: post.mimeType,
        source_url: await this.deps.fileUrl(facts.file, req),
      };
    }
    out.sizes = sizes;
    return out;
  }

  // --- writing ---

  override async canCreate(req: RestRequest): Promise<true | RestException> {
    const shared = await super.canCreate(req);
    if (shared !== true) return shared;
    if (req.has('post') && Number(req.get('post')) > 0) {
      const parent = await this.posts.findById(Number(req.get('post')));
      if (!parent || !(await req.ctx.can('edit_post', parent))) {
        return new RestException(
          'rest_cannot_edit',
          'Sorry, you are not allowed to upload media to this resource.',
          req.ctx.authorizationRequiredCode,
        );
      }
    }
    return true;
  }

  /** An attachment hangs off a post or a page, never off an attachment or a revision. */
  private async checkParentType(req: RestRequest): Promise<void> {
    if (!req.has('post') || !Number(req.get('post'))) return;
    const parent = await this.posts.findById(Number(req.get('post')));
    if (parent && (parent.type === 'revision' || parent.type === 'attachment'))
      throw new RestException('rest_invalid_param', 'Invalid parent type.', 400);
  }

  /**
   * The uploaded file of a request, received into a temporary file: the multipart `file` part, or the raw body
   * named by `Content-Disposition`.
   */
  private async uploadOf(
    req: RestRequest,
  ): Promise<{ name: string; path: string; size: number; declaredType: string; multipart: boolean }> {
    const part: UploadedFile | undefined = req.files.find((f) => f.fieldName === 'file') ?? req.files[0];
    const md5 = req.header('content-md5');
    if (part) {
      if (!part.size) throw new RestException('rest_upload_no_data', 'No data supplied.', 400);
      if (md5 && (await md5OfFile(part.path)) !== md5.trim())
        throw new RestException('rest_upload_hash_mismatch', 'Content hash did not match expected.', 412);
      return {
        name: part.originalName,
        path: part.path,
        size: part.size,
        declaredType: part.mimeType,
        multipart: true,
      };
    }
    const body = req.rawFile;
    // A body without a Content-Type is read as parameters: it arrives here as the raw bytes of a form.
    if (!body && req.rawBody?.length && !req.header('content-type'))
      throw new RestException('rest_upload_no_content_type', 'No Content-Type supplied.', 400);
    if (!body || !body.size) throw new RestException('rest_upload_no_data', 'No data supplied.', 400);
    const contentType = req.header('content-type');
    if (!contentType) throw new RestException('rest_upload_no_content_type', 'No Content-Type supplied.', 400);
    const disposition = req.header('content-disposition');
    if (!disposition)
      throw new RestException('rest_upload_no_content_disposition', 'No Content-Disposition supplied.', 400);
    const name = fileNameOfDisposition(disposition);
    if (!name) {
      throw new RestException(
        'rest_upload_invalid_disposition',
        'Invalid Content-Disposition supplied. Content-Disposition needs to be formatted as `attachment; filename="image.png"` or similar.',
        400,
      );
    }
    if (md5 && (await md5OfFile(body.path)) !== md5.trim()) {
      throw new RestException('rest_upload_hash_mismatch', 'Content hash did not match expected.', 412);
    }
    return {
      name,
      path: body.path,
      size: body.size,
      declaredType: contentType.split(';')[0].trim().toLowerCase(),
      multipart: false,
    };
  }

  /**
   * The file's type: its extension must be an allowed one, and its bytes must say the same (`file-type`), as must
   * the type the client declared (`application/octet-stream` says nothing). Text formats have no signature.
   */
  private async checkType(name: string, file: string, declaredType: string): Promise<{ ext: string; mime: string }> {
    const types = this.deps.allowedTypes();
    const refused = () =>
      new RestException('rest_upload_sideload_error', 'Sorry, you are not allowed to upload this file type.', 400);
    const byName = mimeOfName(name, types);
    if (!byName) throw refused();
    // A file cut short or lying inside its signature (file-type gives up on it with an error) is of no known type.
    const sniffed = await sniffFile(file).catch(() => undefined);
    if (sniffed) {
      const bySniff = mimeOfName(`x.${sniffed.ext}`, { ...ALLOWED_MIME_TYPES, ...SCRIPTABLE_MIME_TYPES, ...types });
      if (bySniff?.mime !== byName.mime && sniffed.mime !== byName.mime) {
        throw new RestException(
          'rest_upload_sideload_error',
          `The file's content (${sniffed.mime}) does not match its name (${byName.mime}).`,
          400,
        );
      }
    } else if (!byName.mime.startsWith('text/') && !SIGNATURELESS.has(byName.mime)) {
      throw new RestException(
        'rest_upload_sideload_error',
        `The file's content does not match its name (${byName.mime}).`,
        400,
      );
    }
    if (
      declaredType &&
      declaredType !== 'application/octet-stream' &&
      declaredType !== byName.mime &&
      declaredType !== sniffed?.mime
    ) {
      throw new RestException(
        'rest_upload_sideload_error',
        `The file's type (${declaredType}) does not match its content (${byName.mime}).`,
        400,
      );
    }
    return byName;
  }

  /**
   * A name not taken in the folder (`photo.jpg`, `photo-1.jpg`, ...), as `wp_unique_filename()` picks it, within the
   * file systems' 255 bytes, room kept for the names of the image's sizes (see {@link fitFileName}).
   */
  private async uniqueName(
    dir: string,
    base: string,
    ext: string,
    taken: ReadonlySet<string> = new Set(),
  ): Promise<string> {
    for (let n = 0; ; n++) {
      const candidate = fitFileName(base, n ? `-${n}` : '', ext);
      if (!taken.has(candidate) && !(await this.storage.exists(`${dir}/${candidate}`))) return candidate;
    }
  }

  override async createItem(req: RestRequest): Promise<RestResponse> {
    if (req.sentAtAll('id', true)) throw new RestException('rest_post_exists', 'Cannot create existing post.', 400);
    await this.checkParentType(req);
    const upload = await this.uploadOf(req);
    const cleanName = sanitizeFileName(upload.name, this.deps.allowedTypes());
    const type = await this.checkType(cleanName, upload.path, upload.declaredType);
    const { base } = splitExtension(cleanName);
    const ctx = await this.input.writeContext(req);
    const now = ctx.clock.now().local;
    const dir = `${now.slice(0, 4)}/${now.slice(5, 7)}`;
    // What does not depend on the file's name: the image's size and embedded metadata, the row's fields.
    const dims = type.mime.startsWith('image/') ? await imageDimensions(upload.path) : null;
    const imageMeta: ImageMeta | null = dims ? await readImageMeta(upload.path) : null;
    const fields = await this.input.fields(req, null, ctx.clock);
    const titleSent = req.has('title') && fields.title !== undefined && fields.title !== '';
    if (!titleSent) {
      const embedded = imageMeta?.title.trim() ?? '';
      fields.title =
        embedded && !/^\d+(\.\d+)?$/.test(embedded)
          ? embedded
          : splitExtension(upload.name.split(/[\\/]/).pop() ?? upload.name).base;
    }
    const caption = this.textParam(req, 'caption');
    fields.excerpt = caption ?? (imageMeta?.caption.trim() || '');
    fields.content = this.textParam(req, 'description') ?? '';
    fields.status = fields.status === 'private' ? 'private' : 'inherit';
    fields.parent = req.has('post') ? Number(req.get('post')) : 0;
    fields.mimeType = type.mime;
    const relations = await this.input.relations(req, null);
    const otherMeta = relations.meta ?? [];

    // The files first, then the row; a failure of either leaves neither, and so does a crash (the journal). A name
    // another upload took between the pick and the store (the store never overwrites) is picked again.
    const taken = new Set<string>();
    let post: PostEntity | undefined;
    let relative = '';
    for (let attempt = 1; !post; attempt++) {
      const fileName = await this.uniqueName(dir, base || 'file', type.ext, taken).catch((error) => {
        throw this.storageFailure(
          error,
          `Could not pick a name for the upload ${cleanName} in ${dir}`,
          dir,
          upload.multipart,
        );
      });
      relative = `${dir}/${fileName}`;
      let sizes = new Map<string, GeneratedSize>();
      let metadata: Record<string, unknown>;
      if (dims) {
        if (RESIZABLE.has(type.mime)) {
          const made = await generateSizes(
            upload.path,
            splitExtension(fileName).base,
            type.ext,
            type.mime,
            dims.width,
            dims.height,
            this.imageSizes(),
            this.deps.decodeLimits,
          );
          sizes = made.sizes;
          if (made.problem)
            this.logger.warn(
              `${relative} is stored without ${sizes.size ? 'some of its' : 'its'} sizes: ${made.problem}`,
            );
        }
        metadata = {
          width: dims.width,
          height: dims.height,
          file: relative,
          filesize: upload.size,
          sizes: Object.fromEntries(
            [...sizes].map(([name, s]) => [
              name,
              { file: s.file, width: s.width, height: s.height, 'mime-type': s['mime-type'], filesize: s.filesize },
            ]),
          ),
          image_meta: imageMeta,
        };
      } else if (type.mime.startsWith('audio/') || type.mime.startsWith('video/')) {
        metadata = { ...(await readAudioVideoMeta(upload.path, type.mime, upload.size)), filesize: upload.size };
      } else if (type.mime.startsWith('image/')) {
        // An image whose header cannot be read: no metadata, as before.
        metadata = {};
      } else {
        metadata = { filesize: upload.size };
      }
      fields.guid = await this.deps.fileUrl(relative, req);
      const meta: MetaOp[] = [{ key: ATTACHED_FILE, action: 'single', value: relative }];
      if (Object.keys(metadata).length) meta.push({ key: METADATA, action: 'single', value: maybeSerialize(metadata) });
      if (req.has('alt_text')) meta.push({ key: ALT, action: 'single', value: String(req.get('alt_text')) });
      relations.meta = [...otherMeta, ...meta];

      const stored: string[] = [];
      let settled: () => Promise<void> = async () => undefined;
      let storing = true;
      try {
        settled = await this.deps.journal.begin(relative, [
          relative,
          ...[...sizes.values()].map((size) => `${dir}/${size.file}`),
        ]);
        await this.storage.put(relative, { path: upload.path }, type.mime);
        stored.push(relative);
        for (const size of sizes.values()) {
          await this.storage.put(`${dir}/${size.file}`, size.data, size['mime-type']);
          stored.push(`${dir}/${size.file}`);
        }
        storing = false;
        post = await this.writer.create(this.type, fields, relations, ctx);
      } catch (error) {
        await this.storage
          .remove(stored)
          .catch((removal) =>
            this.logger.error(`Could not remove ${stored.join(', ')} after a failed upload: ${describe(removal)}`),
          );
        await settled();
        if (error instanceof RestException) throw error;
        if (storing && (error as NodeJS.ErrnoException).code === 'EEXIST' && attempt < 10) {
          taken.add(fileName);
          continue;
        }
        if (storing) throw this.storageFailure(error, `Could not store the upload ${relative}`, dir, upload.multipart);
        this.logger.error(
          `Could not insert the attachment of ${relative}: ${describe(error)}`,
          error instanceof Error ? error.stack : undefined,
        );
        throw new RestException('db_update_error', 'Could not insert attachment into the database.', 500);
      }
      await settled();
    }
    await this.updateAdditionalFields(post, req);
    req.set('context', 'edit');
    const response = (await this.presenter.prepareMany([post], req, await this.presenter.siteFacts(req)))[0];
    await this.hooks.doAction('rest_insert_attachment', post, req, true);
    return this.created(response, req, `${this.namespace}/${this.restBase}/${post.id}`);
  }

  /**
   * A storage failure, logged, and answered as `wp_handle_upload()` (a multipart file) and `wp_handle_sideload()` (a
   * raw body) answer a file they cannot move into the uploads: 500 with the folder named.
   */
  private storageFailure(error: unknown, what: string, dir: string, multipart: boolean): RestException {
    this.logger.error(`${what}: ${describe(error)}`, error instanceof Error ? error.stack : undefined);
    return new RestException(
      multipart ? 'rest_upload_unknown_error' : 'rest_upload_sideload_error',
      `The uploaded file could not be moved to ${dir}.`,
      500,
    );
  }

  /** WordPress's default sizes, replaced or extended by those extensions register (`registerImageSize`). */
  private imageSizes(): ImageSize[] {
    const sizes = new Map(DEFAULT_IMAGE_SIZES.map((s) => [s.name, s]));
    for (const size of this.deps.extensions.imageSizes()) sizes.set(size.name, size);
    return [...sizes.values()];
  }

  /** A caption or description sent as a string or as `{raw}`. */
  private textParam(req: RestRequest, name: string): string | undefined {
    const value = req.get<unknown>(name);
    if (typeof value === 'string') return value;
    if (value && typeof value === 'object' && typeof (value as { raw?: unknown }).raw === 'string')
      return wpKsesPost((value as { raw: string }).raw);
    return undefined;
  }

  override async updateItem(req: RestRequest): Promise<RestResponse> {
    const before = await this.loadPost(req, 'Post id is invalid.');
    await this.checkParentType(req);
    const ctx = await this.input.writeContext(req, before);
    const fields = await this.input.fields(req, before, ctx.clock);
    const caption = this.textParam(req, 'caption');
    const description = this.textParam(req, 'description');
    if (caption !== undefined) fields.excerpt = caption;
    if (description !== undefined) fields.content = description;
    if (req.has('post')) fields.parent = Number(req.get('post'));
    const relations = await this.input.relations(req, before);
    if (req.has('alt_text'))
      relations.meta = [...(relations.meta ?? []), { key: ALT, action: 'single', value: String(req.get('alt_text')) }];
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
    if (req.get('force') !== true) {
      throw new RestException(
        'rest_trash_not_supported',
        "The post does not support trashing. Set 'force=true' to delete.",
        501,
      );
    }
    await this.preload([post], req);
    req.set('context', 'edit');
    const previous = (await this.presenter.prepareMany([post], req, await this.presenter.siteFacts(req)))[0];
    const facts = await this.factsLoader(req).load(post.id);
    const files = facts.file ? [facts.file] : [];
    const dir = facts.file.includes('/') ? facts.file.slice(0, facts.file.lastIndexOf('/') + 1) : '';
    const sizes =
      facts.metadata?.sizes && typeof facts.metadata.sizes === 'object'
        ? Object.values(facts.metadata.sizes as Record<string, { file?: string }>)
        : [];
    for (const size of sizes) if (size.file) files.push(`${dir}${size.file}`);
    // The row, then the files; a crash between them leaves the files to the journal.
    const settled = files.length ? await this.deps.journal.begin(facts.file, files) : async () => undefined;
    await this.writer.delete(this.type, post);
    await this.storage.remove(files);
    await settled();
    await this.hooks.doAction('rest_delete_attachment', post, previous, req);
    return previous;
  }
}

/** An error as a log line gives it: its code, if any, and message. */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as NodeJS.ErrnoException).code;
  return code && !error.message.includes(code) ? `${code}: ${error.message}` : error.message;
}

/** `wp_constrain_dimensions()`: within the bounds, keeping the shape. */
function constrain(
  width: number,
  height: number,
  maxWidth: number,
  maxHeight: number,
): { width: number; height: number } {
  const ratio = Math.min(
    maxWidth && width > maxWidth ? maxWidth / width : 1,
    maxHeight && height > maxHeight ? maxHeight / height : 1,
  );
  if (ratio === 1) return { width, height };
  return { width: Math.max(1, Math.round(width * ratio)), height: Math.max(1, Math.round(height * ratio)) };
}

/** `wp_image_matches_ratio()`: the larger scaled to the smaller's width is within a pixel of it. */
function matchesRatio(sourceWidth: number, sourceHeight: number, targetWidth: number, targetHeight: number): boolean {
  const [big, small] =
    sourceWidth > targetWidth
      ? [
          [sourceWidth, sourceHeight],
          [targetWidth, targetHeight],
        ]
      : [
          [targetWidth, targetHeight],
          [sourceWidth, sourceHeight],
        ];
  const scaled = constrain(big[0], big[1], small[0], 0);
  return Math.abs(scaled.width - small[0]) <= 1 && Math.abs(scaled.height - small[1]) <= 1;
}
