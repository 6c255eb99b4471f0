import { Logger } from '@nestjs/common';
import { PostEntity } from '../../core/database/entities/post.entity';
import { RestException } from '../../core/errors/rest.exception';
import { maybeSerialize } from '../../core/formatting/php-serialize';
import type { MetaOp } from '../../core/rest/meta-fields';
import type { RestRequest } from '../../core/rest/rest-request';
import { ALT, ATTACHED_FILE, AttachmentFacts, folderOf, METADATA } from './attachment-facts';
import type { MediaDependencies } from './attachment.resource';
import { fitFileName, splitExtension } from './file-names';
import {
  DEFAULT_IMAGE_SIZES,
  generateSizes,
  GeneratedSize,
  ImageMeta,
  ImageSize,
  readAudioVideoMeta,
} from './image-processor';
import type { ReceivedUpload } from './upload-receiver';

/** Image types sizes are made for. */
const RESIZABLE = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp', 'image/avif', 'image/tiff']);

/** An upload to store, checked and named: what its files and metadata are made from. */
export interface UploadToStore {
  upload: ReceivedUpload;
  /** Its sanitized name (for the log), its base (without the extension) and its type. */
  cleanName: string;
  base: string;
  type: { ext: string; mime: string };
  /** The folder (`yyyy/mm`) it goes into. */
  dir: string;
  /** An image's dimensions and embedded metadata (`null` for other files, or an image whose header is unreadable). */
  dims: { width: number; height: number } | null;
  imageMeta: ImageMeta | null;
  /** The `alt_text` argument, when sent (its meta is written with the file's). */
  altText?: string;
}

/**
 * The files of attachments in the {@link MediaStorage}: an upload's file and image sizes stored with its row, under a
 * name not yet taken, and removed with it; a crash between files and row is left to the {@link UploadJournal}.
 */
export class AttachmentFiles {
  private readonly logger = new Logger('Media');

  constructor(
    private readonly deps: Pick<MediaDependencies, 'storage' | 'journal' | 'fileUrl' | 'decodeLimits' | 'extensions'>,
  ) {}

  /**
   * Stores an upload's files, then its row through `insert` (given the file's URL and the attachment's meta); a
   * failure of either leaves neither, and so does a crash (the journal). A name another upload took between the pick
   * and the store (the store never overwrites) is picked again.
   */
  async store(
    u: UploadToStore,
    req: RestRequest,
    insert: (guid: string, meta: MetaOp[]) => Promise<PostEntity>,
  ): Promise<PostEntity> {
    const { upload, type, dir, dims } = u;
    const taken = new Set<string>();
    let post: PostEntity | undefined;
    let relative = '';
    for (let attempt = 1; !post; attempt++) {
      const fileName = await this.uniqueName(dir, u.base || 'file', type.ext, taken).catch((error) => {
        throw this.storageFailure(
          error,
          `Could not pick a name for the upload ${u.cleanName} in ${dir}`,
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
          image_meta: u.imageMeta,
        };
      } else if (type.mime.startsWith('audio/') || type.mime.startsWith('video/')) {
        metadata = { ...(await readAudioVideoMeta(upload.path, type.mime, upload.size)), filesize: upload.size };
      } else if (type.mime.startsWith('image/')) {
        // An image whose header cannot be read: no metadata, as before.
        metadata = {};
      } else {
        metadata = { filesize: upload.size };
      }
      const guid = await this.deps.fileUrl(relative, req);
      const meta: MetaOp[] = [{ key: ATTACHED_FILE, action: 'single', value: relative }];
      if (Object.keys(metadata).length) meta.push({ key: METADATA, action: 'single', value: maybeSerialize(metadata) });
      if (u.altText !== undefined) meta.push({ key: ALT, action: 'single', value: u.altText });

      const stored: string[] = [];
      let settled: () => Promise<void> = async () => undefined;
      let storing = true;
      try {
        settled = await this.deps.journal.begin(relative, [
          relative,
          ...[...sizes.values()].map((size) => `${dir}/${size.file}`),
        ]);
        await this.deps.storage.put(relative, { path: upload.path }, type.mime);
        stored.push(relative);
        for (const size of sizes.values()) {
          await this.deps.storage.put(`${dir}/${size.file}`, size.data, size['mime-type']);
          stored.push(`${dir}/${size.file}`);
        }
        storing = false;
        post = await insert(guid, meta);
      } catch (error) {
        await this.deps.storage
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
    return post;
  }

  /** Removes an attachment's row through `deleteRow`, then its file and every size; a crash between them leaves the files to the journal. */
  async remove(facts: AttachmentFacts, deleteRow: () => Promise<void>): Promise<void> {
    const files = facts.file ? [facts.file] : [];
    const dir = folderOf(facts.file);
    const sizes =
      facts.metadata?.sizes && typeof facts.metadata.sizes === 'object'
        ? Object.values(facts.metadata.sizes as Record<string, { file?: string }>)
        : [];
    for (const size of sizes) if (size.file) files.push(`${dir}${size.file}`);
    const settled = files.length ? await this.deps.journal.begin(facts.file, files) : async () => undefined;
    await deleteRow();
    await this.deps.storage.remove(files);
    await settled();
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
      if (!taken.has(candidate) && !(await this.deps.storage.exists(`${dir}/${candidate}`))) return candidate;
    }
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
}

/** An error as a log line gives it: its code, if any, and message. */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as NodeJS.ErrnoException).code;
  return code && !error.message.includes(code) ? `${code}: ${error.message}` : error.message;
}
