import { DynamicModule, Global, Module } from '@nestjs/common';
import { CMS_ASYNC_OPTIONS_TYPE, CMS_OPTIONS_TYPE, CmsConfigurableModule } from './cms.module-definition';

/** Options of `CmsModule.forRoot()`: the module's options and its structure (see `CmsModuleExtras`). */
export type CmsModuleRootOptions = typeof CMS_OPTIONS_TYPE;

/**
 * Options of `CmsModule.forRootAsync()`: the options from a factory (`useFactory` and `inject`, `useClass` or
 * `useExisting` with a `createCmsOptions()` method), the structure given up front (`extensions`, `dataSourceName`,
 * `routePrefix`, `wireNames`: a factory's are ignored), and `imports` for the factory's dependencies.
 */
export type CmsModuleAsyncOptions = typeof CMS_ASYNC_OPTIONS_TYPE;

/**
 * The whole API as a Nest module, made with Nest's `ConfigurableModuleBuilder` (see cms.module-definition.ts). A
 * host app imports it next to its own TypeORM connection; the API is then served under `/{routePrefix}/` (default
 * `/cms-json/`) and `/?rest_route=/`.
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
export class CmsModule extends CmsConfigurableModule {
  /** The API with these options (every option has a default). */
  static override forRoot(options: CmsModuleRootOptions = {}): DynamicModule {
    return super.forRoot(options);
  }
}
