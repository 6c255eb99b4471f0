import { All, Controller, Inject, InternalServerErrorException, Req, Res, Type } from '@nestjs/common';
import type { Request, Response } from 'express';
import { ApiHttpService } from './api-http.service';
import { CoreErrors } from '../errors/error-codes';
import { RestException } from '../errors/rest.exception';

import { CMS_MATCHED_ROUTE } from './request-marks';

export { CMS_MATCHED_ROUTE };

/**
 * The API's one Nest route: a controller at the route prefix answering every method below it, so the host's
 * global guards, interceptors, pipes and exception filters, `setGlobalPrefix`, `RouterModule` and APM
 * instrumentations see API requests as they see the host's own. The route pattern that matched is left on the
 * request (`req.cmsMatchedRoute`, and `req.route.path` for instrumentations that read Express's). An error no API
 * handler expected is thrown on as a 500 `HttpException` carrying the API's error body, with the error as `cause`,
 * so the host's filters see it (and Nest's default answer keeps the API's error shape).
 *
 * Built per module definition: the route prefix is structure (`CmsModule.forRoot({ routePrefix })`).
 */
export function restHttpController(routePrefix: string): Type<unknown> {
  @Controller(routePrefix)
  class RestHttpController {
    constructor(@Inject(ApiHttpService) private readonly api: ApiHttpService) {}

    @All(['', '{*path}'])
    async serve(@Req() req: Request, @Res() res: Response): Promise<void> {
      const outcome = await this.api.serveMounted(req, res);
      if (outcome.matchedRoute) {
        (req as unknown as Record<string, unknown>)[CMS_MATCHED_ROUTE] = outcome.matchedRoute;
        const route = (req as { route?: { path?: unknown } }).route;
        if (route && typeof route === 'object') route.path = outcome.matchedRoute;
      }
      if (outcome.unexpected !== undefined) {
        this.api.writeHeadersOnly(res, req);
        throw new InternalServerErrorException(new RestException(...CoreErrors.internal).toBody(), {
          cause: outcome.unexpected,
        });
      }
    }
  }
  return RestHttpController;
}
