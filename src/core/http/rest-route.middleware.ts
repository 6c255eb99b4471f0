import { Injectable, NestMiddleware } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiHttpService } from './api-http.service';

/**
 * The host's `/`: answers the `?rest_route=/…` form of the API when `restRouteQuery` is on, and gives `/` the API
 * discovery `Link` header. Bound to `/` only: no other host response pays for it or carries API headers.
 */
@Injectable()
export class RestRouteMiddleware implements NestMiddleware {
  constructor(private readonly api: ApiHttpService) {}

  use(req: IncomingMessage, res: ServerResponse, next: () => void): Promise<void> {
    return this.api.serveRestRoute(req, res, next);
  }
}
