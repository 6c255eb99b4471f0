import { Module } from '@nestjs/common';
import { RequestReader } from '../http/request-reader';
import { CmsInternalsModule } from '../internals/cms-internals.module';
import { BatchHandlers } from './batch.handlers';
import { BatchService } from './batch.service';

/** `batch/v1`: several API requests in one (WP_REST_Server::serve_batch_request_v1). */
@Module({
  imports: [CmsInternalsModule],
  providers: [BatchService, BatchHandlers, RequestReader],
})
export class BatchModule {}
