import { connect } from 'node:net';
import { dropTestDatabase } from '../utils/test-db';
import { assertBuilt, serverDatabase, StandaloneServer, startServer, stopServer } from '../utils/standalone-server';

/**
 * The limits of the standalone server (`node dist/main`), each configured from the environment and each answered
 * with a status and the API's JSON error when a request goes past it: the request head's size (431), a head or a
 * whole request not sent in time (408), an idle keep-alive connection (closed), the body's size (413), `per_page`
 * (400) and failed authentications (429 with Retry-After). The limits of multipart bodies and uploads are tested
 * in body-limits and media-limits, those of authentication in detail in auth-limits (see `npm run limits`).
 */

const ADMIN = { CMS_ADMIN_USER: 'owner', CMS_ADMIN_PASSWORD: 'owner-password-1' };
const LIMITS = {
  CMS_HEADERS_TIMEOUT: '1',
  CMS_REQUEST_TIMEOUT: '2',
  CMS_KEEPALIVE_TIMEOUT: '1',
  CMS_MAX_HEADER_SIZE: '4kb',
  CMS_BODY_LIMIT: '64kb',
  CMS_RATE_LIMIT_MAX: '3',
  CMS_RATE_LIMIT_WINDOW: '60',
};

interface RawAnswer {
  /** 0 when the server closed the connection without answering. */
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Bytes received after the first answer (none expected). */
  extra: string;
}

/**
 * Sends `pieces` over a socket of its own, `gapMs` apart, then waits — without sending anything more — until the
 * server closes the connection, and returns what it answered. Fails when the server neither answers nor closes
 * within `waitMs` (a limit that does not hold) or resets the connection.
 */
function rawExchange(
  port: number,
  pieces: string[],
  options: { gapMs?: number; waitMs?: number } = {},
): Promise<RawAnswer> {
  const { gapMs = 0, waitMs = 10_000 } = options;
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let timer: NodeJS.Timeout | undefined;
    const guard = setTimeout(() => {
      clearTimeout(timer);
      socket.destroy();
      reject(
        new Error(
          `the server kept the connection open for ${waitMs} ms; received: ${JSON.stringify(Buffer.concat(chunks).toString('latin1').slice(0, 300))}`,
        ),
      );
    }, waitMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.once('error', (error) => {
      clearTimeout(guard);
      clearTimeout(timer);
      reject(error);
    });
    socket.once('close', () => {
      clearTimeout(guard);
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('latin1');
      const at = text.indexOf('\r\n\r\n');
      if (at < 0) return resolve({ status: 0, headers: {}, body: '', extra: text });
      const [statusLine, ...headerLines] = text.slice(0, at).split('\r\n');
      const headers = Object.fromEntries(
        headerLines.map((line) => [
          line.slice(0, line.indexOf(':')).toLowerCase(),
          line.slice(line.indexOf(':') + 1).trim(),
        ]),
      );
      const length = Number(headers['content-length'] ?? text.length - at - 4);
      resolve({
        status: Number(statusLine.split(' ')[1]),
        headers,
        body: text.slice(at + 4, at + 4 + length),
        extra: text.slice(at + 4 + length),
      });
    });
    let next = 0;
    const send = () => {
      if (next >= pieces.length || socket.destroyed) return;
      socket.write(pieces[next++]);
      timer = setTimeout(send, gapMs);
    };
    socket.once('connect', send);
  });
}

function expectJsonError(answer: RawAnswer, code: string, status: number): void {
  expect({
    status: answer.status,
    type: answer.headers['content-type'],
    connection: answer.headers.connection,
  }).toEqual({
    status,
    type: 'application/json; charset=UTF-8',
    connection: 'close',
  });
  const body = JSON.parse(answer.body) as { code: string; message: unknown; data: { status: number } };
  expect({ code: body.code, messageType: typeof body.message, data: body.data }).toEqual({
    code,
    messageType: 'string',
    data: { status },
  });
}

describe('limits of the standalone server', () => {
  let server: StandaloneServer;
  let cleanup: () => void = () => undefined;
  const api = (path: string) => `${server.base}/cms-json/cms/v2${path}`;

  beforeAll(async () => {
    assertBuilt();
    const database = await serverDatabase('limits');
    cleanup = database.cleanup;
    server = await startServer({ DATABASE_URL: database.url, CMS_REQUEST_LOG: 'off', ...ADMIN, ...LIMITS });
  });
  afterAll(async () => {
    await stopServer(server);
    cleanup();
    await dropTestDatabase('limits');
  });

  describe('request head size (CMS_MAX_HEADER_SIZE)', () => {
    it('answers a head over the limit with 431 rest_headers_too_large and closes the connection; one within it is served', async () => {
      const head = (bytes: number) => [
        `GET /cms-json/cms/v2/types HTTP/1.1\r\nHost: example.org\r\nX-Filler: ${'a'.repeat(bytes)}\r\n\r\n`,
      ];
      const over = await rawExchange(server.port, head(5 * 1024));
      expectJsonError(over, 'rest_headers_too_large', 431);
      expect(over.extra).toBe('');
      const within = await fetch(api('/types'), { headers: { 'X-Filler': 'a'.repeat(3 * 1024) } });
      expect(within.status).toBe(200);
    });
  });

  describe('timeouts (CMS_HEADERS_TIMEOUT, CMS_REQUEST_TIMEOUT, CMS_KEEPALIVE_TIMEOUT)', () => {
    it('answers a head that is not finished in time with 408 rest_request_timeout, even one trickling a byte at a time', async () => {
      const [stalled, trickling] = await Promise.all([
        rawExchange(server.port, ['GET /cms-json/cms/v2/types HTTP/1.1\r\nHost: example.org\r\n']),
        // Slowloris: the head keeps coming, a byte every 100 ms, for longer than the timeout.
        rawExchange(
          server.port,
          [...('GET /cms-json/cms/v2/types HTTP/1.1\r\nHost: example.org\r\nX-Slow: ' + 'a'.repeat(200))],
          { gapMs: 100 },
        ),
      ]);
      expectJsonError(stalled, 'rest_request_timeout', 408);
      expectJsonError(trickling, 'rest_request_timeout', 408);
    });

    it('answers a body that is not finished in time with 408 rest_request_timeout', async () => {
      const head =
        'POST /cms-json/cms/v2/posts HTTP/1.1\r\nHost: example.org\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n';
      const [stalled, trickling] = await Promise.all([
        rawExchange(server.port, [head, '{"title":"']),
        rawExchange(server.port, [head, ...('{"title":"' + 'a'.repeat(100))], { gapMs: 100 }),
      ]);
      expectJsonError(stalled, 'rest_request_timeout', 408);
      expectJsonError(trickling, 'rest_request_timeout', 408);
    });

    it('answers a connection that sends nothing with 408, and closes an idle keep-alive connection after its answer', async () => {
      const silent = await rawExchange(server.port, []);
      expectJsonError(silent, 'rest_request_timeout', 408);
      const idle = await rawExchange(server.port, ['GET /cms-json/cms/v2/types HTTP/1.1\r\nHost: example.org\r\n\r\n']);
      expect({ status: idle.status, keepAlive: idle.headers['keep-alive'], extra: idle.extra }).toEqual({
        status: 200,
        keepAlive: 'timeout=1',
        extra: '',
      });
      expect(Object.keys(JSON.parse(idle.body) as object)).toEqual(['post', 'page', 'attachment']);
    });

    it('answers requests that are not HTTP with 400 rest_bad_request, and goes on serving', async () => {
      expectJsonError(await rawExchange(server.port, ['NOT HTTP AT ALL\r\n\r\n']), 'rest_bad_request', 400);
      expect((await fetch(api('/types'))).status).toBe(200);
    });
  });

  describe('body size (CMS_BODY_LIMIT)', () => {
    it('answers a body over the limit with 413 rest_request_too_large before reading it', async () => {
      const answer = await rawExchange(server.port, [
        'POST /cms-json/cms/v2/posts HTTP/1.1\r\nHost: example.org\r\nContent-Type: application/json\r\nContent-Length: 1048576\r\n\r\n{"title":"',
      ]);
      expect({ status: answer.status, code: (JSON.parse(answer.body) as { code: string }).code }).toEqual({
        status: 413,
        code: 'rest_request_too_large',
      });
      const within = await fetch(api('/posts'), {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ title: 'a'.repeat(60 * 1024) }),
      });
      expect(within.status).toBe(401);
    });
  });

  describe('per_page', () => {
    it.each(['posts', 'pages', 'media', 'comments', 'categories', 'tags', 'users'])(
      'caps per_page of %s at 100: 101 is 400 rest_invalid_param',
      async (route) => {
        expect((await fetch(api(`/${route}?per_page=100`))).status).toBe(200);
        const over = await fetch(api(`/${route}?per_page=101`));
        const body = (await over.json()) as { code: string; data: { status: number; params: Record<string, string> } };
        expect({
          status: over.status,
          code: body.code,
          dataStatus: body.data.status,
          params: Object.keys(body.data.params),
        }).toEqual({
          status: 400,
          code: 'rest_invalid_param',
          dataStatus: 400,
          params: ['per_page'],
        });
      },
    );
  });

  describe('failed authentications (CMS_RATE_LIMIT_MAX, CMS_RATE_LIMIT_WINDOW)', () => {
    const login = (password: string) =>
      fetch(`${server.base}/cms-json/cms-auth/v1/login`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ username: ADMIN.CMS_ADMIN_USER, password }),
      });
    const basic = (name: string, password: string) =>
      fetch(api('/users/me'), {
        headers: { Authorization: `Basic ${Buffer.from(`${name}:${password}`).toString('base64')}` },
      });

    async function expectBlocked(res: Response): Promise<void> {
      const body = (await res.json()) as { code: string; data: { status: number } };
      expect({ status: res.status, code: body.code, dataStatus: body.data.status }).toEqual({
        status: 429,
        code: 'rest_too_many_attempts',
        dataStatus: 429,
      });
      const retryAfter = Number(res.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(60);
    }

    it('answers the login after 3 failures with 429 rest_too_many_attempts and Retry-After, even with the right password', async () => {
      for (let i = 0; i < 3; i++) expect((await login('wrong-password')).status).toBe(401);
      await expectBlocked(await login(ADMIN.CMS_ADMIN_PASSWORD));
    });

    it('answers HTTP Basic (application passwords) after 3 failures with 429 rest_too_many_attempts and Retry-After', async () => {
      for (let i = 0; i < 3; i++)
        expect((await basic('someone-else', 'abcd efgh ijkl mnop qrst uvwx')).status).toBe(401);
      await expectBlocked(await basic('someone-else', 'abcd efgh ijkl mnop qrst uvwx'));
    });
  });
});
