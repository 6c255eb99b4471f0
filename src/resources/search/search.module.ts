import { Module } from '@nestjs/common';
import { CmsInternalsModule } from '../../core/internals/cms-internals.module';
import { PostsModule } from '../posts';
import { PostFormatSearcher } from './post-format-searcher';
import { PostSearcher } from './post-searcher';
import { SearchHandlers } from './search.handlers';
import { SearchResource } from './search.resource';
import { SearchService } from './search.service';
import { TermSearcher } from './term-searcher';

/** `search`: one search across posts of every type, terms and post formats (WP_REST_Search_Controller). */
@Module({
  imports: [CmsInternalsModule, PostsModule],
  providers: [SearchService, PostSearcher, TermSearcher, PostFormatSearcher, SearchResource, SearchHandlers],
})
export class SearchModule {}
