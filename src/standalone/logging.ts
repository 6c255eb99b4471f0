import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { LoggerService } from '@nestjs/common';
import { Logger as NestPinoLogger, PinoLogger } from 'nestjs-pino';
import pino, { DestinationStream, Logger as PinoInstance } from 'pino';
import { pinoHttp, HttpLogger } from 'pino-http';

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

/** Where the user a request authenticated as is left on it, for the request log (see ApiHttpService). */
const CMS_USER_ID = 'cmsUserId';
const CMS_MATCHED_ROUTE = 'cmsMatchedRoute';

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
export function loggingFromEnvironment(env: { LOG_LEVEL: LogLevel }, stdout: { isTTY?: boolean } = process.stdout): LoggingOptions {
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
        (require('pino-pretty') as typeof import('pino-pretty'))({ sync: true, colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' })
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

/**
 * The request logger: one line per answered request, when it ends, with the request id (an incoming
 * `X-Request-Id`, else a new UUID; echoed in the response), the method, URL (secrets redacted) and client address
 * (no headers: no credentials), the API route pattern that matched (`route`), the status, the duration in milliseconds
 * (`responseTime`) and the authenticated user's id (`userId`, 0 when anonymous). 5xx answers are logged at
 * `error`, health probes that succeed at `debug`.
 */
export function createHttpLogger(root: PinoInstance): HttpLogger {
  return pinoHttp({
    logger: root,
    genReqId: (req: IncomingMessage, res: ServerResponse) => {
      const incoming = req.headers['x-request-id'];
      const id = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
      res.setHeader('X-Request-Id', id);
      return id;
    },
    // The line names the request without its headers: credentials (Authorization, cookies, nonces) never reach
    // the log, and the line stays short (serializing every header both ways halved the throughput of small answers).
    // pino-http's own serializers are bypassed: they copy every header first.
    wrapSerializers: false,
    serializers: {
      req: (req: IncomingMessage & { id?: unknown }) => ({
        id: req.id,
        method: req.method,
        url: redactUrl(req.url),
        remoteAddress: req.socket?.remoteAddress,
      }),
      res: (res: ServerResponse) => ({ statusCode: res.statusCode }),
    },
    customLogLevel: (req, res, err) => {
      if (err || res.statusCode >= 500) return 'error';
      if (res.statusCode < 400 && (req.url ?? '').startsWith('/health/')) return 'debug';
      return 'info';
    },
    customSuccessObject: (req, _res, value) => ({ ...value, ...requestFacts(req) }),
    customErrorObject: (req, _res, _error, value) => ({ ...value, ...requestFacts(req) }),
    customSuccessMessage: (req, res) => `${req.method} ${routeOf(req)} ${res.statusCode}`,
    customErrorMessage: (req, res) => `${req.method} ${routeOf(req)} ${res.statusCode}`,
  });
}

function routeOf(req: IncomingMessage): string {
  const route = (req as unknown as Record<string, unknown>)[CMS_MATCHED_ROUTE];
  return typeof route === 'string' ? route : (redactUrl(req.url) ?? '/').split('?')[0];
}

/** The API's facts about a request: the route pattern that matched and the user (0: anonymous). */
function requestFacts(req: IncomingMessage): { route?: string; userId: number } {
  const facts = req as unknown as Record<string, unknown>;
  const route = facts[CMS_MATCHED_ROUTE];
  const userId = facts[CMS_USER_ID];
  return { route: typeof route === 'string' ? route : undefined, userId: typeof userId === 'number' ? userId : 0 };
}

/**
 * Logs every request the server answers, whichever way it is served (the API ahead of Express, or Express):
 * the request logger runs first, in Node's `request` event. Call it after {@link serveApiFirst}.
 */
export function logRequests(server: Server, logger: HttpLogger): void {
  const listeners = server.listeners('request') as RequestListener[];
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    logger(req, res);
    for (const listener of listeners) listener(req, res);
  });
}
