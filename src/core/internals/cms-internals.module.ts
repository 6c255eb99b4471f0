import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { CapabilityGuard } from '../auth/capability.guard';
import { RateLimiter } from '../auth/rate-limiter.service';
import { CmsRedis } from '../redis/cms-redis.service';
import { RolesService } from '../auth/roles.service';
import { SessionService } from '../auth/session.service';
import { ApplicationPasswordAuthenticator } from '../auth/strategies/application-password.authenticator';
import { CookieAuthenticator } from '../auth/strategies/cookie.authenticator';
import { UserIdentityService } from '../auth/user-identity.service';
import { SiteBootstrapService } from '../bootstrap/site-bootstrap.service';
import { TablePrefix } from '../database/table-prefix';
import { Embedder } from '../rest/embedder.service';
import { RestHandlerExplorer } from '../rest/rest-handler-explorer.service';
import { ResponsePipeline } from '../rest/response-pipeline';
import { TextFilterPoolShutdown } from '../text/text-filter-pool';

const INTERNALS = [
  RolesService,
  UserIdentityService,
  ApplicationPasswordAuthenticator,
  CookieAuthenticator,
  RateLimiter,
  CmsRedis,
  SessionService,
  TablePrefix,
  SiteBootstrapService,
  Embedder,
  ResponsePipeline,
  CapabilityGuard,
  RestHandlerExplorer,
  TextFilterPoolShutdown,
];

/**
 * The engine's own parts that hosts and extensions do not need (roles, sessions, authenticators, rate limits,
 * table prefix, first-start set-up, embedding, the text filters' worker pool's shutdown, the response pipeline, the
 * handler explorer and the capability guard). A static module: the API's modules import it, and Nest makes one
 * instance; it reads the public services `CmsModule` provides globally.
 */
@Module({
  imports: [DiscoveryModule],
  providers: INTERNALS,
  exports: INTERNALS,
})
export class CmsInternalsModule {}
