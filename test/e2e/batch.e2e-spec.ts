import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HookRegistry } from '../../src/core/hooks/hook-registry.service';
import { createPost, createTerm } from '../factories/post.factory';
import { createTestApp, expectRestError, TEST_PREFIX, TestApp } from '../utils/test-app';
import { testDatabaseKind, testDatabaseUrl } from '../utils/test-db';

/**
 * `POST /batch/v1` (WordPress 5.6's batch requests) with both wire names: WordPress's arguments and errors, each
 * request of a batch served as a request of its own by the batch's caller (207 with each response), `allow_batch`
 * on the routes WordPress batches (described with WordPress's names only), `require-all-validate`, a batch that is
 * not atomic, and the version stamps moving once per batch.
 */

type Answer = { body: Record<string, unknown>; status: number; headers: Record<string, string> | [] };

/** The description of `/batch/v1`, as WordPress 6.1 gives it (but its self link, and the order of keys). */
const BATCH_ROUTE = (self: string) => ({
  namespace: '',
  methods: ['POST'],
  endpoints: [
    {
      methods: ['POST'],
      args: {
        validation: { type: 'string', enum: ['require-all-validate', 'normal'], default: 'normal', required: false },
        requests: {
          type: 'array',
          maxItems: 25,
          items: {
            type: 'object',
            properties: {
              method: { type: 'string', enum: ['POST', 'PUT', 'PATCH', 'DELETE'], default: 'POST' },
              path: { type: 'string', required: true },
              body: { type: 'object', properties: [], additionalProperties: true },
              headers: {
                type: 'object',
                properties: [],
                additionalProperties: { type: ['string', 'array'], items: { type: 'string' } },
              },
            },
          },
          required: true,
        },
      },
    },
  ],
  _links: { self: [{ href: self }] },
});

describe('batch/v1 with cms names', () => {
  let t: TestApp;
  const API = '/cms/v2';
  const auth = (role: keyof TestApp['users']) => t.users[role].authorization;
  const batch = (body: object, role?: keyof TestApp['users']) => {
    const req = t.http.post('/cms-json/batch/v1');
    if (role) void req.set('Authorization', auth(role));
    return req.send(body);
  };
  const postRow = async (id: number) =>
    (
      await t.dataSource.query(
        `SELECT post_title AS title, post_status AS status FROM ${TEST_PREFIX}posts WHERE ID = ?`,
        [id],
      )
    )[0] as { title: string; status: string } | undefined;
  const countTitled = async (title: string) =>
    Number(
      (await t.dataSource.query(`SELECT COUNT(*) AS n FROM ${TEST_PREFIX}posts WHERE post_title = ?`, [title]))[0].n,
    );

  beforeAll(async () => {
    t = await createTestApp('batch_cms');
  });
  afterAll(() => t.close());

  it('lists /batch/v1 among the index routes with WordPress arguments, without a namespace of its own', async () => {
    const index = await t.http.get('/cms-json/').expect(200);
    expect(index.body.namespaces).toEqual(['cms/v2', 'cms-auth/v1']);
    expect(index.body.routes['/batch/v1']).toEqual(BATCH_ROUTE('http://example.org/cms-json/batch/v1'));
    const keys = Object.keys(index.body.routes);
    expect(keys.indexOf('/batch/v1')).toBe(keys.indexOf('/') + 1);
    // Not in a namespace index either.
    const ns = await t.http.get('/cms-json/cms/v2').expect(200);
    expect(ns.body.routes['/batch/v1']).toBeUndefined();
  });

  it('answers OPTIONS /batch/v1 with its description and Allow: POST', async () => {
    const res = await t.http.options('/cms-json/batch/v1').expect(200);
    expect(res.body).toEqual(BATCH_ROUTE('http://example.org/cms-json/batch/v1'));
    expect(res.headers.allow).toBe('POST');
    expectRestError(await t.http.get('/cms-json/batch/v1'), 'rest_no_route', 404);
  });

  it('describes no allow_batch with cms names (OPTIONS and index stay as they were)', async () => {
    const options = await t.http.options(`/cms-json${API}/posts`).set('Authorization', auth('administrator'));
    for (const endpoint of options.body.endpoints) expect(Object.keys(endpoint)).toEqual(['methods', 'args']);
    const index = await t.http.get('/cms-json/').expect(200);
    expect(JSON.stringify(index.body.routes)).not.toContain('allow_batch');
  });

  it('serves a batch of 25 with mixed outcomes, each request as one of its own by the caller (an author)', async () => {
    const author = t.users.author.id;
    const own = await Promise.all([1, 2, 3, 4, 5].map((n) => createPost(t.dataSource, { author, title: `Own ${n}` })));
    const others = await createPost(t.dataSource, { author: t.users.editor.id, title: 'Editor post' });
    const requests = [
      ...Array.from({ length: 12 }, (_, i) => ({
        path: `${API}/posts`,
        body: { title: `Batch created ${i}`, status: i % 2 ? 'draft' : 'publish' },
      })),
      { method: 'PUT', path: `${API}/posts/${own[0].id}`, body: { title: 'Own 1 updated' } },
      { method: 'PATCH', path: `${API}/posts/${own[1].id}?_fields=id,title`, body: { title: 'Own 2 updated' } },
      { method: 'DELETE', path: `${API}/posts/${own[2].id}` },
      { method: 'DELETE', path: `${API}/posts/${own[3].id}`, body: { force: true } },
      { method: 'PUT', path: `${API}/posts/${others.id}`, body: { title: 'Not mine' } },
      { method: 'DELETE', path: `${API}/posts/${others.id}` },
      { method: 'PUT', path: `${API}/posts/999999`, body: { title: 'Nobody' } },
      { path: `${API}/posts`, body: { title: 'Bad status', status: 'bogus' } },
      { path: `${API}/nothing` },
      { path: `${API}/users`, body: { username: 'batched', email: 'b@example.org', password: 'x' } },
      { path: `${API}/categories`, body: { name: 'Not for authors' } },
      { path: `${API}/tags?_fields=id`, body: { name: 'Nor this' } },
      { method: 'POST', path: `${API}/posts/${own[4].id}`, body: { excerpt: 'Own 5 excerpt' } },
    ];
    expect(requests).toHaveLength(25);
    const res = await batch({ requests }, 'author').expect(207);
    expect(res.headers.allow).toBe('POST');
    const responses = res.body.responses as Answer[];
    expect(responses.map((r) => r.status)).toEqual([
      ...Array<number>(12).fill(201),
      200,
      200,
      200,
      200,
      403,
      403,
      404,
      400,
      404,
      400,
      403,
      403,
      200,
    ]);
    // Created: the item as a create answers it (edit context, links), with Location and Allow.
    const created = responses[0];
    expect(created.body).toMatchObject({ title: { raw: 'Batch created 0' }, status: 'publish', author });
    expect(created.body._links).toMatchObject({
      self: [{ href: expect.stringMatching(/\/cms-json\/cms\/v2\/posts\/\d+$/) }],
    });
    expect(created.headers).toEqual({
      Location: `http://example.org/cms-json${API}/posts/${created.body.id as number}`,
      Allow: 'GET, POST',
    });
    expect(responses[1].body.status).toBe('draft');
    for (let i = 0; i < 12; i++) expect(await countTitled(`Batch created ${i}`)).toBe(1);
    // Updated, with the request's own query string (`_fields`).
    expect(responses[12].body).toMatchObject({ id: own[0].id, title: { raw: 'Own 1 updated' } });
    expect(responses[12].headers).toEqual({ Allow: 'GET, POST, PUT, PATCH, DELETE' });
    expect(Object.keys(responses[13].body).sort()).toEqual(['id', 'title']);
    expect(await postRow(own[1].id)).toMatchObject({ title: 'Own 2 updated' });
    // Trashed; deleted for good with `force` in the DELETE's body.
    expect(responses[14].body).toMatchObject({ id: own[2].id });
    expect(await postRow(own[2].id)).toMatchObject({ status: 'trash' });
    expect(await postRow(own[3].id)).toBeUndefined();
    // Refused, missing, invalid, unrouted, not batchable: each with its own error, the others unaffected.
    expect(responses[16].body).toMatchObject({ code: 'rest_cannot_edit', data: { status: 403 } });
    expect(responses[17].body).toMatchObject({ code: 'rest_cannot_delete', data: { status: 403 } });
    expect(await postRow(others.id)).toMatchObject({ title: 'Editor post', status: 'publish' });
    expect(responses[18].body).toMatchObject({ code: 'rest_post_invalid_id', data: { status: 404 } });
    expect(responses[19].body).toMatchObject({
      code: 'rest_invalid_param',
      data: { status: 400, params: { status: expect.stringContaining('status is not one of') } },
    });
    expect(responses[19].headers).toEqual({ Allow: 'GET, POST' });
    expect(responses[20]).toEqual({
      body: {
        code: 'rest_no_route',
        message: 'No route was found matching the URL and request method',
        data: { status: 404 },
      },
      status: 404,
      headers: [],
    });
    expect(responses[21].body).toEqual({
      code: 'rest_batch_not_allowed',
      message: 'The requested route does not support batch requests.',
      data: { status: 400 },
    });
    expect(responses[22].body).toMatchObject({ code: 'rest_cannot_create', data: { status: 403 } });
    expect(responses[23].body).toMatchObject({ code: 'rest_cannot_create' });
    expect(responses[24].body).toMatchObject({ id: own[4].id, excerpt: { raw: 'Own 5 excerpt' } });
    expect(await countTitled('Bad status')).toBe(0);
  });

  it('refuses a batch of more than 25 requests as a whole, running none', async () => {
    const requests = Array.from({ length: 26 }, () => ({ path: `${API}/posts`, body: { title: 'Twenty-six' } }));
    const res = await batch({ requests }, 'editor');
    expectRestError(res, 'rest_invalid_param', 400);
    expect(res.body.data.params).toEqual({ requests: 'requests must contain at most 25 items.' });
    expect(await countTitled('Twenty-six')).toBe(0);
  });

  it('refuses a batch without requests, a request without a path, or with a method batches do not take', async () => {
    expectRestError(await batch({}, 'editor'), 'rest_missing_callback_param', 400);
    expectRestError(await batch({ requests: [{ method: 'POST' }] }, 'editor'), 'rest_invalid_param', 400);
    const get = await batch({ requests: [{ method: 'GET', path: `${API}/posts` }] }, 'editor');
    expectRestError(get, 'rest_invalid_param', 400);
    expect(get.body.data.params.requests).toMatch(/^requests\[0\]\[method\] is not one of POST, PUT, PATCH, DELETE/);
    expectRestError(await batch({ requests: [], validation: 'strict' }, 'editor'), 'rest_invalid_param', 400);
  });

  it('answers parse_path_failed for a path that cannot be read, and refuses a body over the body limit with 413', async () => {
    const res = await batch({ requests: [{ path: 'http:///cms/v2/posts' }] }, 'editor').expect(207);
    expect(res.body.responses).toEqual([
      {
        body: { code: 'parse_path_failed', message: 'Could not parse the path.', data: { status: 400 } },
        status: 400,
        headers: [],
      },
    ]);
    const big = { requests: [{ path: `${API}/posts`, body: { title: 'Big', content: 'x'.repeat(11 * 1024 * 1024) } }] };
    expectRestError(await batch(big, 'editor'), 'rest_request_too_large', 413);
    expect(await countTitled('Big')).toBe(0);
  });

  it('answers rest_batch_not_allowed for each request to a route without allow_batch', async () => {
    const post = await createPost(t.dataSource, { author: t.users.editor.id, title: 'With revisions' });
    const revision = await createPost(t.dataSource, { type: 'revision', parent: post.id, status: 'inherit' });
    const requests = [
      { method: 'DELETE', path: `${API}/posts/${post.id}/revisions/${revision.id}`, body: { force: true } },
      { path: `${API}/posts/${post.id}/autosaves`, body: { title: 'Autosaved' } },
      { path: `${API}/comments`, body: { post: post.id, content: 'Hi' } },
      { method: 'PUT', path: `${API}/settings`, body: { title: 'Batched site' } },
      { method: 'PUT', path: `${API}/users/me`, body: { name: 'Batched' } },
      { path: `${API}/media`, body: { title: 'No file' } },
    ];
    const res = await batch({ requests }, 'administrator').expect(207);
    for (const answer of res.body.responses as Answer[]) {
      expect(answer.status).toBe(400);
      expect(answer.body.code).toBe('rest_batch_not_allowed');
    }
    expect(await postRow(revision.id)).toBeDefined();
    const settings = await t.http.get(`/cms-json${API}/settings`).set('Authorization', auth('administrator'));
    expect(settings.body.title).not.toBe('Batched site');
  });

  it('require-all-validate: one invalid request and none runs; the answer gives each failure', async () => {
    const own = await createPost(t.dataSource, { author: t.users.editor.id, title: 'Untouched' });
    const requests = [
      { path: `${API}/posts`, body: { title: 'All or nothing' } },
      { path: `${API}/posts`, body: { title: 'All or nothing', status: 'bogus' } },
      { method: 'PUT', path: `${API}/posts/${own.id}`, body: { title: 'Touched' } },
      { path: `${API}/nothing` },
    ];
    const res = await batch({ validation: 'require-all-validate', requests }, 'editor').expect(207);
    expect(res.body.failed).toBe('validation');
    const [first, invalid, third, unrouted] = res.body.responses as Array<Answer | null>;
    expect(first).toBeNull();
    expect(third).toBeNull();
    expect(invalid).toMatchObject({ status: 400, headers: [], body: { code: 'rest_invalid_param' } });
    expect(unrouted).toMatchObject({ status: 404, headers: [], body: { code: 'rest_no_route' } });
    expect(await countTitled('All or nothing')).toBe(0);
    expect(await postRow(own.id)).toMatchObject({ title: 'Untouched' });
  });

  it('require-all-validate: a refusal by a permission check is not a validation failure', async () => {
    const others = await createPost(t.dataSource, { author: t.users.editor.id, title: 'Editor only' });
    const requests = [
      { path: `${API}/posts`, body: { title: 'Validated and run' } },
      { method: 'PUT', path: `${API}/posts/${others.id}`, body: { title: 'Refused' } },
    ];
    const res = await batch({ validation: 'require-all-validate', requests }, 'author').expect(207);
    expect(res.body.failed).toBeUndefined();
    expect((res.body.responses as Answer[]).map((r) => r.status)).toEqual([201, 403]);
    expect(await countTitled('Validated and run')).toBe(1);
  });

  it('is not atomic: each request commits on its own, a failed one undoes nothing', async () => {
    const requests = [
      { path: `${API}/posts`, body: { title: 'Before the failure' } },
      { path: `${API}/posts`, body: { title: 'Failing', date: 'not a date' } },
      { path: `${API}/posts`, body: { title: 'After the failure' } },
    ];
    const res = await batch({ requests }, 'editor').expect(207);
    expect((res.body.responses as Answer[]).map((r) => r.status)).toEqual([201, 400, 201]);
    expect(await countTitled('Before the failure')).toBe(1);
    expect(await countTitled('After the failure')).toBe(1);
  });

  it('answers each write of an anonymous batch with 401', async () => {
    const post = await createPost(t.dataSource, { title: 'Anonymous target' });
    const requests = [
      { path: `${API}/posts`, body: { title: 'Anonymous' } },
      { method: 'PUT', path: `${API}/posts/${post.id}`, body: { title: 'Anonymous edit' } },
      { method: 'DELETE', path: `${API}/posts/${post.id}` },
      { path: `${API}/tags`, body: { name: 'Anonymous tag' } },
    ];
    const res = await batch({ requests }).expect(207);
    const responses = res.body.responses as Answer[];
    expect(responses.map((r) => [r.status, r.body.code])).toEqual([
      [401, 'rest_cannot_create'],
      [401, 'rest_cannot_edit'],
      [401, 'rest_cannot_delete'],
      [401, 'rest_cannot_create'],
    ]);
    expect(await postRow(post.id)).toMatchObject({ title: 'Anonymous target', status: 'publish' });
  });

  it('moves the version stamps once per batch, and cached answers see its writes', async () => {
    const versionMoves = () =>
      t.queries.statements.filter((sql) => /^UPDATE \S*cms_versions\S* SET version/.test(sql)).length;
    const first = await t.http.get(`/cms-json${API}/posts?per_page=100`).expect(200);
    await t.http.get(`/cms-json${API}/posts?per_page=100`).expect(200);
    const requests = [1, 2, 3].map((n) => ({
      path: `${API}/posts`,
      body: { title: `Stamped ${n}`, status: 'publish' },
    }));
    await t.queries.during(() => batch({ requests }, 'editor').expect(207));
    expect(versionMoves()).toBe(1);
    const after = await t.http.get(`/cms-json${API}/posts?per_page=100`).expect(200);
    expect(after.headers.etag).not.toBe(first.headers.etag);
    const titles = (after.body as Array<{ title: { rendered: string } }>).map((p) => p.title.rendered);
    for (const n of [1, 2, 3]) expect(titles).toContain(`Stamped ${n}`);
    // Edits in place (text only) of three posts: one move of the posts' content too.
    const ids = (after.body as Array<{ id: number; title: { rendered: string } }>)
      .filter((p) => p.title.rendered.startsWith('Stamped'))
      .map((p) => p.id);
    // Kept by the response cache before the edits: the edits' one move must reach it.
    for (let i = 0; i < 2; i++) await t.http.get(`/cms-json${API}/posts/${ids[0]}`).expect(200);
    const edits = ids.map((id) => ({ method: 'PUT', path: `${API}/posts/${id}`, body: { content: `Text of ${id}` } }));
    await t.queries.during(() => batch({ requests: edits }, 'editor').expect(207));
    expect(versionMoves()).toBe(1);
    const edited = await t.http.get(`/cms-json${API}/posts/${ids[0]}`).expect(200);
    expect(edited.body.content.rendered).toContain(`Text of ${ids[0]}`);
    // A batch that writes nothing moves nothing.
    await t.queries.during(() => batch({ requests: [{ path: `${API}/nothing` }] }, 'editor').expect(207));
    expect(versionMoves()).toBe(0);
  });

  it('runs each request through the hooks of a request (rest_post_dispatch)', async () => {
    const hooks = t.app.get(HookRegistry);
    const remove = hooks.addFilter('rest_post_dispatch', (response: { header(n: string, v: string): void }) => {
      response.header('X-Batched', 'yes');
      return response;
    });
    try {
      const res = await batch({ requests: [{ path: `${API}/tags`, body: { name: 'Hooked' } }] }, 'editor');
      const [answer] = res.body.responses as Answer[];
      expect(answer.status).toBe(201);
      expect(answer.headers).toMatchObject({ 'X-Batched': 'yes' });
      expect(res.headers['x-batched']).toBe('yes');
    } finally {
      remove();
    }
  });
});

describe('batch/v1 with WordPress names', () => {
  let w: TestApp;
  const admin = () => w.users.administrator.authorization;

  beforeAll(async () => {
    w = await createTestApp('batch_wp', { cms: { wireNames: 'wordpress' } });
  });
  afterAll(() => w.close());

  it('describes allow_batch after the methods of every endpoint of the posts and terms routes, as WordPress does', async () => {
    for (const route of ['posts', 'posts/1', 'pages', 'pages/1', 'categories', 'tags/1']) {
      const res = await w.http.options(`/wp-json/wp/v2/${route}`).set('Authorization', admin()).expect(200);
      for (const endpoint of res.body.endpoints) {
        expect(Object.keys(endpoint)).toEqual(['methods', 'allow_batch', 'args']);
        expect(endpoint.allow_batch).toEqual({ v1: true });
      }
    }
    for (const route of [
      'users',
      'users/1',
      'comments',
      'media',
      'media/1',
      'settings',
      'types',
      'posts/1/revisions',
    ]) {
      const res = await w.http.options(`/wp-json/wp/v2/${route}`).set('Authorization', admin()).expect(200);
      expect(JSON.stringify(res.body)).not.toContain('allow_batch');
    }
    const index = await w.http.get('/wp-json/').expect(200);
    expect(index.body.namespaces).toEqual(['wp/v2', 'cms-auth/v1']);
    expect(index.body.routes['/batch/v1']).toEqual(BATCH_ROUTE('http://example.org/wp-json/batch/v1'));
    expect(index.body.routes['/wp/v2/posts'].endpoints[1]).toMatchObject({
      methods: ['POST'],
      allow_batch: { v1: true },
    });
    expect(index.body.routes['/wp/v2/users'].endpoints[0].allow_batch).toBeUndefined();
    const ns = await w.http.get('/wp-json/wp/v2').expect(200);
    expect(ns.body.routes['/wp/v2/categories/(?P<id>[\\d]+)'].endpoints[2].allow_batch).toEqual({ v1: true });
  });

  it('serves a batch with WordPress names: posts, terms (deleted with force), WordPress errors', async () => {
    const categoryId = await createTerm(w.dataSource, 'category', 'Batch doomed');
    const requests = [
      { path: '/wp/v2/posts', body: { title: 'WP batch', status: 'publish', categories: [categoryId] } },
      { path: '/wp/v2/categories', body: { name: 'WP batch category' } },
      { method: 'DELETE', path: `/wp/v2/categories/${categoryId}?force=true` },
      { path: '/wp/v2/pages', body: { title: 'WP batch page' } },
      { path: '/wp/v2/nothing-here' },
      { path: '/wp/v2/users', body: { username: 'x' } },
    ];
    const res = await w.http.post('/wp-json/batch/v1').set('Authorization', admin()).send({ requests }).expect(207);
    const responses = res.body.responses as Answer[];
    expect(responses.map((r) => r.status)).toEqual([201, 201, 200, 201, 404, 400]);
    expect(responses[0].headers).toMatchObject({ Location: expect.stringMatching(/\/wp-json\/wp\/v2\/posts\/\d+$/) });
    expect(responses[0].body._links).toMatchObject({ 'wp:term': expect.any(Array), curies: expect.any(Array) });
    expect(responses[1].body).toMatchObject({ name: 'WP batch category', taxonomy: 'category' });
    expect(JSON.stringify(responses[2].body)).toContain('"name":"Batch doomed"');
    const left = await w.dataSource.query(`SELECT COUNT(*) AS n FROM ${TEST_PREFIX}terms WHERE term_id = ?`, [
      categoryId,
    ]);
    expect(Number(left[0].n)).toBe(0);
    expect(responses[3].body).toMatchObject({ type: 'page', title: { raw: 'WP batch page' } });
    // WordPress 6.1's answers, as the reference gives them.
    expect(responses[4]).toEqual({
      body: {
        code: 'rest_no_route',
        message: 'No route was found matching the URL and request method.',
        data: { status: 404 },
      },
      status: 404,
      headers: [],
    });
    expect(responses[5]).toEqual({
      body: {
        code: 'rest_batch_not_allowed',
        message: 'The requested route does not support batch requests.',
        data: { status: 400 },
      },
      status: 400,
      headers: { Allow: 'GET, POST' },
    });
  });

  it('require-all-validate answers as WordPress does: the failures, null for the others', async () => {
    const requests = [
      { path: '/wp/v2/nothing-here' },
      { path: '/wp/v2/users', body: { username: 'x' } },
      { path: '/wp/v2/posts', body: { title: 'Never', status: 'bogus' } },
      { path: '/wp/v2/posts', body: { title: 'Never' } },
    ];
    const res = await w.http
      .post('/wp-json/batch/v1')
      .set('Authorization', admin())
      .send({ validation: 'require-all-validate', requests })
      .expect(207);
    expect(res.body.failed).toBe('validation');
    expect(res.body.responses[0]).toEqual({
      body: {
        code: 'rest_no_route',
        message: 'No route was found matching the URL and request method.',
        data: { status: 404 },
      },
      status: 404,
      headers: [],
    });
    expect(res.body.responses[1]).toEqual({
      body: {
        code: 'rest_batch_not_allowed',
        message: 'The requested route does not support batch requests.',
        data: { status: 400 },
      },
      status: 400,
      headers: [],
    });
    expect(res.body.responses[2]).toMatchObject({ status: 400, headers: [], body: { code: 'rest_invalid_param' } });
    expect(res.body.responses[3]).toBeNull();
    const count = await w.dataSource.query(`SELECT COUNT(*) AS n FROM ${TEST_PREFIX}posts WHERE post_title = ?`, [
      'Never',
    ]);
    expect(Number(count[0].n)).toBe(0);
  });
});

describe('batch/v1 seen from another node on the same database', () => {
  const file = join(tmpdir(), `cms-batch-${process.pid}.sqlite`);
  let a: TestApp;
  let b: TestApp;

  beforeAll(async () => {
    const databaseUrl = testDatabaseKind() === 'sqlite' ? `sqlite:${file}` : await testDatabaseUrl('batch_nodes');
    a = await createTestApp('batch_nodes', { databaseUrl });
    b = await createTestApp('batch_nodes', { databaseUrl, users: a.users });
  });
  afterAll(async () => {
    await b.app.close();
    await a.close();
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
  });

  it("answers another node's cached reads anew once a batch has ended (creates, and edits in place)", async () => {
    const post = await createPost(a.dataSource, { author: a.users.editor.id, title: 'Seen elsewhere' });
    const list = '/cms-json/cms/v2/posts?per_page=100';
    const one = `/cms-json/cms/v2/posts/${post.id}`;
    for (let i = 0; i < 2; i++) {
      await b.http.get(list).expect(200);
      await b.http.get(one).expect(200);
    }
    const requests = [
      { path: '/cms/v2/posts', body: { title: 'Made on node A', status: 'publish' } },
      { method: 'PUT', path: `/cms/v2/posts/${post.id}`, body: { content: 'Edited on node A' } },
    ];
    const res = await a.http
      .post('/cms-json/batch/v1')
      .set('Authorization', a.users.editor.authorization)
      .send({ requests })
      .expect(207);
    expect((res.body.responses as Answer[]).map((r) => r.status)).toEqual([201, 200]);
    const listed = await b.http.get(list).expect(200);
    expect((listed.body as Array<{ title: { rendered: string } }>).map((p) => p.title.rendered)).toContain(
      'Made on node A',
    );
    expect((await b.http.get(one).expect(200)).body.content.rendered).toContain('Edited on node A');
  });

  it("answers another node's cached read of a post edited in place alone by a batch anew", async () => {
    // Made through the API (so with its category): an edit of its text alone is narrowed to it.
    const made = await a.http
      .post('/cms-json/cms/v2/posts')
      .set('Authorization', a.users.editor.authorization)
      .send({ title: 'Edited alone', status: 'publish' })
      .expect(201);
    const one = `/cms-json/cms/v2/posts/${made.body.id as number}`;
    for (let i = 0; i < 2; i++) await b.http.get(one).expect(200);
    const requests = [1, 2].map((n) => ({
      method: 'PUT',
      path: `/cms/v2/posts/${made.body.id as number}`,
      body: { content: `Only the text, ${n}` },
    }));
    await a.queries.during(() =>
      a.http
        .post('/cms-json/batch/v1')
        .set('Authorization', a.users.editor.authorization)
        .send({ requests })
        .expect(207),
    );
    // One move, of the posts' content and of this post's version (not of every post's answers).
    const moves = a.queries.statements.filter((sql) => /^UPDATE \S*cms_versions\S* SET version/.test(sql));
    expect(moves).toHaveLength(1);
    expect(moves[0]).toMatch(/SET version = \(/);
    expect((await b.http.get(one).expect(200)).body.content.rendered).toContain('Only the text, 2');
  });
});
