import {
  DynamicModule,
  Global,
  Module,
  ModuleMetadata,
  Provider,
  Type,
  InjectionToken,
  OptionalFactoryDependency,
} from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import { CmsInternalsModule } from './cms-internals.module';
import { CMS_OPTIONS, CmsModuleOptions, resolveCmsOptions } from './core/config/cms-options';
import { AuthenticationService } from './core/auth/authentication.service';
import { CapabilityService } from './core/auth/capability.service';
import { UserAccountsService } from './core/auth/user-accounts.service';
import { CMS_DATA_SOURCE } from './core/database/cms-data-source';
import { HookRegistry } from './core/hooks/hook-registry.service';
import { CmsHttpModule } from './core/http/cms-http.module';
import { restHttpController } from './core/http/rest-http.controller';
import { OptionsService } from './core/options/options.service';
import { ResponseCache } from './core/cache/response-cache';
import { VersionStamps } from './core/database/version-stamps';
import { StampTriggersService } from './core/database/stamp-triggers';
import { ContentRegistry } from './core/registry/content-registry.service';
import { RestServer } from './core/rest/rest-server.service';
import { RouteRegistry } from './core/rest/route-registry.service';
import { SchemaModule } from './core/schema/schema.module';
import { CmsExtensionRegistry } from './extensions/extension-registry.service';
import { ContentTypesModule } from './resources/content-types/content-types.module';
import { PostsModule } from './resources/posts/posts.module';
import { SettingsModule } from './resources/settings/settings.module';
import { TermsModule } from './resources/terms/terms.module';
import { CommentsModule } from './resources/comments/comments.module';
import { MediaModule } from './resources/media/media.module';
import { UsersModule } from './resources/users/users.module';

/** Options of `CmsModule.forRootAsync()`: runtime values from a factory, structure given up front. */
export interface CmsModuleAsyncOptions extends Pick<ModuleMetadata, 'imports'> {
  useFactory: (...args: never[]) => CmsModuleOptions | Promise<CmsModuleOptions>;
  inject?: Array<InjectionToken | OptionalFactoryDependency>;
  /** Extension modules (structure: needed when the module is defined). */
  extensions?: Type<unknown>[];
  /** Name of the TypeORM DataSource (structure). */
  dataSourceName?: string;
  /**
   * Path segment of the API root (structure: the API's Nest route is mounted there; default `cms-json`). A
   * `routePrefix` the factory returns is ignored.
   */
  routePrefix?: string;
  /**
   * The names on the wire, `cms` (default) or `wordpress` (structure: the route prefix's default and the route table
   * follow it). A `wireNames` the factory returns is ignored.
   */
  wireNames?: CmsModuleOptions['wireNames'];
}

/**
 * What `CmsModule` provides to the whole application (it is global): the services extensions and hosts use —
 * routes, hooks, capabilities, authentication, user accounts, the content registry, options, the extension
 * registry — and the options and data source tokens. The engine's other parts stay in CmsInternalsModule.
 */
const PUBLIC_PROVIDERS = [
  RouteRegistry,
  RestServer,
  HookRegistry,
  CapabilityService,
  AuthenticationService,
  UserAccountsService,
  ContentRegistry,
  CmsExtensionRegistry,
  OptionsService,
  VersionStamps,
  StampTriggersService,
  ResponseCache,
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
export class CmsModule {
  static forRoot(options: CmsModuleOptions = {}): DynamicModule {
    const resolved = resolveCmsOptions(options);
    return this.build(
      { provide: CMS_OPTIONS, useValue: resolved },
      resolved.routePrefix,
      options.extensions ?? [],
      options.dataSourceName,
    );
  }

  static forRootAsync(options: CmsModuleAsyncOptions): DynamicModule {
    const routePrefix = resolveCmsOptions({
      routePrefix: options.routePrefix,
      wireNames: options.wireNames,
    }).routePrefix;
    const provider: Provider = {
      provide: CMS_OPTIONS,
      useFactory: async (...args: unknown[]) =>
        resolveCmsOptions({
          ...(await options.useFactory(...(args as never[]))),
          routePrefix,
          wireNames: options.wireNames,
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
    // One instance of the engine's internals, imported by every module of the API.
    const internals = CmsInternalsModule.register(dataSourceName);
    const posts = PostsModule.register(internals, dataSourceName);
    return {
      module: CmsModule,
      global: true,
      imports: [
        ...imports,
        internals,
        SchemaModule,
        CmsHttpModule.register([internals]),
        ContentTypesModule.register(internals, dataSourceName),
        UsersModule.register(internals, dataSourceName),
        SettingsModule.register(internals, dataSourceName),
        posts,
        TermsModule.register(internals, dataSourceName),
        CommentsModule.register(internals, posts, dataSourceName),
        MediaModule.register(internals, posts),
        ...extensions,
      ],
      // The API's one Nest route, declared here so that RouterModule mounts it with CmsModule.
      controllers: [restHttpController(routePrefix)],
      providers: [
        optionsProvider,
        { provide: CMS_DATA_SOURCE, useExisting: getDataSourceToken(dataSourceName) },
        ...PUBLIC_PROVIDERS,
      ],
      exports: [CMS_OPTIONS, CMS_DATA_SOURCE, ...PUBLIC_PROVIDERS, SchemaModule],
    };
  }
}
