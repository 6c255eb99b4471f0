import { Inject, Injectable, Optional } from '@nestjs/common';
import type { HealthIndicatorResult } from '@nestjs/terminus';
import { createHash } from 'node:crypto';
import { CMS_OPTIONS, ResolvedCmsOptions } from '../config/cms-options';
import { RestException } from '../errors/rest.exception';
import { logRateLimited } from './auth-log';
import { CmsRedis } from '../redis/cms-redis.service';

interface Window {
  count: number;
  resetAt: number;
}

/** An IP may fail this many times more often than one account (several users behind one address). */
const IP_FACTOR = 5;

/**
 * Most counters kept in memory. Above it, ended windows are dropped, then — while still above 90 % of it (a flood
 * of names or addresses) — the oldest live windows: those of names that are no user first, then of addresses, then
 * of accounts. A counter takes about 200 bytes (keys are at most ~70 characters): some 20 MB at most.
 */
export const RATE_LIMIT_MAX_ENTRIES = 100_000;

/**
 * What failures are counted against besides the client IP: the account, or a typed name that is no user. Made by
 * {@link rateLimitSubject}.
 */
export type RateLimitSubject = string & { readonly __rateLimitSubject: true };

/**
 * The account a typed login name or e-mail resolved to (`account:<user ID>`), so that the login name, the e-mail
 * and any letter case share one budget; a name that is no user counts on its own (`name:<digest of the name,
 * trimmed and lower-cased>`), so that guessing unknown names is limited too.
 */
export function rateLimitSubject(
  user: { id: number | string } | null | undefined,
  typedName: string,
): RateLimitSubject {
  if (user) return `account:${Number(user.id)}` as RateLimitSubject;
  return `name:${digest(typedName.trim().toLowerCase())}` as RateLimitSubject;
}

function digest(text: string): string {
  return createHash('sha256').update(text).digest('base64url');
}

function ipKey(ip: string): string {
  // Addresses are short (IPv6: at most 45 characters); a longer value (a forged forwarding header) is digested.
  return ip.length <= 64 ? `ip:${ip}` : `ip#${digest(ip)}`;
}

/** Failures counted for each key in Redis: `[count, milliseconds left]` per key (one round trip). */
const REDIS_READ = `local out = {}
for i, key in ipairs(KEYS) do
  out[2 * i - 1] = tonumber(redis.call('GET', key) or '0')
  out[2 * i] = redis.call('PTTL', key)
end
return out`;

/** One more failure for each key, its window starting with its first failure (as the in-memory counters do). */
const REDIS_FAIL = `for _, key in ipairs(KEYS) do
  if redis.call('INCR', key) == 1 then redis.call('PEXPIRE', key, ARGV[1]) end
end
return 1`;

/**
 * Limits failed credential checks (logins, application passwords) per account and per client IP: after
 * `rateLimit.max` failures against an account — whichever of its login name or e-mail, in whatever letter case,
 * was typed, through the login route or HTTP Basic — or five times that from one IP within
 * `rateLimit.windowSeconds`, further attempts get 429 with `Retry-After` until the window ends. Names that are no
 * user are counted per name.
 *
 * With `redisUrl` the counters are in Redis, shared by every process of every node (`<redisKeyPrefix>rl:<key>`,
 * counted atomically by a script, expiring with their window). While Redis cannot be reached, each process counts
 * in its own memory (at most {@link RATE_LIMIT_MAX_ENTRIES} counters) — requests never fail or wait for Redis — and
 * readiness says so ({@link health}).
 */
@Injectable()
export class RateLimiter {
  private readonly windows = new Map<string, Window>();

  constructor(
    @Inject(CMS_OPTIONS) private readonly options: ResolvedCmsOptions,
    @Optional() private readonly redis?: CmsRedis,
  ) {}

  /** Number of counters held in this process (for tests and monitoring). */
  get size(): number {
    return this.windows.size;
  }

  /** Where failures are counted now: `redis` (the fleet's) or `memory` (this process's). */
  get store(): 'redis' | 'memory' {
    return this.redis?.available ? 'redis' : 'memory';
  }

  /**
   * The rate limits for `@nestjs/terminus`: always `up` (counting in memory while Redis is away is degraded, not
   * unready), with the store in use and, when Redis is configured but cannot be reached, why.
   */
  health<K extends string = 'rateLimits'>(key: K = 'rateLimits' as K): HealthIndicatorResult<K> {
    const store = this.store;
    const detail: Record<string, unknown> = { status: 'up', store };
    if (this.redis?.client && store === 'memory')
      detail.message = `${this.redis.problem}; counting failed logins in each process`;
    return { [key]: detail } as HealthIndicatorResult<K>;
  }

  private keys(ip: string, subject?: RateLimitSubject): string[] {
    return subject ? [ipKey(ip), subject] : [ipKey(ip)];
  }

  private maxOf(key: string, subject?: RateLimitSubject): number {
    return key === subject ? this.options.rateLimit.max : this.options.rateLimit.max * IP_FACTOR;
  }

  private refuse(ip: string, subject: RateLimitSubject | undefined, key: string, retryAfter: number): never {
    logRateLimited(
      ip,
      subject,
      key === subject ? (subject.startsWith('account:') ? 'account' : 'name') : 'ip',
      retryAfter,
    );
    throw new RestException('rest_too_many_attempts', 'Too many failed attempts. Try again later.', 429, {
      retry_after: retryAfter,
    });
  }

  /** The Redis client when it can be used now. */
  private shared() {
    return this.redis?.available ? this.redis.client : null;
  }

  private redisKey(key: string): string {
    return `${this.redis!.keyPrefix}rl:${key}`;
  }

  /**
   * Throws 429 `rest_too_many_attempts` while the IP or the subject (when given) is blocked. Called with the IP
   * alone before the name is looked up, and again with the subject. Answers the subject's failures counted so far
   * (0 without a subject): a success need not forget none.
   */
  async assertAllowed(ip: string, subject?: RateLimitSubject, now = Date.now()): Promise<number> {
    const keys = this.keys(ip, subject);
    const redis = this.shared();
    if (redis) {
      try {
        const counts = (await redis.eval(REDIS_READ, keys.length, ...keys.map((k) => this.redisKey(k)))) as number[];
        keys.forEach((key, i) => {
          const count = Number(counts[2 * i]);
          const left = Number(counts[2 * i + 1]);
          if (count >= this.maxOf(key, subject) && left > 0) this.refuse(ip, subject, key, Math.ceil(left / 1000));
        });
        return subject ? Number(counts[2]) : 0;
      } catch (error) {
        if (error instanceof RestException) throw error;
        // Redis failed under the command: this process's counters answer.
      }
    }
    for (const key of keys) {
      const w = this.windows.get(key);
      if (w && w.resetAt > now && w.count >= this.maxOf(key, subject))
        this.refuse(ip, subject, key, Math.ceil((w.resetAt - now) / 1000));
    }
    const own = subject ? this.windows.get(subject) : undefined;
    return own && own.resetAt > now ? own.count : 0;
  }

  /** Counts a failed attempt for the IP and the subject. */
  async recordFailure(ip: string, subject: RateLimitSubject, now = Date.now()): Promise<void> {
    const keys = this.keys(ip, subject);
    const redis = this.shared();
    if (redis) {
      try {
        await redis.eval(
          REDIS_FAIL,
          keys.length,
          ...keys.map((k) => this.redisKey(k)),
          String(this.options.rateLimit.windowSeconds * 1000),
        );
        return;
      } catch {
        // Counted in this process instead.
      }
    }
    for (const key of keys) {
      const w = this.windows.get(key);
      if (w && w.resetAt > now) {
        w.count++;
      } else {
        // Deleted first so that the map's order stays the order in which windows started (oldest first).
        this.windows.delete(key);
        this.windows.set(key, { count: 1, resetAt: now + this.options.rateLimit.windowSeconds * 1000 });
      }
    }
    if (this.windows.size > RATE_LIMIT_MAX_ENTRIES) this.prune(now);
  }

  /** Forgets the subject's failures after a success (the IP's stay counted). */
  async recordSuccess(subject: RateLimitSubject): Promise<void> {
    this.windows.delete(subject);
    const redis = this.shared();
    if (redis) await redis.del(this.redisKey(subject)).catch(() => undefined);
  }

  /** Drops ended windows, then the oldest live ones — names, then addresses, then accounts — down to 90 % of the bound. */
  private prune(now: number): void {
    for (const [key, w] of this.windows) if (w.resetAt <= now) this.windows.delete(key);
    const target = Math.floor(RATE_LIMIT_MAX_ENTRIES * 0.9);
    // Still full of live windows (a flood of names or addresses): names that are no user go first, then addresses,
    // then accounts, the oldest first within each (the map's order is that of the windows' start).
    for (const prefix of ['name:', 'ip', '']) {
      for (const key of this.windows.keys()) {
        if (this.windows.size <= target) return;
        if (key.startsWith(prefix)) this.windows.delete(key);
      }
    }
  }
}
