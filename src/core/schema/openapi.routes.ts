import { Injectable } from '@nestjs/common';
import { RestRoute } from '../rest/rest-route.decorator';
import { RestRequest } from '../rest/rest-request';
import { OpenApiDocument } from './openapi-document';

/**
 * `GET /openapi.json` (at the API root, `/cms-json/openapi.json`): the OpenAPI 3.1 description of every route. A
 * route of the table like the index, so it is served wherever the API is (ahead of Express, behind a host's
 * middleware, under its global prefix, and as `?rest_route=/openapi.json`) with the API's headers; it is not listed
 * in the index.
 */
@Injectable()
export class OpenApiRoutes {
  constructor(private readonly document: OpenApiDocument) {}

  @RestRoute('/openapi\\.json', { namespace: '', methods: 'GET', showInIndex: false })
  openapi(req: RestRequest) {
    return this.document.forServer(req.ctx.restUrl(''));
  }
}
