import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UserMetaEntity } from '../../src/core/database/entities/user-meta.entity';
import { createPost } from '../factories/post.factory';
import { createTestApp, expectRestError, TEST_PREFIX, TestApp } from '../utils/test-app';
import { testDatabaseKind, testDatabaseUrl } from '../utils/test-db';

/**
 * Users under WordPress's wire names answer as WordPress 6.1 does (the `users` of the wire dialect): `roles` without
 * an enum (an unknown role refused by the handler), `has_published_posts` listing every `show_in_rest` post type as
 * a PHP associative array, and the user meta `persisted_preferences`; the spec's names keep the spec's answers.
 */

const DATABASE = 'users_wordpress';
const file = join(tmpdir(), `cms-users-wordpress-${process.pid}.sqlite`);
let cms: TestApp;
let wp: TestApp;
let navigationAuthorId: number;

/** WordPress 6.1's `meta` of the users schema and of their write arguments (wp_register_persisted_preferences_meta). */
const PERSISTED_PREFERENCES = {
  type: 'object',
  description: '',
  default: [],
  context: ['edit'],
  properties: {
    _modified: {
      description: 'The date and time the preferences were updated.',
      type: 'string',
      format: 'date-time',
      readonly: false,
    },
  },
  additionalProperties: true,
};

const WORDPRESS_LISTED_TYPES = [
  'post',
  'page',
  'attachment',
  'nav_menu_item',
  'wp_block',
  'wp_template',
  'wp_template_part',
  'wp_navigation',
];

const wpUrl = (path: string) => `/wp-json/wp/v2${path}`;
const cmsUrl = (path: string) => `/cms-json/cms/v2${path}`;

async function storedMeta(userId: number, key: string): Promise<string | null | undefined> {
  return (await cms.dataSource.getRepository(UserMetaEntity).findOne({ where: { userId, key } }))?.value;
}

beforeAll(async () => {
  const databaseUrl = testDatabaseKind() === 'sqlite' ? `sqlite:${file}` : await testDatabaseUrl(DATABASE);
  cms = await createTestApp(DATABASE, { databaseUrl });
  wp = await createTestApp(DATABASE, { cms: { wireNames: 'wordpress' }, databaseUrl, users: cms.users });
  // The contributor published only a navigation menu: a post type WordPress lists but no posts route serves.
  navigationAuthorId = cms.users.contributor.id;
  await createPost(cms.dataSource, { type: 'wp_navigation', author: navigationAuthorId, title: 'Main menu' });
  await createPost(cms.dataSource, { type: 'page', author: cms.users.author.id, title: 'About' });
});

afterAll(async () => {
  await wp.app.close();
  await cms.close();
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
});

describe('the spec names (cms)', () => {
  it('describe roles with the site roles as enum, has_published_posts as a list, and no meta keys', async () => {
    const res = await cms.http.options(cmsUrl('/users')).expect(200);
    const [list, create] = res.body.endpoints;
    expect(res.body.schema.properties.roles.items).toEqual({
      type: 'string',
      enum: ['administrator', 'editor', 'author', 'contributor', 'subscriber'],
    });
    expect(create.args.roles.items.enum).toEqual(['administrator', 'editor', 'author', 'contributor', 'subscriber']);
    expect(Array.isArray(list.args.has_published_posts.items.enum)).toBe(true);
    expect(list.args.has_published_posts.items.enum).toEqual(expect.arrayContaining(['post', 'page', 'attachment']));
    expect(list.args.has_published_posts.items.enum).not.toContain('wp_navigation');
    expect(res.body.schema.properties.meta.properties).toEqual([]);
    expect(create.args.meta.properties).toEqual([]);
  });

  it('refuse an unknown role as an argument (rest_invalid_param)', async () => {
    const res = await cms.http
      .put(cmsUrl(`/users/${cms.users.author.id}`))
      .set('Authorization', cms.users.administrator.authorization)
      .send({ roles: ['bogus'] });
    expectRestError(res, 'rest_invalid_param', 400);
  });

  it('answer meta without persisted_preferences, and ignore it when sent', async () => {
    const admin = cms.users.administrator;
    const me = await cms.http.get(cmsUrl('/users/me?context=edit')).set('Authorization', admin.authorization);
    expect(me.status).toBe(200);
    expect(me.body.meta).toEqual([]);
    await cms.http
      .put(cmsUrl('/users/me'))
      .set('Authorization', admin.authorization)
      .send({ meta: { persisted_preferences: { _modified: '2024-01-01T00:00:00.000Z' } } })
      .expect(200);
    expect(await storedMeta(admin.id, `${TEST_PREFIX}persisted_preferences`)).toBeUndefined();
  });

  it('count only the served post types for has_published_posts and the public-user rule', async () => {
    const all = await cms.http
      .get(cmsUrl('/users?has_published_posts=true&per_page=100'))
      .set('Authorization', cms.users.administrator.authorization)
      .expect(200);
    expect(all.body.map((u: { id: number }) => u.id)).not.toContain(navigationAuthorId);
    expectRestError(await cms.http.get(cmsUrl(`/users/${navigationAuthorId}`)), 'rest_user_cannot_view', 401);
    const refused = await cms.http
      .get(cmsUrl('/users?has_published_posts[]=wp_navigation'))
      .set('Authorization', cms.users.administrator.authorization);
    expectRestError(refused, 'rest_invalid_param', 400);
  });
});

it.each([
  ['cms', () => cms, cmsUrl],
  ['wordpress', () => wp, wpUrl],
] as const)(
  'filters by the post types listed in has_published_posts, a list or one name (%s names)',
  async (_, app, url) => {
    const admin = app().users.administrator.authorization;
    for (const query of ['has_published_posts[]=page', 'has_published_posts=page']) {
      const res = await app()
        .http.get(url(`/users?${query}`))
        .set('Authorization', admin);
      expect(res.status).toBe(200);
      expect(res.body.map((u: { id: number }) => u.id)).toEqual([app().users.author.id]);
    }
    const none = await app().http.get(url('/users?has_published_posts=false&per_page=100')).set('Authorization', admin);
    expect(none.body).toHaveLength(5);
  },
);

describe('the WordPress names (wordpress)', () => {
  it('describe roles without enum, has_published_posts as a PHP associative array, and persisted_preferences', async () => {
    const res = await wp.http.options(wpUrl('/users')).expect(200);
    const [list, create] = res.body.endpoints;
    expect(res.body.schema.properties.roles.items).toEqual({ type: 'string' });
    expect(create.args.roles.items).toEqual({ type: 'string' });
    const published = list.args.has_published_posts.items.enum;
    expect(Object.keys(published)).toEqual(WORDPRESS_LISTED_TYPES);
    expect(published).toEqual(Object.fromEntries(WORDPRESS_LISTED_TYPES.map((n) => [n, n])));
    expect(res.body.schema.properties.meta).toEqual({
      description: 'Meta fields.',
      type: 'object',
      context: ['view', 'edit'],
      properties: { persisted_preferences: PERSISTED_PREFERENCES },
    });
    expect(create.args.meta).toEqual({
      description: 'Meta fields.',
      type: 'object',
      properties: { persisted_preferences: PERSISTED_PREFERENCES },
      required: false,
    });
    expect(JSON.stringify(create.args.meta.properties.persisted_preferences)).toBe(
      JSON.stringify(PERSISTED_PREFERENCES),
    );
  });

  it('answer persisted_preferences as [] when unset, in the edit context only', async () => {
    const admin = wp.users.administrator;
    const edit = await wp.http.get(wpUrl(`/users/${admin.id}?context=edit`)).set('Authorization', admin.authorization);
    expect(edit.status).toBe(200);
    expect(edit.body.meta).toEqual({ persisted_preferences: [] });
    const me = await wp.http.get(wpUrl('/users/me?context=edit')).set('Authorization', admin.authorization);
    expect(me.body.meta).toEqual({ persisted_preferences: [] });
    const list = await wp.http
      .get(wpUrl('/users?context=edit&_fields=id,meta'))
      .set('Authorization', admin.authorization);
    expect(list.status).toBe(200);
    for (const user of list.body) expect(user.meta).toEqual({ persisted_preferences: [] });
    const view = await wp.http.get(wpUrl(`/users/${admin.id}`)).set('Authorization', admin.authorization);
    expect(view.body.meta).toEqual([]);
  });

  it('store persisted_preferences as WordPress does (a PHP-serialized array) and read it back', async () => {
    const editor = wp.users.editor;
    const preferences = { _modified: '2024-03-01T10:20:30.000Z', 'core/edit-post': { welcomeGuide: false } };
    const res = await wp.http
      .put(wpUrl('/users/me'))
      .set('Authorization', editor.authorization)
      .send({ meta: { persisted_preferences: preferences } });
    expect(res.status).toBe(200);
    expect(res.body.meta).toEqual({ persisted_preferences: preferences });
    expect(await storedMeta(editor.id, `${TEST_PREFIX}persisted_preferences`)).toBe(
      'a:2:{s:9:"_modified";s:24:"2024-03-01T10:20:30.000Z";s:14:"core/edit-post";a:1:{s:12:"welcomeGuide";b:0;}}',
    );
    const read = await wp.http.get(wpUrl('/users/me?context=edit')).set('Authorization', editor.authorization);
    expect(read.body.meta).toEqual({ persisted_preferences: preferences });
    // The spec's names do not expose it.
    const spec = await cms.http.get(cmsUrl('/users/me?context=edit')).set('Authorization', editor.authorization);
    expect(spec.body.meta).toEqual([]);
  });

  it('refuse an invalid _modified (400), another user’s preferences to a subscriber (403), anonymous callers (401)', async () => {
    const bad = await wp.http
      .put(wpUrl('/users/me'))
      .set('Authorization', wp.users.author.authorization)
      .send({ meta: { persisted_preferences: { _modified: 'yesterday' } } });
    // As WordPress 6.1 answers it: the value is checked as it is written (WP_REST_Meta_Fields), with its own code.
    expect([bad.status, bad.body]).toEqual([
      400,
      { code: 'rest_invalid_date', message: 'Invalid date.', data: { status: 400 } },
    ]);
    const other = await wp.http
      .put(wpUrl(`/users/${wp.users.author.id}`))
      .set('Authorization', wp.users.subscriber.authorization)
      .send({ meta: { persisted_preferences: { _modified: '2024-03-01T10:20:30Z' } } });
    expectRestError(other, 'rest_cannot_edit', 403);
    const anonymous = await wp.http
      .put(wpUrl('/users/me'))
      .send({ meta: { persisted_preferences: { _modified: '2024-03-01T10:20:30Z' } } });
    expectRestError(anonymous, 'rest_not_logged_in', 401);
    expect(await storedMeta(wp.users.author.id, `${TEST_PREFIX}persisted_preferences`)).toBeUndefined();
  });

  it("refuse another user's edit context without edit_user as WordPress 6.1 (rest_forbidden_context)", async () => {
    const author = wp.users.author;
    for (const [who, status] of [
      [undefined, 401],
      ['editor', 403],
      ['subscriber', 403],
    ] as const) {
      const req = wp.http.get(wpUrl(`/users/${author.id}?context=edit`));
      const res = who ? await req.set('Authorization', wp.users[who].authorization) : await req;
      expect([res.status, res.body]).toEqual([
        status,
        {
          code: 'rest_forbidden_context',
          message: 'Sorry, you are not allowed to edit this user.',
          data: { status },
        },
      ]);
    }
    await wp.http
      .get(wpUrl(`/users/${author.id}?context=edit`))
      .set('Authorization', wp.users.administrator.authorization)
      .expect(200);
    // The spec's check and words with cms names.
    const spec = await cms.http.get(cmsUrl(`/users/${author.id}?context=edit`));
    expectRestError(spec, 'rest_user_cannot_view', 401);
  });

  it('refuse an unknown role in the handler with rest_user_invalid_role, changing nothing', async () => {
    const author = wp.users.author;
    const res = await wp.http
      .put(wpUrl(`/users/${author.id}`))
      .set('Authorization', wp.users.administrator.authorization)
      .send({ roles: ['bogus'], name: 'Renamed' });
    expectRestError(res, 'rest_user_invalid_role', 400);
    expect(res.body.message).toBe('The role bogus does not exist.');
    const created = await wp.http
      .post(wpUrl('/users'))
      .set('Authorization', wp.users.administrator.authorization)
      .send({ username: 'newcomer', email: 'newcomer@example.org', password: 'secret-pass', roles: ['bogus'] });
    expectRestError(created, 'rest_user_invalid_role', 400);
    const read = await wp.http
      .get(wpUrl(`/users/${author.id}?context=edit`))
      .set('Authorization', wp.users.administrator.authorization);
    expect(read.body.roles).toEqual(['author']);
    expect(read.body.name).not.toBe('Renamed');
    // A known role is still given.
    await wp.http
      .put(wpUrl(`/users/${author.id}`))
      .set('Authorization', wp.users.administrator.authorization)
      .send({ roles: ['author'] })
      .expect(200);
  });

  it('count every show_in_rest post type for has_published_posts and the public-user rule', async () => {
    const admin = wp.users.administrator.authorization;
    const all = await wp.http.get(wpUrl('/users?has_published_posts=true&per_page=100')).set('Authorization', admin);
    expect(all.status).toBe(200);
    expect(all.body.map((u: { id: number }) => u.id)).toContain(navigationAuthorId);
    const navigation = await wp.http
      .get(wpUrl('/users?has_published_posts[]=wp_navigation'))
      .set('Authorization', admin)
      .expect(200);
    expect(navigation.body.map((u: { id: number }) => u.id)).toEqual([navigationAuthorId]);
    const anonymous = await wp.http.get(wpUrl('/users?per_page=100')).expect(200);
    expect(anonymous.body.map((u: { id: number }) => u.id)).toContain(navigationAuthorId);
    await wp.http.get(wpUrl(`/users/${navigationAuthorId}`)).expect(200);
  });

  it('refuse a type not listed in has_published_posts as WordPress words it, and who=authors to anonymous callers', async () => {
    const res = await wp.http
      .get(wpUrl('/users?has_published_posts[]=bogus'))
      .set('Authorization', wp.users.administrator.authorization);
    expectRestError(res, 'rest_invalid_param', 400);
    const message = `has_published_posts[0] is not one of ${WORDPRESS_LISTED_TYPES.slice(0, -1).join(', ')}, and wp_navigation.`;
    expect(res.body.data).toEqual({
      status: 400,
      params: { has_published_posts: message },
      details: { has_published_posts: { code: 'rest_not_in_enum', message, data: null } },
    });
    expectRestError(await wp.http.get(wpUrl('/users?who=authors')), 'rest_forbidden_who', 401);
    const subscriber = await wp.http
      .get(wpUrl('/users?who=authors'))
      .set('Authorization', wp.users.subscriber.authorization);
    expectRestError(subscriber, 'rest_forbidden_who', 403);
  });
});
