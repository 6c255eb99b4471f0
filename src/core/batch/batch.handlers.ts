import { Injectable } from '@nestjs/common';
import { RestRequest } from '../rest/rest-request';
import { Allow, RestRoute } from '../rest/rest-route.decorator';
import { BATCH_ARGS } from './batch-args';
import { BatchService } from './batch.service';

/**
 * `POST /batch/v1`, outside every namespace as WordPress declares it (in WP_REST_Server's constructor, not with
 * `register_rest_route`): the index lists the route, not a namespace. Open to everyone: each request of the batch
 * has its own permission checks.
 */
@Injectable()
export class BatchHandlers {
  constructor(private readonly batch: BatchService) {}

  @RestRoute('/batch/v1', { namespace: '', methods: 'POST', args: BATCH_ARGS })
  @Allow.public()
  serve(req: RestRequest) {
    return this.batch.serve(req);
  }
}
