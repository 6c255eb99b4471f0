import { Module } from '@nestjs/common';
import { CmsInternalsModule } from '../internals/cms-internals.module';
import { SessionHandlers } from './session.handlers';
import { SessionLogin } from './session-login.service';

/** The cookie-session login routes (`cms-session/v1`): sign-in, sign-out and the nonce, over the engine's sessions. */
@Module({
  imports: [CmsInternalsModule],
  providers: [SessionLogin, SessionHandlers],
})
export class LoginModule {}
