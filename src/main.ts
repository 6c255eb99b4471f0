import 'reflect-metadata';
import cluster from 'node:cluster';
import { availableParallelism } from 'node:os';
import type { Logger as PinoInstance } from 'pino';
import { apiUrl } from './standalone/api-url';
import { CmsEnvironment, loadEnvironment } from './standalone/env';
import { createRootLogger, loggingFromEnvironment } from './standalone/logging';

/**
 * Several processes sharing the port (Node cluster). The first worker prepares the database (migrations, first
 * install) alone; the others start once it listens. A worker that dies is replaced. SIGTERM and SIGINT are
 * passed on to the workers, which stop gracefully; the primary exits 0 once they all have (or after their
 * shutdown timeout and five seconds more).
 */
function superviseWorkers(env: CmsEnvironment, count: number, logger: PinoInstance): void {
  let stopping = false;
  let ready = false;
  const fork = () => cluster.fork();
  // Node's default: the primary hands connections to the workers in turn (even over a few keep-alive connections:
  // about 14 % more cached reads than with `none` at 32 connections). A worker takes a handed-over connection, as it
  // accepts one of its own with NODE_CLUSTER_SCHED_POLICY=none (the load test's setting, see docs/reliability.md),
  // once a turn of its event loop: request pacing (CMS_EVENT_LOOP_SLICE) keeps the turns short under load.
  cluster.setupPrimary({ execArgv: workerExecArgv() });
  cluster.once('listening', () => {
    ready = true;
    for (let i = 1; i < count; i++) fork();
    logger.info({ url: apiUrl(env), workers: count }, `Serving ${apiUrl(env)} with ${count} workers`);
  });
  const workers = () => Object.values(cluster.workers ?? {}).filter((worker) => worker !== undefined);
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) {
      logger.info({ worker: worker.process.pid, code, signal }, `Worker ${worker.process.pid} stopped`);
      if (!workers().length) {
        logger.info('Stopped: all workers stopped');
        process.exit(0);
      }
      return;
    }
    // The first worker could not start (bad database, port taken): stop rather than loop.
    if (!ready) process.exit(code || 1);
    logger.error(
      { worker: worker.process.pid, code, signal },
      `Worker ${worker.process.pid} exited (${signal ?? code}); starting another`,
    );
    fork();
  });
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    const running = workers();
    logger.info({ signal, workers: running.length }, `${signal}: stopping ${running.length} worker(s)`);
    // Straight to each worker's process (worker.kill would first close its listening handle from here).
    for (const worker of running) worker.process.kill(signal);
    if (!running.length) process.exit(0);
    setTimeout(
      () => {
        logger.warn({ workers: workers().length }, 'Workers still running after the shutdown timeout: exiting');
        process.exit(0);
      },
      env.CMS_SHUTDOWN_TIMEOUT * 1000 + 5000,
    ).unref();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  fork();
}

/**
 * Node flags of the workers: the primary's, and a young generation of 64 MB semi-spaces unless one is set (here or
 * in NODE_OPTIONS). A response allocates a lot that dies at once: garbage collection took 20% of the time of
 * `posts?_embed` requests with Node's default (16 MB), 7% with 64 MB.
 */
function workerExecArgv(): string[] {
  const flags = [...process.execArgv];
  const set = [...flags, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].some((flag) =>
    /^--max-semi-space-size\b/.test(flag),
  );
  if (!set) flags.push('--max-semi-space-size=64');
  return flags;
}

async function bootstrap(): Promise<void> {
  let env: CmsEnvironment;
  try {
    env = loadEnvironment();
  } catch (error) {
    console.error((error as Error).message);
    process.exit(1);
  }
  const logger = createRootLogger(loggingFromEnvironment(env));
  const workers = env.CMS_WORKERS === 0 ? availableParallelism() : env.CMS_WORKERS;
  if (cluster.isPrimary && workers > 1) superviseWorkers(env, workers, logger);
  else {
    // Loaded only here: a refused environment fails at once, and a cluster's primary never loads the app.
    const { serve } = await import('./standalone/serve');
    await serve(env, logger);
  }
}

void bootstrap();
