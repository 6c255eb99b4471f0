import * as passwordHash from '../../src/core/auth/password-hash';
import { createUser, TestUser } from '../factories/user.factory';
import { createTestApp, expectRestError, TEST_PREFIX, TestApp } from '../utils/test-app';

/**
 * `users/<id|me>/application-passwords[/<uuid>]` as WordPress 6.1's WP_REST_Application_Passwords_Controller:
 * create (the password is shown once), list, read, rename, delete one or all, permissions (edit_user), and use of
 * the new password for HTTP Basic authentication.
 */

type Role = 'administrator' | 'editor' | 'author' | 'contributor' | 'subscriber';
type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

const KEYS_EDIT = ['uuid', 'app_id', 'name', 'created', 'last_used', 'last_ip', '_links'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const GMT = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/;

let t: TestApp;
let serial = 0;

function call(method: Method, path: string, who?: TestUser | string, body?: object) {
  let req = t.http[method](`/cms-json/cms/v2${path}`);
  if (who) {
    const header =
      typeof who !== 'string' ? who.authorization : who.startsWith('Basic ') ? who : t.users[who as Role].authorization;
    req = req.set('Authorization', header);
  }
  return body ? req.send(body) : req;
}

function basic(login: string, password: string): string {
  return `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`;
}

function freshUser(role: string): Promise<TestUser> {
  return createUser(t.dataSource, TEST_PREFIX, `apps${++serial}`, role);
}

beforeAll(async () => {
  t = await createTestApp('application_passwords');
});

afterAll(() => t.close());

describe('create and use', () => {
  it('creates one for yourself: 201, Location, the password shown once in six groups of four', async () => {
    const user = await freshUser('subscriber');
    const res = await call('post', `/users/${user.id}/application-passwords`, user, { name: 'My App' }).expect(201);
    // WordPress adds `password` after the stored fields.
    expect(Object.keys(res.body)).toEqual([
      'uuid',
      'app_id',
      'name',
      'created',
      'last_used',
      'last_ip',
      'password',
      '_links',
    ]);
    expect(res.body).toMatchObject({ app_id: '', name: 'My App', last_used: null, last_ip: null });
    expect(res.body.uuid).toMatch(UUID);
    expect(res.body.created).toMatch(GMT);
    expect(Math.abs(Date.parse(`${res.body.created}Z`) - Date.now())).toBeLessThan(60_000);
    expect(res.body.password).toMatch(/^([A-Za-z0-9]{4} ){5}[A-Za-z0-9]{4}$/);
    const self = `http://example.org/cms-json/cms/v2/users/${user.id}/application-passwords/${res.body.uuid}`;
    expect(res.headers.location).toBe(self);
    expect(res.body._links.self[0].href).toBe(self);

    // Never again: neither in the list nor in the item, in any context.
    const list = await call('get', `/users/${user.id}/application-passwords?context=edit`, user).expect(200);
    expect(list.body.map((i: { name: string }) => i.name)).toEqual(['tests', 'My App']);
    for (const item of list.body) expect(Object.keys(item)).toEqual(KEYS_EDIT);
    const item = await call(
      'get',
      `/users/${user.id}/application-passwords/${res.body.uuid}?context=edit`,
      user,
    ).expect(200);
    expect(Object.keys(item.body)).toEqual(KEYS_EDIT);
    expect(JSON.stringify([list.body, item.body])).not.toContain(res.body.password.replace(/ /g, ''));
  });

  it('authenticates HTTP Basic with the new password, with or without the spaces', async () => {
    const user = await freshUser('author');
    const { password } = (await call('post', '/users/me/application-passwords', user, { name: 'cli' }).expect(201))
      .body;
    const me = await call('get', '/users/me?context=edit', basic(user.login, password)).expect(200);
    expect(me.body).toMatchObject({ id: user.id, roles: ['author'] });
    await call('get', '/types?context=edit', basic(user.login, password.replace(/ /g, ''))).expect(200);
    expectRestError(
      await call(
        'get',
        '/users/me',
        basic(
          user.login,
          password.replace(/^./, (c: string) => (c === 'a' ? 'b' : 'a')),
        ),
      ),
      'incorrect_password',
      401,
    );
  });

  it('reads the password as all that follows the first colon, so that more after the password is a wrong password', async () => {
    const user = await freshUser('author');
    const { password } = (await call('post', '/users/me/application-passwords', user, { name: 'colon' }).expect(201))
      .body;
    await call('get', '/users/me?context=edit', basic(user.login, password)).expect(200);
    expectRestError(await call('get', '/users/me', basic(user.login, `${password}:more`)), 'incorrect_password', 401);
    // A header that is not Basic credentials leaves the caller anonymous: the route's own refusal answers.
    for (const header of ['Basic', `Basic ${Buffer.from(user.login).toString('base64')}`, 'Bearer abc']) {
      expectRestError(await call('get', '/users/me').set('Authorization', header), 'rest_not_logged_in', 401);
    }
  });

  it('takes an e-mail address as the name (a user whose login it is first), with the roles read for a write', async () => {
    const user = await freshUser('author');
    const email = `${user.login}@example.org`;
    // A write reuses no verified caller: the user, their passwords and their roles are read from the database.
    const created = await call('post', '/posts', basic(email, user.appPassword), {
      title: 'By e-mail',
      status: 'publish',
    }).expect(201);
    expect(created.body).toMatchObject({ author: user.id, status: 'publish' });
    // A subscriber whose login is that address: the name is theirs (WordPress tries the login first).
    const twin = await createUser(t.dataSource, TEST_PREFIX, email, 'subscriber');
    expectRestError(
      await call('post', '/posts', basic(email, twin.appPassword), { title: 'Not mine' }),
      'rest_cannot_create',
      403,
    );
    expectRestError(
      await call('post', '/posts', basic(email, user.appPassword), { title: 'Not mine' }),
      'incorrect_password',
      401,
    );
  });

  it('records last_used and last_ip after the first authenticated use', async () => {
    const user = await freshUser('contributor');
    const created = (await call('post', '/users/me/application-passwords', user, { name: 'usage' }).expect(201)).body;
    const before = (await call('get', `/users/me/application-passwords/${created.uuid}`, user).expect(200)).body;
    expect(before).toMatchObject({ last_used: null, last_ip: null });
    await call('get', '/users/me', basic(user.login, created.password)).expect(200);
    const after = (await call('get', `/users/me/application-passwords/${created.uuid}`, user).expect(200)).body;
    expect(after.last_used).toMatch(GMT);
    expect(Math.abs(Date.parse(`${after.last_used}Z`) - Date.now())).toBeLessThan(60_000);
    expect(after.last_ip).toMatch(/^(::ffff:)?127\.0\.0\.1$|^::1$/);
  });

  it('keeps the remaining passwords usable after the first one is deleted (keys with gaps)', async () => {
    const user = await freshUser('author');
    const other = (await call('post', '/users/me/application-passwords', user, { name: 'other' }).expect(201)).body;
    await call('delete', `/users/me/application-passwords/uuid-${user.login}`, user).expect(200);
    // Stored as PHP's unset() leaves it, a:1:{i:1;a:7:{...}}: the remaining password must still authenticate.
    await call('get', '/users/me', basic(user.login, other.password)).expect(200);
    expectRestError(await call('get', '/users/me', user), 'incorrect_password', 401);
  });

  it('hashes against the other passwords of a user only until the one used is verified', async () => {
    const user = await freshUser('author');
    const second = (await call('post', '/users/me/application-passwords', user, { name: 'second' }).expect(201)).body;
    const hashing = jest.spyOn(passwordHash, 'verifyWordPressPassword');
    try {
      await call('get', '/users/me', basic(user.login, second.password)).expect(200);
      expect(hashing).toHaveBeenCalledTimes(2);
      hashing.mockClear();
      await call('get', '/users/me', basic(user.login, second.password)).expect(200);
      expect(hashing).not.toHaveBeenCalled();
      expectRestError(
        await call('get', '/users/me', basic(user.login, 'wrongwrongwrongwrongwron')),
        'incorrect_password',
        401,
      );
    } finally {
      hashing.mockRestore();
    }
  });

  it('stops authenticating a deleted password', async () => {
    const user = await freshUser('editor');
    const created = (await call('post', '/users/me/application-passwords', user, { name: 'short-lived' }).expect(201))
      .body;
    await call('get', '/users/me', basic(user.login, created.password)).expect(200);
    await call('delete', `/users/me/application-passwords/${created.uuid}`, user).expect(200);
    expectRestError(await call('get', '/users/me', basic(user.login, created.password)), 'incorrect_password', 401);
  });
});

describe('manage', () => {
  it('lists, reads, renames, deletes one and deletes all', async () => {
    const user = await freshUser('subscriber');
    const base = `/users/${user.id}/application-passwords`;
    const a = (
      await call('post', base, user, { name: 'alpha', app_id: 'e5d6f7a8-0000-4000-8000-000000000000' }).expect(201)
    ).body;
    const b = (await call('post', base, user, { name: 'beta' }).expect(201)).body;

    const list = (await call('get', base, user).expect(200)).body;
    expect(list.map((i: { name: string }) => i.name)).toEqual(['tests', 'alpha', 'beta']);
    expect(list[1]).toMatchObject({ uuid: a.uuid, app_id: 'e5d6f7a8-0000-4000-8000-000000000000', created: a.created });

    const one = (await call('get', `${base}/${a.uuid}`, user).expect(200)).body;
    expect(one).toMatchObject({ uuid: a.uuid, name: 'alpha' });

    const renamed = await call('put', `${base}/${a.uuid}`, user, { name: 'gamma' }).expect(200);
    expect(renamed.body).toMatchObject({ uuid: a.uuid, name: 'gamma', created: a.created });
    expect(renamed.body).not.toHaveProperty('password');
    await call('post', `${base}/${a.uuid}`, user, { name: 'delta' }).expect(200);
    expect((await call('get', `${base}/${a.uuid}`, user)).body.name).toBe('delta');

    const deleted = await call('delete', `${base}/${b.uuid}`, user).expect(200);
    expect(deleted.body).toEqual({ deleted: true, previous: expect.objectContaining({ uuid: b.uuid, name: 'beta' }) });
    expectRestError(await call('get', `${base}/${b.uuid}`, user), 'rest_application_password_not_found', 404);

    const all = await call('delete', base, user).expect(200);
    expect(all.body).toEqual({ deleted: true, count: 2 });
    expect((await call('get', base, user.authorization).expect(401)).body.code).toBe('incorrect_password');
    // The user's own application password went too; the administrator sees an empty list.
    expect((await call('get', base, 'administrator').expect(200)).body).toEqual([]);
  });

  it('works through users/me', async () => {
    const user = await freshUser('contributor');
    const created = await call('post', '/users/me/application-passwords', user, { name: 'via me' }).expect(201);
    expect(created.headers.location).toBe(
      `http://example.org/cms-json/cms/v2/users/${user.id}/application-passwords/${created.body.uuid}`,
    );
    const list = (await call('get', '/users/me/application-passwords', user).expect(200)).body;
    expect(list.map((i: { name: string }) => i.name)).toEqual(['tests', 'via me']);
    await call('put', `/users/me/application-passwords/${created.body.uuid}`, user, { name: 'renamed' }).expect(200);
    await call('delete', `/users/me/application-passwords/${created.body.uuid}`, user).expect(200);
    expect((await call('get', '/users/me/application-passwords', user).expect(200)).body).toHaveLength(1);
  });

  it("lets an administrator manage another user's passwords", async () => {
    const user = await freshUser('author');
    const base = `/users/${user.id}/application-passwords`;
    const created = (await call('post', base, 'administrator', { name: 'set up by admin' }).expect(201)).body;
    await call('get', '/users/me', basic(user.login, created.password)).expect(200);
    expect((await call('get', base, 'administrator').expect(200)).body).toHaveLength(2);
    await call('put', `${base}/${created.uuid}`, 'administrator', { name: 'renamed by admin' }).expect(200);
    await call('delete', `${base}/${created.uuid}`, 'administrator').expect(200);
    expect((await call('delete', base, 'administrator').expect(200)).body).toEqual({ deleted: true, count: 1 });
  });

  it("refuses a subscriber (or an editor) another user's passwords with 403", async () => {
    const owner = await freshUser('subscriber');
    const base = `/users/${owner.id}/application-passwords`;
    const item = `${base}/uuid-${owner.login}`;
    expectRestError(await call('get', base, 'subscriber'), 'rest_cannot_list_application_passwords', 403);
    expectRestError(
      await call('post', base, 'subscriber', { name: 'mine now' }),
      'rest_cannot_create_application_passwords',
      403,
    );
    expectRestError(await call('delete', base, 'editor'), 'rest_cannot_delete_application_passwords', 403);
    expectRestError(await call('get', item, 'subscriber'), 'rest_cannot_read_application_password', 403);
    expectRestError(await call('put', item, 'editor', { name: 'x' }), 'rest_cannot_edit_application_password', 403);
    expectRestError(await call('delete', item, 'subscriber'), 'rest_cannot_delete_application_password', 403);
    expect((await call('get', base, owner).expect(200)).body).toHaveLength(1);
  });

  it('refuses anonymous callers with 401', async () => {
    const base = `/users/${t.users.subscriber.id}/application-passwords`;
    expectRestError(await call('get', base), 'rest_cannot_list_application_passwords', 401);
    expectRestError(
      await call('post', base, undefined, { name: 'anon' }),
      'rest_cannot_create_application_passwords',
      401,
    );
    expectRestError(await call('delete', base), 'rest_cannot_delete_application_passwords', 401);
    expectRestError(await call('get', `${base}/uuid-subscriber`), 'rest_cannot_read_application_password', 401);
    expectRestError(await call('get', '/users/me/application-passwords'), 'rest_not_logged_in', 401);
    expectRestError(
      await call('post', '/users/me/application-passwords', undefined, { name: 'anon' }),
      'rest_not_logged_in',
      401,
    );
  });

  it('answers unknown passwords with rest_application_password_not_found 404 and unknown users with rest_user_invalid_id 404', async () => {
    const base = `/users/${t.users.author.id}/application-passwords`;
    const missing = `${base}/00000000-0000-4000-8000-000000000000`;
    expectRestError(await call('get', missing, 'author'), 'rest_application_password_not_found', 404);
    expectRestError(await call('put', missing, 'author', { name: 'x' }), 'rest_application_password_not_found', 404);
    expectRestError(await call('delete', missing, 'author'), 'rest_application_password_not_found', 404);
    expectRestError(
      await call('get', '/users/999999/application-passwords', 'administrator'),
      'rest_user_invalid_id',
      404,
    );
  });

  it('requires a unique, non-empty name (409 application_password_duplicate_name, 400 otherwise)', async () => {
    const user = await freshUser('subscriber');
    const base = `/users/${user.id}/application-passwords`;
    const first = (await call('post', base, user, { name: 'Phone' }).expect(201)).body;
    expectRestError(await call('post', base, user, { name: 'Phone' }), 'application_password_duplicate_name', 409);
    expectRestError(await call('post', base, user, { name: 'phone' }), 'application_password_duplicate_name', 409);
    const tablet = (await call('post', base, user, { name: 'Tablet' }).expect(201)).body;
    expectRestError(
      await call('put', `${base}/${tablet.uuid}`, user, { name: 'PHONE' }),
      'application_password_duplicate_name',
      409,
    );
    expectRestError(await call('post', base, user, {}), 'rest_missing_callback_param', 400);
    expectRestError(await call('post', base, user, { name: '' }), 'rest_invalid_param', 400);
    // The schema's pattern `.*\S.*` refuses blank names before the controller runs (WordPress: rest_invalid_pattern).
    expectRestError(await call('post', base, user, { name: '   ' }), 'rest_invalid_param', 400);
    expect((await call('get', base, user).expect(200)).body.map((i: { uuid: string }) => i.uuid)).toEqual([
      `uuid-${user.login}`,
      first.uuid,
      tablet.uuid,
    ]);
  });

  it('validates app_id as a UUID (rest_invalid_param 400)', async () => {
    expectRestError(
      await call('post', '/users/me/application-passwords', 'editor', { name: 'bad app id', app_id: 'not-a-uuid' }),
      'rest_invalid_param',
      400,
    );
  });

  it('introspects the application password of the current request (users/me/application-passwords/introspect)', async () => {
    const user = await freshUser('author');
    const res = await call('get', '/users/me/application-passwords/introspect', user).expect(200);
    expect(res.body).toMatchObject({ uuid: `uuid-${user.login}`, name: 'tests' });
    expectRestError(
      await call('get', `/users/${t.users.editor.id}/application-passwords/introspect`, user),
      'rest_cannot_introspect_app_password_for_non_authenticated_user',
      403,
    );
  });
});
