import { ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RateLimiter } from '../../src/core/auth/rate-limiter.service';
import { CmsRedis } from '../../src/core/redis/cms-redis.service';
import { createTestApp, TestApp } from '../utils/test-app';
import { dropTestDatabase, testDatabaseKind, testDatabaseUrl } from '../utils/test-db';
import { freePort } from '../utils/standalone-server';

/**
 * The authentication rate limits of a fleet: with `redisUrl`, every node counts the same failures (two app
 * instances on one database and one Redis); without Redis, each counts its own; and while Redis is down, each falls
 * back to its own counters without failing a request, and goes back to Redis when it returns.
 */

const LOGIN = '/cms-json/cms-auth/v1/login';
const REDIS_SERVER = '/usr/bin/redis-server';

async function until(condition: () => boolean, ms = 10_000): Promise<void> {
  for (const started = Date.now(); !condition(); await new Promise((resolve) => setTimeout(resolve, 25))) {
    if (Date.now() - started > ms) throw new Error('condition not met in time');
  }
}

describe('rate limits shared through Redis', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cms-rl-redis-'));
  const prefix = `cms-test:${process.pid}:${Date.now()}:`;
  let databaseUrl: string;
  let a: TestApp;
  let b: TestApp;
  let redisPort: number;
  let redis: ChildProcess | undefined;
  const login = (t: TestApp, username: string, password: string) => t.http.post(LOGIN).send({ username, password });
  const limiter = (t: TestApp) => t.app.get(RateLimiter, { strict: false });

  /** A Redis of this test's own, which it can stop and start again. */
  async function startRedis(): Promise<void> {
    redis = spawn(
      REDIS_SERVER,
      ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    );
    await until(() => limiter(a).store === 'redis' && limiter(b).store === 'redis');
  }
  async function stopRedis(): Promise<void> {
    const exited = once(redis!, 'exit');
    redis!.kill('SIGKILL');
    await exited;
    redis = undefined;
    await until(() => limiter(a).store === 'memory' && limiter(b).store === 'memory');
  }

  beforeAll(async () => {
    if (!existsSync(REDIS_SERVER)) throw new Error(`${REDIS_SERVER} is needed for this test (Debian's redis-server)`);
    redisPort = await freePort();
    databaseUrl =
      testDatabaseKind() === 'sqlite'
        ? `sqlite:${join(dir, 'cms.sqlite')}`
        : await testDatabaseUrl('rate_limits_redis');
    const cms = {
      rateLimit: { max: 3, windowSeconds: 60 },
      redisUrl: `redis://127.0.0.1:${redisPort}`,
      redisKeyPrefix: prefix,
    };
    a = await createTestApp('rate_limits_redis', { databaseUrl, cms });
    b = await createTestApp('rate_limits_redis', { databaseUrl, users: a.users, cms });
    await startRedis();
  });
  afterAll(async () => {
    redis?.kill('SIGKILL');
    await a?.app.close();
    await b?.app.close();
    await dropTestDatabase('rate_limits_redis');
    rmSync(dir, { recursive: true, force: true });
  });

  it("adds up the failures of both nodes: the budget is the fleet's, and either node refuses after it", async () => {
    expect((await login(a, 'editor', 'wrong')).status).toBe(401);
    expect((await login(b, 'editor', 'wrong')).status).toBe(401);
    expect((await login(a, 'editor', 'wrong')).status).toBe(401);
    for (const node of [a, b]) {
      const refused = await login(node, 'editor', a.users.editor.password);
      expect(refused.status).toBe(429);
      expect(refused.body.code).toBe('rest_too_many_attempts');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(50);
    }
    // Nothing counted in the processes themselves.
    expect([limiter(a).size, limiter(b).size]).toEqual([0, 0]);
    expect(limiter(a).health()).toEqual({ rateLimits: { status: 'up', store: 'redis' } });
  });

  it("forgets an account's failures after a success on any node", async () => {
    expect((await login(a, 'author', 'wrong')).status).toBe(401);
    expect((await login(b, 'author', 'wrong')).status).toBe(401);
    expect((await login(b, 'author', a.users.author.password)).status).toBe(200);
    expect((await login(a, 'author', 'wrong')).status).toBe(401);
    expect((await login(a, 'author', 'wrong')).status).toBe(401);
    // Two failures since the success: the third is still allowed (and fails as a wrong password).
    expect((await login(b, 'author', 'wrong')).status).toBe(401);
  });

  it("falls back to each process's counters while Redis is down, answering every request, then shares again", async () => {
    await stopRedis();
    const started = Date.now();
    expect((await login(a, 'subscriber', a.users.subscriber.password)).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await login(a, 'subscriber', 'wrong')).status).toBe(401);
    // Node A counted its own three: refused there, while node B, counting its own, still allows.
    expect((await login(a, 'subscriber', a.users.subscriber.password)).status).toBe(429);
    expect((await login(b, 'subscriber', a.users.subscriber.password)).status).toBe(200);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(limiter(a).health().rateLimits).toMatchObject({
      status: 'up',
      store: 'memory',
      message: expect.stringContaining('Redis cannot be reached'),
    });
    await startRedis();
    expect(a.app.get(CmsRedis, { strict: false }).available).toBe(true);
    expect((await login(b, 'contributor', 'wrong')).status).toBe(401);
    expect((await login(a, 'contributor', 'wrong')).status).toBe(401);
    expect((await login(b, 'contributor', 'wrong')).status).toBe(401);
    expect((await login(a, 'contributor', a.users.contributor.password)).status).toBe(429);
  });
});

describe('rate limits without Redis', () => {
  let a: TestApp;
  let b: TestApp;
  const dir = mkdtempSync(join(tmpdir(), 'cms-rl-local-'));

  beforeAll(async () => {
    const databaseUrl =
      testDatabaseKind() === 'sqlite'
        ? `sqlite:${join(dir, 'cms.sqlite')}`
        : await testDatabaseUrl('rate_limits_local');
    a = await createTestApp('rate_limits_local', { databaseUrl, cms: { rateLimit: { max: 2, windowSeconds: 60 } } });
    b = await createTestApp('rate_limits_local', {
      databaseUrl,
      users: a.users,
      cms: { rateLimit: { max: 2, windowSeconds: 60 } },
    });
  });
  afterAll(async () => {
    await a.app.close();
    await b.app.close();
    await dropTestDatabase('rate_limits_local');
    rmSync(dir, { recursive: true, force: true });
  });

  it('counts in each process: failures on one node do not count on the other', async () => {
    for (let i = 0; i < 2; i++)
      expect((await a.http.post(LOGIN).send({ username: 'editor', password: 'wrong' })).status).toBe(401);
    expect((await a.http.post(LOGIN).send({ username: 'editor', password: a.users.editor.password })).status).toBe(429);
    expect((await b.http.post(LOGIN).send({ username: 'editor', password: a.users.editor.password })).status).toBe(200);
  });
});
