import type { ServerResponse } from 'node:http';
import cluster from 'node:cluster';
import { resolve } from 'node:path';
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import compression from 'compression';
import type { Logger as PinoInstance } from 'pino';
import { serveApiFirst } from '../core/http/api-front';
import { MEDIA_STORAGE, MediaStorage } from '../core/config/media-storage';
import { serveStoredFiles } from './stored-files';
import { AppModule } from './app.module';
import { apiUrl } from './api-url';
import { CmsEnvironment, parseSize } from './env';
import { createHttpLogger, createNestLogger, logRequests } from './logging';
import { paceRequests } from './request-pacing';
import { applyServerLimits, limitsFromEnvironment, LISTEN_BACKLOG } from './server-limits';
import { exitOnSignalsWhileStarting, stopGracefullyOnSignals } from './shutdown';

/**
 * One server process: the Nest app (AppModule) on `env.PORT`, with its uploads, limits, pacing, request log and
 * graceful stop. main.ts loads this module only in a process that serves (not in a cluster's primary, nor when the
 * environment is refused).
 */
export async function serve(env: CmsEnvironment, logger: PinoInstance): Promise<void> {
  exitOnSignalsWhileStarting(logger);
  // The API parses bodies itself (size limits, rest_invalid_json), so Nest's body parser stays off. Nest logs
  // through pino (nestjs-pino) from its first line.
  const app = await NestFactory.create<NestExpressApplication>(AppModule.fromEnvironment(env), {
    bodyParser: false,
    logger: createNestLogger(logger),
  });
  app.set('trust proxy', 'loopback');
  app.disable('x-powered-by');
  // Uploaded files, where their URLs point by default: content types, ETag and ranges (serve-static), kept for a year
  // (a stored file never changes: a new upload gets a new name).
  if (env.CMS_SERVE_UPLOADS === 'true') {
    if (env.CMS_COMPRESSION === 'on') {
      // Text files (CSV, SVG, JSON…) compressed; ranges are served from the identity file.
      const threshold = parseSize(env.CMS_COMPRESSION_THRESHOLD);
      app.use(
        '/wp-content/uploads/',
        compression({ threshold, filter: (req, res) => !req.headers.range && compression.filter(req, res) }),
      );
    }
    const storage = app.get<MediaStorage>(MEDIA_STORAGE, { strict: false });
    // Files in a bucket: streamed from it, so that the default URLs work on every node of a fleet.
    if (storage.open) app.use('/wp-content/uploads/', serveStoredFiles(storage));
    else
      app.useStaticAssets(resolve(env.CMS_UPLOAD_DIR), {
        prefix: '/wp-content/uploads/',
        index: false,
        dotfiles: 'deny',
        maxAge: '365d',
        immutable: true,
        fallthrough: true,
        setHeaders: (res: ServerResponse) => {
          res.setHeader('X-Content-Type-Options', 'nosniff');
        },
      });
  }
  await app.init();
  const server = app.getHttpServer();
  applyServerLimits(server, limitsFromEnvironment(env));
  if (env.CMS_SERVE_API_FIRST === 'true') serveApiFirst(app);
  paceRequests(server, env.CMS_EVENT_LOOP_SLICE);
  if (env.CMS_REQUEST_LOG === 'on') logRequests(server, createHttpLogger(logger));
  stopGracefullyOnSignals(app, { timeoutMs: env.CMS_SHUTDOWN_TIMEOUT * 1000, logger });
  await app.listen(env.PORT, LISTEN_BACKLOG as never);
  if (cluster.isPrimary) logger.info({ url: apiUrl(env) }, `Serving ${apiUrl(env)}`);
}
