import { Module } from '@nestjs/common';
import { CmsInternalsModule } from '../../core/internals/cms-internals.module';

/** `search`: one search across posts of every type, terms and post formats (WP_REST_Search_Controller). */
@Module({
  imports: [CmsInternalsModule],
  providers: [],
})
export class SearchModule {}
