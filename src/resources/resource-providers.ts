import { Provider } from '@nestjs/common';
import { StatusesController } from './statuses/statuses.controller';
import { TaxonomiesController } from './taxonomies/taxonomies.controller';
import { TypesController } from './types/types.controller';

/** Every resource of the API; each registers its routes when the module initialises. */
export const RESOURCE_PROVIDERS: Provider[] = [TypesController, StatusesController, TaxonomiesController];
