import { ResolvedCmsOptions } from '../config/cms-options';
import { WireNames } from '../wire-names';
import { UserEntity } from '../database/entities/user.entity';
import { RestException } from '../errors/rest.exception';
import { RestRequest } from '../rest/rest-request';
import { RestResponse } from '../rest/rest-response';
import * as passwordHash from '../auth/password-hash';
import { RateLimiter } from '../auth/rate-limiter.service';
import { SessionLogin } from './session-login.service';

/** MD5 of "secret", the legacy hash WordPress still accepts (and upgrades). */
const MD5_SECRET = '5ebe2294ecd0e0f08eab7690d2a6ee69';

type Login = (username: string, password: string, ip?: string) => Promise<RestResponse>;

/** The login route with its collaborators faked: users found by login or e-mail in any letter case, as the database does. */
function loginRoute(format: 'bcrypt' | 'phpass', users: Partial<UserEntity>[]): Login {
  const lower = (text?: string) => (text ?? '').toLowerCase();
  const identity = {
    findByLoginOrEmail: async (name: string) =>
      (users.find(
        (u) => lower(u.login) === lower(name) || (name.includes('@') && lower(u.email) === lower(name)),
      ) as UserEntity) ?? null,
    toCurrentUser: async () => ({ roles: [] }),
  };
  const sessions = { create: async () => ({ token: 'token', cookie: 'cookie' }), createNonce: async () => 'nonce' };
  const options = {
    rateLimit: { max: 2, windowSeconds: 60 },
    passwordHash: format,
    baseUrl: 'http://example.org',
    wire: WireNames.of('cms'),
  } as ResolvedCmsOptions;
  const dataSource = { getRepository: () => ({ update: async () => undefined }) };
  const login = new SessionLogin(
    sessions as never,
    identity as never,
    new RateLimiter(options),
    dataSource as never,
    options,
  );
  return (username, password, ip = '10.0.0.1') =>
    login.login({
      get: (key: string) => ({ username, password })[key],
      ctx: { ip, baseUrl: 'http://example.org' },
      header: () => undefined,
    } as unknown as RestRequest);
}

async function refusal(promise: Promise<unknown>): Promise<{ code: string; status: number } | 'accepted'> {
  try {
    await promise;
    return 'accepted';
  } catch (error) {
    if (!(error instanceof RestException)) throw error;
    return { code: error.code, status: error.status };
  }
}

const INVALID = { code: 'invalid_credentials', status: 401 };
const BLOCKED = { code: 'rest_too_many_attempts', status: 429 };

describe('SessionLogin login', () => {
  let hashing: jest.SpyInstance;
  beforeEach(() => {
    hashing = jest.spyOn(passwordHash, 'verifyWordPressPassword');
  });
  afterEach(() => hashing.mockRestore());

  describe('equal hashing work, whether or not the user exists', () => {
    it.each(['bcrypt', 'phpass'] as const)(
      'checks the password of an unknown name once, against a %s dummy hash of the cost of new passwords',
      async (format) => {
        const login = loginRoute(format, []);
        expect(await refusal(login('nobody', 'guess'))).toEqual(INVALID);
        expect(hashing).toHaveBeenCalledTimes(1);
        expect(hashing.mock.calls[0]).toEqual(['guess', passwordHash.dummyPasswordHash(format)]);
        expect(hashing.mock.calls[0][1]).toMatch(format === 'bcrypt' ? /^\$wp\$2y\$10\$/ : /^\$P\$B/);
      },
    );

    it("checks an existing user's password once, against the user's hash", async () => {
      const pass = passwordHash.hashPassword('right', 'bcrypt');
      const login = loginRoute('bcrypt', [{ id: 1, login: 'author', email: 'author@example.org', pass }]);
      expect(await refusal(login('author', 'wrong'))).toEqual(INVALID);
      expect(hashing.mock.calls).toEqual([['wrong', pass]]);
    });

    it.each([
      ['no hash', ''],
      ['a malformed bcrypt hash', `$2y$99$${'a'.repeat(53)}`],
      ['an unknown format', `$argon2id$v=19$m=65536,t=4,p=1$${'x'.repeat(40)}`],
    ])('checks against the dummy hash for a user with %s, and refuses', async (_label, pass) => {
      const login = loginRoute('bcrypt', [{ id: 1, login: 'author', email: 'author@example.org', pass }]);
      expect(await refusal(login('author', pass || 'x'))).toEqual(INVALID);
      expect(hashing.mock.calls[0]).toEqual([pass || 'x', passwordHash.dummyPasswordHash('bcrypt')]);
    });

    it('pads the (fast) legacy MD5 check with the dummy hash, and still accepts the right password', async () => {
      const login = loginRoute('bcrypt', [{ id: 1, login: 'old', email: 'old@example.org', pass: MD5_SECRET }]);
      expect(await refusal(login('old', 'secret'))).toBe('accepted');
      expect(hashing.mock.calls).toEqual([
        ['secret', passwordHash.dummyPasswordHash('bcrypt')],
        ['secret', MD5_SECRET],
      ]);
    });
  });

  describe('rate limit per account', () => {
    const users = () => [
      { id: 5, login: 'author', email: 'author@example.org', pass: passwordHash.hashPhpass('right') },
    ];

    it('blocks the account whichever name form the failures and the next attempt use', async () => {
      const login = loginRoute('phpass', users());
      expect(await refusal(login('author@example.org', 'wrong', '10.0.0.1'))).toEqual(INVALID);
      expect(await refusal(login('AUTHOR', 'wrong', '10.0.0.2'))).toEqual(INVALID);
      for (const name of ['author', 'Author@Example.org', 'AUTHOR']) {
        expect(await refusal(login(name, 'right', '10.0.0.3'))).toEqual(BLOCKED);
      }
      // Blocked before any hashing.
      hashing.mockClear();
      expect(await refusal(login('author', 'right', '10.0.0.4'))).toEqual(BLOCKED);
      expect(hashing).not.toHaveBeenCalled();
    });

    it("clears the account's failures on a success", async () => {
      const login = loginRoute('phpass', users());
      expect(await refusal(login('author@example.org', 'wrong'))).toEqual(INVALID);
      expect(await refusal(login('AUTHOR', 'right'))).toBe('accepted');
      expect(await refusal(login('author@example.org', 'wrong'))).toEqual(INVALID);
      // One failure since the success (two under this name form in all): allowed.
      expect(await refusal(login('author@example.org', 'right'))).toBe('accepted');
    });

    it('limits names that are no user per name', async () => {
      const login = loginRoute('phpass', users());
      expect(await refusal(login('Ghost', 'x'))).toEqual(INVALID);
      expect(await refusal(login('ghost', 'x'))).toEqual(INVALID);
      expect(await refusal(login('GHOST', 'x'))).toEqual(BLOCKED);
      expect(await refusal(login('ghost2', 'x'))).toEqual(INVALID);
      expect(await refusal(login('author', 'right'))).toBe('accepted');
    });
  });
});
