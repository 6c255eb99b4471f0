/**
 * Public surface of cms-api: the Nest module, the extension API and the types a host or an extension needs.
 */
export { CmsModule } from './cms.module';
export type { CmsModuleAsyncOptions } from './cms.module';
export { CMS_NAMESPACE, CMS_OPTIONS } from './core/config/cms-options';
export type { CmsModuleOptions, ResolvedCmsOptions } from './core/config/cms-options';
export { WireNames } from './core/wire-names';
export type { WireNamesMode } from './core/wire-names';

// Extension API
export { CmsExtensionRegistry } from './extensions/extension-registry.service';
export type { MetaKeyDefinition, RestFieldDefinition, SettingDefinition } from './extensions/extension.types';
export { HookRegistry } from './core/hooks/hook-registry.service';
export { RouteRegistry } from './core/rest/route-registry.service';
export { Methods } from './core/rest/route-types';
export { Allow, RestRoute } from './core/rest/rest-route.decorator';
export type { PermissionPolicy, RestRouteOptions, RouteTarget } from './core/rest/rest-route.decorator';
export { REST_CONTEXT_TYPE } from './core/rest/rest-handler-explorer.service';
export { CapabilityGuard } from './core/auth/capability.guard';
export { ResponsePipeline } from './core/rest/response-pipeline';
export { SchemaRegistry } from './core/schema/schema-registry.service';
export { CMS_MATCHED_ROUTE } from './core/http/rest-http.controller';
export type { EndpointDefinition, HandlerResult, PermissionResult, RouteOptions } from './core/rest/route-types';
export { RestResource } from './core/rest/rest-resource';
export { CollectionQuery } from './core/rest/collection-query';
export type { CollectionArgs, WindowRules } from './core/rest/collection-query';
export { RestServer } from './core/rest/rest-server.service';
export { RestRequest } from './core/rest/rest-request';
export type { UploadedFile } from './core/rest/rest-request';
export { RestResponse, linkMap } from './core/rest/rest-response';
export type { Link, LinkMap } from './core/rest/rest-response';
export { RestException } from './core/errors/rest.exception';
export { serveApiFirst } from './core/http/api-front';
export type { ItemSchema, JsonSchema, RestContext, RouteArg } from './core/json-schema/json-schema';

// Identity
export { AuthenticationService } from './core/auth/authentication.service';
export type { Authenticator, AuthenticationInput } from './core/auth/authentication.service';
export { CapabilityService } from './core/auth/capability.service';
export { UserAccountsService } from './core/auth/user-accounts.service';
export type { CreateUserInput, UserSummary } from './core/auth/user-accounts.service';
export { ApplicationPasswords } from './core/auth/application-passwords.service';
export type { ApplicationPasswordItem, CreatedApplicationPassword } from './core/auth/application-passwords.service';
export { CurrentUser } from './core/auth/current-user';
export { RequestContext } from './core/auth/request-context';

// Content registry and options
export { ContentRegistry } from './core/registry/content-registry.service';
export type { PostStatusArgs, PostTypeArgs, TaxonomyArgs } from './core/registry/content-types';
export { OptionsService } from './core/options/options.service';

// Data layer
export { CMS_DATA_SOURCE } from './core/database/cms-data-source';
export { CMS_ENTITIES } from './core/database/cms-entities';
export * from './core/database/cms-entities';
export { CMS_MIGRATIONS } from './core/database/cms-migrations';

// Operations
export { CmsHealthIndicator } from './core/health/cms-health.indicator';
export { buildDataSourceOptions, parseDatabaseUrl } from './core/database/data-source-options';
export { maybeSerialize, maybeUnserialize, phpSerialize, phpUnserialize } from './core/formatting/php-serialize';
