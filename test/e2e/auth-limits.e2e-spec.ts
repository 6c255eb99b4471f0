import crypto from 'node:crypto';
import * as passwordHash from '../../src/core/auth/password-hash';
import { UserEntity } from '../../src/core/database/entities/user.entity';
import { createUser, TestUser } from '../factories/user.factory';
import { createTestApp, expectRestError, TEST_PREFIX, TestApp } from '../utils/test-app';

/**
 * Rate limits per account (whatever name form is typed, through the login route and HTTP Basic alike) and per IP,
 * and the equal hashing work for names that are no user (no user enumeration by response time).
 */

const LOGIN = '/cms-json/cms-auth/v1/login';
const EDIT_ONLY = '/cms-json/cms/v2/types?context=edit';

function basic(login: string, password: string): string {
  return `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Number of MD5 digests computed while `work` runs (phpass hashes with 2^13 of them). */
async function md5Count(work: () => Promise<unknown>): Promise<number> {
  const real = crypto.createHash;
  let count = 0;
  const spy = jest.spyOn(crypto, 'createHash').mockImplementation((algorithm: string, options?: crypto.HashOptions) => {
    if (algorithm === 'md5') count++;
    return real(algorithm, options);
  });
  try {
    await work();
  } finally {
    spy.mockRestore();
  }
  return count;
}

describe('authentication limits', () => {
  let t: TestApp;
  let serial = 0;
  let ipSerial = 0;

  beforeAll(async () => {
    t = await createTestApp('auth_limits', { cms: { rateLimit: { max: 3, windowSeconds: 60 } } });
  });
  afterAll(() => t.close());

  /** A client address of its own (forwarded by the loopback test client), so that tests do not share the IP budget. */
  function newIp(): string {
    return `203.0.113.${++ipSerial}`;
  }

  function freshUser(): Promise<TestUser> {
    return createUser(t.dataSource, TEST_PREFIX, `limited${++serial}`, 'author');
  }

  function login(ip: string, username: string, password: string) {
    return t.http.post(LOGIN).set('X-Forwarded-For', ip).send({ username, password });
  }

  function basicAuth(ip: string, username: string, password: string) {
    return t.http.get(EDIT_ONLY).set('X-Forwarded-For', ip).set('Authorization', basic(username, password));
  }

  function expectBlocked(res: { status: number; body: unknown; headers: Record<string, string> }): void {
    expectRestError(res, 'rest_too_many_attempts', 429);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(60);
  }

  describe('rate limit per account', () => {
    it('keeps a blocked account blocked under its e-mail and in any letter case, through login and HTTP Basic', async () => {
      const user = await freshUser();
      const email = `${user.login}@example.org`;
      const ip = newIp();
      for (let i = 0; i < 3; i++) expectRestError(await login(ip, user.login, 'wrong'), 'invalid_credentials', 401);
      // The right passwords, under every form of the name: all refused while the account is blocked.
      expectBlocked(await login(ip, user.login, user.password));
      expectBlocked(await login(ip, email, user.password));
      expectBlocked(await login(ip, user.login.toUpperCase(), user.password));
      expectBlocked(await login(ip, email.toUpperCase(), user.password));
      expectBlocked(await basicAuth(ip, email, user.appPassword));
      expectBlocked(await basicAuth(ip, user.login.toUpperCase(), user.appPassword));
      expectBlocked(await basicAuth(ip, user.login, user.appPassword));
      // From another address too: the account's budget is not the IP's.
      expectBlocked(await login(newIp(), email, user.password));
      expectBlocked(await basicAuth(newIp(), email, user.appPassword));
    });

    it('counts HTTP Basic failures and login failures against the same account', async () => {
      const user = await freshUser();
      const email = `${user.login}@example.org`;
      expectRestError(await basicAuth(newIp(), email, 'wrong-app-password'), 'incorrect_password', 401);
      expectRestError(
        await basicAuth(newIp(), user.login.toUpperCase(), 'wrong-app-password'),
        'incorrect_password',
        401,
      );
      expectRestError(await login(newIp(), email.toUpperCase(), 'wrong'), 'invalid_credentials', 401);
      expectBlocked(await login(newIp(), user.login, user.password));
      expectBlocked(await basicAuth(newIp(), user.login, user.appPassword));
    });

    it('blocks HTTP Basic after failures there, under the e-mail as under the login name', async () => {
      const user = await freshUser();
      const ip = newIp();
      for (let i = 0; i < 3; i++)
        expectRestError(await basicAuth(ip, user.login, 'wrong-app-password'), 'incorrect_password', 401);
      expectBlocked(await basicAuth(ip, `${user.login}@example.org`, user.appPassword));
      expectBlocked(await login(ip, `${user.login}@example.org`, user.password));
    });

    it("clears the account's failures on a success, whatever name form each attempt used", async () => {
      const user = await freshUser();
      const email = `${user.login}@example.org`;
      const ip = newIp();
      expectRestError(await login(ip, email, 'wrong'), 'invalid_credentials', 401);
      expectRestError(await login(ip, email, 'wrong'), 'invalid_credentials', 401);
      await login(ip, user.login, user.password).expect(200);
      expectRestError(await login(ip, email, 'wrong'), 'invalid_credentials', 401);
      // One failure since the success: still allowed, under any form, by both paths.
      await login(ip, email, user.password).expect(200);
      expectRestError(await basicAuth(ip, user.login, 'wrong-app-password'), 'incorrect_password', 401);
      expectRestError(await login(ip, user.login.toUpperCase(), 'wrong'), 'invalid_credentials', 401);
      await basicAuth(ip, email, user.appPassword).expect(200);
      // The success through HTTP Basic cleared them too.
      for (let i = 0; i < 2; i++) expectRestError(await login(ip, user.login, 'wrong'), 'invalid_credentials', 401);
      await login(ip, email, user.password).expect(200);
    });

    it('limits names that are no user per name, in any letter case, without blocking other names', async () => {
      const ip = newIp();
      for (let i = 0; i < 3; i++) expectRestError(await login(ip, 'Nobody-Here', 'wrong'), 'invalid_credentials', 401);
      expectBlocked(await login(ip, 'nobody-here', 'wrong'));
      expectBlocked(await basicAuth(newIp(), 'NOBODY-HERE', 'wrong'));
      expectRestError(await login(ip, 'nobody-else', 'wrong'), 'invalid_credentials', 401);
      const user = await freshUser();
      await login(ip, user.login, user.password).expect(200);
    });

    it('limits an IP to five times the per-account budget, across names', async () => {
      const ip = newIp();
      for (let i = 0; i < 15; i++) {
        const name = `guess${i}`;
        if (i % 2) expectRestError(await login(ip, name, 'wrong'), 'invalid_credentials', 401);
        else expectRestError(await basicAuth(ip, name, 'wrong'), 'invalid_username', 401);
      }
      const user = await freshUser();
      expectBlocked(await login(ip, user.login, user.password));
      expectBlocked(await basicAuth(ip, user.login, user.appPassword));
      // The accounts themselves are not blocked: from another address they work.
      await login(newIp(), user.login, user.password).expect(200);
      await basicAuth(newIp(), user.login, user.appPassword).expect(200);
    });
  });

  describe('equal hashing work for names that are no user', () => {
    it('checks the password of a login for an unknown name against a dummy hash of the configured format and cost', async () => {
      const hashing = jest.spyOn(passwordHash, 'verifyWordPressPassword');
      try {
        expectRestError(await login(newIp(), 'no-such-user', 'some password'), 'invalid_credentials', 401);
        expect(hashing).toHaveBeenCalledTimes(1);
        const [password, hash] = hashing.mock.calls[0];
        expect(password).toBe('some password');
        expect(hash).toMatch(/^\$wp\$2y\$10\$[./A-Za-z0-9]{53}$/);
        hashing.mockClear();
        expectRestError(await login(newIp(), 'no-such-user@example.org', 'other password'), 'invalid_credentials', 401);
        // The same dummy hash every time (made once per process).
        expect(hashing.mock.calls).toEqual([['other password', hash]]);
        // An existing user with a wrong password: one check too, against the user's own hash.
        hashing.mockClear();
        const user = await freshUser();
        expectRestError(await login(newIp(), user.login, 'wrong'), 'invalid_credentials', 401);
        expect(hashing).toHaveBeenCalledTimes(1);
        expect(hashing.mock.calls[0][1]).not.toBe(hash);
        expect(hashing.mock.calls[0][1]).toMatch(/^\$wp\$2y\$10\$/);
      } finally {
        hashing.mockRestore();
      }
    });

    it('does the same work for a user without a password hash or with an unusable one, and refuses them', async () => {
      const repo = t.dataSource.getRepository(UserEntity);
      const hashing = jest.spyOn(passwordHash, 'verifyWordPressPassword');
      try {
        for (const pass of [
          '',
          '$2y$99$' + 'a'.repeat(53),
          '$argon2id$v=19$m=65536,t=4,p=1$' + 'x'.repeat(40),
          '$P$Babc',
        ]) {
          const user = await freshUser();
          await repo.update({ id: user.id }, { pass });
          hashing.mockClear();
          expectRestError(await login(newIp(), user.login, pass || 'x'), 'invalid_credentials', 401);
          expect(hashing.mock.calls[0]?.[1]).toBe(passwordHash.dummyPasswordHash('bcrypt'));
        }
      } finally {
        hashing.mockRestore();
      }
    });

    it('hashes as for a wrong application password when HTTP Basic names no user or a user without application passwords', async () => {
      // Application passwords are phpass hashes (2^13 MD5 rounds), so the dummy check costs at least 8192 MD5 digests.
      const unknown = await md5Count(async () => {
        expectRestError(
          await basicAuth(newIp(), 'no-such-user', 'abcd efgh ijkl mnop qrst uvwx'),
          'invalid_username',
          401,
        );
      });
      expect(unknown).toBeGreaterThanOrEqual(8192);
      expect(unknown).toBeLessThan(2 * 8192);

      const user = await freshUser();
      await t.http
        .delete(`/cms-json/cms/v2/users/${user.id}/application-passwords`)
        .set('Authorization', t.users.administrator.authorization)
        .expect(200);
      const none = await md5Count(async () => {
        expectRestError(await basicAuth(newIp(), user.login, 'abcdefghijklmnopqrstuvwx'), 'incorrect_password', 401);
      });
      expect(none).toBeGreaterThanOrEqual(8192);
      expect(none).toBeLessThan(2 * 8192);

      // A user with an application password made by the API (phpass): the same amount of work.
      const other = await freshUser();
      await t.http
        .post(`/cms-json/cms/v2/users/${other.id}/application-passwords`)
        .set('Authorization', t.users.administrator.authorization)
        .send({ name: 'phpass one' })
        .expect(201);
      await t.http
        .delete(`/cms-json/cms/v2/users/${other.id}/application-passwords/uuid-${other.login}`)
        .set('Authorization', t.users.administrator.authorization)
        .expect(200);
      const wrong = await md5Count(async () => {
        expectRestError(await basicAuth(newIp(), other.login, 'abcdefghijklmnopqrstuvwx'), 'incorrect_password', 401);
      });
      expect(wrong).toBeGreaterThanOrEqual(8192);
      expect(wrong).toBeLessThan(2 * 8192);
    });
  });
});

describe('authentication timing: unknown names vs existing users', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp('auth_limits_timing', { cms: { rateLimit: { max: 1000, windowSeconds: 60 } } });
  });
  afterAll(() => t.close());

  async function duration(username: string): Promise<number> {
    const started = process.hrtime.bigint();
    const res = await t.http.post(LOGIN).send({ username, password: 'not the password' });
    const elapsed = Number(process.hrtime.bigint() - started) / 1e6;
    expectRestError(res, 'invalid_credentials', 401);
    return elapsed;
  }

  it('takes about as long to refuse a login for an unknown name as for an existing user', async () => {
    // Warm-up (the dummy hash is made on first use, and the first requests compile code paths).
    await duration('warm-up-unknown');
    await duration('author');
    const unknown: number[] = [];
    const known: number[] = [];
    for (let i = 0; i < 9; i++) {
      unknown.push(await duration(`ghost-${i}`));
      known.push(await duration(i % 2 ? 'editor' : 'author@example.org'));
    }
    // Before the fix: ~2 ms against ~70 ms (a ratio near 0.03). Equal work gives a ratio near 1.
    expect(median(unknown)).toBeGreaterThanOrEqual(0.5 * median(known));
  });
});
