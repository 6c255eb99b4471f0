import { DynamicModule, Module } from '@nestjs/common';
import { StatusesHandlers } from './statuses.handlers';
import { StatusesResource } from './statuses.resource';
import { TaxonomiesHandlers } from './taxonomies.handlers';
import { TaxonomiesResource } from './taxonomies.resource';
import { TypesHandlers } from './types.handlers';
import { TypesResource } from './types.resource';

/** Post types, statuses and taxonomies: read-only views of the content registry. */
@Module({})
export class ContentTypesModule {
  /** `internals`: the CmsInternalsModule instance of the API; `dataSourceName`: the host's DataSource. */
  static register(internals: DynamicModule, _dataSourceName?: string): DynamicModule {
    return {
      module: ContentTypesModule,
      imports: [internals],
      providers: [
        TypesResource,
        TypesHandlers,
        StatusesResource,
        StatusesHandlers,
        TaxonomiesResource,
        TaxonomiesHandlers,
      ],
      exports: [TypesResource, StatusesResource, TaxonomiesResource],
    };
  }
}
