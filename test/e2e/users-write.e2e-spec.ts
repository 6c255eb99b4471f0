import { PostEntity } from '../../src/core/database/entities/post.entity';
import { PostMetaEntity } from '../../src/core/database/entities/post-meta.entity';
import { UserMetaEntity } from '../../src/core/database/entities/user-meta.entity';
import { UserEntity } from '../../src/core/database/entities/user.entity';
import { createUser, TestUser } from '../factories/user.factory';
import { createTestApp, expectRestError, TEST_PREFIX, TestApp } from '../utils/test-app';

/**
 * Writing users: create (`POST users`), update (`POST/PUT/PATCH users/<id>` and `users/me`) and delete, with
 * WordPress's error codes and the rows WordPress writes (reference 3.5, tests 6.9, WordPress 6.1 oracle).
 */

type Role = 'administrator' | 'editor' | 'author' | 'contributor' | 'subscriber';
type Method = 'post' | 'put' | 'patch' | 'delete';

let t: TestApp;
let serial = 0;

function send(method: Method, path: string, body?: object, who?: Role | TestUser) {
  let req = t.http[method](`/cms-json/cms/v2${path}`);
  if (who) req = req.set('Authorization', typeof who === 'string' ? t.users[who].authorization : who.authorization);
  return body ? req.send(body) : req;
}

function get(path: string, who?: Role | TestUser) {
  const req = t.http.get(`/cms-json/cms/v2${path}`);
  return who ? req.set('Authorization', typeof who === 'string' ? t.users[who].authorization : who.authorization) : req;
}

function login(username: string, password: string) {
  return t.http.post('/cms-json/cms-auth/v1/login').send({ username, password });
}

async function meta(userId: number, key: string): Promise<string | null | undefined> {
  return (await t.dataSource.getRepository(UserMetaEntity).findOne({ where: { userId, key } }))?.value;
}

/** A fresh user straight in the database (own application password), so destructive tests touch no one else. */
function freshUser(role: string): Promise<TestUser> {
  serial++;
  return createUser(t.dataSource, TEST_PREFIX, `fresh${serial}`, role);
}

async function addPost(author: number, type = 'post'): Promise<number> {
  const date = '2024-01-01 00:00:00';
  serial++;
  const result = await t.dataSource.getRepository(PostEntity).insert({
    author,
    type,
    status: 'publish',
    title: `Post ${serial}`,
    name: `post-${serial}`,
    date,
    dateGmt: date,
    modified: date,
    modifiedGmt: date,
  });
  return Number(result.identifiers[0].id);
}

beforeAll(async () => {
  t = await createTestApp('users_write');
});

afterAll(() => t.close());

describe('create', () => {
  it('creates a user as administrator: 201, Location, edit context, default role subscriber, no password', async () => {
    const body = {
      username: 'newbie',
      email: 'newbie@example.com',
      password: 'pw-Newbie-1',
      name: 'New Bie',
      first_name: 'New',
      last_name: 'Bie',
      nickname: 'nb',
      description: 'Hello.',
      url: 'https://newbie.example',
    };
    const res = await send('post', '/users', body, 'administrator').expect(201);
    const id = res.body.id as number;
    expect(res.headers.location).toBe(`http://example.org/cms-json/cms/v2/users/${id}`);
    expect(res.body).toMatchObject({
      username: 'newbie',
      name: 'New Bie',
      first_name: 'New',
      last_name: 'Bie',
      email: 'newbie@example.com',
      nickname: 'nb',
      description: 'Hello.',
      url: 'https://newbie.example',
      slug: 'newbie',
      roles: ['subscriber'],
      extra_capabilities: { subscriber: true },
    });
    expect(res.body.capabilities).toMatchObject({ subscriber: true, read: true });
    expect(res.body.registered_date).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/);
    expect(res.body).not.toHaveProperty('password');
    expect(JSON.stringify(res.body)).not.toContain('pw-Newbie-1');

    const row = await t.dataSource.getRepository(UserEntity).findOneByOrFail({ id });
    expect(row.pass).not.toContain('pw-Newbie-1');
    expect(await meta(id, `${TEST_PREFIX}capabilities`)).toBe('a:1:{s:10:"subscriber";b:1;}');
    expect(await meta(id, `${TEST_PREFIX}user_level`)).toBe('0');
    await login('newbie', 'pw-Newbie-1').expect(200);
  });

  it.each([
    ['author', 'a:1:{s:6:"author";b:1;}', '2'],
    ['editor', 'a:1:{s:6:"editor";b:1;}', '7'],
    ['administrator', 'a:1:{s:13:"administrator";b:1;}', '10'],
  ])('stores roles [%s] as WordPress does: %s and user_level %s', async (role, serialized, level) => {
    const res = await send(
      'post',
      '/users',
      { username: `as-${role}`, email: `as-${role}@example.com`, password: 'x', roles: [role] },
      'administrator',
    ).expect(201);
    expect(res.body.roles).toEqual([role]);
    expect(await meta(res.body.id, `${TEST_PREFIX}capabilities`)).toBe(serialized);
    expect(await meta(res.body.id, `${TEST_PREFIX}user_level`)).toBe(level);
  });

  it('requires username, email and password (rest_missing_callback_param 400)', async () => {
    const res = await send('post', '/users', { name: 'Nobody' }, 'administrator');
    expectRestError(res, 'rest_missing_callback_param', 400);
    expect([...res.body.data.params].sort()).toEqual(['email', 'password', 'username']);
    expectRestError(
      await send('post', '/users', { username: 'a1', email: 'a1@example.com' }, 'administrator'),
      'rest_missing_callback_param',
      400,
    );
  });

  it('rejects an invalid e-mail with rest_invalid_param 400', async () => {
    const res = await send(
      'post',
      '/users',
      { username: 'bademail', email: 'something', password: 'x' },
      'administrator',
    );
    expectRestError(res, 'rest_invalid_param', 400);
    expect(Object.keys(res.body.data.params)).toEqual(['email']);
    expect(await t.dataSource.getRepository(UserEntity).countBy({ login: 'bademail' })).toBe(0);
  });

  it('rejects an existing username or e-mail (existing_user_login / existing_user_email 400)', async () => {
    expectRestError(
      await send('post', '/users', { username: 'editor', email: 'other@example.com', password: 'x' }, 'administrator'),
      'existing_user_login',
      400,
    );
    expectRestError(
      await send('post', '/users', { username: 'other', email: 'editor@example.org', password: 'x' }, 'administrator'),
      'existing_user_email',
      400,
    );
    expect(await t.dataSource.getRepository(UserEntity).countBy({ login: 'other' })).toBe(0);
  });

  it('validates username and password as WordPress does (rest_invalid_param 400)', async () => {
    // WP_REST_Users_Controller::check_username() and check_user_password() are sanitize callbacks: rest_invalid_param.
    const attempt = async (username: string, password: string) => {
      const res = await send(
        'post',
        '/users',
        { username, email: `${username.replace(/\W/g, '')}@example.com`, password },
        'administrator',
      );
      return `${res.status} ${res.body.code} ${Object.keys(res.body.data?.params ?? {}).join(',')}`;
    };
    expect({
      illegalLogin: await attempt('bad<name>', 'x'),
      backslash: await attempt('slashy', 'a\\b'),
      emptyPassword: await attempt('empty', ''),
    }).toEqual({
      illegalLogin: '400 rest_invalid_param username',
      backslash: '400 rest_invalid_param password',
      emptyPassword: '400 rest_invalid_param password',
    });
    expect(await t.dataSource.getRepository(UserEntity).countBy([{ login: 'slashy' }, { login: 'empty' }])).toBe(0);
  });

  it('rejects an unknown role by argument validation (rest_invalid_param 400, the schema enum) and creates nothing', async () => {
    expectRestError(
      await send(
        'post',
        '/users',
        { username: 'baby', email: 'baby@example.com', password: 'x', roles: ['baby'] },
        'administrator',
      ),
      'rest_invalid_param',
      400,
    );
    expect(await t.dataSource.getRepository(UserEntity).countBy({ login: 'baby' })).toBe(0);
  });

  it('rejects a body id with rest_user_exists 400', async () => {
    expectRestError(
      await send(
        'post',
        '/users',
        { id: 156, username: 'withid', email: 'withid@example.com', password: 'x' },
        'administrator',
      ),
      'rest_user_exists',
      400,
    );
  });

  it("refuses anonymous callers and editors alike with rest_cannot_create_user 401, as the spec's error table says", async () => {
    const body = { username: 'sneaky', email: 'sneaky@example.com', password: 'x' };
    expectRestError(await send('post', '/users', body), 'rest_cannot_create_user', 401);
    expectRestError(await send('post', '/users', body, 'editor'), 'rest_cannot_create_user', 401);
    expect(await t.dataSource.getRepository(UserEntity).countBy({ login: 'sneaky' })).toBe(0);
  });
});

describe('update', () => {
  it('lets a subscriber update their own profile and password', async () => {
    const user = await freshUser('subscriber');
    const body = {
      name: 'Sue Scriber',
      first_name: 'Sue',
      last_name: 'Scriber',
      nickname: 'sue',
      description: 'Reads.',
      url: 'https://sue.example',
    };
    const res = await send('put', `/users/${user.id}`, body, user).expect(200);
    expect(res.body).toMatchObject({ id: user.id, username: user.login, roles: ['subscriber'], ...body });
    expect(res.body).not.toHaveProperty('password');
    expect(res.headers.location).toBeUndefined();
    const row = await t.dataSource.getRepository(UserEntity).findOneByOrFail({ id: user.id });
    expect({ displayName: row.displayName, url: row.url }).toEqual({
      displayName: 'Sue Scriber',
      url: 'https://sue.example',
    });
    expect(await meta(user.id, 'first_name')).toBe('Sue');
    expect(await meta(user.id, 'description')).toBe('Reads.');

    const hashBefore = row.pass;
    await send('put', `/users/${user.id}`, { password: 'n3w-Secret' }, user).expect(200);
    expect((await t.dataSource.getRepository(UserEntity).findOneByOrFail({ id: user.id })).pass).not.toBe(hashBefore);
    await login(user.login, 'n3w-Secret').expect(200);
    expectRestError(await login(user.login, user.password), 'invalid_credentials', 401);
  });

  it('sanitizes names (sanitize_text_field) and the slug (sanitize_title) as WordPress does', async () => {
    const user = await freshUser('subscriber');
    const res = await send(
      'put',
      `/users/${user.id}`,
      { name: '<b>Sue</b>  Scriber', first_name: ' Sue\n', nickname: '<i>sue</i>', slug: 'My Slug' },
      user,
    ).expect(200);
    expect(res.body).toMatchObject({ name: 'Sue Scriber', first_name: 'Sue', nickname: 'sue', slug: 'my-slug' });
  });

  it('keeps the password when none is sent', async () => {
    const user = await freshUser('author');
    const before = (await t.dataSource.getRepository(UserEntity).findOneByOrFail({ id: user.id })).pass;
    await send('put', `/users/${user.id}`, { first_name: 'Only' }, 'administrator').expect(200);
    expect((await t.dataSource.getRepository(UserEntity).findOneByOrFail({ id: user.id })).pass).toBe(before);
  });

  it.each<Method>(['post', 'put', 'patch'])('updates with %s', async (method) => {
    const user = await freshUser('author');
    const res = await send(method, `/users/${user.id}`, { description: `via ${method}` }, 'administrator').expect(200);
    expect(res.body.description).toBe(`via ${method}`);
    expect((await get(`/users/${user.id}`, 'administrator')).body.description).toBe(`via ${method}`);
  });

  it('refuses a username change with rest_user_invalid_argument 400, accepts the same username', async () => {
    const user = await freshUser('subscriber');
    expectRestError(
      await send('put', `/users/${user.id}`, { username: 'renamed' }, 'administrator'),
      'rest_user_invalid_argument',
      400,
    );
    await send('put', `/users/${user.id}`, { username: user.login, first_name: 'Same' }, 'administrator').expect(200);
  });

  it("refuses another user's e-mail with rest_user_invalid_email 400, accepts one's own", async () => {
    const user = await freshUser('subscriber');
    expectRestError(
      await send('put', `/users/${user.id}`, { email: 'editor@example.org' }, user),
      'rest_user_invalid_email',
      400,
    );
    await send('put', `/users/${user.id}`, { email: `${user.login}@example.org` }, user).expect(200);
    const res = await send('put', `/users/${user.id}`, { email: `${user.login}-new@example.org` }, user).expect(200);
    expect(res.body.email).toBe(`${user.login}-new@example.org`);
    expectRestError(await send('put', `/users/${user.id}`, { email: 'not-an-email' }, user), 'rest_invalid_param', 400);
  });

  it("refuses another user's slug with rest_user_invalid_slug 400", async () => {
    const user = await freshUser('subscriber');
    expectRestError(await send('put', `/users/${user.id}`, { slug: 'editor' }, user), 'rest_user_invalid_slug', 400);
    const res = await send('put', `/users/${user.id}`, { slug: `${user.login}-slug` }, user).expect(200);
    expect(res.body.slug).toBe(`${user.login}-slug`);
  });

  it('lets an administrator replace the roles of another user', async () => {
    const user = await freshUser('author');
    const res = await send('put', `/users/${user.id}`, { roles: ['editor'] }, 'administrator').expect(200);
    expect(res.body.roles).toEqual(['editor']);
    expect(res.body.capabilities).toMatchObject({ editor: true, edit_others_posts: true });
    expect(res.body.capabilities.author).toBeUndefined();
    expect(res.body.extra_capabilities).toEqual({ editor: true });
    expect(await meta(user.id, `${TEST_PREFIX}capabilities`)).toBe('a:1:{s:6:"editor";b:1;}');
    expect(await meta(user.id, `${TEST_PREFIX}user_level`)).toBe('7');
  });

  it('refuses an unknown role by argument validation (rest_invalid_param 400) and keeps the roles', async () => {
    const user = await freshUser('author');
    expectRestError(
      await send('put', `/users/${user.id}`, { roles: ['BeSharp'] }, 'administrator'),
      'rest_invalid_param',
      400,
    );
    expect(await meta(user.id, `${TEST_PREFIX}capabilities`)).toBe('a:1:{s:6:"author";b:1;}');
  });

  it('refuses an administrator demoting themselves (rest_user_invalid_role 403)', async () => {
    const { administrator } = t.users;
    expectRestError(
      await send('put', `/users/${administrator.id}`, { roles: ['editor'] }, 'administrator'),
      'rest_user_invalid_role',
      403,
    );
    expectRestError(
      await send('put', '/users/me', { roles: ['editor'] }, 'administrator'),
      'rest_user_invalid_role',
      403,
    );
    expect((await get('/users/me?context=edit', 'administrator')).body.roles).toEqual(['administrator']);
  });

  it('refuses role changes without promote_users (rest_cannot_edit_roles 403) and edits of others (rest_cannot_edit 403)', async () => {
    const { editor, administrator } = t.users;
    expectRestError(
      await send('put', `/users/${editor.id}`, { roles: ['administrator'] }, 'editor'),
      'rest_cannot_edit_roles',
      403,
    );
    expect((await get('/users/me?context=edit', 'editor')).body.roles).toEqual(['editor']);
    const other = await freshUser('subscriber');
    // The reference checks edit_user first: another user's roles are refused as an edit (rest_cannot_edit).
    expectRestError(await send('put', `/users/${other.id}`, { roles: ['editor'] }, 'editor'), 'rest_cannot_edit', 403);
    expectRestError(
      await send('put', `/users/${administrator.id}`, { first_name: 'Hacked' }, 'editor'),
      'rest_cannot_edit',
      403,
    );
    expectRestError(await send('put', `/users/${other.id}`, { first_name: 'Hacked' }), 'rest_cannot_edit', 401);
  });

  it('answers an unknown user (also a body id) with rest_user_invalid_id 404', async () => {
    expectRestError(
      await send('put', '/users/999999', { first_name: 'X' }, 'administrator'),
      'rest_user_invalid_id',
      404,
    );
    expectRestError(
      await send('put', `/users/${t.users.editor.id}`, { id: 999999, first_name: 'X' }, 'administrator'),
      'rest_user_invalid_id',
      404,
    );
  });

  it('updates the current user through users/me (PUT, PATCH, POST)', async () => {
    const user = await freshUser('contributor');
    const res = await send('put', '/users/me', { first_name: 'Me', description: 'Myself.' }, user).expect(200);
    expect(res.body).toMatchObject({ id: user.id, first_name: 'Me', description: 'Myself.', username: user.login });
    await send('patch', '/users/me', { last_name: 'Too' }, user).expect(200);
    await send('post', '/users/me', { nickname: 'mee' }, user).expect(200);
    expect((await get('/users/me?context=edit', user)).body).toMatchObject({
      first_name: 'Me',
      last_name: 'Too',
      nickname: 'mee',
    });
    expectRestError(await send('put', '/users/me', { first_name: 'Nobody' }), 'rest_not_logged_in', 401);
  });
});

describe('delete', () => {
  it('requires force: without it rest_trash_not_supported 501, and the user stays', async () => {
    const user = await freshUser('subscriber');
    expectRestError(
      await send('delete', `/users/${user.id}?reassign=false`, undefined, 'administrator'),
      'rest_trash_not_supported',
      501,
    );
    expectRestError(
      await send('delete', `/users/${user.id}?force=false&reassign=false`, undefined, 'administrator'),
      'rest_trash_not_supported',
      501,
    );
    await get(`/users/${user.id}`, 'administrator').expect(200);
  });

  it('requires reassign (rest_missing_callback_param 400)', async () => {
    const user = await freshUser('subscriber');
    const res = await send('delete', `/users/${user.id}?force=true`, undefined, 'administrator');
    expectRestError(res, 'rest_missing_callback_param', 400);
    expect(res.body.data.params).toEqual(['reassign']);
    await get(`/users/${user.id}`, 'administrator').expect(200);
  });

  it('refuses reassigning to the deleted user or to an unknown user (rest_user_invalid_reassign 400)', async () => {
    const user = await freshUser('author');
    expectRestError(
      await send('delete', `/users/${user.id}?force=true&reassign=${user.id}`, undefined, 'administrator'),
      'rest_user_invalid_reassign',
      400,
    );
    expectRestError(
      await send('delete', `/users/${user.id}?force=true&reassign=999999`, undefined, 'administrator'),
      'rest_user_invalid_reassign',
      400,
    );
    await get(`/users/${user.id}`, 'administrator').expect(200);
  });

  it("reassigns the user's posts to another user and answers the deleted user's data", async () => {
    const user = await freshUser('author');
    const post = await addPost(user.id);
    const page = await addPost(user.id, 'page');
    const res = await send(
      'delete',
      `/users/${user.id}?force=true&reassign=${t.users.editor.id}`,
      undefined,
      'administrator',
    ).expect(200);
    expect(res.body).toMatchObject({
      id: user.id,
      username: user.login,
      email: `${user.login}@example.org`,
      roles: ['author'],
    });
    const posts = await t.dataSource.getRepository(PostEntity).findBy([{ id: post }, { id: page }]);
    expect(posts.map((p) => Number(p.author))).toEqual([t.users.editor.id, t.users.editor.id]);
    expectRestError(await get(`/users/${user.id}`, 'administrator'), 'rest_user_invalid_id', 404);
    expect(await t.dataSource.getRepository(UserMetaEntity).countBy({ userId: user.id })).toBe(0);
  });

  it('deletes the posts of the user with reassign=false', async () => {
    const user = await freshUser('author');
    const post = await addPost(user.id);
    await t.dataSource.getRepository(PostMetaEntity).insert({ postId: post, key: 'k', value: 'v' });
    const res = await send('delete', `/users/${user.id}?force=true&reassign=false`, undefined, 'administrator').expect(
      200,
    );
    expect(res.body).toMatchObject({ id: user.id, username: user.login });
    expect(await t.dataSource.getRepository(PostEntity).countBy({ id: post })).toBe(0);
    expect(await t.dataSource.getRepository(PostMetaEntity).countBy({ postId: post })).toBe(0);
    expect(await t.dataSource.getRepository(UserEntity).countBy({ id: user.id })).toBe(0);
  });

  it('refuses deletion without delete_users (rest_user_cannot_delete 401/403), unknown users 404', async () => {
    const user = await freshUser('subscriber');
    expectRestError(
      await send('delete', `/users/${user.id}?force=true&reassign=false`),
      'rest_user_cannot_delete',
      401,
    );
    expectRestError(
      await send('delete', `/users/${user.id}?force=true&reassign=false`, undefined, 'editor'),
      'rest_user_cannot_delete',
      403,
    );
    expectRestError(
      await send('delete', '/users/999999?force=true&reassign=false', undefined, 'administrator'),
      'rest_user_invalid_id',
      404,
    );
    await get(`/users/${user.id}`, 'administrator').expect(200);
  });

  it('deletes the current user through users/me when they may delete users', async () => {
    const subscriber = await freshUser('subscriber');
    expectRestError(
      await send('delete', '/users/me?force=true&reassign=false', undefined, subscriber),
      'rest_user_cannot_delete',
      403,
    );
    expectRestError(await send('delete', '/users/me?force=true&reassign=false'), 'rest_not_logged_in', 401);
    const admin = await freshUser('administrator');
    const res = await send(
      'delete',
      `/users/me?force=true&reassign=${t.users.administrator.id}`,
      undefined,
      admin,
    ).expect(200);
    expect(res.body).toMatchObject({ id: admin.id, username: admin.login, roles: ['administrator'] });
    expect(await t.dataSource.getRepository(UserEntity).countBy({ id: admin.id })).toBe(0);
  });
});
