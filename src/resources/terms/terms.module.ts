import { Module } from '@nestjs/common';
import { TaxonomyResources } from './taxonomy-resources.service';
import { TermsHandlers } from './terms.handlers';
import { TermsService } from './terms.service';

/** Terms of categories, tags and every REST taxonomy. */
@Module({ providers: [TermsService, TaxonomyResources, TermsHandlers], exports: [TermsService, TaxonomyResources] })
export class TermsModule {}
