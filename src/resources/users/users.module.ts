import { DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import {
  CommentEntity,
  OptionEntity,
  PostEntity,
  PostMetaEntity,
  TermRelationshipEntity,
  UserEntity,
  UserMetaEntity,
} from '../../core/database/cms-entities';
import { ApplicationPasswordsHandlers } from './application-passwords.handlers';
import { ApplicationPasswordsResource } from './application-passwords.resource';
import { UsersHandlers } from './users.handlers';
import { UsersResource } from './users.resource';
import { UsersService } from './users.service';

/** Users (`users`, `users/me`) and their application passwords. */
@Module({})
export class UsersModule {
  /** `internals`: the CmsInternalsModule instance of the API; `dataSourceName`: the host's DataSource. */
  static register(internals: DynamicModule, dataSourceName?: string): DynamicModule {
    return {
      module: UsersModule,
      imports: [
        internals,
        TypeOrmModule.forFeature(
          [CommentEntity, OptionEntity, PostEntity, PostMetaEntity, TermRelationshipEntity, UserEntity, UserMetaEntity],
          dataSourceName,
        ),
      ],
      providers: [
        UsersService,
        UsersResource,
        UsersHandlers,
        ApplicationPasswordsResource,
        ApplicationPasswordsHandlers,
      ],
      exports: [UsersService, UsersResource],
    };
  }
}
