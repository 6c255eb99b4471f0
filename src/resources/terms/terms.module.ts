import { Module } from '@nestjs/common';
import { CmsInternalsModule } from '../../core/internals/cms-internals.module';
import { TaxonomyResources } from './taxonomy-resources.service';
import { TermsHandlers } from './terms.handlers';
import { TermsService } from './terms.service';

/** Terms of categories, tags and every REST taxonomy. */
@Module({
  imports: [CmsInternalsModule],
  providers: [TermsService, TaxonomyResources, TermsHandlers],
  exports: [TermsService, TaxonomyResources],
})
export class TermsModule {}
