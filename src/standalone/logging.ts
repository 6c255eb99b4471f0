import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { LoggerService } from '@nestjs/common';
import { Logger as NestPinoLogger, PinoLogger } from 'nestjs-pino';
import pino, { DestinationStream, Logger as PinoInstance } from 'pino';
import { CMS_MATCHED_ROUTE, CMS_USER_ID } from '../core/http/request-marks';

/** Levels `LOG_LEVEL` takes (pino's). */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Query parameters whose values never reach the logs. */
const SECRET_QUERY_PARAMETERS = new Set(['_cmsnonce', '_wpnonce', 'password', 'pass', 'token', 'access_token']);
const REDACTED = '[Redacted]';

/**
 * Headers whose values never reach the logs: credentials (`Authorization`, cookies, the nonce) in both
 * directions. pino's redaction works on the serialized request and response, wherever the header is.
 */
const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers["proxy-authorization"]',
  'req.headers.cookie',
  'req.headers["x-cms-nonce"]',
  'req.headers["x-wp-nonce"]',
  'res.headers["set-cookie"]',
  'res.headers["x-cms-nonce"]',
];

/** An incoming `X-Request-Id` is kept when it is short and plain (no spaces or control characters). */
const REQUEST_ID = /^[\w.:@/+=-]{1,128}$/;

export interface LoggingOptions {
  level: LogLevel;
  /** Readable lines (pino-pretty) instead of JSON. */
  pretty: boolean;
  /** Where lines go (default stdout). */
  destination?: DestinationStream;
}

/**
 * Logging of the standalone server as its environment asks: readable lines in development (`NODE_ENV` not
 * `production` and stdout a terminal), one JSON object per line otherwise, at `LOG_LEVEL`.
 */
export function loggingFromEnvironment(
  env: { LOG_LEVEL: LogLevel },
  stdout: { isTTY?: boolean } = process.stdout,
): LoggingOptions {
  return { level: env.LOG_LEVEL, pretty: process.env.NODE_ENV !== 'production' && stdout.isTTY === true };
}

/**
 * The process's root logger (pino): JSON lines with `time` (ISO), `level` (its name), `pid`, `hostname` and `msg`,
 * secrets redacted; pino-pretty's lines when `pretty`. Writes are synchronous, so the last lines before an exit
 * are not lost.
 */
export function createRootLogger(options: LoggingOptions): PinoInstance {
  const destination =
    options.destination ??
    (options.pretty
      ? // eslint-disable-next-line @typescript-eslint/no-require-imports
        (require('pino-pretty') as typeof import('pino-pretty'))({
          sync: true,
          colorize: true,
          translateTime: 'SYS:HH:MM:ss.l',
          ignore: 'pid,hostname',
        })
      : pino.destination({ dest: 1, sync: true }));
  return pino(
    {
      level: options.level,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: REDACT_PATHS, censor: REDACTED },
    },
    destination,
  );
}

/**
 * Nest's logger writing to the root logger (nestjs-pino), given to `NestFactory.create` so that every line of Nest
 * and of the API — start-up, connection retries, errors — is the root logger's from the first one on.
 */
export function createNestLogger(root: PinoInstance): LoggerService {
  return new NestPinoLogger(new PinoLogger({ pinoHttp: { logger: root } }), {});
}

/** A request's URL with the values of secret query parameters (nonces, passwords) replaced. */
export function redactUrl(url: string | undefined): string | undefined {
  if (!url) return url;
  const at = url.indexOf('?');
  if (at < 0) return url;
  const query = url
    .slice(at + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq < 0 ? pair : pair.slice(0, eq);
      let decoded: string;
      try {
        decoded = decodeURIComponent(name.replace(/\+/g, ' '));
      } catch {
        decoded = name;
      }
      // `password`, `password[...]` and the like.
      const bare = decoded.replace(/\[.*$/, '').toLowerCase();
      return eq >= 0 && SECRET_QUERY_PARAMETERS.has(bare) ? `${name}=${REDACTED}` : pair;
    })
    .join('&');
  return `${url.slice(0, at)}?${query}`;
}

/** Logs one request: called in the server's `request` event, before the request is answered. */
export type RequestLogger = (req: IncomingMessage, res: ServerResponse) => void;

/** What a request line says of the request (its `req`). */
interface RequestFacts {
  id: string;
  method: string | undefined;
  /** Secrets redacted. */
  url: string | undefined;
  remoteAddress: string | undefined;
}

/**
 * The request logger: one line per answered request, when it ends, with the request id (an incoming
 * `X-Request-Id`, else a new UUID; echoed in the response), the method, URL (secrets redacted) and client address
 * (no headers: no credentials), the API route pattern that matched (`route`), the status, the duration in milliseconds
 * (`responseTime`) and the authenticated user's id (`userId`, 0 when anonymous). 5xx answers are logged at
 * `error`, health probes that succeed at `debug`.
 *
 * A request costs one `close` listener and one call of the root logger: Node emits `close` once per response, after
 * it is sent or when its connection is lost first (then the line has the status the response had, as the request
 * is aborted). The line is made of the request's id, method, URL (secrets redacted), address and status only, never
 * headers: the root logger's header redaction, which copies `req` and `res` for every line, is left out of it.
 */
export function createHttpLogger(root: PinoInstance): RequestLogger {
  const log = root.child({}, { redact: [] });
  return (req, res) => {
    const incoming = req.headers['x-request-id'];
    const id = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    res.setHeader('X-Request-Id', id);
    // As the request arrived: routers may rewrite the URL on the way, and the address is gone with the connection.
    const request: RequestFacts = {
      id,
      method: req.method,
      url: redactUrl(req.url),
      remoteAddress: req.socket?.remoteAddress,
    };
    const started = Date.now();
    res.once('close', () => logAnswer(log, req, res, request, started));
  };
}

/** Writes the line of an ended request. */
function logAnswer(
  log: PinoInstance,
  req: IncomingMessage,
  res: ServerResponse,
  request: RequestFacts,
  started: number,
): void {
  const status = res.statusCode;
  const path = pathOf(request.url);
  const level = status >= 500 ? 'error' : status < 400 && path.startsWith('/health/') ? 'debug' : 'info';
  if (!log.isLevelEnabled(level)) return;
  const marks = req as unknown as Record<string, unknown>;
  const route = typeof marks[CMS_MATCHED_ROUTE] === 'string' ? marks[CMS_MATCHED_ROUTE] : undefined;
  const userId = typeof marks[CMS_USER_ID] === 'number' ? marks[CMS_USER_ID] : 0;
  log[level](
    {
      req: request,
      res: { statusCode: status },
      responseTime: Date.now() - started,
      route,
      userId,
    },
    `${request.method} ${route ?? path} ${status}`,
  );
}

/** A URL's path (its query, where secrets may be, left out). */
function pathOf(url: string | undefined): string {
  if (!url) return '/';
  const at = url.indexOf('?');
  return at < 0 ? url : url.slice(0, at);
}

/**
 * Logs every request the server answers, whichever way it is served (the API ahead of Express, or Express):
 * the request logger runs first, in Node's `request` event. Call it after {@link serveApiFirst}.
 */
export function logRequests(server: Server, logger: RequestLogger): void {
  const listeners = server.listeners('request') as RequestListener[];
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    logger(req, res);
    for (const listener of listeners) listener(req, res);
  });
}
