import { ResolvedCmsOptions } from '../../config/cms-options';
import { UserEntity } from '../../database/entities/user.entity';
import { RestException } from '../../errors/rest.exception';
import { AuthenticationInput } from '../authentication.service';
import { CurrentUser } from '../current-user';
import * as passwordHash from '../password-hash';
import { RateLimiter } from '../rate-limiter.service';
import {
  ApplicationPasswordItem,
  dummyApplicationPasswordHash,
  hashApplicationPassword,
} from '../application-passwords.service';
import { ApplicationPasswordAuthenticator } from './application-password.authenticator';

const APP_PASSWORD = 'abcdEFGHijklMNOPqrstUVWX';

interface FakeUser {
  user: Partial<UserEntity>;
  passwords: Partial<ApplicationPasswordItem>[];
}

function authenticator(
  users: FakeUser[],
): (login: string, password: string, ip?: string) => Promise<CurrentUser | RestException> {
  const lower = (text?: string) => (text ?? '').toLowerCase();
  const find = (name: string) =>
    users.find(
      ({ user }) => lower(user.login) === lower(name) || (name.includes('@') && lower(user.email) === lower(name)),
    );
  const identity = {
    findWithMeta: async (name: string) => {
      const user = find(name)?.user as UserEntity | undefined;
      return user ? { user, meta: new Map<string, string | null>() } : null;
    },
    toCurrentUser: async (user: UserEntity, uuid?: string) => new CurrentUser(user.id, user.login, [], {}, uuid),
  };
  const accounts = {
    listApplicationPasswords: async (id: number) => users.find(({ user }) => user.id === id)?.passwords ?? [],
    recordApplicationPasswordUse: async () => true,
  };
  const options = { rateLimit: { max: 2, windowSeconds: 60 } } as ResolvedCmsOptions;
  const auth = new ApplicationPasswordAuthenticator(
    {} as never,
    identity as never,
    new RateLimiter(options),
    accounts as never,
    { capabilitiesKey: 'wp_capabilities' } as never,
  );
  // A refusal is returned, a block (429) thrown: passport hands both to the request as the error.
  return (login, password, ip = '10.0.0.1') =>
    auth.verify({ ip } as AuthenticationInput, login, password).catch((error: unknown) => {
      if (error instanceof RestException) return error;
      throw error;
    });
}

function code(result: CurrentUser | RestException): string {
  return result instanceof RestException ? `${result.status} ${result.code}` : `user ${result.id}`;
}

describe('ApplicationPasswordAuthenticator', () => {
  let hashing: jest.SpyInstance;
  beforeEach(() => {
    hashing = jest.spyOn(passwordHash, 'verifyWordPressPassword');
  });
  afterEach(() => hashing.mockRestore());

  describe('equal hashing work, whether or not the user exists', () => {
    it('checks the password of an unknown name once, against a dummy hash made like new application passwords', async () => {
      const verify = authenticator([]);
      expect(code(await verify('nobody', 'abcd efgh ijkl mnop qrst uvwx'))).toBe('401 invalid_username');
      expect(hashing.mock.calls).toEqual([['abcdefghijklmnopqrstuvwx', dummyApplicationPasswordHash()]]);
      expect(dummyApplicationPasswordHash()).toMatch(/^\$P\$B[./A-Za-z0-9]{30}$/);
      expect(dummyApplicationPasswordHash().slice(0, 4)).toBe(hashApplicationPassword('x').slice(0, 4));
    });

    it('checks against the dummy hash for a user without application passwords (or only unusable ones)', async () => {
      const verify = authenticator([
        { user: { id: 1, login: 'none', email: 'none@example.org' }, passwords: [] },
        {
          user: { id: 2, login: 'broken', email: 'broken@example.org' },
          passwords: [{ uuid: 'u', password: '$P$Babc' }],
        },
      ]);
      expect(code(await verify('none', APP_PASSWORD))).toBe('401 incorrect_password');
      expect(hashing.mock.calls).toEqual([[APP_PASSWORD, dummyApplicationPasswordHash()]]);
      hashing.mockClear();
      expect(code(await verify('broken', APP_PASSWORD))).toBe('401 incorrect_password');
      expect(hashing.mock.calls).toEqual([
        [APP_PASSWORD, '$P$Babc'],
        [APP_PASSWORD, dummyApplicationPasswordHash()],
      ]);
    });

    it("checks a wrong password once against the user's application password, without the dummy", async () => {
      const hash = hashApplicationPassword(APP_PASSWORD);
      const verify = authenticator([
        { user: { id: 1, login: 'author', email: 'author@example.org' }, passwords: [{ uuid: 'u', password: hash }] },
      ]);
      expect(code(await verify('author', 'x'.repeat(24)))).toBe('401 incorrect_password');
      expect(hashing.mock.calls).toEqual([['x'.repeat(24), hash]]);
      expect(code(await verify('author', APP_PASSWORD))).toBe('user 1');
    });
  });

  describe('rate limit per account', () => {
    const users = () => [
      {
        user: { id: 7, login: 'author', email: 'author@example.org' },
        passwords: [{ uuid: 'u', password: hashApplicationPassword(APP_PASSWORD) }],
      },
    ];

    it('blocks the account whichever name form the failures and the next attempt use', async () => {
      const verify = authenticator(users());
      expect(code(await verify('author@example.org', 'wrong', '10.0.0.1'))).toBe('401 incorrect_password');
      expect(code(await verify('AUTHOR', 'wrong', '10.0.0.2'))).toBe('401 incorrect_password');
      for (const name of ['author', 'Author@Example.org']) {
        const result = await verify(name, APP_PASSWORD, '10.0.0.3');
        expect(result).toBeInstanceOf(RestException);
        expect(result).toMatchObject({ code: 'rest_too_many_attempts', status: 429 });
      }
    });

    it("clears the account's failures on a success", async () => {
      const verify = authenticator(users());
      expect(code(await verify('author@example.org', 'wrong'))).toBe('401 incorrect_password');
      expect(code(await verify('AUTHOR', APP_PASSWORD))).toBe('user 7');
      expect(code(await verify('author@example.org', 'wrong'))).toBe('401 incorrect_password');
      // One failure since the success (two under this name form in all): allowed.
      expect(code(await verify('author@example.org', APP_PASSWORD))).toBe('user 7');
    });
  });
});
