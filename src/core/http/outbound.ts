import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { BlockList, isIP } from 'node:net';
import type * as RequestFiltering from 'request-filtering-agent';

/**
 * `request-filtering-agent` is an ES module only: it is loaded through Node's own `require` (which loads ES modules
 * since Node 20.19), reached through `process.getBuiltinModule` so that Jest's CommonJS sandbox, which cannot load
 * an ES module, loads it alike.
 */
const nodeRequire = process.getBuiltinModule('node:module').createRequire(__filename);
const { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } = nodeRequire(
  'request-filtering-agent',
) as typeof RequestFiltering;

/** Why an outbound request failed: stable codes callers may map to their own errors. */
export type OutboundErrorCode =
  'outbound_url_invalid' | 'outbound_target_refused' | 'outbound_timeout' | 'outbound_too_large' | 'outbound_failed';

/** An outbound request that did not get an answer: a refused target, a timeout, an oversized answer, a network error. */
export class OutboundRequestError extends Error {
  constructor(
    readonly code: OutboundErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'OutboundRequestError';
  }
}

/** What {@link outboundRequest} sends, and the bounds it keeps. */
export interface OutboundRequestOptions {
  /** `GET` by default. */
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Deadline for the whole exchange (connection, answer and body); 10 s by default. */
  timeoutMs?: number;
  /** Most bytes of the answer's body read; 1 MiB by default. */
  maxBytes?: number;
  /** Whether private, loopback and link-local targets may be reached (an operator's choice; off by default). */
  allowPrivate?: boolean;
  /**
   * What happens past `maxBytes`: `error` (default) fails with `outbound_too_large`; `truncate` keeps the first
   * `maxBytes` bytes and closes the connection (a webhook receiver's answer is only logged).
   */
  overflow?: 'error' | 'truncate';
}

/** The answer of an outbound request. Redirects are not followed: a 3xx is returned as is. */
export interface OutboundResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_BYTES = 1024 * 1024;

/** Address ranges never reached unless the operator allows private targets (IANA special-purpose registries). */
const PRIVATE_RANGES = (() => {
  const list = new BlockList();
  const v4: Array<[string, number]> = [
    ['0.0.0.0', 8],
    ['10.0.0.0', 8],
    ['100.64.0.0', 10],
    ['127.0.0.0', 8],
    ['169.254.0.0', 16],
    ['172.16.0.0', 12],
    ['192.0.0.0', 24],
    ['192.0.2.0', 24],
    ['192.88.99.0', 24],
    ['192.168.0.0', 16],
    ['198.18.0.0', 15],
    ['198.51.100.0', 24],
    ['203.0.113.0', 24],
    ['224.0.0.0', 4],
    ['240.0.0.0', 4],
  ];
  for (const [net, prefix] of v4) list.addSubnet(net, prefix, 'ipv4');
  const v6: Array<[string, number]> = [
    ['::', 128],
    ['::1', 128],
    ['64:ff9b::', 96],
    ['100::', 64],
    ['2001:db8::', 32],
    ['fc00::', 7],
    ['fe80::', 10],
    ['ff00::', 8],
  ];
  for (const [net, prefix] of v6) list.addSubnet(net, prefix, 'ipv6');
  return list;
})();

/** Whether an IP literal is in a private, loopback, link-local or otherwise special range. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  if (family === 6) {
    const mapped = /^::ffff:(?:(\d+\.\d+\.\d+\.\d+)|([0-9a-f]{1,4}):([0-9a-f]{1,4}))$/i.exec(address);
    if (mapped) {
      // an IPv4-mapped address reaches the IPv4 address it carries
      const high = parseInt(mapped[2] ?? '0', 16);
      const low = parseInt(mapped[3] ?? '0', 16);
      const v4 = mapped[1] ?? [high >> 8, high & 255, low >> 8, low & 255].join('.');
      return PRIVATE_RANGES.check(v4, 'ipv4');
    }
    return PRIVATE_RANGES.check(address, 'ipv6');
  }
  return PRIVATE_RANGES.check(address, 'ipv4');
}

/**
 * Parses and checks an outbound URL before any connection: `http:` or `https:` only, no credentials in it, and,
 * unless `allowPrivate`, no IP literal (nor `localhost`) in a private, loopback or link-local range. Names are
 * checked again at connection time against the address they resolve to (see {@link outboundRequest}).
 *
 * @throws OutboundRequestError `outbound_url_invalid` or `outbound_target_refused`, with a message to show.
 * @example assertOutboundUrl('https://hooks.example.com/cms', false) // → URL
 */
export function assertOutboundUrl(url: string, allowPrivate: boolean): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new OutboundRequestError('outbound_url_invalid', 'The URL is not a valid absolute URL.');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new OutboundRequestError('outbound_url_invalid', 'The URL must use http or https.');
  }
  if (parsed.username || parsed.password) {
    throw new OutboundRequestError('outbound_url_invalid', 'The URL must not carry credentials.');
  }
  if (!allowPrivate) {
    const host = parsed.hostname.replace(/^\[|\]$/g, '').toLowerCase();
    if (host === 'localhost' || host.endsWith('.localhost') || isPrivateAddress(host)) {
      throw new OutboundRequestError(
        'outbound_target_refused',
        `The target ${host} is a private, loopback or link-local address, which this server does not reach.`,
      );
    }
  }
  return parsed;
}

const agents = {
  http: new RequestFilteringHttpAgent({ allowPrivateIPAddress: false }),
  https: new RequestFilteringHttpsAgent({ allowPrivateIPAddress: false }),
  httpPrivate: new RequestFilteringHttpAgent({ allowPrivateIPAddress: true }),
  httpsPrivate: new RequestFilteringHttpsAgent({ allowPrivateIPAddress: true }),
};

/**
 * Sends one HTTP(S) request to a third party with the guards every outbound request needs: the URL checked by
 * {@link assertOutboundUrl}, the address checked again at connection time (after DNS resolution, so a name that
 * resolves to a private address is refused too), a deadline for the whole exchange, and a bound on the bytes read.
 * Redirects are not followed.
 *
 * @throws OutboundRequestError on a refused target, a timeout, an oversized answer or a network error.
 * @example const res = await outboundRequest('https://example.com/a.jpg', { maxBytes: 5 << 20 });
 */
export async function outboundRequest(url: string, options: OutboundRequestOptions = {}): Promise<OutboundResponse> {
  const allowPrivate = options.allowPrivate === true;
  const target = assertOutboundUrl(url, allowPrivate);
  const secure = target.protocol === 'https:';
  const agent = secure
    ? allowPrivate
      ? agents.httpsPrivate
      : agents.https
    : allowPrivate
      ? agents.httpPrivate
      : agents.http;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const body = options.body === undefined ? undefined : Buffer.from(options.body);
  const headers: Record<string, string> = { ...options.headers };
  if (body) headers['content-length'] = String(body.length);
  return await new Promise<OutboundResponse>((resolve, reject) => {
    let settled = false;
    const finish = (error: OutboundRequestError | undefined, response?: OutboundResponse) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error) reject(error);
      else resolve(response!);
    };
    const send = secure ? httpsRequest : httpRequest;
    const req = send(target, { method: options.method ?? 'GET', headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const done = () =>
        finish(undefined, { status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) });
      res.on('data', (chunk: Buffer) => {
        if (settled) return;
        const room = maxBytes - size;
        if (chunk.length > room) {
          if (options.overflow === 'truncate') {
            chunks.push(chunk.subarray(0, room));
            size = maxBytes;
            done();
          } else {
            finish(new OutboundRequestError('outbound_too_large', `The answer is larger than ${maxBytes} bytes.`));
          }
          req.destroy();
          return;
        }
        chunks.push(chunk);
        size += chunk.length;
      });
      res.on('end', done);
      res.on('error', (error) => finish(failure(error)));
    });
    const timer = setTimeout(() => {
      finish(new OutboundRequestError('outbound_timeout', `No complete answer within ${timeoutMs} ms.`));
      req.destroy();
    }, timeoutMs);
    req.on('error', (error) => finish(failure(error)));
    req.end(body);
  });
}

/** Maps a socket or agent error onto an {@link OutboundRequestError} without leaking more than its reason. */
function failure(error: Error): OutboundRequestError {
  if (/is not allowed/.test(error.message)) {
    return new OutboundRequestError(
      'outbound_target_refused',
      'The target resolves to a private, loopback or link-local address, which this server does not reach.',
    );
  }
  const code = (error as NodeJS.ErrnoException).code;
  return new OutboundRequestError('outbound_failed', code ? `The request failed (${code}).` : error.message);
}
