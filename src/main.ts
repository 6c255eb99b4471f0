import 'reflect-metadata';
import cluster from 'node:cluster';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { serveApiFirst } from './core/http/api-front';
import { WireNames } from './core/wire-names';
import { AppModule } from './standalone/app.module';
import { CmsEnvironment, loadEnvironment } from './standalone/env';

async function serve(env: CmsEnvironment): Promise<void> {
  // The API parses bodies itself (size limits, rest_invalid_json), so Nest's body parser stays off.
  const app = await NestFactory.create<NestExpressApplication>(AppModule.fromEnvironment(env), { bodyParser: false });
  app.set('trust proxy', 'loopback');
  app.disable('x-powered-by');
  app.enableShutdownHooks();
  // Uploaded files, where their URLs point by default: content types, ETag and ranges (serve-static), kept for a year
  // (a stored file never changes: a new upload gets a new name).
  if (env.CMS_SERVE_UPLOADS === 'true') {
    app.useStaticAssets(resolve(env.CMS_UPLOAD_DIR), {
      prefix: '/wp-content/uploads/',
      index: false,
      dotfiles: 'deny',
      maxAge: '365d',
      immutable: true,
      fallthrough: true,
      setHeaders: (res) => res.setHeader('X-Content-Type-Options', 'nosniff'),
    });
  }
  await app.init();
  if (env.CMS_SERVE_API_FIRST === 'true') serveApiFirst(app);
  await app.listen(env.PORT);
  if (cluster.isPrimary) new Logger('cms-api').log(`Serving ${env.CMS_BASE_URL ?? `http://localhost:${env.PORT}`}/${WireNames.of(env.CMS_WIRE_NAMES).root}/`);
}

/**
 * Several processes sharing the port (Node cluster). The first worker prepares the database (migrations, first
 * install) alone; the others start once it listens. A worker that dies is replaced.
 */
function superviseWorkers(env: CmsEnvironment, count: number): void {
  const logger = new Logger('cms-api');
  let stopping = false;
  let ready = false;
  const fork = () => cluster.fork();
  cluster.setupPrimary({ execArgv: workerExecArgv() });
  cluster.once('listening', () => {
    ready = true;
    for (let i = 1; i < count; i++) fork();
    logger.log(`Serving ${env.CMS_BASE_URL ?? `http://localhost:${env.PORT}`}/${WireNames.of(env.CMS_WIRE_NAMES).root}/ with ${count} workers`);
  });
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) return;
    // The first worker could not start (bad database, port taken): stop rather than loop.
    if (!ready) process.exit(code || 1);
    logger.error(`Worker ${worker.process.pid} exited (${signal ?? code}); starting another`);
    fork();
  });
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      stopping = true;
      for (const worker of Object.values(cluster.workers ?? {})) worker?.kill(signal);
      setTimeout(() => process.exit(0), 10_000).unref();
      cluster.on('exit', () => {
        if (!Object.keys(cluster.workers ?? {}).length) process.exit(0);
      });
    });
  }
  fork();
}

/**
 * Node flags of the workers: the primary's, and a young generation of 64 MB semi-spaces unless one is set (here or
 * in NODE_OPTIONS). A response allocates a lot that dies at once: garbage collection took 20% of the time of
 * `posts?_embed` requests with Node's default (16 MB), 7% with 64 MB.
 */
function workerExecArgv(): string[] {
  const flags = [...process.execArgv];
  const set = [...flags, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].some((flag) => /^--max-semi-space-size\b/.test(flag));
  if (!set) flags.push('--max-semi-space-size=64');
  return flags;
}

async function bootstrap(): Promise<void> {
  let env: CmsEnvironment;
  try {
    env = loadEnvironment();
  } catch (error) {
    // eslint-disable-next-line no-console
    console.error((error as Error).message);
    process.exit(1);
  }
  const workers = env.CMS_WORKERS === 0 ? availableParallelism() : env.CMS_WORKERS;
  if (cluster.isPrimary && workers > 1) superviseWorkers(env, workers);
  else await serve(env);
}

void bootstrap();
