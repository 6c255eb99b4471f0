import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { PostReads, PostTypeResources } from '../posts';
import { DataSource } from 'typeorm';
import { CMS_OPTIONS, ResolvedCmsOptions } from '../../core/config/cms-options';
import { RestRequest } from '../../core/rest/rest-request';
import { AttachmentResource } from './attachment.resource';
import { ALLOWED_MIME_TYPES, SCRIPTABLE_MIME_TYPES } from './file-names';
import { CMS_DATA_SOURCE } from '../../core/database/cms-data-source';
import { PostMetaEntity } from '../../core/database/entities/post-meta.entity';
import { MEDIA_STORAGE, MediaStorage } from '../../core/config/media-storage';
import { DEFAULT_DECODE_LIMITS } from './image-processor';
import { UploadJournal } from './upload-journal';

/** How often every node settles what crashed processes left in the upload journal. */
const SETTLE_INTERVAL_MS = 5 * 60_000;

/** The media resource (the `attachment` type's), made once from the posts machinery and the storage. */
@Injectable()
export class MediaResources implements OnApplicationBootstrap, OnApplicationShutdown {
  private resource?: AttachmentResource;
  private readonly journal: UploadJournal;
  private readonly logger = new Logger('Media');
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly postTypes: PostTypeResources,
    private readonly reads: PostReads,
    @Inject(MEDIA_STORAGE) private readonly storage: MediaStorage,
    @Inject(CMS_OPTIONS) private readonly cmsOptions: ResolvedCmsOptions,
    @Inject(CMS_DATA_SOURCE) private readonly dataSource: DataSource,
  ) {
    this.journal = new UploadJournal(dataSource, storage);
  }

  /**
   * Files a crashed process (of any node) left between an upload's files and its row, or a deletion's row and its
   * files, go: at start, then every few minutes (see UploadJournal).
   */
  async onApplicationBootstrap(): Promise<void> {
    await this.settle();
    this.timer = setInterval(() => void this.settle(), SETTLE_INTERVAL_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
    // A bucket's client this module made (a host's own storage is the host's to close).
    if (!this.cmsOptions.mediaStorage) (this.storage as { close?: () => void }).close?.();
  }

  /** Settles the upload journal once; answers how many files were removed. */
  async settle(): Promise<number> {
    const meta = this.dataSource.getMetadata(PostMetaEntity).tableName;
    try {
      const report = await this.journal.recover(
        async (main) =>
          (
            await this.dataSource.query<unknown[]>(
              `SELECT 1 AS x FROM ${meta} WHERE meta_key = '_wp_attached_file' AND meta_value = ?`,
              [main],
            )
          ).length > 0,
      );
      if (report.removed)
        this.logger.warn(
          `Removed ${report.removed} uploaded file(s) whose attachment row a crash kept from being written or left deleted`,
        );
      return report.removed;
    } catch (error) {
      // The files stay, and so do their entries: the next settling tries again.
      this.logger.warn(
        `Could not settle the uploads a crash left: ${error instanceof Error ? error.message : String(error)}`,
      );
      return 0;
    }
  }

  get media(): AttachmentResource {
    if (!this.resource) {
      const p = this.postTypes;
      const type = p.content.postType('attachment')!;
      const types = this.cmsOptions.allowScriptableUploads
        ? { ...ALLOWED_MIME_TYPES, ...SCRIPTABLE_MIME_TYPES }
        : ALLOWED_MIME_TYPES;
      this.resource = new AttachmentResource(
        {
          server: p.server,
          extensions: p.extensions,
          hooks: p.hooks,
          content: p.content,
          posts: p.posts,
          options: p.options,
          writer: p.writer,
          future: p.future,
          cmsOptions: p.cmsOptions,
          reads: this.reads,
          storage: this.storage,
          journal: this.journal,
          fileUrl: (relative, req) => this.fileUrl(relative, req),
          allowedTypes: () => types,
          decodeLimits: DEFAULT_DECODE_LIMITS,
        },
        type,
      );
    }
    return this.resource;
  }

  /** The uploads base URL of each request (read once per request and its sub-requests). */
  private readonly bases = new WeakMap<object, Promise<string>>();

  private baseUrl(req: RestRequest): Promise<string> {
    let base = this.bases.get(req.ctx);
    if (!base) {
      base = this.cmsOptions.uploadsUrl
        ? Promise.resolve(this.cmsOptions.uploadsUrl)
        : this.postTypes.options
            .get('siteurl', req.ctx.baseUrl)
            .then((site) => `${String(site ?? req.ctx.baseUrl).replace(/\/+$/, '')}/wp-content/uploads`);
      this.bases.set(req.ctx, base);
    }
    return base;
  }

  /** The URL of an uploaded file: the configured uploads URL, else the site's `wp-content/uploads`. */
  async fileUrl(relativePath: string, req: RestRequest): Promise<string> {
    const url = `${await this.baseUrl(req)}/${relativePath.split('/').map(encodeURIComponent).join('/')}`;
    // An extension may move files elsewhere (object storage, a CDN per file): `wp_get_attachment_url`.
    if (!this.postTypes.hooks.hasHook('wp_get_attachment_url')) return url;
    return this.postTypes.hooks.applyFilters('wp_get_attachment_url', url, relativePath, req);
  }
}
