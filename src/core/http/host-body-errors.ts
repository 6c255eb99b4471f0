import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { NextFunction, Request, Response } from 'express';
import { CMS_OPTIONS, ResolvedCmsOptions } from '../config/cms-options';
import { CoreErrors } from '../errors/error-codes';
import { RestException } from '../errors/rest.exception';

/**
 * When a host app keeps Nest's body parser on, a malformed or oversized body fails before the API sees it.
 * This Express error handler answers those failures on API paths in the API's error shape
 * (`rest_invalid_json` 400, `rest_request_too_large` 413) and leaves every other path to the host.
 */
@Injectable()
export class HostBodyErrors implements OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    @Inject(CMS_OPTIONS) private readonly options: ResolvedCmsOptions,
  ) {}

  onModuleInit(): void {
    const instance = this.adapterHost.httpAdapter?.getInstance?.<{ use?: (fn: unknown) => void } | undefined>();
    if (typeof instance?.use !== 'function') return;
    const prefix = `/${this.options.routePrefix}`;
    instance.use((err: { type?: string }, req: Request, res: Response, next: NextFunction) => {
      const path = req.path ?? '';
      // The prefix may sit below a host's global prefix or RouterModule path (`/api/cms-json/…`).
      const isApi = path.endsWith(prefix) || path.includes(`${prefix}/`) || typeof req.query?.rest_route === 'string';
      const known =
        err?.type === 'entity.parse.failed'
          ? CoreErrors.invalidJson
          : err?.type === 'entity.too.large'
            ? CoreErrors.tooLarge
            : null;
      if (!isApi || !known || res.headersSent) return next(err);
      const error = new RestException(known[0], known[1], known[2]);
      res.status(error.status).type('application/json; charset=UTF-8').send(JSON.stringify(error.toBody()));
    });
  }
}
