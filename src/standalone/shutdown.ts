import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { INestApplication } from '@nestjs/common';
import type { Logger as PinoInstance } from 'pino';

let stopping = false;

/** Whether this process has begun to stop (readiness then reports `down`). */
export function isStopping(): boolean {
  return stopping;
}

const early: Array<[NodeJS.Signals, (signal: NodeJS.Signals) => void]> = [];

/**
 * Until the server is ready ({@link stopGracefullyOnSignals}), SIGTERM and SIGINT end the process at once with
 * exit code 0 (nothing is in flight yet), logged, instead of killing it.
 */
export function exitOnSignalsWhileStarting(logger: PinoInstance): void {
  for (const name of ['SIGTERM', 'SIGINT'] as const) {
    const handler = (signal: NodeJS.Signals) => {
      logger.info({ signal, code: 0 }, `${signal}: stopped while starting`);
      process.exit(0);
    };
    early.push([name, handler]);
    process.on(name, handler);
  }
}

/**
 * Graceful shutdown of a server process on SIGTERM and SIGINT: the server stops accepting connections and closes
 * its idle keep-alive ones, requests in flight are answered (their connections closed after the answer) for at
 * most `timeoutMs`, after which the remaining connections are closed; then the app is closed (its shutdown hooks
 * run and the database connection is closed) and the process exits 0 (1 when closing failed). Each step is logged.
 * Call it once the server's request listeners are in place (after `serveApiFirst`).
 */
export function stopGracefullyOnSignals(
  app: INestApplication,
  options: { timeoutMs: number; logger: PinoInstance },
): void {
  const { logger, timeoutMs } = options;
  const server = app.getHttpServer() as Server;
  const inFlight = new Set<ServerResponse>();
  // One listener for every response (`close` is emitted once), not a closure each.
  function answered(this: ServerResponse): void {
    inFlight.delete(this);
    if (stopping) server.closeIdleConnections();
  }
  server.prependListener('request', (_req: IncomingMessage, res: ServerResponse) => {
    // A request that arrives on a kept-alive connection while stopping is answered, and its connection closed.
    if (stopping) res.shouldKeepAlive = false;
    inFlight.add(res);
    res.on('close', answered);
  });
  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info(
      { signal, inFlight: inFlight.size, timeoutMs },
      `${signal}: stopping; no new connections, waiting for requests in flight`,
    );
    for (const res of inFlight) if (!res.headersSent) res.shouldKeepAlive = false;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    let timer: NodeJS.Timeout | undefined;
    const timedOut = await Promise.race([
      closed.then(() => false),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), timeoutMs))),
    ]);
    clearTimeout(timer);
    if (timedOut) {
      logger.warn(
        { inFlight: inFlight.size },
        `Requests still in flight after ${timeoutMs} ms: closing their connections`,
      );
      server.closeAllConnections();
    }
    let code = 0;
    try {
      await app.close();
    } catch (error) {
      code = 1;
      logger.error({ err: error }, 'Closing the application failed');
    }
    logger.info({ signal, code }, 'Stopped: requests answered, database closed');
    process.exit(code);
  };
  for (const [name, handler] of early.splice(0)) process.off(name, handler);
  process.on('SIGTERM', (signal) => void stop(signal));
  process.on('SIGINT', (signal) => void stop(signal));
}
