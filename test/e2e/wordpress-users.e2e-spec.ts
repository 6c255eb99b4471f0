import { UserMetaEntity } from '../../src/core/database/entities/user-meta.entity';
import {
  insertWordPressUser,
  WORDPRESS_APPLICATION_PASSWORD,
  WORDPRESS_APPLICATION_PASSWORD_UUID,
  WORDPRESS_EDITOR,
  WORDPRESS_EDITOR_PASSWORD,
  WORDPRESS_SUBSCRIBER_WITH_CAP,
} from '../fixtures/wordpress-users';
import { createTestApp, expectRestError, TEST_PREFIX, TestApp } from '../utils/test-app';

/**
 * Users written by WordPress itself (test/fixtures/wordpress-users.ts: phpass hashes, serialized capabilities,
 * WordPress's `_application_passwords`) are read, authenticated and authorized like users created here.
 */

let t: TestApp;
let editorId: number;
let subscriberId: number;

function basic(login: string, password: string): string {
  return `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`;
}

const asEditor = () => basic(WORDPRESS_EDITOR.row.login, WORDPRESS_APPLICATION_PASSWORD);

function get(path: string, authorization?: string) {
  const req = t.http.get(`/cms-json/cms/v2${path}`);
  return authorization ? req.set('Authorization', authorization) : req;
}

async function meta(userId: number, key: string): Promise<string | null | undefined> {
  return (await t.dataSource.getRepository(UserMetaEntity).findOne({ where: { userId, key } }))?.value;
}

beforeAll(async () => {
  t = await createTestApp('wordpress_users');
  editorId = await insertWordPressUser(t.dataSource, TEST_PREFIX, WORDPRESS_EDITOR);
  subscriberId = await insertWordPressUser(t.dataSource, TEST_PREFIX, WORDPRESS_SUBSCRIBER_WITH_CAP);
});

afterAll(() => t.close());

it('authenticates with the application password WordPress stored, chunked or not', async () => {
  const me = await get('/users/me', asEditor()).expect(200);
  expect(me.body).toMatchObject({ id: editorId, name: 'Erin Editor', slug: 'erin-editor' });
  const chunked = WORDPRESS_APPLICATION_PASSWORD.replace(/(.{4})(?!$)/g, '$1 ');
  await get('/users/me', basic('erin.editor', chunked)).expect(200);
  expectRestError(await get('/users/me', basic('erin.editor', 'x'.repeat(24))), 'incorrect_password', 401);
});

it('reads the user with role editor, its capabilities and its profile meta', async () => {
  const res = await get(`/users/${editorId}?context=edit`, t.users.administrator.authorization).expect(200);
  expect(res.body).toMatchObject({
    id: editorId,
    username: 'erin.editor',
    name: 'Erin Editor',
    first_name: 'Erin',
    last_name: 'Editor',
    email: 'erin.editor@example.com',
    url: 'https://example.com/~erin',
    description: 'Erin writes about summits.',
    link: 'http://example.org/author/erin-editor/',
    locale: 'en_US',
    nickname: 'Erin',
    slug: 'erin-editor',
    roles: ['editor'],
    registered_date: '2023-11-21T05:20:59+00:00',
    extra_capabilities: { editor: true },
  });
  expect(res.body.capabilities).toMatchObject({
    editor: true,
    edit_posts: true,
    edit_others_posts: true,
    publish_pages: true,
    manage_categories: true,
    moderate_comments: true,
    level_7: true,
    read: true,
  });
  expect(res.body.capabilities.list_users).toBeUndefined();
  expect(names(await get('/users?roles=editor', t.users.administrator.authorization).expect(200)).sort()).toEqual([
    'Erin Editor',
    'editor',
  ]);
});

it('reads a role plus a directly granted capability from the serialized array', async () => {
  const res = await get(`/users/${subscriberId}?context=edit`, t.users.administrator.authorization).expect(200);
  expect(res.body).toMatchObject({
    roles: ['subscriber'],
    extra_capabilities: { subscriber: true, upload_files: true },
    locale: 'en_US',
  });
  expect(res.body.capabilities).toMatchObject({ subscriber: true, read: true, upload_files: true });
  expect(res.body.capabilities.edit_posts).toBeUndefined();
});

it('lets the WordPress editor do editor things, and nothing more', async () => {
  await get('/types?context=edit', asEditor()).expect(200);
  await get('/taxonomies?context=edit', asEditor()).expect(200);
  await get('/statuses?context=edit', asEditor()).expect(200);
  expectRestError(await get('/settings', asEditor()), 'rest_forbidden', 403);
  expectRestError(await get('/users?context=edit', asEditor()), 'rest_forbidden_context', 403);
  expectRestError(await get(`/users/${subscriberId}`, asEditor()), 'rest_user_cannot_view', 403);
});

it('lists the application password WordPress stored, without its hash', async () => {
  const res = await get('/users/me/application-passwords', asEditor()).expect(200);
  expect(res.body).toHaveLength(1);
  expect(res.body[0]).toMatchObject({
    uuid: WORDPRESS_APPLICATION_PASSWORD_UUID,
    app_id: '',
    name: 'wp-oracle',
    created: '2026-11-21T05:09:55',
  });
  expect(JSON.stringify(res.body)).not.toContain('$P$');
});

it('logs in with the password behind the phpass hash', async () => {
  const res = await t.http
    .post('/cms-json/cms-auth/v1/login')
    .send({ username: 'erin.editor', password: WORDPRESS_EDITOR_PASSWORD })
    .expect(200);
  expect(res.body).toMatchObject({ id: editorId, username: 'erin.editor', name: 'Erin Editor', roles: ['editor'] });
  const login = await t.http
    .post('/cms-json/cms-auth/v1/login')
    .send({ username: 'sam.subscriber', password: WORDPRESS_EDITOR_PASSWORD })
    .expect(200);
  expect(login.body.roles).toEqual(['subscriber']);
});

it('changes roles in the serialized array as WordPress does, keeping directly granted capabilities', async () => {
  const admin = t.users.administrator.authorization;
  const editor = await t.http
    .put(`/cms-json/cms/v2/users/${editorId}`)
    .set('Authorization', admin)
    .send({ roles: ['author'] })
    .expect(200);
  expect(editor.body.roles).toEqual(['author']);
  expect(await meta(editorId, `${TEST_PREFIX}capabilities`)).toBe('a:1:{s:6:"author";b:1;}');
  expect(await meta(editorId, `${TEST_PREFIX}user_level`)).toBe('2');
  expectRestError(await get('/taxonomies?context=edit', asEditor()), 'rest_cannot_view', 403);

  const sub = await t.http
    .put(`/cms-json/cms/v2/users/${subscriberId}`)
    .set('Authorization', admin)
    .send({ roles: ['contributor'] })
    .expect(200);
  expect(sub.body.extra_capabilities).toEqual({ upload_files: true, contributor: true });
  expect(await meta(subscriberId, `${TEST_PREFIX}capabilities`)).toBe(
    'a:2:{s:12:"upload_files";b:1;s:11:"contributor";b:1;}',
  );
  expect(await meta(subscriberId, `${TEST_PREFIX}user_level`)).toBe('1');
});

function names(res: { body: unknown }): string[] {
  return (res.body as { name: string }[]).map((u) => u.name);
}
