import { DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CmsModule } from '../cms.module';
import { buildDataSourceOptions } from '../core/database/data-source-options';
import {
  CmsEnvironment,
  initialAdminFromEnvironment,
  objectStorageFromEnvironment,
  webhooksFromEnvironment,
  parseSize,
  replicaUrlsFromEnvironment,
} from './env';

/**
 * The site the standalone server and the CLI serve, configured from the environment: its data source and CmsModule
 * (global: its services are the whole application's). The server adds its health checks (AppModule); the CLI needs
 * no more than this.
 */
@Module({})
export class SiteModule {
  static fromEnvironment(env: CmsEnvironment): DynamicModule {
    return {
      module: SiteModule,
      imports: [
        TypeOrmModule.forRoot(
          buildDataSourceOptions({
            databaseUrl: env.DATABASE_URL,
            tablePrefix: env.CMS_TABLE_PREFIX,
            timeoutMs: env.CMS_DB_TIMEOUT * 1000,
            replicaUrls: replicaUrlsFromEnvironment(env),
            replicaMaxLagSeconds: env.CMS_REPLICA_MAX_LAG,
          }),
        ),
        CmsModule.forRoot({
          baseUrl: env.CMS_BASE_URL,
          serveSiteRoot: true,
          restRouteQuery: true,
          siteUrl: env.CMS_BASE_URL ?? `http://localhost:${env.PORT}`,
          tablePrefix: env.CMS_TABLE_PREFIX,
          uploadDir: env.CMS_UPLOAD_DIR,
          bodyLimit: parseSize(env.CMS_BODY_LIMIT),
          uploadLimit: parseSize(env.CMS_UPLOAD_LIMIT),
          uploadsUrl: env.CMS_UPLOADS_URL,
          objectStorage: objectStorageFromEnvironment(env),
          redisUrl: env.CMS_REDIS_URL,
          redisKeyPrefix: env.CMS_REDIS_PREFIX,
          authSecret: env.CMS_AUTH_SECRET,
          readAfterWriteSeconds: env.CMS_READ_AFTER_WRITE,
          siteTitle: env.CMS_SITE_TITLE,
          runMigrations: env.CMS_MIGRATIONS_RUN === 'true',
          initialAdmin: initialAdminFromEnvironment(env),
          rateLimit: { max: env.CMS_RATE_LIMIT_MAX, windowSeconds: env.CMS_RATE_LIMIT_WINDOW },
          passwordHash: env.CMS_PASSWORD_HASH,
          wireNames: env.CMS_WIRE_NAMES,
          responseCache:
            env.CMS_RESPONSE_CACHE === 'off' ? false : { maxBytes: parseSize(env.CMS_RESPONSE_CACHE_BYTES) },
          memos: env.CMS_MEMOS === undefined ? undefined : env.CMS_MEMOS === 'on',
          stampTriggers: env.CMS_STAMP_TRIGGERS,
          compression: env.CMS_COMPRESSION === 'on' && { threshold: parseSize(env.CMS_COMPRESSION_THRESHOLD) },
          webhooks: webhooksFromEnvironment(env),
        }),
      ],
    };
  }
}
