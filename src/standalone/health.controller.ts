import { Controller, Get, Res } from '@nestjs/common';
import { HealthCheck, HealthCheckService, HealthIndicatorResult } from '@nestjs/terminus';
import type { Response } from 'express';
import { CmsHealthIndicator } from '../core/health/cms-health.indicator';
import { isStopping } from './shutdown';

/**
 * Liveness and readiness of the standalone server, outside the API root: never cached, no authentication.
 * `GET /health/live` answers 200 while the process serves requests; `GET /health/ready` answers 200 when the
 * database answers (a Galera node: synced), every migration is applied and the process is not stopping, else 503
 * with terminus's body naming what is down; it also says where the rate limits count (`rateLimits.store`).
 */
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly cms: CmsHealthIndicator,
  ) {}

  @Get('live')
  @HealthCheck()
  live(@Res({ passthrough: true }) res: Response) {
    res.setHeader('Cache-Control', 'no-store');
    return this.health.check([]);
  }

  @Get('ready')
  @HealthCheck()
  ready(@Res({ passthrough: true }) res: Response) {
    res.setHeader('Cache-Control', 'no-store');
    return this.health.check([
      () => this.cms.database(),
      () => this.cms.migrations(),
      () => this.shutdown(),
      () => this.cms.rateLimits(),
    ]);
  }

  private shutdown(): HealthIndicatorResult<'shutdown'> {
    return { shutdown: isStopping() ? { status: 'down', message: 'The server is stopping.' } : { status: 'up' } };
  }
}
