import { Module } from '@nestjs/common';
import { CmsInternalsModule } from '../internals/cms-internals.module';

/** `batch/v1`: several API requests in one (WP_REST_Server::serve_batch_request_v1). */
@Module({
  imports: [CmsInternalsModule],
  providers: [],
})
export class BatchModule {}
