import { Logger } from '@nestjs/common';
import type { RateLimitSubject } from './rate-limiter.service';

/**
 * Security events in the application's log (Nest's logger: the host's, or the standalone server's pino logger),
 * as objects with an `event` field: failed credential checks and rate-limit refusals. They name the client IP and
 * the account (its user id) when the typed name is a user; never the typed name or password.
 */
const logger = new Logger('CmsAuth');

/** The user id of a rate-limit subject (`account:<id>`), or undefined for a name that is no user. */
function userIdOf(subject: RateLimitSubject | undefined): number | undefined {
  return subject?.startsWith('account:') ? Number(subject.slice('account:'.length)) : undefined;
}

/** A login or an application password that did not check out. */
export function logFailedAuthentication(
  via: 'login' | 'application-password',
  ip: string,
  subject: RateLimitSubject,
): void {
  const userId = userIdOf(subject);
  logger.warn({
    event: 'authentication_failed',
    via,
    ip,
    userId,
    knownUser: userId !== undefined,
    msg: `Failed ${via === 'login' ? 'login' : 'application-password authentication'} from ${ip}`,
  });
}

/** An attempt refused by the rate limiter (429). */
export function logRateLimited(
  ip: string,
  subject: RateLimitSubject | undefined,
  blocked: 'ip' | 'account' | 'name',
  retryAfter: number,
): void {
  logger.warn({
    event: 'rate_limited',
    ip,
    userId: userIdOf(subject),
    blocked,
    retryAfter,
    msg: `Rate limit reached for ${blocked === 'ip' ? `IP ${ip}` : blocked}: attempt refused`,
  });
}
