import { DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import {
  PostEntity,
  TermEntity,
  TermMetaEntity,
  TermRelationshipEntity,
  TermTaxonomyEntity,
} from '../../core/database/cms-entities';
import { TaxonomyResources } from './taxonomy-resources.service';
import { TermsHandlers } from './terms.handlers';
import { TermsService } from './terms.service';

/** Terms of categories, tags and every REST taxonomy. */
@Module({})
export class TermsModule {
  /** `internals`: the CmsInternalsModule instance of the API; `dataSourceName`: the host's DataSource. */
  static register(internals: DynamicModule, dataSourceName?: string): DynamicModule {
    return {
      module: TermsModule,
      imports: [
        internals,
        TypeOrmModule.forFeature(
          [PostEntity, TermEntity, TermMetaEntity, TermRelationshipEntity, TermTaxonomyEntity],
          dataSourceName,
        ),
      ],
      providers: [TermsService, TaxonomyResources, TermsHandlers],
      exports: [TermsService, TaxonomyResources],
    };
  }
}
