import { createHash } from 'node:crypto';
import { PostEntity } from '../../src/core/database/entities/post.entity';
import { UserMetaEntity } from '../../src/core/database/entities/user-meta.entity';
import { UserEntity } from '../../src/core/database/entities/user.entity';
import { UsersService } from '../../src/resources/users/users.service';
import { createUser } from '../factories/user.factory';
import { createTestApp, expectRestError, TEST_PREFIX, TestApp } from '../utils/test-app';

/**
 * Reading users (`GET users`, `users/<id>`, `users/me`): contexts, collection parameters, pagination, the public-user
 * rule and the cost in queries. Expected behaviour is WordPress's (reference 3.5, tests 6.9, WordPress 6.1 oracle).
 */

type Role = 'administrator' | 'editor' | 'author' | 'contributor' | 'subscriber';

const VIEW_KEYS = ['id', 'name', 'url', 'description', 'link', 'slug', 'avatar_urls', 'meta', '_links'];
const EMBED_KEYS = ['id', 'name', 'url', 'description', 'link', 'slug', 'avatar_urls', '_links'];
const EDIT_KEYS = [
  'id',
  'username',
  'name',
  'first_name',
  'last_name',
  'email',
  'url',
  'description',
  'link',
  'locale',
  'nickname',
  'slug',
  'roles',
  'registered_date',
  'capabilities',
  'extra_capabilities',
  'avatar_urls',
  'meta',
  '_links',
];

let t: TestApp;
let postCount = 0;

function get(path: string, who?: Role) {
  const req = t.http.get(`/cms-json/cms/v2${path}`);
  return who ? req.set('Authorization', t.users[who].authorization) : req;
}

function names(res: { body: unknown }): string[] {
  return (res.body as { name: string }[]).map((u) => u.name);
}

async function addPost(author: number, type = 'post', status = 'publish'): Promise<void> {
  const date = '2024-01-01 00:00:00';
  postCount++;
  await t.dataSource.getRepository(PostEntity).insert({
    author,
    type,
    status,
    title: `Post ${postCount}`,
    name: `post-${postCount}`,
    date,
    dateGmt: date,
    modified: date,
    modifiedGmt: date,
  });
}

beforeAll(async () => {
  t = await createTestApp('users_read');
  // The levels WordPress gives each role (the factory writes 0), so `who=authors` sees real data.
  const levels: Record<Role, string> = {
    administrator: '10',
    editor: '7',
    author: '2',
    contributor: '1',
    subscriber: '0',
  };
  for (const role of Object.keys(levels) as Role[]) {
    await t.dataSource
      .getRepository(UserMetaEntity)
      .update({ userId: t.users[role].id, key: `${TEST_PREFIX}user_level` }, { value: levels[role] });
  }
  // Distinct urls and registration dates so that every orderby has one answer.
  const rows: [Role, string, string][] = [
    ['administrator', 'https://e.example', '2024-01-05 00:00:00'],
    ['editor', 'https://a.example', '2024-01-03 00:00:00'],
    ['author', 'https://d.example', '2024-01-01 00:00:00'],
    ['contributor', 'https://b.example', '2024-01-04 00:00:00'],
    ['subscriber', 'https://c.example', '2024-01-02 00:00:00'],
  ];
  for (const [role, url, registered] of rows)
    await t.dataSource.getRepository(UserEntity).update({ id: t.users[role].id }, { url, registered });
  await t.dataSource.getRepository(UserMetaEntity).insert([
    { userId: t.users.editor.id, key: 'first_name', value: 'Eddie' },
    { userId: t.users.editor.id, key: 'description', value: 'Edits things.' },
  ]);
  await addPost(t.users.author.id); // public: a published post
  await addPost(t.users.editor.id, 'page'); // public: a published page counts too
  await addPost(t.users.contributor.id, 'post', 'draft'); // not public: a draft
  await addPost(t.users.subscriber.id, 'revision', 'publish'); // not public: revisions are not served by the API
});

afterAll(() => t.close());

describe('collection', () => {
  it('lists every user to an administrator, by name ascending, with totals and no Link', async () => {
    const res = await get('/users', 'administrator').expect(200);
    expect(names(res)).toEqual(['administrator', 'author', 'contributor', 'editor', 'subscriber']);
    expect(res.headers['x-cms-total']).toBe('5');
    expect(res.headers['x-cms-totalpages']).toBe('1');
    expect(String(res.headers.link ?? '')).not.toMatch(/rel="(next|prev)"/);
    expect(Object.keys(res.body[0])).toEqual(VIEW_KEYS);
  });

  it('paginates with per_page and page, with Link prev/next keeping per_page', async () => {
    const users = 'http://example.org/cms-json/cms/v2/users';
    const first = await get('/users?per_page=2', 'administrator').expect(200);
    expect(names(first)).toEqual(['administrator', 'author']);
    expect(first.headers['x-cms-total']).toBe('5');
    expect(first.headers['x-cms-totalpages']).toBe('3');
    expect(first.headers.link).toBe(`<${users}?per_page=2&page=2>; rel="next"`);

    const middle = await get('/users?per_page=2&page=2', 'administrator').expect(200);
    expect(names(middle)).toEqual(['contributor', 'editor']);
    expect(middle.headers.link).toBe(
      `<${users}?per_page=2&page=1>; rel="prev", <${users}?per_page=2&page=3>; rel="next"`,
    );

    const last = await get('/users?per_page=2&page=3', 'administrator').expect(200);
    expect(names(last)).toEqual(['subscriber']);
    expect(last.headers.link).toBe(`<${users}?per_page=2&page=2>; rel="prev"`);

    const beyond = await get('/users?per_page=2&page=9', 'administrator').expect(200);
    expect(beyond.body).toEqual([]);
    expect(beyond.headers['x-cms-total']).toBe('5');
    expect(beyond.headers.link).toBe(`<${users}?per_page=2&page=3>; rel="prev"`);
  });

  it.each([
    'per_page=0',
    'per_page=101',
    'per_page=abc',
    'page=0',
    'page=-1',
    'offset=abc',
    'order=up',
    'orderby=password',
    'context=full',
  ])('rejects %s with rest_invalid_param 400', async (query) => {
    expectRestError(await get(`/users?${query}`, 'administrator'), 'rest_invalid_param', 400);
  });

  it('searches with wildcards on both sides (dit finds editor), and by ID', async () => {
    expect(names(await get('/users?search=dit', 'administrator').expect(200))).toEqual(['editor']);
    expect(names(await get('/users?search=ubscr', 'administrator').expect(200))).toEqual(['subscriber']);
    expect((await get('/users?search=yololololo', 'administrator').expect(200)).body).toEqual([]);
    expect(names(await get(`/users?search=${t.users.contributor.id}`, 'administrator').expect(200))).toEqual([
      'contributor',
    ]);
  });

  it('searches only ID, login, slug and display name for callers without list_users (no e-mail, no url)', async () => {
    // WP_REST_Users_Controller::get_items sets search_columns for them; the author and editor are public users.
    expect((await get('/users?search=author@example').expect(200)).body).toEqual([]);
    expect((await get('/users?search=example.org').expect(200)).body).toEqual([]);
    expect((await get('/users?search=a.example', 'subscriber').expect(200)).body).toEqual([]);
    expect(names(await get('/users?search=dit').expect(200))).toEqual(['editor']);
    expect(names(await get('/users?search=author@example', 'administrator').expect(200))).toEqual(['author']);
    expect(names(await get('/users?search=https://a.example', 'administrator').expect(200))).toEqual(['editor']);
  });

  it('filters by include and exclude, and orders by include', async () => {
    const { editor, author, subscriber } = t.users;
    const include = await get(`/users?include=${subscriber.id},${author.id}`, 'administrator').expect(200);
    expect(names(include)).toEqual(['author', 'subscriber']);
    expect(include.headers['x-cms-total']).toBe('2');
    const ordered = await get(
      `/users?include[]=${subscriber.id}&include[]=${author.id}&orderby=include`,
      'administrator',
    ).expect(200);
    expect(names(ordered)).toEqual(['subscriber', 'author']);
    const exclude = await get(`/users?exclude=${editor.id},${author.id}`, 'administrator').expect(200);
    expect(names(exclude)).toEqual(['administrator', 'contributor', 'subscriber']);
    // Without list_users only public users can be included.
    expect(names(await get(`/users?include=${subscriber.id},${author.id}`).expect(200))).toEqual(['author']);
  });

  it('skips offset users (offset overrides page)', async () => {
    expect(names(await get('/users?offset=1', 'administrator').expect(200))).toEqual([
      'author',
      'contributor',
      'editor',
      'subscriber',
    ]);
    expect(names(await get('/users?offset=1&per_page=2', 'administrator').expect(200))).toEqual([
      'author',
      'contributor',
    ]);
    const paged = await get('/users?offset=3&per_page=2&page=2', 'administrator').expect(200);
    expect(names(paged)).toEqual(['editor', 'subscriber']);
    expect(paged.headers['x-cms-total']).toBe('5');
    expect((await get('/users?offset=10', 'administrator').expect(200)).body).toEqual([]);
    // An empty offset (0) leaves page in charge, as WordPress's `! empty( $request['offset'] )`.
    expect(names(await get('/users?offset=0&per_page=2&page=2', 'administrator').expect(200))).toEqual([
      'contributor',
      'editor',
    ]);
  });

  it('derives the Link page from offset: ceil(offset / per_page + 1)', async () => {
    const res = await get('/users?offset=2&per_page=2', 'administrator').expect(200);
    expect(names(res)).toEqual(['contributor', 'editor']);
    expect(res.headers.link).toContain('page=1>; rel="prev"');
    expect(res.headers.link).toContain('page=3>; rel="next"');
  });

  it.each([
    ['id', 'asc', ['administrator', 'editor', 'author', 'contributor', 'subscriber']],
    ['id', 'desc', ['subscriber', 'contributor', 'author', 'editor', 'administrator']],
    ['name', 'desc', ['subscriber', 'editor', 'contributor', 'author', 'administrator']],
    ['slug', 'asc', ['administrator', 'author', 'contributor', 'editor', 'subscriber']],
    ['email', 'desc', ['subscriber', 'editor', 'contributor', 'author', 'administrator']],
    ['url', 'asc', ['editor', 'contributor', 'subscriber', 'author', 'administrator']],
    ['registered_date', 'asc', ['author', 'subscriber', 'editor', 'contributor', 'administrator']],
    ['registered_date', 'desc', ['administrator', 'contributor', 'editor', 'subscriber', 'author']],
  ])('orders by %s %s', async (orderby, order, expected) => {
    expect(names(await get(`/users?orderby=${orderby}&order=${order}`, 'administrator').expect(200))).toEqual(expected);
  });

  it('refuses orderby email or registered_date without list_users (rest_forbidden_orderby 401/403)', async () => {
    expectRestError(await get('/users?orderby=email'), 'rest_forbidden_orderby', 401);
    expectRestError(await get('/users?orderby=registered_date'), 'rest_forbidden_orderby', 401);
    expectRestError(await get('/users?orderby=email', 'editor'), 'rest_forbidden_orderby', 403);
    expectRestError(await get('/users?orderby=registered_date', 'subscriber'), 'rest_forbidden_orderby', 403);
  });

  it('filters by slug, one or several (array or CSV)', async () => {
    expect(names(await get('/users?slug=editor', 'administrator').expect(200))).toEqual(['editor']);
    expect(names(await get('/users?slug=editor,author', 'administrator').expect(200))).toEqual(['author', 'editor']);
    expect(names(await get('/users?slug[]=subscriber&slug[]=contributor', 'administrator').expect(200))).toEqual([
      'contributor',
      'subscriber',
    ]);
    expect((await get('/users?slug=nobody', 'administrator').expect(200)).body).toEqual([]);
  });

  it('filters by roles for administrators; unknown roles match nothing', async () => {
    expect(names(await get('/users?roles=author,editor', 'administrator').expect(200))).toEqual(['author', 'editor']);
    expect(names(await get('/users?roles[]=subscriber', 'administrator').expect(200))).toEqual(['subscriber']);
    expect(names(await get('/users?roles=ilovesteak,author', 'administrator').expect(200))).toEqual(['author']);
    expect((await get('/users?roles=steakisgood', 'administrator').expect(200)).body).toEqual([]);
  });

  it('refuses the roles filter without list_users (rest_user_cannot_view 401/403)', async () => {
    expectRestError(await get('/users?roles=author'), 'rest_user_cannot_view', 401);
    expectRestError(await get('/users?roles=author', 'editor'), 'rest_user_cannot_view', 403);
  });

  it('lists authors with who=authors to users who can edit posts, 401/403 rest_forbidden_who otherwise', async () => {
    const all = await get('/users?who=authors', 'administrator').expect(200);
    expect(names(all)).toEqual(['administrator', 'author', 'contributor', 'editor']);
    // who=authors replaces the public-user rule (WordPress sets has_published_posts only when who is not given):
    // whoever may edit posts sees every author, published or not.
    expect(names(await get('/users?who=authors', 'contributor').expect(200))).toEqual([
      'administrator',
      'author',
      'contributor',
      'editor',
    ]);
    expectRestError(await get('/users?who=authors'), 'rest_forbidden_who', 401);
    expectRestError(await get('/users?who=authors', 'subscriber'), 'rest_forbidden_who', 403);
  });
});

describe('collation', () => {
  it('orders display names case-insensitively, as MySQL (WordPress) does', async () => {
    const upper = await createUser(t.dataSource, TEST_PREFIX, 'Zebra', 'subscriber');
    const lower = await createUser(t.dataSource, TEST_PREFIX, 'apple', 'subscriber');
    const both = `include=${upper.id},${lower.id}`;
    try {
      expect(names(await get(`/users?${both}`, 'administrator').expect(200))).toEqual(['apple', 'Zebra']);
      expect(names(await get(`/users?${both}&order=desc`, 'administrator').expect(200))).toEqual(['Zebra', 'apple']);
    } finally {
      await t.dataSource.getRepository(UserMetaEntity).delete({ userId: upper.id });
      await t.dataSource.getRepository(UserMetaEntity).delete({ userId: lower.id });
      await t.dataSource.getRepository(UserEntity).delete([upper.id, lower.id]);
    }
  });
});

describe('contexts', () => {
  it('answers context=edit to an administrator with every field', async () => {
    const { editor } = t.users;
    const res = await get(`/users/${editor.id}?context=edit`, 'administrator').expect(200);
    expect(Object.keys(res.body)).toEqual(EDIT_KEYS);
    expect(res.body).toMatchObject({
      id: editor.id,
      username: 'editor',
      name: 'editor',
      first_name: 'Eddie',
      last_name: '',
      email: 'editor@example.org',
      url: 'https://a.example',
      description: 'Edits things.',
      link: 'http://example.org/author/editor/',
      locale: 'en_US',
      nickname: '',
      slug: 'editor',
      roles: ['editor'],
      registered_date: '2024-01-03T00:00:00+00:00',
      extra_capabilities: { editor: true },
    });
    // No user meta is registered: PHP's empty array, `[]` on the wire (WordPress 6.1).
    expect(res.body.meta).toEqual([]);
    expect(res.body.capabilities).toMatchObject({
      editor: true,
      edit_others_posts: true,
      moderate_comments: true,
      read: true,
      level_7: true,
    });
    expect(res.body.capabilities.list_users).toBeUndefined();
    expect(res.body.capabilities.manage_options).toBeUndefined();
    expect(res.body).not.toHaveProperty('password');
    expect(Object.keys(res.body._links)).toEqual(['self', 'collection']);
    expect(res.body._links.self[0].href).toBe(`http://example.org/cms-json/cms/v2/users/${editor.id}`);
    expect(res.body._links.collection[0].href).toBe('http://example.org/cms-json/cms/v2/users');
  });

  it('builds gravatar avatar_urls of sizes 24, 48 and 96 from the e-mail', async () => {
    const res = await get(`/users/${t.users.editor.id}`, 'administrator').expect(200);
    const hash = createHash('md5').update('editor@example.org').digest('hex');
    const host = `http://${parseInt(hash[0], 16) % 3}.gravatar.com`;
    expect(res.body.avatar_urls).toEqual({
      24: `${host}/avatar/${hash}?s=24&d=mm&r=g`,
      48: `${host}/avatar/${hash}?s=48&d=mm&r=g`,
      96: `${host}/avatar/${hash}?s=96&d=mm&r=g`,
    });
  });

  it('answers view (the default) and embed contexts with the public fields only', async () => {
    const view = await get(`/users/${t.users.editor.id}`, 'administrator').expect(200);
    expect(Object.keys(view.body)).toEqual(VIEW_KEYS);
    expect(view.body).toMatchObject({
      name: 'editor',
      url: 'https://a.example',
      description: 'Edits things.',
      slug: 'editor',
      meta: [],
    });
    const embed = await get(`/users/${t.users.editor.id}?context=embed`, 'administrator').expect(200);
    expect(Object.keys(embed.body)).toEqual(EMBED_KEYS);
    const list = await get('/users?context=edit', 'administrator').expect(200);
    for (const user of list.body) expect(Object.keys(user)).toEqual(EDIT_KEYS);
  });

  it('gives users without capabilities empty objects, not arrays', async () => {
    const bare = await createUser(t.dataSource, TEST_PREFIX, 'bare', 'subscriber');
    await t.dataSource
      .getRepository(UserMetaEntity)
      .update({ userId: bare.id, key: `${TEST_PREFIX}capabilities` }, { value: 'a:0:{}' });
    const res = await get(`/users/${bare.id}?context=edit`, 'administrator').expect(200);
    expect(res.body.roles).toEqual([]);
    // PHP's `(object) array()`: `{}` on the wire, not `[]`.
    expect(res.text).toContain('"capabilities":{},"extra_capabilities":{}');
    await t.dataSource.getRepository(UserMetaEntity).delete({ userId: bare.id });
    await t.dataSource.getRepository(UserEntity).delete({ id: bare.id });
  });

  it('refuses context=edit on the collection without list_users (rest_forbidden_context 401/403)', async () => {
    expectRestError(await get('/users?context=edit'), 'rest_forbidden_context', 401);
    expectRestError(await get('/users?context=edit', 'editor'), 'rest_forbidden_context', 403);
  });
});

describe('the public-user rule', () => {
  it('shows anonymous callers only users with published posts of served types, with public fields', async () => {
    const res = await get('/users').expect(200);
    expect(names(res)).toEqual(['author', 'editor']);
    expect(res.headers['x-cms-total']).toBe('2');
    for (const user of res.body) {
      expect(Object.keys(user)).toEqual(VIEW_KEYS);
      expect(user).not.toHaveProperty('email');
      expect(user).not.toHaveProperty('capabilities');
      expect(user).not.toHaveProperty('roles');
    }
  });

  it('applies to logged-in users without list_users too', async () => {
    expect(names(await get('/users', 'editor').expect(200))).toEqual(['author', 'editor']);
    expect(names(await get('/users', 'subscriber').expect(200))).toEqual(['author', 'editor']);
  });

  it('lets anyone read a published author, and no one else without edit_user/list_users', async () => {
    await get(`/users/${t.users.author.id}`).expect(200);
    await get(`/users/${t.users.editor.id}`).expect(200);
    expectRestError(await get(`/users/${t.users.subscriber.id}`), 'rest_user_cannot_view', 401);
    expectRestError(await get(`/users/${t.users.contributor.id}`), 'rest_user_cannot_view', 401);
    expectRestError(await get(`/users/${t.users.administrator.id}`, 'editor'), 'rest_user_cannot_view', 403);
    await get(`/users/${t.users.author.id}`, 'subscriber').expect(200);
  });

  it('refuses context=edit on a published author without list_users (rest_user_cannot_view 401/403)', async () => {
    expectRestError(await get(`/users/${t.users.author.id}?context=edit`), 'rest_user_cannot_view', 401);
    expectRestError(await get(`/users/${t.users.author.id}?context=edit`, 'editor'), 'rest_user_cannot_view', 403);
  });

  it('always lets a user read themselves, in any context', async () => {
    const { subscriber } = t.users;
    const res = await get(`/users/${subscriber.id}?context=edit`, 'subscriber').expect(200);
    expect(res.body).toMatchObject({
      id: subscriber.id,
      username: 'subscriber',
      email: 'subscriber@example.org',
      roles: ['subscriber'],
    });
    await get(`/users/${subscriber.id}`, 'subscriber').expect(200);
  });

  it('answers an unknown or zero id with rest_user_invalid_id 404, before any permission check', async () => {
    expectRestError(await get('/users/999999', 'administrator'), 'rest_user_invalid_id', 404);
    expectRestError(await get('/users/999999'), 'rest_user_invalid_id', 404);
    expectRestError(await get('/users/0', 'administrator'), 'rest_user_invalid_id', 404);
  });
});

describe('users/me', () => {
  it('answers the current user with 200 (view by default, edit on request)', async () => {
    const { contributor } = t.users;
    const view = await get('/users/me', 'contributor').expect(200);
    expect(Object.keys(view.body)).toEqual(VIEW_KEYS);
    expect(view.body).toMatchObject({ id: contributor.id, name: 'contributor', slug: 'contributor' });
    const edit = await get('/users/me?context=edit', 'contributor').expect(200);
    expect(edit.body).toMatchObject({ id: contributor.id, username: 'contributor', roles: ['contributor'] });
  });

  it('refuses anonymous callers with rest_not_logged_in 401', async () => {
    expectRestError(await get('/users/me'), 'rest_not_logged_in', 401);
  });
});

describe('cost', () => {
  it('reads a collection of 20 users in a fixed, small number of queries', async () => {
    for (let i = 0; i < 15; i++)
      await createUser(t.dataSource, TEST_PREFIX, `bulk${String(i).padStart(2, '0')}`, 'author');
    // Warm-up: the first authenticated request records the application password's use.
    await get('/users', 'administrator').expect(200);
    let small: { body: unknown } = { body: [] };
    let large: { body: unknown } = { body: [] };
    const five = await t.queries.during(
      async () => (small = await get('/users?per_page=5&context=edit', 'administrator').expect(200)),
    );
    const twenty = await t.queries.during(
      async () => (large = await get('/users?per_page=20&context=edit', 'administrator').expect(200)),
    );
    expect((small.body as unknown[]).length).toBe(5);
    expect((large.body as unknown[]).length).toBe(20);
    expect(twenty).toBe(five);
    expect(twenty).toBeLessThanOrEqual(12);
  });

  it('counts the same filters once within a moment, and again after a write', async () => {
    t.app.get(UsersService).clearCounts();
    const first = await t.queries.during(() => get('/users?per_page=3&context=edit', 'administrator').expect(200));
    const again = await get('/users?per_page=5&context=edit', 'administrator').expect(200);
    const second = await t.queries.during(() => get('/users?per_page=3&context=edit', 'administrator').expect(200));
    expect(second).toBe(first - 1);
    const total = Number(again.headers['x-cms-total']);
    await createUser(t.dataSource, TEST_PREFIX, 'counted', 'subscriber');
    const after = await get('/users?per_page=3&context=edit', 'administrator').expect(200);
    expect(after.headers['x-cms-total']).toBe(String(total + 1));
  });
});
