import { Module } from '@nestjs/common';
import { PostsModule } from '../posts';
import { CmsInternalsModule } from '../../core/internals/cms-internals.module';
import { CMS_OPTIONS, ResolvedCmsOptions } from '../../core/config/cms-options';
import { MEDIA_STORAGE } from '../../core/config/media-storage';
import { LocalDiskStorage } from './media-storage';
import type { S3MediaStorage } from './s3-storage';
import { MediaHandlers } from './media.handlers';
import { MediaResources } from './media-resources.service';

/** The S3 store's class, loaded only where object storage is configured (the AWS SDK takes a while to load). */
function s3Storage(): typeof S3MediaStorage {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require('./s3-storage') as typeof import('./s3-storage')).S3MediaStorage;
}

/** Media (attachments): uploads, files in storage, image sizes and metadata. */
@Module({
  imports: [CmsInternalsModule, PostsModule],
  providers: [
    {
      provide: MEDIA_STORAGE,
      // Given by the host, else a bucket (objectStorage), else the local disk under uploadDir.
      useFactory: (o: ResolvedCmsOptions) =>
        o.mediaStorage ?? (o.objectStorage ? new (s3Storage())(o.objectStorage) : new LocalDiskStorage(o.uploadDir)),
      inject: [CMS_OPTIONS],
    },
    MediaResources,
    MediaHandlers,
  ],
  exports: [MEDIA_STORAGE, MediaResources],
})
export class MediaModule {}
