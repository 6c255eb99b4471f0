import { Module } from '@nestjs/common';
import { CmsInternalsModule } from '../../core/internals/cms-internals.module';
import { AutosaveResources } from './autosave-resources.service';
import { AutosavesHandlers } from './autosaves.handlers';
import { FuturePosts } from './future-posts.service';
import { PostTypeResources } from './post-type-resources.service';
import { PostReads } from './post-reads.service';
import { PostWriter } from './post-writer.service';
import { PostsHandlers } from './posts.handlers';
import { PostsService } from './posts.service';
import { RevisionsHandlers } from './revisions.handlers';

/** Posts, pages and every REST post type, with their revisions and autosaves. */
@Module({
  imports: [CmsInternalsModule],
  providers: [
    PostsService,
    PostReads,
    PostWriter,
    FuturePosts,
    PostTypeResources,
    PostsHandlers,
    RevisionsHandlers,
    AutosaveResources,
    AutosavesHandlers,
  ],
  exports: [PostsService, PostReads, PostWriter, FuturePosts, PostTypeResources],
})
export class PostsModule {}
