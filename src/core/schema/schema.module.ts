import { Module } from '@nestjs/common';
import { IndexRoutes } from './index-routes';
import { OpenApiDocument } from './openapi-document';
import { OpenApiRoutes } from './openapi.routes';
import { RouteDescriber } from '../rest/route-describer';
import { SchemaRegistry } from './schema-registry.service';

/**
 * What the API says about itself: route descriptions for OPTIONS, the index and namespace indexes, `context=help`,
 * and the OpenAPI document.
 */
@Module({
  providers: [
    SchemaRegistry,
    { provide: RouteDescriber, useExisting: SchemaRegistry },
    IndexRoutes,
    OpenApiDocument,
    OpenApiRoutes,
  ],
  exports: [SchemaRegistry, RouteDescriber, OpenApiDocument],
})
export class SchemaModule {}
