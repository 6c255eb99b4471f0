import { CmsRedis } from '../redis/cms-redis.service';
import { CallerMarks, MemoryCallerMarks } from './replica-routing';

/**
 * Marks of callers who wrote lately (see replica-routing.ts) kept in Redis, so that every node of a fleet sends a
 * caller's reads to the primary after its write on any of them: `SET <key> 1 PX <ms>` when it writes, `EXISTS <key>`
 * when it reads, one round trip at the start of a request, on the fleet's shared connection ({@link CmsRedis}, keys
 * under its prefix). Every mark is kept in this process as well: while Redis is not connected (or a command fails
 * or takes longer than the connection's command timeout), those answer, so a Redis that is down never fails a
 * request nor holds it.
 */
export class RedisCallerMarks implements CallerMarks {
  private readonly local = new MemoryCallerMarks();

  constructor(private readonly redis: CmsRedis) {}

  private key(caller: string): string {
    return `${this.redis.keyPrefix}raw:${caller}`;
  }

  async mark(key: string, ms: number): Promise<void> {
    await this.local.mark(key, ms);
    if (!this.redis.available) return;
    try {
      await this.redis.client!.set(this.key(key), '1', 'PX', Math.max(1, Math.round(ms)));
    } catch {
      // Kept in this process only: this node's reads still follow the window.
    }
  }

  async isMarked(key: string): Promise<boolean> {
    if (!this.redis.available) return this.local.isMarked(key);
    try {
      return (await this.redis.client!.exists(this.key(key))) > 0 || (await this.local.isMarked(key));
    } catch {
      return this.local.isMarked(key);
    }
  }

  /** Whether Redis is connected (the marks are the fleet's) rather than this process's alone. */
  get connected(): boolean {
    return this.redis.available;
  }
}
