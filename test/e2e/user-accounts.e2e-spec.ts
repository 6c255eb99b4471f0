import { execFileSync } from 'node:child_process';
import {
  ApplicationPasswordItem,
  ApplicationPasswords,
  hashApplicationPassword,
} from '../../src/core/auth/application-passwords.service';
import { UserAccountsService } from '../../src/core/auth/user-accounts.service';
import { generatePassword } from '../../src/core/auth/user-records';
import { isEmail } from '../../src/core/formatting/is-email';
import { sanitizeNicename, sanitizeTextField, sanitizeUserLogin } from '../../src/core/formatting/sanitize-text';
import { verifyWordPressPassword } from '../../src/core/auth/password-hash';
import { OptionEntity } from '../../src/core/database/entities/option.entity';
import { UserMetaEntity } from '../../src/core/database/entities/user-meta.entity';
import { UserEntity } from '../../src/core/database/entities/user.entity';
import { maybeSerialize, phpSerialize, phpUnserialize } from '../../src/core/formatting/php-serialize';
import { RestException } from '../../src/core/errors/rest.exception';
import { createTestApp, TEST_PREFIX, TestApp } from '../utils/test-app';
import { testDatabaseKind } from '../utils/test-db';

/**
 * UserAccountsService on a real database (`DB=sqlite` or `DB=mysql`): users, roles and application passwords
 * written as WordPress 6.1 writes them (wp_insert_user, WP_User::set_role, WP_Application_Passwords).
 */

/** `_application_passwords` of the WordPress oracle's admin (wp_oracle.wp_usermeta), as WordPress 6.1 wrote it. */
const ORACLE_APPLICATION_PASSWORDS =
  'a:1:{i:0;a:7:{s:4:"uuid";s:36:"bc7b9282-4fe8-404e-bee2-cbd95856daf7";s:6:"app_id";s:0:"";s:4:"name";' +
  's:9:"wp-oracle";s:8:"password";s:34:"$P$Bclanyr7MWkDvIat0XeGtQmtvbKUhw.";s:7:"created";i:1795237795;' +
  's:9:"last_used";i:1795237795;s:7:"last_ip";s:9:"127.0.0.1";}}';

/** Usermeta rows wp_insert_user() wrote for the oracle's editor "Erin Editor" (keys and values, in umeta_id order). */
const ORACLE_EDITOR_META: [string, string][] = [
  ['nickname', 'Erin'],
  ['first_name', 'Erin'],
  ['last_name', 'Editor'],
  ['description', 'Erin writes about summits.'],
  ['rich_editing', 'true'],
  ['syntax_highlighting', 'true'],
  ['comment_shortcuts', 'false'],
  ['admin_color', 'fresh'],
  ['use_ssl', '0'],
  ['show_admin_bar_front', 'true'],
  ['locale', ''],
  ['wp_capabilities', 'a:1:{s:6:"editor";b:1;}'],
  ['wp_user_level', '7'],
];

/** The shape of a serialized list with the variable parts (uuid, hash, times, ip) blanked. */
function shape(serialized: string): string {
  return serialized
    .replace(/s:36:"[0-9a-f-]{36}"/g, 's:36:"<uuid>"')
    .replace(/s:34:"\$P\$B[./0-9A-Za-z]{30}"/g, 's:34:"<phpass>"')
    .replace(/i:\d{10};/g, 'i:<time>;')
    .replace(/s:\d+:"(\d+\.){3}\d+"/g, 's:<n>:"<ip>"')
    .replace(/s:\d+:"[^"]*";s:8:"password"/g, 's:<n>:"<name>";s:8:"password"');
}

/** The live value from the oracle database when reachable (DB=mysql runs), else the recorded one. */
function oracleApplicationPasswords(): string {
  if (testDatabaseKind() !== 'mysql') return ORACLE_APPLICATION_PASSWORDS;
  try {
    const out = execFileSync(
      'mariadb',
      [
        '-uroot',
        '-h127.0.0.1',
        '-N',
        '-B',
        '-r',
        'wp_oracle',
        '-e',
        "select meta_value from wp_usermeta where meta_key='_application_passwords' order by umeta_id limit 1",
      ],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 10000 },
    ).trim();
    return out || ORACLE_APPLICATION_PASSWORDS;
  } catch {
    return ORACLE_APPLICATION_PASSWORDS;
  }
}

let t: TestApp;
let accounts: UserAccountsService;
let passwords: ApplicationPasswords;

beforeAll(async () => {
  t = await createTestApp('user_accounts');
  accounts = t.app.get(UserAccountsService);
  passwords = t.app.get(ApplicationPasswords);
});

afterAll(() => t.close());

async function metaRows(userId: number): Promise<[string, string][]> {
  const rows = await t.dataSource.getRepository(UserMetaEntity).find({ where: { userId }, order: { id: 'ASC' } });
  return rows.map((r) => [r.key ?? '', r.value ?? '']);
}

async function meta(userId: number, key: string): Promise<string | undefined> {
  return (await metaRows(userId)).find(([k]) => k === key)?.[1];
}

async function rejects(promise: Promise<unknown>, code: string, status: number): Promise<RestException> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RestException);
  expect({ code: (error as RestException).code, status: (error as RestException).status }).toEqual({ code, status });
  return error as RestException;
}

describe('sanitizers (ports of WordPress)', () => {
  it('sanitize_user( $login, true )', () => {
    expect(sanitizeUserLogin('john.doe')).toBe('john.doe');
    expect(sanitizeUserLogin(' a  b ')).toBe('a b');
    expect(sanitizeUserLogin('<b>bob</b>%41&amp;!')).toBe('bob');
    expect(sanitizeUserLogin('josé')).toBe('jos');
  });

  it('sanitize_title() of a login (user_nicename)', () => {
    expect(sanitizeNicename('john.doe')).toBe('john-doe');
    expect(sanitizeNicename('John Doe')).toBe('john-doe');
    expect(sanitizeNicename('a_b@c.d')).toBe('a_bc-d');
    expect(sanitizeNicename('--x--')).toBe('x');
  });

  it('sanitize_text_field()', () => {
    expect(sanitizeTextField('  My\n\tApp  ')).toBe('My App');
    expect(sanitizeTextField('<b>bold</b> app')).toBe('bold app');
    expect(sanitizeTextField('a < b')).toBe('a &lt; b');
    expect(sanitizeTextField('50%25 off')).toBe('50 off');
  });

  it('is_email()', () => {
    for (const ok of ['a@b.co', 'first.last+tag@sub.example.org', 'admin@localhost.localdomain'])
      expect(isEmail(ok)).toBe(true);
    for (const bad of [
      '',
      'a@b.c',
      '@example.com',
      'a@localhost',
      'a b@example.com',
      'a@-x.com',
      'a@x..com',
      'a@x.com.',
    ]) {
      expect(isEmail(bad)).toBe(false);
    }
  });

  it('wp_generate_password( 24, false ) and the phpass hash of application passwords', () => {
    const password = generatePassword(24);
    expect(password).toMatch(/^[A-Za-z0-9]{24}$/);
    const hash = hashApplicationPassword(password);
    expect(hash).toMatch(/^\$P\$B[./0-9A-Za-z]{30}$/);
    expect(verifyWordPressPassword(password, hash)).toBe(true);
    expect(verifyWordPressPassword(`${password}x`, hash)).toBe(false);
  });
});

describe('createUser (wp_insert_user)', () => {
  it('writes the users row and the usermeta rows exactly as WordPress does', async () => {
    const before = Date.now();
    const user = await accounts.createUser({
      login: 'erin.editor',
      email: 'erin.editor@example.com',
      password: 'correct horse battery',
      roles: ['editor'],
      firstName: 'Erin',
      lastName: 'Editor',
      nickname: 'Erin',
      description: 'Erin writes about summits.',
    });
    expect(user).toMatchObject({
      login: 'erin.editor',
      nicename: 'erin-editor',
      email: 'erin.editor@example.com',
      url: '',
      activationKey: '',
      status: 0,
      displayName: 'Erin Editor',
    });
    expect(user.registered).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    const registered = Date.parse(`${user.registered.replace(' ', 'T')}Z`);
    expect(registered).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
    expect(registered).toBeLessThanOrEqual(Date.now());
    expect(user.pass).toMatch(/^\$wp\$2y\$10\$/);
    expect(verifyWordPressPassword('correct horse battery', user.pass)).toBe(true);
    const expected = ORACLE_EDITOR_META.map(([k, v]): [string, string] => [k.replace(/^wp_/, TEST_PREFIX), v]);
    expect(await metaRows(user.id)).toEqual(expected);
  });

  it('gives each default role its capabilities entry and user level', async () => {
    const levels: Record<string, string> = {
      administrator: '10',
      editor: '7',
      author: '2',
      contributor: '1',
      subscriber: '0',
    };
    for (const [role, level] of Object.entries(levels)) {
      const user = await accounts.createUser({ login: `lvl-${role}`, email: `lvl-${role}@example.com`, roles: [role] });
      expect(await meta(user.id, `${TEST_PREFIX}capabilities`)).toBe(phpSerialize({ [role]: true }));
      expect(await meta(user.id, `${TEST_PREFIX}user_level`)).toBe(level);
    }
    const admin = await accounts.findUserByLogin('lvl-administrator');
    expect(await meta(admin!.id, `${TEST_PREFIX}capabilities`)).toBe('a:1:{s:13:"administrator";b:1;}');
  });

  it('uses the default_role option when no role is given, a random password, and the login as display name', async () => {
    const user = await accounts.createUser({ login: 'plain', email: 'plain@example.com' });
    expect(await meta(user.id, `${TEST_PREFIX}capabilities`)).toBe('a:1:{s:10:"subscriber";b:1;}');
    expect(await meta(user.id, 'nickname')).toBe('plain');
    expect(user.displayName).toBe('plain');
    expect(user.pass).toMatch(/^\$wp\$/);
    const none = await accounts.createUser({ login: 'norole', email: 'norole@example.com', roles: [] });
    expect(await meta(none.id, `${TEST_PREFIX}capabilities`)).toBe('a:0:{}');
    expect(await meta(none.id, `${TEST_PREFIX}user_level`)).toBe('0');
  });

  it('display name from first or last name, explicit display name, url, locale', async () => {
    const first = await accounts.createUser({ login: 'only-first', email: 'of@example.com', firstName: 'Ann' });
    expect(first.displayName).toBe('Ann');
    const last = await accounts.createUser({ login: 'only-last', email: 'ol@example.com', lastName: 'Lee' });
    expect(last.displayName).toBe('Lee');
    const named = await accounts.createUser({
      login: 'named',
      email: 'named@example.com',
      displayName: 'The Name',
      firstName: 'A',
      lastName: 'B',
      url: 'https://example.com',
      locale: 'fr_FR',
    });
    expect(named).toMatchObject({ displayName: 'The Name', url: 'https://example.com' });
    expect(await meta(named.id, 'locale')).toBe('fr_FR');
  });

  it('makes the nicename unique with -2, -3 suffixes and cuts it to 50 characters', async () => {
    const a = await accounts.createUser({ login: 'john doe', email: 'jd1@example.com' });
    const b = await accounts.createUser({ login: 'john.doe', email: 'jd2@example.com' });
    const c = await accounts.createUser({ login: 'John-Doe', email: 'jd3@example.com' });
    expect([a.nicename, b.nicename, c.nicename]).toEqual(['john-doe', 'john-doe-2', 'john-doe-3']);
    const long = await accounts.createUser({ login: 'x'.repeat(60), email: 'long@example.com' });
    expect(long.nicename).toBe('x'.repeat(50));
    const long2 = await accounts.createUser({ login: `${'x'.repeat(50)}y`, email: 'long2@example.com' });
    expect(long2.nicename).toBe(`${'x'.repeat(48)}-2`);
  });

  it('rejects bad logins and e-mails with WordPress codes', async () => {
    await rejects(accounts.createUser({ login: '', email: 'e1@example.com' }), 'empty_user_login', 400);
    await rejects(accounts.createUser({ login: '%%%', email: 'e1@example.com' }), 'empty_user_login', 400);
    await rejects(accounts.createUser({ login: 'y'.repeat(61), email: 'e1@example.com' }), 'user_login_too_long', 400);
    await rejects(accounts.createUser({ login: 'bad/name', email: 'e1@example.com' }), 'invalid_username', 400);
    await rejects(accounts.createUser({ login: ' padded', email: 'e1@example.com' }), 'invalid_username', 400);
    await rejects(accounts.createUser({ login: 'noemail', email: '' }), 'empty_email', 400);
    await rejects(accounts.createUser({ login: 'bademail', email: 'not-an-email' }), 'invalid_email', 400);
    await rejects(
      accounts.createUser({ login: 'badurl', email: 'bu@example.com', url: `https://${'u'.repeat(100)}` }),
      'user_url_too_long',
      400,
    );
  });

  it('rejects an existing login or e-mail (case-insensitive, as on MySQL)', async () => {
    await accounts.createUser({ login: 'taken', email: 'taken@example.com' });
    const error = await rejects(
      accounts.createUser({ login: 'taken', email: 'other@example.com' }),
      'existing_user_login',
      400,
    );
    expect(error.message).toBe('Sorry, that username already exists!');
    await rejects(accounts.createUser({ login: 'TAKEN', email: 'other@example.com' }), 'existing_user_login', 400);
    const dup = await rejects(
      accounts.createUser({ login: 'other', email: 'Taken@Example.com' }),
      'existing_user_email',
      400,
    );
    expect(dup.message).toBe('Sorry, that email address is already used!');
  });

  it('rejects an unknown role and writes nothing', async () => {
    const before = await accounts.countUsers();
    await rejects(
      accounts.createUser({ login: 'ghost', email: 'ghost@example.com', roles: ['overlord'] }),
      'rest_user_invalid_role',
      400,
    );
    expect(await accounts.countUsers()).toBe(before);
    expect(await accounts.findUserByLogin('ghost')).toBeNull();
  });

  it("joins the caller's transaction: a rollback leaves neither the user nor its meta", async () => {
    const users = await accounts.countUsers();
    const metaCount = await t.dataSource.getRepository(UserMetaEntity).count();
    await expect(
      t.dataSource.transaction(async (manager) => {
        const user = await accounts.createUser(
          { login: 'rolled', email: 'rolled@example.com', roles: ['author'] },
          manager,
        );
        expect(await manager.getRepository(UserEntity).existsBy({ id: user.id })).toBe(true);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await accounts.countUsers()).toBe(users);
    expect(await t.dataSource.getRepository(UserMetaEntity).count()).toBe(metaCount);
  });
});

describe('setRoles, setPassword, listUsers, countUsers', () => {
  it('replaces the roles, keeps directly granted capabilities and recomputes the user level', async () => {
    const user = await accounts.createUser({ login: 'promoted', email: 'promoted@example.com', roles: ['subscriber'] });
    await t.dataSource
      .getRepository(UserMetaEntity)
      .update(
        { userId: user.id, key: `${TEST_PREFIX}capabilities` },
        { value: maybeSerialize({ subscriber: true, upload_files: true }) },
      );
    await accounts.setRoles(user.id, ['author', 'editor']);
    expect(await meta(user.id, `${TEST_PREFIX}capabilities`)).toBe(
      phpSerialize({ upload_files: true, author: true, editor: true }),
    );
    expect(await meta(user.id, `${TEST_PREFIX}user_level`)).toBe('7');
    await accounts.setRoles(user.id, []);
    expect(await meta(user.id, `${TEST_PREFIX}capabilities`)).toBe(phpSerialize({ upload_files: true }));
    expect(await meta(user.id, `${TEST_PREFIX}user_level`)).toBe('0');
    await rejects(accounts.setRoles(user.id, ['overlord']), 'rest_user_invalid_role', 400);
    await rejects(accounts.setRoles(999999, ['author']), 'rest_user_invalid_id', 404);
  });

  it('setPassword stores the current WordPress hash and clears the activation key', async () => {
    const user = await accounts.createUser({ login: 'resetme', email: 'resetme@example.com' });
    await t.dataSource.getRepository(UserEntity).update({ id: user.id }, { activationKey: '1700000000:$P$Bkey' });
    await accounts.setPassword(user.id, 'n3w passw0rd');
    const row = await t.dataSource.getRepository(UserEntity).findOneByOrFail({ id: user.id });
    expect(row.pass).toMatch(/^\$wp\$2y\$/);
    expect(verifyWordPressPassword('n3w passw0rd', row.pass)).toBe(true);
    expect(row.activationKey).toBe('');
    await rejects(accounts.setPassword(999999, 'whatever1'), 'rest_user_invalid_id', 404);
  });

  it('lists users by ID with their roles, and counts them', async () => {
    const list = await accounts.listUsers();
    expect(list.length).toBe(await accounts.countUsers());
    expect(list.map((u) => u.id)).toEqual([...list.map((u) => u.id)].sort((a, b) => a - b));
    expect(list[0]).toEqual({
      id: t.users.administrator.id,
      login: 'administrator',
      email: 'administrator@example.org',
      displayName: 'administrator',
      roles: ['administrator'],
    });
    expect(list.find((u) => u.login === 'erin.editor')).toMatchObject({
      displayName: 'Erin Editor',
      roles: ['editor'],
    });
    expect(list.find((u) => u.login === 'norole')?.roles).toEqual([]);
  });
});

describe('application passwords (WP_Application_Passwords)', () => {
  let userId: number;

  beforeAll(async () => {
    userId = (await accounts.createUser({ login: 'appuser', email: 'appuser@example.com', roles: ['author'] })).id;
  });

  it('stores a new password in the format of WordPress 6.1 (compared with the oracle database)', async () => {
    const before = Math.floor(Date.now() / 1000);
    const { password, item } = await passwords.createApplicationPassword(userId, 'wp-oracle');
    expect(password).toMatch(/^[A-Za-z0-9]{24}$/);
    expect(item).toEqual({
      uuid: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      app_id: '',
      name: 'wp-oracle',
      password: expect.stringMatching(/^\$P\$B[./0-9A-Za-z]{30}$/),
      created: expect.any(Number),
      last_used: null,
      last_ip: null,
    });
    expect(item.created).toBeGreaterThanOrEqual(before);
    expect(verifyWordPressPassword(password, item.password)).toBe(true);

    const stored = (await meta(userId, '_application_passwords'))!;
    expect(stored).toBe(phpSerialize([item]));
    // Same keys, order and types as WordPress (a fresh item has last_used/last_ip null; the oracle's was used).
    const oracle = oracleApplicationPasswords();
    const used = stored.replace(
      's:9:"last_used";N;s:7:"last_ip";N;',
      's:9:"last_used";i:1795237795;s:7:"last_ip";s:9:"127.0.0.1";',
    );
    expect(shape(used)).toBe(shape(oracle));
    expect(Object.keys((phpUnserialize(stored) as ApplicationPasswordItem[])[0])).toEqual(
      Object.keys((phpUnserialize(oracle) as ApplicationPasswordItem[])[0]),
    );

    const inUse = await t.dataSource
      .getRepository(OptionEntity)
      .findOneByOrFail({ name: 'using_application_passwords' });
    expect({ value: inUse.value, autoload: inUse.autoload }).toEqual({ value: '1', autoload: 'no' });
  });

  it('authenticates HTTP Basic requests with the new password', async () => {
    const { password } = await passwords.createApplicationPassword(userId, 'http');
    const auth = `Basic ${Buffer.from(`appuser:${password}`).toString('base64')}`;
    const res = await t.http.get('/cms-json/cms/v2/types?context=edit').set('Authorization', auth);
    expect(res.status).toBe(200);
    const wrong = await t.http
      .get('/cms-json/cms/v2/types?context=edit')
      .set('Authorization', `Basic ${Buffer.from('appuser:nope').toString('base64')}`);
    expect(wrong.status).toBe(401);
  });

  it('requires a unique, non-empty name (sanitized, compared case-insensitively)', async () => {
    await rejects(passwords.createApplicationPassword(userId, ''), 'application_password_empty_name', 400);
    await rejects(passwords.createApplicationPassword(userId, ' <b></b> '), 'application_password_empty_name', 400);
    await rejects(passwords.createApplicationPassword(userId, 'WP-Oracle'), 'application_password_duplicate_name', 409);
    const { item } = await passwords.createApplicationPassword(
      userId,
      '  My\nApp  ',
      'e5d6f7a8-0000-4000-8000-000000000000',
    );
    expect(item).toMatchObject({ name: 'My App', app_id: 'e5d6f7a8-0000-4000-8000-000000000000' });
    await rejects(passwords.createApplicationPassword(999999, 'x'), 'rest_user_invalid_id', 404);
  });

  it('lists, gets, renames and finds by plain password', async () => {
    const { password, item } = await passwords.createApplicationPassword(userId, 'finder');
    const list = await passwords.listApplicationPasswords(userId);
    expect(list.map((i) => i.name)).toEqual(['wp-oracle', 'http', 'My App', 'finder']);
    expect(await passwords.getApplicationPassword(userId, item.uuid)).toEqual(item);
    expect(await passwords.getApplicationPassword(userId, 'nope')).toBeNull();

    const chunked = password.replace(/(.{4})(?!$)/g, '$1 ');
    expect(await passwords.findApplicationPassword(userId, chunked)).toEqual(item);
    expect(await passwords.findApplicationPassword(userId, 'x'.repeat(24))).toBeNull();
    expect(await passwords.findApplicationPassword(userId, '')).toBeNull();

    expect(await passwords.updateApplicationPassword(userId, item.uuid, { name: ' renamed ' })).toEqual({
      ...item,
      name: 'renamed',
    });
    expect((await passwords.getApplicationPassword(userId, item.uuid))?.name).toBe('renamed');
    expect(await passwords.updateApplicationPassword(userId, item.uuid, { name: '' })).toEqual({
      ...item,
      name: 'renamed',
    });
    await rejects(
      passwords.updateApplicationPassword(userId, item.uuid, { name: 'HTTP' }),
      'application_password_duplicate_name',
      409,
    );
    expect(await passwords.updateApplicationPassword(userId, 'nope', { name: 'x' })).toBeNull();
  });

  it('records use at most once a day, with time and IP', async () => {
    const { item } = await passwords.createApplicationPassword(userId, 'usage');
    const now = Math.floor(Date.now() / 1000);
    expect(await passwords.recordApplicationPasswordUse(userId, item.uuid, '203.0.113.5')).toBe(true);
    const first = (await passwords.getApplicationPassword(userId, item.uuid))!;
    expect(first.last_used).toBeGreaterThanOrEqual(now);
    expect(first.last_ip).toBe('203.0.113.5');
    expect(await passwords.recordApplicationPasswordUse(userId, item.uuid, '198.51.100.7')).toBe(true);
    expect(await passwords.getApplicationPassword(userId, item.uuid)).toEqual(first);

    // A day later the next use is recorded.
    const list = phpUnserialize((await meta(userId, '_application_passwords'))!) as ApplicationPasswordItem[];
    const aged = list.map((i) => (i.uuid === item.uuid ? { ...i, last_used: now - 86401 } : i));
    await t.dataSource
      .getRepository(UserMetaEntity)
      .update({ userId, key: '_application_passwords' }, { value: phpSerialize(aged) });
    expect(await passwords.recordApplicationPasswordUse(userId, item.uuid, '198.51.100.7')).toBe(true);
    const second = (await passwords.getApplicationPassword(userId, item.uuid))!;
    expect(second.last_ip).toBe('198.51.100.7');
    expect(second.last_used).toBeGreaterThanOrEqual(now);
    expect(await passwords.recordApplicationPasswordUse(userId, 'nope', '1.2.3.4')).toBe(false);
  });

  it("deletes like PHP's unset() (the other items keep their keys) and appends after the largest key", async () => {
    const user = (await accounts.createUser({ login: 'deleter', email: 'deleter@example.com' })).id;
    const a = (await passwords.createApplicationPassword(user, 'a')).item;
    const b = (await passwords.createApplicationPassword(user, 'b')).item;
    expect(await passwords.deleteApplicationPassword(user, a.uuid)).toBe(true);
    expect(await passwords.deleteApplicationPassword(user, a.uuid)).toBe(false);
    expect(await meta(user, '_application_passwords')).toBe(`a:1:{i:1;${phpSerialize(b)}}`);
    expect(await passwords.listApplicationPasswords(user)).toEqual([b]);
    const c = (await passwords.createApplicationPassword(user, 'c')).item;
    expect(await meta(user, '_application_passwords')).toBe(`a:2:{i:1;${phpSerialize(b)}i:2;${phpSerialize(c)}}`);
    expect(await passwords.deleteAllApplicationPasswords(user)).toBe(2);
    expect(await meta(user, '_application_passwords')).toBe('a:0:{}');
    expect(await passwords.deleteAllApplicationPasswords(user)).toBe(0);
    expect(await passwords.listApplicationPasswords(user)).toEqual([]);
  });

  it('reads lists WordPress wrote with gaps in the keys, and adds a uuid to items without one', async () => {
    const user = (await accounts.createUser({ login: 'legacy', email: 'legacy@example.com' })).id;
    const password = generatePassword();
    const legacy = {
      app_id: '',
      name: 'old',
      password: hashApplicationPassword(password),
      created: 1600000000,
      last_used: null,
      last_ip: null,
    };
    await t.dataSource
      .getRepository(UserMetaEntity)
      .insert({ userId: user, key: '_application_passwords', value: `a:1:{i:3;${phpSerialize(legacy)}}` });
    const [item] = await passwords.listApplicationPasswords(user);
    // As get_user_application_passwords(): the uuid is added (after the other keys) and saved at once.
    expect(Object.keys(item)).toEqual(['app_id', 'name', 'password', 'created', 'last_used', 'last_ip', 'uuid']);
    expect(item.uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(await meta(user, '_application_passwords')).toBe(`a:1:{i:3;${phpSerialize(item)}}`);
    expect(await passwords.findApplicationPassword(user, password)).toEqual(item);
    expect(await passwords.recordApplicationPasswordUse(user, item.uuid, '::1')).toBe(true);
    const used = (await passwords.getApplicationPassword(user, item.uuid))!;
    expect(used.last_ip).toBe('::1');
    const added = (await passwords.createApplicationPassword(user, 'new')).item;
    expect(await meta(user, '_application_passwords')).toBe(
      `a:2:{i:3;${phpSerialize(used)}i:4;${phpSerialize(added)}}`,
    );
  });
});
