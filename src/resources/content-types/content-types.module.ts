import { Module } from '@nestjs/common';
import { CmsInternalsModule } from '../../core/internals/cms-internals.module';
import { StatusesHandlers } from './statuses.handlers';
import { StatusesResource } from './statuses.resource';
import { TaxonomiesHandlers } from './taxonomies.handlers';
import { TaxonomiesResource } from './taxonomies.resource';
import { TypesHandlers } from './types.handlers';
import { TypesResource } from './types.resource';

/** Post types, statuses and taxonomies: read-only views of the content registry. */
@Module({
  imports: [CmsInternalsModule],
  providers: [TypesResource, TypesHandlers, StatusesResource, StatusesHandlers, TaxonomiesResource, TaxonomiesHandlers],
  exports: [TypesResource, StatusesResource, TaxonomiesResource],
})
export class ContentTypesModule {}
