import { DynamicModule, MiddlewareConsumer, Module, NestModule, RequestMethod, Type } from '@nestjs/common';
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
@Module({})
export class CmsHttpModule implements NestModule {
  /** `imports`: the modules whose exports the HTTP side needs (the engine's internals). */
  static register(imports: Array<Type<unknown> | DynamicModule>): DynamicModule {
    return {
      module: CmsHttpModule,
      imports,
      providers: [
        ApiHttpService,
        RequestReader,
        ResponseWriter,
        CacheGate,
        RestRouteMiddleware,
        HostBodyErrors,
        ApiDocs,
      ],
      exports: [ApiHttpService],
    };
  }

  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(RestRouteMiddleware).forRoutes({ path: '/', method: RequestMethod.ALL });
  }
}
