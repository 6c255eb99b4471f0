import { Provider } from '@nestjs/common';
import { PostTypeRoutes } from './posts/posts.module-providers';
import { PostsService } from './posts/posts.service';
import { PostWriter } from './posts/post-writer.service';
import { FuturePosts } from './posts/future-posts.service';
import { TaxonomyTermRoutes } from './terms/terms.module-providers';
import { TermsService } from './terms/terms.service';

/** Every resource of the API; each registers its routes when the module initialises. */
export const RESOURCE_PROVIDERS: Provider[] = [PostsService, PostWriter, FuturePosts, PostTypeRoutes, TermsService, TaxonomyTermRoutes];
