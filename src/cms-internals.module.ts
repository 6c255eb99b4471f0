import { DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CMS_ENTITIES } from './core/database/cms-entities';
import { DiscoveryModule } from '@nestjs/core';
import { CapabilityGuard } from './core/auth/capability.guard';
import { RateLimiter } from './core/auth/rate-limiter.service';
import { CmsRedis } from './core/redis/cms-redis.service';
import { RolesService } from './core/auth/roles.service';
import { SessionHandlers } from './core/login/session.handlers';
import { SessionLogin } from './core/login/session-login.service';
import { SessionService } from './core/auth/session.service';
import { ApplicationPasswordAuthenticator } from './core/auth/strategies/application-password.authenticator';
import { CookieAuthenticator } from './core/auth/strategies/cookie.authenticator';
import { UserIdentityService } from './core/auth/user-identity.service';
import { SiteBootstrapService } from './core/bootstrap/site-bootstrap.service';
import { TablePrefix } from './core/database/table-prefix';
import { Embedder } from './core/rest/embedder.service';
import { RestHandlerExplorer } from './core/rest/rest-handler-explorer.service';
import { ResponsePipeline } from './core/rest/response-pipeline';
import { TextFilterPoolShutdown } from './core/text/text-filter-pool';

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
  SessionLogin,
  SessionHandlers,
  TextFilterPoolShutdown,
];

/**
 * The engine's own parts that hosts and extensions do not need (roles, sessions, authenticators, rate limits,
 * table prefix, first-start set-up, embedding, the text filters' worker pool's shutdown, the response interceptor, the handler explorer and the capability
 * guard), with the entities of every WordPress table it reads (`TypeOrmModule.forFeature`, so a host with
 * `autoLoadEntities` needs no entity list). The API's modules import the one instance `CmsModule` makes; it reads
 * the public services `CmsModule` provides globally.
 */
@Module({})
export class CmsInternalsModule {
  static register(dataSourceName?: string): DynamicModule {
    return {
      module: CmsInternalsModule,
      imports: [DiscoveryModule, TypeOrmModule.forFeature(CMS_ENTITIES, dataSourceName)],
      providers: INTERNALS,
      exports: INTERNALS,
    };
  }
}
