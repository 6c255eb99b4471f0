import { Inject, Injectable } from '@nestjs/common';
import { CMS_OPTIONS, ResolvedCmsOptions } from '../../cms-options';
import { RestException } from '../http/rest.exception';

interface Window {
  count: number;
  resetAt: number;
}

/** An IP may fail this many times more often than one user name (several users behind one address). */
const IP_FACTOR = 5;

/**
 * Limits failed credential checks (logins, application passwords) per user name and per client IP: after
 * `rateLimit.max` failures for a name (or five times that from one IP) within `rateLimit.windowSeconds`, further
 * attempts get 429 with `Retry-After` until the window ends. Counters are kept in memory, per node.
 */
@Injectable()
export class RateLimiter {
  private readonly windows = new Map<string, Window>();

  constructor(@Inject(CMS_OPTIONS) private readonly options: ResolvedCmsOptions) {}

  private keys(ip: string, user: string): string[] {
    const keys = [`ip:${ip}`];
    if (user) keys.push(`user:${user.toLowerCase()}`);
    return keys;
  }

  /** Throws 429 `rest_too_many_attempts` while the IP or the user is blocked. */
  assertAllowed(ip: string, user: string, now = Date.now()): void {
    for (const key of this.keys(ip, user)) {
      const w = this.windows.get(key);
      const max = key.startsWith('ip:') ? this.options.rateLimit.max * IP_FACTOR : this.options.rateLimit.max;
      if (w && w.resetAt > now && w.count >= max) {
        const retryAfter = Math.ceil((w.resetAt - now) / 1000);
        throw new RestException('rest_too_many_attempts', 'Too many failed attempts. Try again later.', 429, { retry_after: retryAfter });
      }
    }
  }

  /** Counts a failed attempt for the IP and the user. */
  recordFailure(ip: string, user: string, now = Date.now()): void {
    for (const key of this.keys(ip, user)) {
      const w = this.windows.get(key);
      if (!w || w.resetAt <= now) this.windows.set(key, { count: 1, resetAt: now + this.options.rateLimit.windowSeconds * 1000 });
      else w.count++;
    }
    if (this.windows.size > 100_000) this.sweep(now);
  }

  /** Forgets the user's failures after a success (the IP's stay counted). */
  recordSuccess(user: string): void {
    this.windows.delete(`user:${user.toLowerCase()}`);
  }

  private sweep(now: number): void {
    for (const [key, w] of this.windows) if (w.resetAt <= now) this.windows.delete(key);
  }
}
