import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CMS_MIGRATIONS } from '../../src/core/database/cms-migrations';
import { dropTestDatabase } from '../utils/test-db';
import { assertBuilt, serverDatabase, StandaloneServer, startServer, stopServer } from '../utils/standalone-server';

/**
 * Operating the standalone server (`node dist/main`): liveness and readiness outside the API, and its log — JSON
 * lines (stdout is no terminal), start-up included, one line per request with its id, route pattern, status,
 * duration and user, credentials redacted, failed logins and rate-limit refusals, LOG_LEVEL.
 */

const ADMIN = { CMS_ADMIN_USER: 'owner', CMS_ADMIN_PASSWORD: 'owner-password-1' };
const MIGRATION_NAMES = CMS_MIGRATIONS.map((m) => new m().name);

describe('health and logs of the standalone server', () => {
  let server: StandaloneServer;
  let database: { url: string; cleanup: () => void };

  beforeAll(async () => {
    assertBuilt();
    database = await serverDatabase('operations');
    server = await startServer({ DATABASE_URL: database.url, ...ADMIN, CMS_RATE_LIMIT_MAX: '2' });
  });
  afterAll(async () => {
    await stopServer(server);
    database.cleanup();
    await dropTestDatabase('operations');
  });

  describe('health', () => {
    it('answers liveness and readiness at /health/, uncached, with terminus bodies', async () => {
      const live = await fetch(`${server.base}/health/live`);
      expect(live.status).toBe(200);
      expect(await live.json()).toMatchObject({ status: 'ok' });
      const ready = await fetch(`${server.base}/health/ready`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toEqual({
        status: 'ok',
        info: {
          database: { status: 'up', responseTime: expect.any(Number) },
          migrations: { status: 'up', applied: MIGRATION_NAMES.length },
          shutdown: { status: 'up' },
          // Without CMS_REDIS_URL each process counts failed logins itself.
          rateLimits: { status: 'up', store: 'memory' },
        },
        error: {},
        details: expect.any(Object),
      });
      for (const res of [live, ready]) {
        expect(res.headers.get('cache-control')).toBe('no-store');
        expect(res.headers.get('x-cms-nonce')).toBeNull();
      }
    });

    it('is not behind authentication: wrong credentials change nothing', async () => {
      const failures = () => server.lines().filter((line) => line.event === 'authentication_failed').length;
      const before = failures();
      const ready = await fetch(`${server.base}/health/ready`, {
        headers: { Authorization: 'Basic bm9ib2R5Om5vdGhpbmc=' },
      });
      expect(ready.status).toBe(200);
      expect(((await ready.json()) as { status: string }).status).toBe('ok');
      // The credentials were not even checked.
      expect(failures()).toBe(before);
    });
  });

  describe('logs', () => {
    it('writes every line as JSON, the start-up lines of Nest included', () => {
      const stdout = server.output().split('\n').filter(Boolean);
      expect(stdout.length).toBeGreaterThan(5);
      for (const text of stdout) expect(() => JSON.parse(text)).not.toThrow();
      const lines = server.lines();
      expect(lines).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            level: 'info',
            context: 'NestApplication',
            msg: 'Nest application successfully started',
            pid: server.child.pid,
          }),
          expect.objectContaining({ level: 'info', msg: `Serving http://localhost:${server.port}/cms-json/` }),
        ]),
      );
      for (const line of lines)
        expect(line).toEqual(
          expect.objectContaining({ time: expect.any(String), level: expect.any(String), msg: expect.any(String) }),
        );
    });

    it('logs one line per request: its id (echoed), method, route pattern, status, duration and user; credentials redacted', async () => {
      const login = await fetch(`${server.base}/cms-json/cms-auth/v1/login`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Request-Id': 'ops-login-1' },
        body: JSON.stringify({ username: ADMIN.CMS_ADMIN_USER, password: ADMIN.CMS_ADMIN_PASSWORD }),
      });
      expect(login.status).toBe(200);
      expect(login.headers.get('x-request-id')).toBe('ops-login-1');
      const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0];
      const { nonce } = (await login.json()) as { nonce: string };
      const me = await fetch(`${server.base}/cms-json/cms/v2/users/me?_cmsnonce=${nonce}&context=edit`, {
        headers: { Cookie: cookie },
      });
      expect(me.status).toBe(200);
      const { id } = (await me.json()) as { id: number };
      const requestId = me.headers.get('x-request-id') ?? '';
      expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
      const line = await server.waitForLine((l) => l.req?.id === requestId);
      expect(line).toMatchObject({
        level: 'info',
        route: '/cms/v2/users/me',
        userId: id,
        req: { method: 'GET', url: '/cms-json/cms/v2/users/me?_cmsnonce=[Redacted]&context=edit' },
        res: { statusCode: 200 },
        msg: 'GET /cms/v2/users/me 200',
      });
      expect(line.responseTime).toEqual(expect.any(Number));
      const loginLine = await server.waitForLine((l) => l.req?.id === 'ops-login-1');
      expect(loginLine).toMatchObject({ route: '/cms-auth/v1/login', res: { statusCode: 200 } });
      // No headers either way: no cookie, nonce or Authorization to leak.
      for (const logged of [line, loginLine])
        expect([logged.req.headers, logged.res.headers]).toEqual([undefined, undefined]);
      // Neither the password, the session cookie nor a nonce is anywhere in the output.
      const output = server.output();
      for (const secret of [ADMIN.CMS_ADMIN_PASSWORD, cookie.split('=')[1], nonce])
        expect(output).not.toContain(secret);
    });

    it('names the route pattern that matched, and 0 as the user of anonymous requests', async () => {
      const post = await fetch(`${server.base}/cms-json/cms/v2/posts/999999`, {
        headers: { 'X-Request-Id': 'ops-anonymous-1' },
      });
      expect(post.status).toBe(404);
      expect(await server.waitForLine((l) => l.req?.id === 'ops-anonymous-1')).toMatchObject({
        level: 'info',
        route: '/cms/v2/posts/(?P<id>[\\d]+)',
        userId: 0,
        res: { statusCode: 404 },
      });
    });

    it('logs failed logins and application-password failures, then rate-limit refusals, without the typed secrets', async () => {
      const attempt = (username: string) =>
        fetch(`${server.base}/cms-json/cms-auth/v1/login`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ username, password: 'not-the-password-42' }),
        });
      expect((await attempt('owner')).status).toBe(401);
      const failed = await server.waitForLine((l) => l.event === 'authentication_failed' && l.via === 'login');
      expect(failed).toMatchObject({
        level: 'warn',
        context: 'CmsAuth',
        knownUser: true,
        userId: expect.any(Number),
        ip: expect.any(String),
      });
      const basic = await fetch(`${server.base}/cms-json/cms/v2/users/me`, {
        headers: { Authorization: `Basic ${Buffer.from('ghost:abcd efgh ijkl').toString('base64')}` },
      });
      expect(basic.status).toBe(401);
      expect(
        await server.waitForLine((l) => l.event === 'authentication_failed' && l.via === 'application-password'),
      ).toMatchObject({ knownUser: false, level: 'warn' });
      // CMS_RATE_LIMIT_MAX=2: the second failure for the account fills its budget, the third attempt is refused.
      expect((await attempt('OWNER')).status).toBe(401);
      expect((await attempt('owner')).status).toBe(429);
      expect(await server.waitForLine((l) => l.event === 'rate_limited')).toMatchObject({
        level: 'warn',
        blocked: 'account',
        retryAfter: expect.any(Number),
      });
      const output = server.output();
      expect(output).not.toContain('not-the-password-42');
      expect(output).not.toContain('ghost');
    });
  });
});

describe('compression by the standalone server', () => {
  let server: StandaloneServer;
  let database: { url: string; cleanup: () => void };
  let uploadDir: string;

  beforeAll(async () => {
    assertBuilt();
    database = await serverDatabase('operations_compression');
    uploadDir = mkdtempSync(join(tmpdir(), 'cms-operations-uploads-'));
    server = await startServer({
      DATABASE_URL: database.url,
      ...ADMIN,
      CMS_UPLOAD_DIR: uploadDir,
      CMS_COMPRESSION_THRESHOLD: '2kb',
      CMS_REQUEST_LOG: 'off',
    });
  });
  afterAll(async () => {
    await stopServer(server);
    database.cleanup();
    rmSync(uploadDir, { recursive: true, force: true });
    await dropTestDatabase('operations_compression');
  });

  it('compresses API answers above CMS_COMPRESSION_THRESHOLD, and text uploads (not ranges of them)', async () => {
    const index = await fetch(`${server.base}/cms-json/`, { headers: { 'Accept-Encoding': 'br' } });
    expect(index.headers.get('content-encoding')).toBe('br');
    expect(((await index.json()) as { namespaces: string[] }).namespaces).toEqual(['cms/v2', 'cms-auth/v1']);
    // The types are 1.2 KiB, under 2 KiB: as they are.
    const types = await fetch(`${server.base}/cms-json/cms/v2/types`, { headers: { 'Accept-Encoding': 'br' } });
    expect(types.headers.get('content-encoding')).toBeNull();
    expect(types.headers.get('vary')).toBe('Accept-Encoding');
    expect(Object.keys((await types.json()) as object)).toEqual(['post', 'page', 'attachment']);

    const login = await fetch(`${server.base}/cms-json/cms-auth/v1/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ username: ADMIN.CMS_ADMIN_USER, password: ADMIN.CMS_ADMIN_PASSWORD }),
    });
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0];
    const { nonce } = (await login.json()) as { nonce: string };
    const text = Array.from({ length: 300 }, (_, i) => `${i},row ${i}`).join('\n');
    const created = await fetch(`${server.base}/cms-json/cms/v2/media`, {
      method: 'POST',
      headers: {
        Cookie: cookie,
        'X-CMS-Nonce': nonce,
        'Content-Type': 'text/csv',
        'Content-Disposition': 'attachment; filename="rows.csv"',
      },
      body: text,
    });
    expect(created.status).toBe(201);
    const path = new URL(((await created.json()) as { source_url: string }).source_url).pathname;
    const file = await fetch(`${server.base}${path}`, { headers: { 'Accept-Encoding': 'gzip' } });
    expect(file.headers.get('content-encoding')).toBe('gzip');
    expect(await file.text()).toBe(text);
    const range = await fetch(`${server.base}${path}`, { headers: { 'Accept-Encoding': 'gzip', Range: 'bytes=0-6' } });
    expect(range.status).toBe(206);
    expect(range.headers.get('content-encoding')).toBeNull();
    expect(await range.text()).toBe('0,row 0');
  });

  it('writes no request lines with CMS_REQUEST_LOG=off (and sets no request id)', async () => {
    const answer = await fetch(`${server.base}/cms-json/cms/v2/types`, { headers: { 'X-Request-Id': 'not-logged-1' } });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('x-request-id')).toBeNull();
    expect(server.lines().filter((line) => line.req !== undefined)).toEqual([]);
    expect(server.lines().some((line) => line.msg === 'Nest application successfully started')).toBe(true);
  });
});

describe('readiness of a server whose database is not migrated', () => {
  let server: StandaloneServer;
  let database: { url: string; cleanup: () => void };

  beforeAll(async () => {
    assertBuilt();
    database = await serverDatabase('operations_unmigrated');
    server = await startServer({ DATABASE_URL: database.url, CMS_MIGRATIONS_RUN: 'false', LOG_LEVEL: 'warn' });
  });
  afterAll(async () => {
    await stopServer(server);
    database.cleanup();
    await dropTestDatabase('operations_unmigrated');
  });

  it('is live but not ready: 503 naming the migrations not applied', async () => {
    expect((await fetch(`${server.base}/health/live`)).status).toBe(200);
    const ready = await fetch(`${server.base}/health/ready`, { headers: { 'X-Request-Id': 'ops-not-ready' } });
    expect(ready.status).toBe(503);
    expect(ready.headers.get('cache-control')).toBe('no-store');
    const body = (await ready.json()) as {
      status: string;
      error: Record<string, unknown>;
      info: Record<string, unknown>;
    };
    expect(body.status).toBe('error');
    expect(body.info.database).toMatchObject({ status: 'up' });
    expect(body.error.migrations).toEqual({
      status: 'down',
      message: `${MIGRATION_NAMES.length} migration(s) not applied`,
      pending: MIGRATION_NAMES,
    });
    // Logged at error (a 5xx answer); at LOG_LEVEL=warn nothing below warn is written.
    expect(await server.waitForLine((l) => l.req?.id === 'ops-not-ready')).toMatchObject({
      level: 'error',
      res: { statusCode: 503 },
    });
    expect(server.lines().filter((l) => l.level === 'info' || l.level === 'debug')).toEqual([]);
  });
});
