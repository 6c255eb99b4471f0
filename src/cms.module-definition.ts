import { ConfigurableModuleBuilder, DynamicModule, Provider, Type, ValueProvider } from '@nestjs/common';
import { getDataSourceToken, TypeOrmModule } from '@nestjs/typeorm';
import { AuthenticationService } from './core/auth/authentication.service';
import { CapabilityService } from './core/auth/capability.service';
import { UserAccountsService } from './core/auth/user-accounts.service';
import { ApplicationPasswords } from './core/auth/application-passwords.service';
import { ResponseCache } from './core/cache/response-cache';
import { CMS_OPTIONS, CmsModuleOptions, resolveCmsOptions } from './core/config/cms-options';
import { CMS_DATA_SOURCE } from './core/database/cms-data-source';
import { CMS_ENTITIES } from './core/database/cms-entities';
import { StampTriggersService } from './core/database/stamp-triggers';
import { VersionStamps } from './core/database/version-stamps';
import { HookRegistry } from './core/hooks/hook-registry.service';
import { CmsHttpModule } from './core/http/cms-http.module';
import { restHttpController } from './core/http/rest-http.controller';
import { CmsInternalsModule } from './core/internals/cms-internals.module';
import { LoginModule } from './core/login/login.module';
import { OptionsService } from './core/options/options.service';
import { ContentRegistry } from './core/registry/content-registry.service';
import { RestServer } from './core/rest/rest-server.service';
import { RouteRegistry } from './core/rest/route-registry.service';
import { SchemaModule } from './core/schema/schema.module';
import { BatchModule } from './core/batch/batch.module';
import { CmsExtensionRegistry } from './extensions/extension-registry.service';
import { CommentsModule } from './resources/comments/comments.module';
import { ContentTypesModule } from './resources/content-types/content-types.module';
import { MediaModule } from './resources/media/media.module';
import { MenusModule } from './resources/menus/menus.module';
import { PostsModule } from './resources/posts/posts.module';
import { SearchModule } from './resources/search/search.module';
import { SettingsModule } from './resources/settings/settings.module';
import { TermsModule } from './resources/terms/terms.module';
import { UsersModule } from './resources/users/users.module';
import { WebhooksModule } from './resources/webhooks/webhooks.module';

/**
 * The options of `CmsModule` that are structure, not values: needed when the module is defined, so given to
 * `forRoot`/`forRootAsync` themselves (a factory's are ignored).
 */
export interface CmsModuleExtras {
  /** Extension modules. */
  extensions?: Type<unknown>[];
  /** Name of the TypeORM DataSource. */
  dataSourceName?: string;
  /** Path segment of the API root, where the API's Nest route is mounted (default `cms-json`). */
  routePrefix?: string;
  /** The names on the wire, `cms` (default) or `wordpress`: the route prefix's default and the route table follow. */
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
  ApplicationPasswords,
  ContentRegistry,
  CmsExtensionRegistry,
  OptionsService,
  VersionStamps,
  StampTriggersService,
  ResponseCache,
];

export const {
  ConfigurableModuleClass: CmsConfigurableModule,
  MODULE_OPTIONS_TOKEN: CMS_MODULE_OPTIONS,
  OPTIONS_TYPE: CMS_OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE: CMS_ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<CmsModuleOptions>({ moduleName: 'Cms' })
  .setClassMethodName('forRoot')
  .setFactoryMethodName('createCmsOptions')
  .setExtras<CmsModuleExtras>(
    { extensions: [], dataSourceName: undefined, routePrefix: undefined, wireNames: undefined },
    assemble,
  )
  .build();

/**
 * The whole API around the options the builder provides (`CMS_MODULE_OPTIONS`, as given): the resolved options
 * (`CMS_OPTIONS`; resolved at once for `forRoot`, so a bad option fails where it is written), the data source, the
 * public services, the API's modules and its one Nest route.
 */
function assemble(definition: DynamicModule, extras: CmsModuleExtras): DynamicModule {
  const { extensions = [], dataSourceName, wireNames } = extras;
  const routePrefix = resolveCmsOptions({ routePrefix: extras.routePrefix, wireNames }).routePrefix;
  const structure = { routePrefix, wireNames, extensions, dataSourceName };
  // forRoot: the options are given as a value (then resolved at once); forRootAsync: made by a factory.
  const given = definition.providers?.find(
    (p): p is ValueProvider<CmsModuleOptions> =>
      typeof p === 'object' && 'provide' in p && p.provide === CMS_MODULE_OPTIONS && 'useValue' in p,
  );
  const options: Provider = given
    ? { provide: CMS_OPTIONS, useValue: resolveCmsOptions({ ...given.useValue, ...structure }) }
    : {
        provide: CMS_OPTIONS,
        useFactory: (raw: CmsModuleOptions) => resolveCmsOptions({ ...raw, ...structure }),
        inject: [CMS_MODULE_OPTIONS],
      };
  return {
    ...definition,
    global: true,
    imports: [
      ...(definition.imports ?? []),
      // The entities of every WordPress table the API reads, so that a host with `autoLoadEntities` needs no list.
      TypeOrmModule.forFeature(CMS_ENTITIES, dataSourceName),
      CmsInternalsModule,
      LoginModule,
      SchemaModule,
      CmsHttpModule,
      ContentTypesModule,
      UsersModule,
      SettingsModule,
      PostsModule,
      TermsModule,
      CommentsModule,
      MediaModule,
      SearchModule,
      MenusModule,
      WebhooksModule,
      BatchModule,
      ...extensions,
    ],
    // The API's one Nest route, declared here so that RouterModule mounts it with CmsModule.
    controllers: [restHttpController(routePrefix)],
    providers: [
      ...(definition.providers ?? []),
      options,
      { provide: CMS_DATA_SOURCE, useExisting: getDataSourceToken(dataSourceName) },
      ...PUBLIC_PROVIDERS,
    ],
    exports: [CMS_OPTIONS, CMS_DATA_SOURCE, ...PUBLIC_PROVIDERS, SchemaModule],
  };
}
