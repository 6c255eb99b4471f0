import { Inject, Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { CMS_OPTIONS, ResolvedCmsOptions } from '../../cms-options';
import { RestException } from '../rest/rest.exception';
import { logRateLimited } from './auth-log';

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
export function rateLimitSubject(user: { id: number | string } | null | undefined, typedName: string): RateLimitSubject {
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

/**
 * Limits failed credential checks (logins, application passwords) per account and per client IP: after
 * `rateLimit.max` failures against an account — whichever of its login name or e-mail, in whatever letter case,
 * was typed, through the login route or HTTP Basic — or five times that from one IP within
 * `rateLimit.windowSeconds`, further attempts get 429 with `Retry-After` until the window ends. Names that are no
 * user are counted per name. Counters are kept in memory, per node, at most {@link RATE_LIMIT_MAX_ENTRIES}.
 */
@Injectable()
export class RateLimiter {
  private readonly windows = new Map<string, Window>();

  constructor(@Inject(CMS_OPTIONS) private readonly options: ResolvedCmsOptions) {}

  /** Number of counters held (for tests and monitoring). */
  get size(): number {
    return this.windows.size;
  }

  private keys(ip: string, subject?: RateLimitSubject): string[] {
    return subject ? [ipKey(ip), subject] : [ipKey(ip)];
  }

  /**
   * Throws 429 `rest_too_many_attempts` while the IP or the subject (when given) is blocked. Called with the IP
   * alone before the name is looked up, and again with the subject.
   */
  assertAllowed(ip: string, subject?: RateLimitSubject, now = Date.now()): void {
    for (const key of this.keys(ip, subject)) {
      const w = this.windows.get(key);
      const max = key === subject ? this.options.rateLimit.max : this.options.rateLimit.max * IP_FACTOR;
      if (w && w.resetAt > now && w.count >= max) {
        const retryAfter = Math.ceil((w.resetAt - now) / 1000);
        logRateLimited(ip, subject, key === subject ? (subject.startsWith('account:') ? 'account' : 'name') : 'ip', retryAfter);
        throw new RestException('rest_too_many_attempts', 'Too many failed attempts. Try again later.', 429, { retry_after: retryAfter });
      }
    }
  }

  /** Counts a failed attempt for the IP and the subject. */
  recordFailure(ip: string, subject: RateLimitSubject, now = Date.now()): void {
    for (const key of this.keys(ip, subject)) {
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
  recordSuccess(subject: RateLimitSubject): void {
    this.windows.delete(subject);
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
