import { Module } from '@nestjs/common';
import { PostsModule } from '../posts';
import { CmsInternalsModule } from '../../core/internals/cms-internals.module';
import { CommentModeration } from './comment-moderation.service';
import { CommentPolicies } from './comment-policies';
import { CommentResource } from './comment.resource';
import { CommentWriter } from './comment-writer.service';
import { CommentsHandlers } from './comments.handlers';
import { CommentsService } from './comments.service';

/** Comments on posts: threads, moderation, trash, and the `replies` embedded in posts. */
@Module({
  imports: [CmsInternalsModule, PostsModule],
  providers: [CommentsService, CommentModeration, CommentPolicies, CommentWriter, CommentResource, CommentsHandlers],
  exports: [CommentsService, CommentResource],
})
export class CommentsModule {}
