import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MEDIA_STORAGE, MediaStorage } from '../core/config/media-storage';
import { PostEntity } from '../core/database/entities/post.entity';
import { outboundRequest } from '../core/http/outbound';
import { MetaOp } from '../core/rest/meta-fields';
import type { RestRequest } from '../core/rest/rest-request';
import { CmsExtensionRegistry } from '../extensions/extension-registry.service';
import { AttachmentFiles } from '../resources/media/attachment-files';
import { ALLOWED_MIME_TYPES, sanitizeFileName, splitExtension } from '../resources/media/file-names';
import { DEFAULT_DECODE_LIMITS, imageDimensions, ImageMeta, readImageMeta } from '../resources/media/image-processor';
import { MediaResources } from '../resources/media/media-resources.service';
import { checkUploadType } from '../resources/media/upload-receiver';
import { UploadJournal } from '../resources/media/upload-journal';
import { WxrImportContext } from './wxr-import-support';
import { WxrItem } from './wxr-reader';
import { UrlRemap } from './wxr-url-remap';

/** The bounds of `--fetch-attachments`. */
export interface FetchBounds {
  /** Whether private and loopback hosts may be fetched from (`--allow-private-urls`). */
  allowPrivate: boolean;
  /** Most bytes of one file. */
  maxBytes: number;
  /** Deadline of one download (each redirect included). */
  timeoutMs: number;
  /** Downloads at once. */
  concurrency: number;
}

export const DEFAULT_FETCH_BOUNDS: FetchBounds = {
  allowPrivate: false,
  maxBytes: 64 * 1024 * 1024,
  timeoutMs: 60_000,
  concurrency: 4,
};

/** Redirects followed (each one checked again against private targets). */
const MAX_REDIRECTS = 5;

/** A downloaded file, in a temporary folder of its own. */
interface Downloaded {
  path: string;
  size: number;
  /** The file name the URL gives. */
  name: string;
  /** The URL answered from, after redirects. */
  finalUrl: string;
}

/**
 * The files of attachments, downloaded (`--fetch-attachments`, WordPress importer's `fetch_remote_file()`) through
 * the guarded outbound client (size, time, private targets) with a bound on downloads at once, and stored the way an
 * upload is (the media module's {@link AttachmentFiles}: the configured storage, the image sizes, the metadata).
 * Keeps the old URLs (and their size variants) against the new ones, to rewrite content afterwards
 * (`backfill_attachment_urls()`).
 */
export class WxrAttachments {
  private readonly files: AttachmentFiles;
  private readonly media: MediaResources;
  /** Old URLs of the files stored → new ones. */
  readonly urls = new UrlRemap();
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    ctx: WxrImportContext,
    private readonly bounds: FetchBounds,
  ) {
    const storage = ctx.get<MediaStorage>(MEDIA_STORAGE);
    this.media = ctx.get(MediaResources);
    this.files = new AttachmentFiles({
      storage,
      journal: new UploadJournal(ctx.dataSource, storage),
      fileUrl: (relative, req) => this.media.fileUrl(relative, req),
      decodeLimits: DEFAULT_DECODE_LIMITS,
      extensions: ctx.get(CmsExtensionRegistry),
    });
  }

  /** Runs `work` when fewer than `concurrency` are running. */
  async limited<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= this.bounds.concurrency) await new Promise<void>((go) => this.waiting.push(go));
    this.running++;
    try {
      return await work();
    } finally {
      this.running--;
      this.waiting.shift()?.();
    }
  }

  /** Downloads the file at `url` into a temporary file, following a few redirects; throws with the reason. */
  async download(url: string): Promise<Downloaded> {
    const deadline = Date.now() + this.bounds.timeoutMs;
    let target = url;
    for (let hop = 0; ; hop++) {
      const res = await outboundRequest(target, {
        method: 'GET',
        headers: { accept: '*/*', 'user-agent': 'cms-api importer' },
        timeoutMs: Math.max(1, deadline - Date.now()),
        maxBytes: this.bounds.maxBytes,
        allowPrivate: this.bounds.allowPrivate,
      });
      const location = res.headers.location;
      if (res.status >= 300 && res.status < 400 && location) {
        if (hop >= MAX_REDIRECTS) throw new Error(`more than ${MAX_REDIRECTS} redirects`);
        target = new URL(location, target).toString();
        continue;
      }
      if (res.status !== 200) throw new Error(`the server answered ${res.status}`);
      if (!res.body.length) throw new Error('the file is empty');
      const dir = await mkdtemp(join(tmpdir(), 'cms-import-'));
      const path = join(dir, 'file');
      await writeFile(path, res.body);
      const name = decodeURIComponent(new URL(url).pathname.split('/').pop() || 'file');
      return { path, size: res.body.length, name, finalUrl: target };
    }
  }

  /** Removes a downloaded file's temporary folder. */
  async discard(file: Downloaded): Promise<void> {
    await rm(join(file.path, '..'), { recursive: true, force: true });
  }

  /**
   * Stores a downloaded file as an attachment's (its type checked by name and content, its image sizes made), then
   * its row through `insert`; neither is left without the other. The folder is the one of its old URL (`yyyy/mm`),
   * else its date's, as WordPress's importer picks it.
   */
  async store(
    item: WxrItem,
    file: Downloaded,
    home: string,
    insert: (guid: string, mime: string, meta: MetaOp[]) => Promise<PostEntity>,
  ): Promise<PostEntity> {
    const cleanName = sanitizeFileName(file.name, ALLOWED_MIME_TYPES);
    const type = await checkUploadType(cleanName, file.path, '', ALLOWED_MIME_TYPES);
    const dims = type.mime.startsWith('image/') ? await imageDimensions(file.path) : null;
    const imageMeta: ImageMeta | null = dims ? await readImageMeta(file.path) : null;
    const dated = /\/(\d{4})\/(\d{2})\/[^/]*$/.exec(new URL(file.finalUrl).pathname);
    const date = /^\d{4}-\d{2}/.test(item.date) ? item.date : new Date().toISOString();
    const dir = dated ? `${dated[1]}/${dated[2]}` : `${date.slice(0, 4)}/${date.slice(5, 7)}`;
    // The URL of a stored file is made per request (its site URL): the import's is the site's home.
    const req = { ctx: { baseUrl: home } } as unknown as RestRequest;
    return this.files.store(
      {
        upload: { name: file.name, path: file.path, size: file.size, declaredType: '', multipart: false },
        cleanName,
        base: splitExtension(cleanName).base,
        type,
        dir,
        dims,
        imageMeta,
      },
      req,
      (guid, meta) => insert(guid, type.mime, meta),
    );
  }
}
