import { DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import {
  CommentEntity,
  OptionEntity,
  PostEntity,
  PostMetaEntity,
  TermEntity,
  TermRelationshipEntity,
  TermTaxonomyEntity,
  UserEntity,
} from '../../core/database/cms-entities';
import { FuturePosts } from './future-posts.service';
import { PostTypeResources } from './post-type-resources.service';
import { PostWriter } from './post-writer.service';
import { PostsHandlers } from './posts.handlers';
import { PostsService } from './posts.service';
import { RevisionsHandlers } from './revisions.handlers';

/** Posts, pages and every REST post type, with their revisions. */
@Module({})
export class PostsModule {
  /** `internals`: the CmsInternalsModule instance of the API; `dataSourceName`: the host's DataSource. */
  static register(internals: DynamicModule, dataSourceName?: string): DynamicModule {
    return {
      module: PostsModule,
      imports: [
        internals,
        TypeOrmModule.forFeature(
          [
            CommentEntity,
            OptionEntity,
            PostEntity,
            PostMetaEntity,
            TermEntity,
            TermRelationshipEntity,
            TermTaxonomyEntity,
            UserEntity,
          ],
          dataSourceName,
        ),
      ],
      providers: [PostsService, PostWriter, FuturePosts, PostTypeResources, PostsHandlers, RevisionsHandlers],
      exports: [PostsService, PostWriter, FuturePosts, PostTypeResources],
    };
  }
}
