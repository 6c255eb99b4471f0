import { MiddlewareConsumer, Module, NestModule, RequestMethod } from '@nestjs/common';
import { CmsInternalsModule } from '../internals/cms-internals.module';
import { ApiDocs } from './api-docs';
import { ApiHttpService } from './api-http.service';
import { CacheGate } from './cache-gate';
import { RequestReader } from './request-reader';
import { ResponseWriter } from './response-writer';
import { HostBodyErrors } from './host-body-errors';
import { RestRouteMiddleware } from './rest-route.middleware';

/**
 * The API over HTTP: the service behind its Nest route (`restHttpController`, which `CmsModule` declares so that
 * `RouterModule` can mount it with the module) and behind `serveApiFirst`, the `?rest_route=` middleware and the
 * discovery `Link` header on `/`, and body-parser errors of a host answered in the API's shape.
 */
@Module({
  imports: [CmsInternalsModule],
  providers: [ApiHttpService, RequestReader, ResponseWriter, CacheGate, RestRouteMiddleware, HostBodyErrors, ApiDocs],
  exports: [ApiHttpService],
})
export class CmsHttpModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(RestRouteMiddleware).forRoutes({ path: '/', method: RequestMethod.ALL });
  }
}
