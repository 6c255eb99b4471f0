import Redis from 'ioredis';
import { CallerMarks, MemoryCallerMarks } from './replica-routing';

/** How long a mark's round trip to Redis may take before this process's own marks answer instead. */
export const REDIS_MARK_TIMEOUT_MS = 250;

/**
 * Marks of callers who wrote lately (see replica-routing.ts) kept in Redis, so that every node of a fleet sends a
 * caller's reads to the primary after its write on any of them: `SET <key> 1 PX <ms>` when it writes, `EXISTS <key>`
 * when it reads, one round trip at the start of a request. Every mark is kept in this process as well: while Redis
 * is not connected (or a command fails or takes longer than {@link REDIS_MARK_TIMEOUT_MS}), those answer, so a
 * Redis that is down never fails a request nor holds it.
 */
export class RedisCallerMarks implements CallerMarks {
  private readonly local = new MemoryCallerMarks();
  private readonly client: Redis;

  constructor(url: string) {
    this.client = new Redis(url, {
      lazyConnect: false,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      commandTimeout: REDIS_MARK_TIMEOUT_MS,
      connectTimeout: 2000,
      // Reconnects in the background, at most every 2 s; commands meanwhile use the process's marks.
      retryStrategy: (times) => Math.min(times * 200, 2000),
    });
    // Errors are answered by the process's marks; the client's own events would otherwise be unhandled.
    this.client.on('error', () => undefined);
  }

  async mark(key: string, ms: number): Promise<void> {
    await this.local.mark(key, ms);
    if (this.client.status !== 'ready') return;
    try {
      await this.client.set(key, '1', 'PX', Math.max(1, Math.round(ms)));
    } catch {
      // Kept in this process only: this node's reads still follow the window.
    }
  }

  async isMarked(key: string): Promise<boolean> {
    if (this.client.status !== 'ready') return this.local.isMarked(key);
    try {
      return (await this.client.exists(key)) > 0 || (await this.local.isMarked(key));
    } catch {
      return this.local.isMarked(key);
    }
  }

  /** Whether Redis is connected (the marks are the fleet's) rather than this process's alone. */
  get connected(): boolean {
    return this.client.status === 'ready';
  }

  /** Closes the connection to Redis. */
  async close(): Promise<void> {
    this.client.disconnect();
  }
}
