import { createServer, request as httpRequest, Server, ServerResponse, IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { markMatchedRoute, markUser } from '../core/http/request-marks';
import {
  createHttpLogger,
  createRootLogger,
  loggingFromEnvironment,
  logRequests,
  LogLevel,
  redactUrl,
} from './logging';

type Line = Record<string, any>;

/** A server whose requests are logged into `lines`, answering with `handler`. */
async function loggedServer(
  level: LogLevel,
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<{ server: Server; lines: Line[] }> {
  const lines: Line[] = [];
  const root = createRootLogger({
    level,
    pretty: false,
    destination: { write: (text: string) => void lines.push(JSON.parse(text)) },
  });
  const server = createServer(handler);
  logRequests(server, createHttpLogger(root));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, lines };
}

function get(
  server: Server,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: IncomingMessage['headers'] }> {
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    httpRequest({ host: '127.0.0.1', port, path, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
    })
      .on('error', reject)
      .end();
  });
}

/** The log is written when the response finishes, after the client may have read it. */
async function lineFor(lines: Line[], id: string): Promise<Line> {
  for (let i = 0; i < 50; i++) {
    const line = lines.find((l) => l.req?.id === id);
    if (line) return line;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`no log line for ${id}: ${JSON.stringify(lines)}`);
}

describe('redactUrl', () => {
  it.each([
    ['/cms-json/cms/v2/posts?_cmsnonce=abc&page=2', '/cms-json/cms/v2/posts?_cmsnonce=[Redacted]&page=2'],
    ['/?rest_route=/cms/v2/posts/1&password=hunter2', '/?rest_route=/cms/v2/posts/1&password=[Redacted]'],
    [
      '/x?_wpnonce=1&PASSWORD=2&password%5B0%5D=3',
      '/x?_wpnonce=[Redacted]&PASSWORD=[Redacted]&password%5B0%5D=[Redacted]',
    ],
    ['/x?passwordless=1&nonce', '/x?passwordless=1&nonce'],
    ['/cms-json/', '/cms-json/'],
  ])('%s', (url, expected) => expect(redactUrl(url)).toBe(expected));
});

describe('loggingFromEnvironment', () => {
  const saved = process.env.NODE_ENV;
  afterEach(() => (process.env.NODE_ENV = saved));

  it('is readable on a terminal outside production, JSON otherwise', () => {
    process.env.NODE_ENV = 'development';
    expect(loggingFromEnvironment({ LOG_LEVEL: 'debug' }, { isTTY: true })).toEqual({ level: 'debug', pretty: true });
    expect(loggingFromEnvironment({ LOG_LEVEL: 'info' }, { isTTY: false }).pretty).toBe(false);
    process.env.NODE_ENV = 'production';
    expect(loggingFromEnvironment({ LOG_LEVEL: 'info' }, { isTTY: true }).pretty).toBe(false);
  });
});

describe('request log', () => {
  let server: Server;
  let lines: Line[];

  beforeAll(async () => {
    ({ server, lines } = await loggedServer('info', (req, res) => {
      if (req.url?.startsWith('/cms-json/cms/v2/posts/')) {
        markMatchedRoute(req, '/cms/v2/posts/(?P<id>[\\d]+)');
        markUser(req, { id: req.headers.authorization ? 7 : 0 });
      }
      if (req.url === '/boom') res.statusCode = 500;
      res.setHeader('Set-Cookie', 'cms_session=session-secret; HttpOnly');
      res.setHeader('X-CMS-Nonce', 'nonce-secret');
      res.end('{}');
    }));
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it('writes one JSON line per request: id, method, route pattern, status, duration, user', async () => {
    const answer = await get(server, '/cms-json/cms/v2/posts/12?context=edit', {
      'X-Request-Id': 'trace-abc.1',
      Authorization: 'Basic YWxpY2U6c2VjcmV0',
    });
    expect(answer.headers['x-request-id']).toBe('trace-abc.1');
    const line = await lineFor(lines, 'trace-abc.1');
    expect(line).toMatchObject({
      level: 'info',
      msg: 'GET /cms/v2/posts/(?P<id>[\\d]+) 200',
      route: '/cms/v2/posts/(?P<id>[\\d]+)',
      userId: 7,
      req: { id: 'trace-abc.1', method: 'GET', url: '/cms-json/cms/v2/posts/12?context=edit' },
      res: { statusCode: 200 },
      pid: process.pid,
    });
    expect(typeof line.responseTime).toBe('number');
    expect(new Date(line.time).toISOString()).toBe(line.time);
    expect(lines.filter((l) => l.req?.id === 'trace-abc.1')).toHaveLength(1);
  });

  it('generates a request id when none (or an unusable one) comes, and echoes it', async () => {
    const sent: Array<Record<string, string>> = [
      {},
      { 'X-Request-Id': 'has spaces\tand tabs' },
      { 'X-Request-Id': 'x'.repeat(200) },
    ];
    for (const headers of sent) {
      const answer = await get(server, '/cms-json/cms/v2/posts/3', headers);
      const id = answer.headers['x-request-id'] as string;
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      expect((await lineFor(lines, id)).userId).toBe(0);
    }
  });

  it('logs no headers either way (no credentials) and redacts secrets in the query', async () => {
    const answer = await get(server, '/cms-json/cms/v2/posts/5?_cmsnonce=query-nonce&password=query-password', {
      Authorization: 'Basic YWxpY2U6c2VjcmV0',
      Cookie: 'cms_session=cookie-secret',
      'X-CMS-Nonce': 'header-nonce',
      'X-Request-Id': 'redaction-1',
    });
    expect(answer.status).toBe(200);
    const line = await lineFor(lines, 'redaction-1');
    expect(line.req.headers).toBeUndefined();
    expect(line.res.headers).toBeUndefined();
    expect(Object.keys(line.req).sort()).toEqual(['id', 'method', 'remoteAddress', 'url']);
    expect(line.req.url).toBe('/cms-json/cms/v2/posts/5?_cmsnonce=[Redacted]&password=[Redacted]');
    const text = JSON.stringify(line);
    for (const secret of [
      'YWxpY2U6c2VjcmV0',
      'cookie-secret',
      'header-nonce',
      'session-secret',
      'nonce-secret',
      'query-nonce',
      'query-password',
    ]) {
      expect(text).not.toContain(secret);
    }
  });

  it('logs 5xx answers at error, with the path when no API route matched', async () => {
    await get(server, '/boom', { 'X-Request-Id': 'boom-1' });
    expect(await lineFor(lines, 'boom-1')).toMatchObject({
      level: 'error',
      msg: 'GET /boom 500',
      res: { statusCode: 500 },
    });
  });

  it('writes nothing below the configured level', async () => {
    const quiet = await loggedServer('warn', (_req, res) => res.end('{}'));
    try {
      const answer = await get(quiet.server, '/cms-json/', { 'X-Request-Id': 'quiet-1' });
      expect(answer.headers['x-request-id']).toBe('quiet-1');
      await new Promise((r) => setTimeout(r, 50));
      expect(quiet.lines).toEqual([]);
    } finally {
      await new Promise((resolve) => quiet.server.close(resolve));
    }
  });
});

describe('request log: levels and ends of requests', () => {
  let server: Server;
  let lines: Line[];
  /** Requests to `/hang` that the server has received and not answered. */
  const hanging: Array<{ req: IncomingMessage; res: ServerResponse }> = [];

  beforeAll(async () => {
    ({ server, lines } = await loggedServer('debug', (req, res) => {
      if (req.url === '/hang') return void hanging.push({ req, res });
      if (req.url === '/health/ready-down') res.statusCode = 503;
      if (req.url === '/health/missing') res.statusCode = 404;
      // A router that hands a mounted handler the rest of the path (as Express does) before answering.
      if (req.url?.startsWith('/wp-content/uploads/')) req.url = req.url.slice('/wp-content/uploads'.length);
      res.end('{}');
    }));
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it('logs successful health probes at debug, failing ones at info (4xx) and error (5xx)', async () => {
    await get(server, '/health/live', { 'X-Request-Id': 'health-ok' });
    await get(server, '/health/missing', { 'X-Request-Id': 'health-404' });
    await get(server, '/health/ready-down', { 'X-Request-Id': 'health-503' });
    await get(server, '/cms-json/', { 'X-Request-Id': 'not-health' });
    expect(await lineFor(lines, 'health-ok')).toMatchObject({ level: 'debug', msg: 'GET /health/live 200' });
    expect(await lineFor(lines, 'health-404')).toMatchObject({ level: 'info', msg: 'GET /health/missing 404' });
    expect(await lineFor(lines, 'health-503')).toMatchObject({ level: 'error', msg: 'GET /health/ready-down 503' });
    expect(await lineFor(lines, 'not-health')).toMatchObject({ level: 'info', msg: 'GET /cms-json/ 200' });
  });

  it('logs a request whose connection is lost before the answer once, when it is lost, and not again when it is answered', async () => {
    const { port } = server.address() as AddressInfo;
    const client = httpRequest({ host: '127.0.0.1', port, path: '/hang', headers: { 'X-Request-Id': 'aborted-1' } });
    client.on('error', () => undefined).end();
    while (hanging.length === 0) await new Promise((r) => setTimeout(r, 5));
    const { req, res } = hanging[0];
    client.destroy();
    const line = await lineFor(lines, 'aborted-1');
    expect(line).toMatchObject({
      level: 'info',
      msg: 'GET /hang 200',
      req: { id: 'aborted-1', method: 'GET', url: '/hang', remoteAddress: '127.0.0.1' },
    });
    expect(req.destroyed).toBe(true);
    res.end('late');
    await new Promise((r) => setTimeout(r, 50));
    expect(lines.filter((l) => l.req?.id === 'aborted-1')).toHaveLength(1);
  });

  it('logs the URL the request came with, even when a router rewrote it', async () => {
    await get(server, '/wp-content/uploads/2024/01/a.csv?token=t0k3n', { 'X-Request-Id': 'rewritten-1' });
    expect(await lineFor(lines, 'rewritten-1')).toMatchObject({
      msg: 'GET /wp-content/uploads/2024/01/a.csv 200',
      req: { url: '/wp-content/uploads/2024/01/a.csv?token=[Redacted]' },
    });
  });
});
