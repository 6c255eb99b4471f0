import { DynamicModule, Global, MiddlewareConsumer, Module, ModuleMetadata, NestModule, Provider, RequestMethod, Type } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import { CMS_OPTIONS, CmsModuleOptions, resolveCmsOptions } from './cms-options';
import { AuthenticationService } from './core/auth/authentication.service';
import { CapabilityService } from './core/auth/capability.service';
import { RolesService } from './core/auth/roles.service';
import { ApplicationPasswordAuthenticator } from './core/auth/strategies/application-password.authenticator';
import { UserIdentityService } from './core/auth/user-identity.service';
import { UserAccountsService } from './core/auth/user-accounts.service';
import { RateLimiter } from './core/auth/rate-limiter.service';
import { SessionRoutes } from './core/auth/session-routes';
import { SessionService } from './core/auth/session.service';
import { CookieAuthenticator } from './core/auth/strategies/cookie.authenticator';
import { CMS_DATA_SOURCE } from './core/database/cms-data-source';
import { SiteBootstrapService } from './core/database/site-bootstrap.service';
import { TablePrefix } from './core/database/table-prefix';
import { HookRegistry } from './core/hooks/hook-registry.service';
import { HostBodyErrors } from './core/http/host-body-errors';
import { SchemaModule } from './core/schema/schema.module';
import { ApiHttpService } from './core/http/api-http.service';
import { restHttpController } from './core/http/rest-http.controller';
import { RestRouteMiddleware } from './core/http/rest-route.middleware';
import { OptionsService } from './core/options/options.service';
import { ContentRegistry } from './core/registry/content-registry.service';
import { RestServer } from './core/rest/rest-server.service';
import { Embedder } from './core/rest/embedder.service';
import { RestResponseInterceptor } from './core/rest/rest-response.interceptor';
import { RouteRegistry } from './core/rest/route-registry.service';
import { CmsExtensionRegistry } from './extensions/extension-registry.service';
import { ContentTypesModule } from './resources/content-types/content-types.module';
import { SettingsModule } from './resources/settings/settings.module';
import { UsersModule } from './resources/users/users.module';
import { PostsModule } from './resources/posts/posts.module';
import { TermsModule } from './resources/terms/terms.module';
import { RestHandlerExplorer } from './core/rest/rest-handler-explorer.service';
import { CapabilityGuard } from './core/auth/capability.guard';
import { DiscoveryModule } from '@nestjs/core';

/** Options of `CmsModule.forRootAsync()`: runtime values from a factory, structure given up front. */
export interface CmsModuleAsyncOptions extends Pick<ModuleMetadata, 'imports'> {
  useFactory: (...args: any[]) => CmsModuleOptions | Promise<CmsModuleOptions>;
  inject?: any[];
  /** Extension modules (structure: needed when the module is defined). */
  extensions?: Type<unknown>[];
  /** Name of the TypeORM DataSource (structure). */
  dataSourceName?: string;
  /**
   * Path segment of the API root (structure: the API's Nest route is mounted there; default `cms-json`). A
   * `routePrefix` the factory returns is ignored.
   */
  routePrefix?: string;
}

const SHARED_EXPORTS = [
  CMS_OPTIONS,
  CMS_DATA_SOURCE,
  RouteRegistry,
  RestServer,
  HookRegistry,
  CapabilityService,
  AuthenticationService,
  RolesService,
  UserIdentityService,
  UserAccountsService,
  RateLimiter,
  SessionService,
  ContentRegistry,
  CmsExtensionRegistry,
  OptionsService,
  TablePrefix,
];

/**
 * The whole API as a Nest module. A host app imports it next to its own TypeORM connection; the API is then
 * served under `/{routePrefix}/` (default `/cms-json/`) and `/?rest_route=/`.
 *
 * @example
 * @Module({
 *   imports: [
 *     TypeOrmModule.forRoot({ ...buildDataSourceOptions({ databaseUrl: 'sqlite:./data/cms.sqlite', tablePrefix: 'cms_' }) }),
 *     CmsModule.forRoot({ baseUrl: 'https://example.com' }),
 *   ],
 * })
 * export class AppModule {}
 */
@Global()
@Module({})
export class CmsModule implements NestModule {
  static forRoot(options: CmsModuleOptions = {}): DynamicModule {
    const resolved = resolveCmsOptions(options);
    return this.build({ provide: CMS_OPTIONS, useValue: resolved }, resolved.routePrefix, options.extensions ?? [], options.dataSourceName);
  }

  static forRootAsync(options: CmsModuleAsyncOptions): DynamicModule {
    const routePrefix = resolveCmsOptions({ routePrefix: options.routePrefix }).routePrefix;
    const provider: Provider = {
      provide: CMS_OPTIONS,
      useFactory: async (...args: unknown[]) =>
        resolveCmsOptions({
          ...(await options.useFactory(...args)),
          routePrefix,
          extensions: options.extensions,
          dataSourceName: options.dataSourceName,
        }),
      inject: options.inject ?? [],
    };
    return this.build(provider, routePrefix, options.extensions ?? [], options.dataSourceName, options.imports ?? []);
  }

  private static build(
    optionsProvider: Provider,
    routePrefix: string,
    extensions: Type<unknown>[],
    dataSourceName?: string,
    imports: DynamicModule['imports'] = [],
  ): DynamicModule {
    return {
      module: CmsModule,
      global: true,
      imports: [...imports, DiscoveryModule, SchemaModule, ContentTypesModule, UsersModule, SettingsModule, PostsModule, TermsModule, ...extensions],
      controllers: [restHttpController(routePrefix)],
      providers: [
        optionsProvider,
        { provide: CMS_DATA_SOURCE, useExisting: getDataSourceToken(dataSourceName) },
        RouteRegistry,
        RestServer,
        Embedder,
        RestResponseInterceptor,
        HookRegistry,
        CapabilityService,
        AuthenticationService,
        RolesService,
        UserIdentityService,
        UserAccountsService,
        ApplicationPasswordAuthenticator,
        RateLimiter,
        SessionService,
        CookieAuthenticator,
        ContentRegistry,
        CmsExtensionRegistry,
        OptionsService,
        TablePrefix,
        SiteBootstrapService,
        ApiHttpService,
        RestRouteMiddleware,
        HostBodyErrors,
        CapabilityGuard,
        RestHandlerExplorer,
        // After the resources, so that `cms/v2` stays the first namespace of the index.
        SessionRoutes,
      ],
      exports: [...SHARED_EXPORTS, SchemaModule],
    };
  }

  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(RestRouteMiddleware).forRoutes({ path: '/', method: RequestMethod.ALL });
  }
}
