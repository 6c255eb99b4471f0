import { Provider } from '@nestjs/common';
import { TaxonomyTermRoutes } from './terms/terms.module-providers';
import { TermsService } from './terms/terms.service';

/** Every resource of the API; each registers its routes when the module initialises. */
export const RESOURCE_PROVIDERS: Provider[] = [TermsService, TaxonomyTermRoutes];
