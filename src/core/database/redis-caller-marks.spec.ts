import { randomUUID } from 'node:crypto';
import type { ResolvedCmsOptions } from '../config/cms-options';
import { CmsRedis } from '../redis/cms-redis.service';
import { RedisCallerMarks } from './redis-caller-marks';

const redis = (url: string) => new CmsRedis({ redisUrl: url, redisKeyPrefix: 'cms-test:' } as ResolvedCmsOptions);

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 25));
}

describe('RedisCallerMarks', () => {
  it("shares a caller's mark among the nodes of a fleet, for its time", async () => {
    const connections = [redis(REDIS_URL), redis(REDIS_URL)];
    const [a, b] = connections.map((connection) => new RedisCallerMarks(connection));
    try {
      await until(() => a.connected && b.connected);
      expect([a.connected, b.connected]).toEqual([true, true]);
      const key = `cms:test:${randomUUID()}`;
      expect(await b.isMarked(key)).toBe(false);
      await a.mark(key, 300);
      expect(await b.isMarked(key)).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(await b.isMarked(key)).toBe(false);
    } finally {
      await Promise.all(connections.map((connection) => connection.onApplicationShutdown()));
    }
  });

  it('answers from the process while Redis cannot be reached, without failing', async () => {
    const connection = redis('redis://127.0.0.1:1');
    const marks = new RedisCallerMarks(connection);
    try {
      expect(marks.connected).toBe(false);
      await marks.mark('k', 60_000);
      expect(await marks.isMarked('k')).toBe(true);
      expect(await marks.isMarked('other')).toBe(false);
    } finally {
      await connection.onApplicationShutdown();
    }
  });
});
