import { connect, Socket } from 'node:net';
import { dropTestDatabase } from '../utils/test-db';
import { assertBuilt, serverDatabase, StandaloneServer, startServer, stopServer } from '../utils/standalone-server';

/**
 * Graceful shutdown of the standalone server (`node dist/main`) on SIGTERM and SIGINT, in one process and with
 * CMS_WORKERS=2: requests in flight are answered, new connections refused, the database closed, exit code 0,
 * each step logged; past CMS_SHUTDOWN_TIMEOUT the remaining connections are closed.
 */

const ADMIN = { CMS_ADMIN_USER: 'owner', CMS_ADMIN_PASSWORD: 'owner-password-1' };
const LOGIN_BODY = JSON.stringify({ username: ADMIN.CMS_ADMIN_USER, password: ADMIN.CMS_ADMIN_PASSWORD });

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * A request whose body is sent in two parts, over a socket of its own: the first part now, the rest when
 * `finish` is called. The request stays in flight (the server reads its body) until then.
 */
async function slowRequest(
  port: number,
  path: string,
  body: string,
): Promise<{ finish: () => void; answer: Promise<RawAnswer> }> {
  const socket = connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  const answer = new Promise<RawAnswer>((resolve, reject) => {
    socket.once('error', reject);
    socket.once('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const at = text.indexOf('\r\n\r\n');
      if (at < 0) return reject(new Error(`no answer: ${JSON.stringify(text)}`));
      const [statusLine, ...headerLines] = text.slice(0, at).split('\r\n');
      const headers = Object.fromEntries(
        headerLines.map((line) => [
          line.slice(0, line.indexOf(':')).toLowerCase(),
          line.slice(line.indexOf(':') + 1).trim(),
        ]),
      );
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: text.slice(at + 4) });
    });
  });
  const half = Math.floor(body.length / 2);
  socket.write(
    `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: keep-alive\r\n\r\n${body.slice(0, half)}`,
  );
  return { finish: () => socket.write(body.slice(half)), answer };
}

/** Whether a new connection to the port is refused (polled for up to `ms`: the listening socket closes soon after). */
async function refusesConnections(port: number, ms = 5000): Promise<boolean> {
  for (const started = Date.now(); Date.now() - started < ms; await new Promise((r) => setTimeout(r, 50))) {
    const refused = await new Promise<boolean>((resolve) => {
      const socket: Socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(false);
      });
      socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
    });
    if (refused) return true;
  }
  return false;
}

/** Waits until two processes have started Nest (the second worker starts once the first listens). */
async function bothWorkersStarted(server: StandaloneServer): Promise<void> {
  const started = () =>
    new Set(
      server
        .lines()
        .filter((line) => line.msg === 'Nest application successfully started')
        .map((line) => line.pid),
    );
  for (let i = 0; i < 400 && started().size < 2; i++) await new Promise((r) => setTimeout(r, 25));
  expect(started().size).toBe(2);
}

describe('graceful shutdown (node dist/main)', () => {
  let server: StandaloneServer | undefined;
  let database: { url: string; cleanup: () => void };

  beforeAll(async () => {
    assertBuilt();
    database = await serverDatabase('shutdown');
  });
  afterEach(async () => {
    await stopServer(server);
    server = undefined;
  });
  afterAll(async () => {
    database.cleanup();
    await dropTestDatabase('shutdown');
  });

  it.each([
    ['one process', {}],
    ['CMS_WORKERS=2', { CMS_WORKERS: '2' }],
  ])(
    'on SIGTERM (%s): answers the request in flight, refuses new connections, closes the database and exits 0',
    async (_name, extra) => {
      server = await startServer({ DATABASE_URL: database.url, ...ADMIN, ...extra });
      if ('CMS_WORKERS' in extra) await bothWorkersStarted(server);
      const slow = await slowRequest(server.port, '/cms-json/cms-auth/v1/login', LOGIN_BODY);
      // The request is in flight (its body half read) when the signal comes.
      await new Promise((r) => setTimeout(r, 200));
      server.child.kill('SIGTERM');
      await server.waitForLine((line) => line.signal === 'SIGTERM' && /stopping/.test(line.msg) && line.inFlight === 1);
      expect(await refusesConnections(server.port)).toBe(true);
      slow.finish();
      const answer = await slow.answer;
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.body)).toMatchObject({ nonce: expect.any(String) });
      // Its connection is not kept alive.
      expect(answer.headers.connection).toBe('close');
      const [code, signal] = await server.exited();
      expect({ code, signal }).toEqual({ code: 0, signal: null });
      const stopped = server.lines().filter((line) => /^Stopped/.test(line.msg));
      // One line per server process, and the supervisor's.
      expect(stopped.filter((line) => line.code === 0)).toHaveLength('CMS_WORKERS' in extra ? 2 : 1);
      if ('CMS_WORKERS' in extra)
        expect(stopped.some((line) => line.msg === 'Stopped: all workers stopped')).toBe(true);
      // The login's password never reached the log.
      expect(server.output()).not.toContain(ADMIN.CMS_ADMIN_PASSWORD);
    },
  );

  it('on SIGINT with nothing in flight: stops at once and exits 0', async () => {
    server = await startServer({ DATABASE_URL: database.url });
    server.child.kill('SIGINT');
    const [code] = await server.exited();
    expect(code).toBe(0);
    // Nothing was waited for.
    expect(server.lines().filter((line) => line.level === 'warn')).toEqual([]);
    expect(server.lines().map((line) => line.msg)).toEqual(
      expect.arrayContaining([
        'SIGINT: stopping; no new connections, waiting for requests in flight',
        'Stopped: requests answered, database closed',
      ]),
    );
  });

  it('closes the connections still open after CMS_SHUTDOWN_TIMEOUT, then exits 0', async () => {
    server = await startServer({ DATABASE_URL: database.url, CMS_SHUTDOWN_TIMEOUT: '1' });
    const stuck = await slowRequest(server.port, '/cms-json/cms-auth/v1/login', LOGIN_BODY);
    await new Promise((r) => setTimeout(r, 200));
    const signalled = Date.now();
    server.child.kill('SIGTERM');
    // The body never completes: its connection is closed without an answer after about a second.
    await expect(stuck.answer).rejects.toThrow();
    const [code] = await server.exited();
    expect(code).toBe(0);
    expect(Date.now() - signalled).toBeGreaterThanOrEqual(900);
    expect(
      server.lines().some((line) => line.level === 'warn' && line.inFlight === 1 && /after 1000 ms/.test(line.msg)),
    ).toBe(true);
  });
});
