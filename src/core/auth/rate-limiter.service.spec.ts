import { ResolvedCmsOptions } from '../config/cms-options';
import { RestException } from '../errors/rest.exception';
import { RATE_LIMIT_MAX_ENTRIES, RateLimiter, rateLimitSubject } from './rate-limiter.service';
import { CmsRedis } from '../redis/cms-redis.service';

function limiter(max = 3, windowSeconds = 60): RateLimiter {
  return new RateLimiter({ rateLimit: { max, windowSeconds } } as ResolvedCmsOptions);
}

async function blocked(run: () => Promise<unknown>): Promise<RestException | null> {
  try {
    await run();
    return null;
  } catch (error) {
    if (error instanceof RestException) return error;
    throw error;
  }
}

const NOW = 1_700_000_000_000;

describe('rateLimitSubject', () => {
  it('keys a resolved name by the account, whatever was typed', () => {
    expect(rateLimitSubject({ id: 7 }, 'author')).toBe('account:7');
    expect(rateLimitSubject({ id: '7' }, 'Author@Example.org')).toBe('account:7');
  });

  it('keys a name that is no user by the name, trimmed and in any letter case, as a fixed-size digest', () => {
    const subject = rateLimitSubject(null, 'Nobody');
    expect(subject).toMatch(/^name:[\w-]{43}$/);
    expect(rateLimitSubject(undefined, ' NOBODY ')).toBe(subject);
    expect(rateLimitSubject(null, 'nobody2')).not.toBe(subject);
    expect(rateLimitSubject(null, 'x'.repeat(100_000)).length).toBe(subject.length);
  });
});

describe('RateLimiter', () => {
  it('blocks an account after max failures, whichever name form each failure came from, with Retry-After', async () => {
    const l = limiter();
    const account = rateLimitSubject({ id: 1 }, 'author');
    for (let i = 0; i < 3; i++) {
      expect(await blocked(() => l.assertAllowed('10.0.0.1', account, NOW))).toBeNull();
      await l.recordFailure(
        `10.0.0.${i + 1}`,
        rateLimitSubject({ id: 1 }, ['author', 'AUTHOR', 'author@example.org'][i]),
        NOW,
      );
    }
    const error = await blocked(() =>
      l.assertAllowed('10.0.0.9', rateLimitSubject({ id: 1 }, 'Author@Example.org'), NOW + 1000),
    );
    expect(error).toMatchObject({ code: 'rest_too_many_attempts', status: 429, data: { retry_after: 59 } });
    // Another account, and the same IP for another account, are not blocked.
    expect(await blocked(() => l.assertAllowed('10.0.0.1', rateLimitSubject({ id: 2 }, 'editor'), NOW))).toBeNull();
    // Unblocked when the window ends.
    expect(await blocked(() => l.assertAllowed('10.0.0.9', account, NOW + 60_000))).toBeNull();
  });

  it("forgets the account's failures on a success", async () => {
    const l = limiter();
    const account = rateLimitSubject({ id: 1 }, 'author');
    await l.recordFailure('10.0.0.1', account, NOW);
    await l.recordFailure('10.0.0.1', account, NOW);
    await l.recordSuccess(rateLimitSubject({ id: 1 }, 'author@example.org'));
    await l.recordFailure('10.0.0.1', account, NOW);
    await l.recordFailure('10.0.0.1', account, NOW);
    expect(await blocked(() => l.assertAllowed('10.0.0.1', account, NOW))).toBeNull();
  });

  it('blocks an IP after five times max failures, for every subject, and checks the IP alone before a lookup', async () => {
    const l = limiter();
    for (let i = 0; i < 15; i++) await l.recordFailure('10.0.0.1', rateLimitSubject(null, `guess${i}`), NOW);
    expect((await blocked(() => l.assertAllowed('10.0.0.1', undefined, NOW)))?.status).toBe(429);
    expect((await blocked(() => l.assertAllowed('10.0.0.1', rateLimitSubject({ id: 1 }, 'author'), NOW)))?.status).toBe(
      429,
    );
    expect(await blocked(() => l.assertAllowed('10.0.0.2', rateLimitSubject({ id: 1 }, 'author'), NOW))).toBeNull();
  });

  it(`holds at most ${RATE_LIMIT_MAX_ENTRIES} counters, dropping ended windows, then the oldest names that are no user and addresses`, async () => {
    const l = limiter(3, 60);
    const account = rateLimitSubject({ id: 1 }, 'author');
    for (let i = 0; i < 3; i++) await l.recordFailure('10.0.0.1', account, NOW);
    // A flood of live windows from distinct addresses and names.
    let largest = 0;
    for (let i = 0; i < RATE_LIMIT_MAX_ENTRIES; i++) {
      await l.recordFailure(`2001:db8::${i.toString(16)}`, rateLimitSubject(null, `flood${i}`), NOW + 1);
      largest = Math.max(largest, l.size);
    }
    expect(largest).toBeLessThanOrEqual(RATE_LIMIT_MAX_ENTRIES);
    expect(largest).toBeGreaterThan(RATE_LIMIT_MAX_ENTRIES - 10);
    // The blocked account survived: names that are no user and addresses went first.
    expect((await blocked(() => l.assertAllowed('10.0.0.3', account, NOW + 2)))?.status).toBe(429);
    // Ended windows go before anything else.
    const later = NOW + 61_000;
    await l.recordFailure('10.0.0.2', rateLimitSubject({ id: 2 }, 'x'), later);
    for (let i = 0; i < RATE_LIMIT_MAX_ENTRIES; i++) {
      await l.recordFailure('10.0.0.2', rateLimitSubject({ id: 3 + i }, 'x'), later);
      if (l.size < RATE_LIMIT_MAX_ENTRIES / 2) break;
    }
    expect(l.size).toBeLessThan(RATE_LIMIT_MAX_ENTRIES / 2);
  });

  it('keys a forged, overlong client address by a digest', async () => {
    const l = limiter(1, 60);
    const long = 'x'.repeat(10_000);
    for (let i = 0; i < 5; i++) await l.recordFailure(long, rateLimitSubject(null, `n${i}`), NOW);
    expect((await blocked(() => l.assertAllowed(long, undefined, NOW)))?.status).toBe(429);
    expect(await blocked(() => l.assertAllowed('x'.repeat(9_999), undefined, NOW))).toBeNull();
  });
});

describe('RateLimiter with Redis (a real server at 127.0.0.1:6379)', () => {
  const prefix = `cms-test:${process.pid}:${Date.now()}:`;
  let redis: CmsRedis;
  let shared: RateLimiter[];
  const options = (max = 3) =>
    ({
      rateLimit: { max, windowSeconds: 60 },
      redisUrl: 'redis://127.0.0.1:6379',
      redisKeyPrefix: prefix,
    }) as unknown as ResolvedCmsOptions;

  beforeAll(async () => {
    redis = new CmsRedis(options());
    await new Promise<void>((resolve) => (redis.available ? resolve() : redis.client!.once('ready', () => resolve())));
    // Two processes' limiters on one Redis.
    shared = [new RateLimiter(options(), redis), new RateLimiter(options(), redis)];
  });
  afterAll(async () => {
    const keys = await redis.client!.keys(`${prefix}*`);
    if (keys.length) await redis.client!.del(...keys);
    await redis.onApplicationShutdown();
  });

  it('adds up the failures counted by every limiter, blocks with Retry-After, and keeps nothing in memory', async () => {
    const [a, b] = shared;
    const account = rateLimitSubject({ id: 41 }, 'author');
    await a.recordFailure('10.1.0.1', account);
    await b.recordFailure('10.1.0.2', account);
    expect(await a.assertAllowed('10.1.0.3', account)).toBe(2);
    await a.recordFailure('10.1.0.3', account);
    const error = await blocked(() => b.assertAllowed('10.1.0.4', account));
    expect(error).toMatchObject({ code: 'rest_too_many_attempts', status: 429 });
    expect(Number(error?.data.retry_after)).toBeGreaterThan(55);
    expect(Number(error?.data.retry_after)).toBeLessThanOrEqual(60);
    expect([a.size, b.size]).toEqual([0, 0]);
    expect(a.health()).toEqual({ rateLimits: { status: 'up', store: 'redis' } });
    // Keys under the site's prefix, expiring with the window.
    expect(await redis.client!.pttl(`${prefix}rl:${account}`)).toBeGreaterThan(55_000);
  });

  it("forgets an account's failures on a success, on every limiter", async () => {
    const [a, b] = shared;
    const account = rateLimitSubject({ id: 42 }, 'editor');
    await a.recordFailure('10.2.0.1', account);
    await a.recordFailure('10.2.0.1', account);
    await b.recordSuccess(account);
    expect(await a.assertAllowed('10.2.0.1', account)).toBe(0);
  });

  it('counts in each process while Redis cannot be reached, and says so', async () => {
    const away = new CmsRedis({ ...options(), redisUrl: 'redis://127.0.0.1:9' });
    const l = new RateLimiter(options(), away);
    const account = rateLimitSubject({ id: 43 }, 'author');
    for (let i = 0; i < 3; i++) await l.recordFailure('10.3.0.1', account);
    expect((await blocked(() => l.assertAllowed('10.3.0.1', account)))?.status).toBe(429);
    expect(l.size).toBe(2);
    expect(l.health().rateLimits).toMatchObject({
      status: 'up',
      store: 'memory',
      message: expect.stringContaining('Redis cannot be reached'),
    });
    await away.onApplicationShutdown();
  });
});
