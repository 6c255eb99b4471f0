import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { CmsEnvironment, parseSize } from './env';

/** The limits of the standalone server's HTTP connections (see {@link limitsFromEnvironment}). */
export interface ServerLimits {
  /** Milliseconds a client gets to send a whole request (`server.requestTimeout`); 0: no limit. */
  requestTimeoutMs: number;
  /** Milliseconds a client gets to send the request head (`server.headersTimeout`). */
  headersTimeoutMs: number;
  /** Milliseconds an idle keep-alive connection stays open (`server.keepAliveTimeout`). */
  keepAliveTimeoutMs: number;
  /** Largest request head in bytes (`server.maxHeaderSize`). */
  maxHeaderSize: number;
}

/**
 * How often the server looks for requests past their timeouts. Node's default (30 s) lets a request outlive its
 * timeout by up to 30 s; a second keeps the timeouts what they say, for a walk over the open connections.
 */
const CONNECTIONS_CHECKING_INTERVAL_MS = 1000;

/** How long a connection refused by {@link applyServerLimits} stays open for the client to read the answer. */
const LINGER_MS = 2000;

/** Connections the kernel may queue before the server accepts them (Node's default is 511; Linux caps it at somaxconn). */
export const LISTEN_BACKLOG = 4096;

export function limitsFromEnvironment(env: CmsEnvironment): ServerLimits {
  return {
    requestTimeoutMs: env.CMS_REQUEST_TIMEOUT * 1000,
    headersTimeoutMs: env.CMS_HEADERS_TIMEOUT * 1000,
    keepAliveTimeoutMs: env.CMS_KEEPALIVE_TIMEOUT * 1000,
    maxHeaderSize: parseSize(env.CMS_MAX_HEADER_SIZE),
  };
}

/** The JSON error the API answers with, for the requests Node refuses before they reach it. */
function clientErrorAnswer(error: NodeJS.ErrnoException): {
  status: number;
  reason: string;
  code: string;
  message: string;
} {
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    return {
      status: 431,
      reason: 'Request Header Fields Too Large',
      code: 'rest_headers_too_large',
      message: 'The request headers are too large.',
    };
  }
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return {
      status: 408,
      reason: 'Request Timeout',
      code: 'rest_request_timeout',
      message: 'The request was not received in time.',
    };
  }
  return { status: 400, reason: 'Bad Request', code: 'rest_bad_request', message: 'The request is not valid HTTP.' };
}

/**
 * A request line's start: a method (a token) and a space, then a request target (origin, asterisk or absolute form);
 * at the start of a line, where llhttp reads one (it skips empty lines before it).
 */
const REQUEST_LINE = /(?:^|\n)([!#$%&'*+.^_`|~0-9A-Za-z-]+) (?:\/|\*|[A-Za-z][A-Za-z0-9+.-]*:\/\/)/g;

/**
 * The method of the request a client takes the answer to a refused request for: the oldest on the connection not
 * answered yet (HTTP/1.1 answers in order), when one is (a timeout while its body was read, or a request refused
 * behind it in the same read); else the refused one, from the bytes Node was parsing when it failed (`rawPacket`,
 * up to where it failed): the last request line in them. Undefined when neither tells it: a head that is not
 * finished (a timeout), or whose request line came in an earlier read than the one that failed (Node keeps no
 * earlier read).
 */
export function answeredRequestMethod(
  error: { code?: string; rawPacket?: unknown; bytesParsed?: unknown },
  socket: Duplex,
): string | undefined {
  const pending = (socket as Duplex & { _httpMessage?: { req?: { method?: string } } })._httpMessage?.req;
  if (pending) return pending.method;
  if (!Buffer.isBuffer(error.rawPacket)) return undefined;
  const parsed =
    typeof error.bytesParsed === 'number'
      ? Math.min(error.bytesParsed + 1, error.rawPacket.length)
      : error.rawPacket.length;
  // Latin-1 maps each byte to one character: positions in the text are positions in the bytes.
  const text = error.rawPacket.toString('latin1', 0, parsed);
  let method: string | undefined;
  for (const match of text.matchAll(REQUEST_LINE)) method = match[1];
  return method;
}

/**
 * Applies the limits to the server (before it listens) and answers what Node refuses on its own — a request head
 * over `maxHeaderSize` (431), a head or a whole request not received in time (408), a request that is not HTTP
 * (400) — with the API's JSON error, then closes the connection, as Node does with an empty body. The answer to a
 * HEAD request has the same head and no body (see {@link answeredRequestMethod} for when the method is known). A
 * connection whose answer has begun, or that the client already closed, is only closed.
 */
export function applyServerLimits(server: Server, limits: ServerLimits): void {
  server.requestTimeout = limits.requestTimeoutMs;
  server.headersTimeout = limits.headersTimeoutMs;
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  // Both read later: the head size by each new connection, the interval when the server starts listening.
  Object.assign(server, {
    maxHeaderSize: limits.maxHeaderSize,
    connectionsCheckingInterval: CONNECTIONS_CHECKING_INTERVAL_MS,
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    const pending = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (error.code === 'ECONNRESET' || !socket.writable || pending?.headersSent) {
      socket.destroy();
      return;
    }
    const answer = clientErrorAnswer(error);
    const body = JSON.stringify({ code: answer.code, message: answer.message, data: { status: answer.status } });
    // An answer to HEAD has no body (a client reads none, and takes the bytes that follow for an error): the head
    // alone, its Content-Length the body's that a GET is answered with.
    const head = answeredRequestMethod(error, socket) === 'HEAD';
    socket.end(
      `HTTP/1.1 ${answer.status} ${answer.reason}\r\nContent-Type: application/json; charset=UTF-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${head ? '' : body}`,
    );
    // What the client still sends is read and dropped (closing with unread data would reset the connection before
    // the client reads the answer); the connection is closed when the client closes it, or after a moment.
    socket.resume();
    setTimeout(() => socket.destroy(), LINGER_MS).unref();
  });
}
