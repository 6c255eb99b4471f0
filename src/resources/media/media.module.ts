import { Module } from '@nestjs/common';
import { PostsModule } from '../posts';
import { CmsInternalsModule } from '../../core/internals/cms-internals.module';
import { CMS_OPTIONS, ResolvedCmsOptions } from '../../core/config/cms-options';
import { MEDIA_STORAGE } from '../../core/config/media-storage';
import { LocalDiskStorage } from './media-storage';
import { S3MediaStorage } from './s3-storage';
import { MediaHandlers } from './media.handlers';
import { MediaResources } from './media-resources.service';

/** Media (attachments): uploads, files in storage, image sizes and metadata. */
@Module({
  imports: [CmsInternalsModule, PostsModule],
  providers: [
    {
      provide: MEDIA_STORAGE,
      // Given by the host, else a bucket (objectStorage), else the local disk under uploadDir.
      useFactory: (o: ResolvedCmsOptions) =>
        o.mediaStorage ?? (o.objectStorage ? new S3MediaStorage(o.objectStorage) : new LocalDiskStorage(o.uploadDir)),
      inject: [CMS_OPTIONS],
    },
    MediaResources,
    MediaHandlers,
  ],
  exports: [MEDIA_STORAGE, MediaResources],
})
export class MediaModule {}
