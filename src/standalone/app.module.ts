import { DynamicModule, Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { CmsHealthIndicator } from '../core/health/cms-health.indicator';
import { CmsEnvironment } from './env';
import { HealthController } from './health.controller';
import { SiteModule } from './site.module';

/**
 * The standalone server: the site (SiteModule: data source and CmsModule, configured from the environment), with
 * health checks (`/health/live`, `/health/ready`). Its logs (pino) are set up in main.ts (see logging.ts).
 */
@Module({})
export class AppModule {
  static fromEnvironment(env: CmsEnvironment): DynamicModule {
    return {
      module: AppModule,
      controllers: [HealthController],
      providers: [CmsHealthIndicator],
      imports: [TerminusModule.forRoot({ logger: false }), SiteModule.fromEnvironment(env)],
    };
  }
}
