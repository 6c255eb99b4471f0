import { Module } from '@nestjs/common';
import { CmsInternalsModule } from '../../core/internals/cms-internals.module';
import { ApplicationPasswordsHandlers } from './application-passwords.handlers';
import { ApplicationPasswordsResource } from './application-passwords.resource';
import { UserPolicies } from './user-policies';
import { UserWriter } from './user-writer.service';
import { UsersHandlers } from './users.handlers';
import { UsersResource } from './users.resource';
import { UsersService } from './users.service';

/** Users (`users`, `users/me`) and their application passwords. */
@Module({
  imports: [CmsInternalsModule],
  providers: [
    UsersService,
    UserPolicies,
    UserWriter,
    UsersResource,
    UsersHandlers,
    ApplicationPasswordsResource,
    ApplicationPasswordsHandlers,
  ],
  exports: [UsersService, UsersResource],
})
export class UsersModule {}
