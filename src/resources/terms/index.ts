// The terms resource's public surface: what other resources may use. Anything else in this folder is its own.
export { recountTerms } from './term-counts';
export { TermsService } from './terms.service';
export type { TermRow } from './terms.service';
export { TermsModule } from './terms.module';
export { TERM_ORDERBY } from './term-schema';
