import { ResolvedCmsOptions } from '../../cms-options';
import { RestException } from '../rest/rest.exception';
import { RATE_LIMIT_MAX_ENTRIES, RateLimiter, rateLimitSubject } from './rate-limiter.service';

function limiter(max = 3, windowSeconds = 60): RateLimiter {
  return new RateLimiter({ rateLimit: { max, windowSeconds } } as ResolvedCmsOptions);
}

function blocked(run: () => void): RestException | null {
  try {
    run();
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
  it('blocks an account after max failures, whichever name form each failure came from, with Retry-After', () => {
    const l = limiter();
    const account = rateLimitSubject({ id: 1 }, 'author');
    for (let i = 0; i < 3; i++) {
      expect(blocked(() => l.assertAllowed('10.0.0.1', account, NOW))).toBeNull();
      l.recordFailure(`10.0.0.${i + 1}`, rateLimitSubject({ id: 1 }, ['author', 'AUTHOR', 'author@example.org'][i]), NOW);
    }
    const error = blocked(() => l.assertAllowed('10.0.0.9', rateLimitSubject({ id: 1 }, 'Author@Example.org'), NOW + 1000));
    expect(error).toMatchObject({ code: 'rest_too_many_attempts', status: 429, data: { retry_after: 59 } });
    // Another account, and the same IP for another account, are not blocked.
    expect(blocked(() => l.assertAllowed('10.0.0.1', rateLimitSubject({ id: 2 }, 'editor'), NOW))).toBeNull();
    // Unblocked when the window ends.
    expect(blocked(() => l.assertAllowed('10.0.0.9', account, NOW + 60_000))).toBeNull();
  });

  it("forgets the account's failures on a success", () => {
    const l = limiter();
    const account = rateLimitSubject({ id: 1 }, 'author');
    l.recordFailure('10.0.0.1', account, NOW);
    l.recordFailure('10.0.0.1', account, NOW);
    l.recordSuccess(rateLimitSubject({ id: 1 }, 'author@example.org'));
    l.recordFailure('10.0.0.1', account, NOW);
    l.recordFailure('10.0.0.1', account, NOW);
    expect(blocked(() => l.assertAllowed('10.0.0.1', account, NOW))).toBeNull();
  });

  it('blocks an IP after five times max failures, for every subject, and checks the IP alone before a lookup', () => {
    const l = limiter();
    for (let i = 0; i < 15; i++) l.recordFailure('10.0.0.1', rateLimitSubject(null, `guess${i}`), NOW);
    expect(blocked(() => l.assertAllowed('10.0.0.1', undefined, NOW))?.status).toBe(429);
    expect(blocked(() => l.assertAllowed('10.0.0.1', rateLimitSubject({ id: 1 }, 'author'), NOW))?.status).toBe(429);
    expect(blocked(() => l.assertAllowed('10.0.0.2', rateLimitSubject({ id: 1 }, 'author'), NOW))).toBeNull();
  });

  it(`holds at most ${RATE_LIMIT_MAX_ENTRIES} counters, dropping ended windows, then the oldest names that are no user and addresses`, () => {
    const l = limiter(3, 60);
    const account = rateLimitSubject({ id: 1 }, 'author');
    for (let i = 0; i < 3; i++) l.recordFailure('10.0.0.1', account, NOW);
    // A flood of live windows from distinct addresses and names.
    let largest = 0;
    for (let i = 0; i < RATE_LIMIT_MAX_ENTRIES; i++) {
      l.recordFailure(`2001:db8::${i.toString(16)}`, rateLimitSubject(null, `flood${i}`), NOW + 1);
      largest = Math.max(largest, l.size);
    }
    expect(largest).toBeLessThanOrEqual(RATE_LIMIT_MAX_ENTRIES);
    expect(largest).toBeGreaterThan(RATE_LIMIT_MAX_ENTRIES - 10);
    // The blocked account survived: names that are no user and addresses went first.
    expect(blocked(() => l.assertAllowed('10.0.0.3', account, NOW + 2))?.status).toBe(429);
    // Ended windows go before anything else.
    const later = NOW + 61_000;
    l.recordFailure('10.0.0.2', rateLimitSubject({ id: 2 }, 'x'), later);
    for (let i = 0; i < RATE_LIMIT_MAX_ENTRIES; i++) {
      l.recordFailure('10.0.0.2', rateLimitSubject({ id: 3 + i }, 'x'), later);
      if (l.size < RATE_LIMIT_MAX_ENTRIES / 2) break;
    }
    expect(l.size).toBeLessThan(RATE_LIMIT_MAX_ENTRIES / 2);
  });

  it('keys a forged, overlong client address by a digest', () => {
    const l = limiter(1, 60);
    const long = 'x'.repeat(10_000);
    for (let i = 0; i < 5; i++) l.recordFailure(long, rateLimitSubject(null, `n${i}`), NOW);
    expect(blocked(() => l.assertAllowed(long, undefined, NOW))?.status).toBe(429);
    expect(blocked(() => l.assertAllowed('x'.repeat(9_999), undefined, NOW))).toBeNull();
  });
});
