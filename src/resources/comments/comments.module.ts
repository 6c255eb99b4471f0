import { DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CommentEntity, CommentMetaEntity, PostEntity, UserEntity } from '../../core/database/cms-entities';
import { CommentResource } from './comment.resource';
import { CommentsHandlers } from './comments.handlers';
import { CommentsService } from './comments.service';

/** Comments on posts: threads, moderation, trash, and the `replies` embedded in posts. */
@Module({})
export class CommentsModule {
  /**
   * `internals`: the CmsInternalsModule instance of the API; `posts`: the PostsModule instance (posts are read
   * through its service); `dataSourceName`: the host's DataSource.
   */
  static register(internals: DynamicModule, posts: DynamicModule, dataSourceName?: string): DynamicModule {
    return {
      module: CommentsModule,
      imports: [
        internals,
        posts,
        TypeOrmModule.forFeature([CommentEntity, CommentMetaEntity, PostEntity, UserEntity], dataSourceName),
      ],
      providers: [CommentsService, CommentResource, CommentsHandlers],
      exports: [CommentsService, CommentResource],
    };
  }
}
