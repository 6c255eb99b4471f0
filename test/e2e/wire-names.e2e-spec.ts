import { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { TypeOrmModule } from '@nestjs/typeorm';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, rmSync } from 'node:fs';
import request from 'supertest';
import { buildDataSourceOptions, CmsModule } from '../../src';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LibraryExtensionModule } from '../fixtures/extensions/library.extension';
import { NotesModule } from '../fixtures/extensions/notes.module';
import { assignTerms, createPost, createTerm } from '../factories/post.factory';
import { createTestApp, expectRestError, TestApp } from '../utils/test-app';
import { dropTestDatabase, testDatabaseKind, testDatabaseUrl } from '../utils/test-db';

/** The `name=value` of a login answer's session cookie. */
function sessionCookie(res: { headers: Record<string, unknown> }): string {
  const header = res.headers['set-cookie'] as string[] | string;
  return (Array.isArray(header) ? header[0] : header).split(';')[0];
}

describe('WordPress wire names (wireNames: wordpress) on the same database as the spec names', () => {
  const file = join(tmpdir(), `cms-wire-names-${process.pid}.sqlite`);
  let wp: TestApp;
  let cms: TestApp;
  let postId: number;
  let categoryId: number;

  beforeAll(async () => {
    const databaseUrl = testDatabaseKind() === 'sqlite' ? `sqlite:${file}` : await testDatabaseUrl('wire_names');
    cms = await createTestApp('wire_names', { databaseUrl });
    // A second server on the same database, for the front-ends written for WordPress.
    wp = await createTestApp('wire_names', { cms: { wireNames: 'wordpress' }, databaseUrl, users: cms.users });
    categoryId = await createTerm(cms.dataSource, 'category', 'News');
    postId = (await createPost(cms.dataSource, { title: 'Wire names' })).id;
    await assignTerms(cms.dataSource, postId, 'category', [categoryId]);
  });
  afterAll(async () => {
    await wp.app.close();
    await cms.close();
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
  });

  it('serves the index at wp-json with the wp/v2 namespace, its routes and links, and the discovery Link header', async () => {
    const res = await wp.http.get('/wp-json/').expect(200);
    expect(res.headers.link).toBe('<http://example.org/wp-json/>; rel="https://api.w.org/"');
    expect(res.body.namespaces).toEqual(['wp/v2', 'cms-auth/v1']);
    expect(res.body.routes['/wp/v2/posts']).toMatchObject({
      namespace: 'wp/v2',
      _links: { self: [{ href: 'http://example.org/wp-json/wp/v2/posts' }] },
    });
    expect(res.body.routes['/wp/v2/posts/(?P<id>[\\d]+)']).toMatchObject({ namespace: 'wp/v2' });
    expect(Object.keys(res.body.routes).filter((route) => route.startsWith('/cms/'))).toEqual([]);

    const namespace = await wp.http.get('/wp-json/wp/v2').expect(200);
    expect(namespace.body.namespace).toBe('wp/v2');
    expect(namespace.body._links.up).toEqual([{ href: 'http://example.org/wp-json/' }]);
    // The spec's names are not served by this server.
    expectRestError(await wp.http.get('/wp-json/cms/v2/posts'), 'rest_no_route', 404);
    await wp.http.get('/cms-json/cms/v2/posts').expect(404);
  });

  it('answers collections with X-WP-Total, X-WP-TotalPages, wp/v2 links and the wp curie, and embeds wp:term', async () => {
    const res = await wp.http.get('/wp-json/wp/v2/posts?_embed=1&per_page=1').expect(200);
    expect(res.headers['x-wp-total']).toBe('1');
    expect(res.headers['x-wp-totalpages']).toBe('1');
    expect(res.headers['x-cms-total']).toBeUndefined();
    expect(res.headers['access-control-expose-headers']).toBe('X-WP-Total, X-WP-TotalPages, Link, ETag');
    expect(res.headers['access-control-allow-headers']).toContain('X-WP-Nonce');
    expect(res.headers['access-control-allow-headers']).not.toContain('X-CMS-Nonce');
    const [post] = res.body;
    expect(post.id).toBe(postId);
    expect(post._links.self).toEqual([{ href: `http://example.org/wp-json/wp/v2/posts/${postId}` }]);
    expect(post._links['wp:term'][0]).toEqual({
      taxonomy: 'category',
      embeddable: true,
      href: `http://example.org/wp-json/wp/v2/categories?post=${postId}`,
    });
    expect(post._links['wp:attachment']).toEqual([{ href: `http://example.org/wp-json/wp/v2/media?parent=${postId}` }]);
    expect(post._links.curies).toEqual([{ name: 'wp', href: 'https://api.w.org/{rel}', templated: true }]);
    expect(Object.keys(post._links).filter((rel) => rel.startsWith('cms:'))).toEqual([]);
    expect(post._embedded['wp:term'][0]).toEqual([
      expect.objectContaining({ id: categoryId, name: 'News', taxonomy: 'category' }),
    ]);

    const page = await wp.http.get('/wp-json/wp/v2/categories?per_page=1&page=1').expect(200);
    expect(page.headers['x-wp-totalpages']).toBe('2');
    expect(page.headers.link).toContain('<http://example.org/wp-json/wp/v2/categories?per_page=1&page=2>; rel="next"');
  });

  it('writes wp/v2 in types, taxonomies, OPTIONS schemas, Location headers and the ?rest_route= form', async () => {
    const type = await wp.http.get('/wp-json/wp/v2/types/post').expect(200);
    expect(type.body.rest_namespace).toBe('wp/v2');
    expect(type.body._links['wp:items']).toEqual([{ href: 'http://example.org/wp-json/wp/v2/posts' }]);
    const taxonomy = await wp.http.get('/wp-json/wp/v2/taxonomies/category').expect(200);
    expect(taxonomy.body.rest_namespace).toBe('wp/v2');

    const options = await wp.http.options('/wp-json/wp/v2/categories').expect(200);
    expect(options.body).toMatchObject({ namespace: 'wp/v2', schema: { title: 'category' } });
    expect(options.body._links).toEqual({ self: [{ href: 'http://example.org/wp-json/wp/v2/categories' }] });

    const created = await wp.http
      .post('/wp-json/wp/v2/tags')
      .set('Authorization', wp.users.editor.authorization)
      .send({ name: 'Wire' })
      .expect(201);
    expect(created.headers.location).toBe(`http://example.org/wp-json/wp/v2/tags/${created.body.id}`);
    expect(created.body._links['wp:post_type']).toEqual([
      { href: `http://example.org/wp-json/wp/v2/posts?tags=${created.body.id}` },
    ]);

    const simple = await wp.http.get('/?rest_route=/wp/v2/categories').expect(200);
    expect(simple.headers['x-wp-total']).toBe('2');
    expect(simple.body.map((c: { id: number }) => c.id)).toContain(categoryId);

    // The spec's server on the same database still answers with its own names.
    const spec = await cms.http.get(`/cms-json/cms/v2/posts/${postId}`).expect(200);
    expect(spec.body._links['cms:term'][0].href).toBe(`http://example.org/cms-json/cms/v2/categories?post=${postId}`);
    expect(spec.body._links.curies).toEqual([{ name: 'cms', href: 'https://api.w.org/{rel}', templated: true }]);
  });

  it('keeps the session routes in cms-auth/v1, with the nonce in X-WP-Nonce and _wpnonce only', async () => {
    const login = await wp.http
      .post('/wp-json/cms-auth/v1/login')
      .send({ username: 'editor', password: wp.users.editor.password })
      .expect(200);
    const cookie = sessionCookie(login);
    const nonce = login.body.nonce as string;
    expect(login.headers['x-wp-nonce']).toBe(nonce);
    expect(login.headers['x-cms-nonce']).toBeUndefined();
    const editOnly = '/wp-json/wp/v2/types?context=edit';
    const ok = await wp.http.get(editOnly).set('Cookie', cookie).set('X-WP-Nonce', nonce).expect(200);
    expect(ok.headers['x-wp-nonce']).toMatch(/^[0-9a-f]{10}$/);
    await wp.http.get(`${editOnly}&_wpnonce=${nonce}`).set('Cookie', cookie).expect(200);
    // The spec's names are not read with WordPress's: the cookie alone is anonymous.
    expectRestError(
      await wp.http.get(editOnly).set('Cookie', cookie).set('X-CMS-Nonce', nonce),
      'rest_cannot_view',
      401,
    );
    expectRestError(await wp.http.get(`${editOnly}&_cmsnonce=${nonce}`).set('Cookie', cookie), 'rest_cannot_view', 401);

    const fresh = await wp.http.get('/wp-json/cms-auth/v1/nonce').set('Cookie', cookie).expect(200);
    expect(fresh.headers['content-type']).toBe('text/plain; charset=UTF-8');
    expect(fresh.text).toMatch(/^[0-9a-f]{10}$/);
    expect(fresh.headers['x-wp-nonce']).toBe(fresh.text);
    await wp.http.get(editOnly).set('Cookie', cookie).set('X-WP-Nonce', fresh.text).expect(200);
  });

  it("describes the API with WordPress's names in openapi.json, and serves the docs page at wp-json/docs/", async () => {
    const doc = (await wp.http.get('/wp-json/openapi.json').expect(200)).body;
    expect(doc.servers).toEqual([{ url: 'http://example.org/wp-json' }]);
    expect(Object.keys(doc.paths)).toContain('/wp/v2/posts/{id}');
    expect(Object.keys(doc.paths).filter((path) => path.startsWith('/cms/v2/'))).toEqual([]);
    expect(Object.keys(doc.paths['/wp/v2/posts'].get.responses['200'].headers).sort()).toEqual([
      'X-WP-Total',
      'X-WP-TotalPages',
    ]);
    expect(doc.components.securitySchemes.nonce.name).toBe('X-WP-Nonce');
    const spec = (await cms.http.get('/cms-json/openapi.json').expect(200)).body;
    expect(Object.keys(spec.paths)).toContain('/cms/v2/posts/{id}');
    expect(Object.keys(spec.paths['/cms/v2/posts'].get.responses['200'].headers).sort()).toEqual([
      'X-CMS-Total',
      'X-CMS-TotalPages',
    ]);
    const page = await wp.http.get('/wp-json/docs/').expect(200);
    expect(page.text).toContain('swagger-ui');
  });

  it('answers anonymous reads of both modes from their own caches, fresh after a write through the other', async () => {
    const a = await cms.http.get('/?rest_route=/').expect(200);
    const b = await wp.http.get('/?rest_route=/').expect(200);
    expect(a.body.namespaces).toEqual(['cms/v2', 'cms-auth/v1']);
    expect(b.body.namespaces).toEqual(['wp/v2', 'cms-auth/v1']);
    expect((await wp.http.get('/?rest_route=/').expect(200)).headers.etag).toBe(b.headers.etag);

    const before = await wp.http.get('/wp-json/wp/v2/posts').expect(200);
    const created = await cms.http
      .post('/cms-json/cms/v2/posts')
      .set('Authorization', cms.users.editor.authorization)
      .send({ title: 'Through cms', status: 'publish' })
      .expect(201);
    const after = await wp.http.get('/wp-json/wp/v2/posts').expect(200);
    expect(Number(after.headers['x-wp-total'])).toBe(Number(before.headers['x-wp-total']) + 1);
    expect(after.body[0]).toMatchObject({
      id: created.body.id,
      _links: { self: [{ href: `http://example.org/wp-json/wp/v2/posts/${created.body.id}` }] },
    });
  });
});

describe('cookie nonces under the spec names', () => {
  let t: TestApp;
  const editOnly = '/cms-json/cms/v2/types?context=edit';

  beforeAll(async () => {
    t = await createTestApp('wire_names_nonce');
  });
  afterAll(() => t.close());

  async function login(role: 'editor' | 'author') {
    const res = await t.http
      .post('/cms-json/cms-auth/v1/login')
      .send({ username: role, password: t.users[role].password })
      .expect(200);
    return { cookie: sessionCookie(res), nonce: res.body.nonce as string, res };
  }

  it('answers the nonce in X-CMS-Nonce on login, and takes X-WP-Nonce and _wpnonce as aliases', async () => {
    const { cookie, nonce, res } = await login('editor');
    expect(res.headers['x-cms-nonce']).toBe(nonce);
    const ok = await t.http.get(editOnly).set('Cookie', cookie).set('X-WP-Nonce', nonce).expect(200);
    expect(ok.headers['x-cms-nonce']).toMatch(/^[0-9a-f]{10}$/);
    expect(ok.headers['x-wp-nonce']).toBeUndefined();
    await t.http.get(`${editOnly}&_wpnonce=${nonce}`).set('Cookie', cookie).expect(200);
    await t.http
      .post('/cms-json/cms/v2/tags')
      .type('form')
      .set('Cookie', cookie)
      .send({ name: 'Alias', _wpnonce: nonce })
      .expect(201);
    expectRestError(
      await t.http.get(editOnly).set('Cookie', cookie).set('X-WP-Nonce', '0123456789'),
      'rest_cookie_invalid_nonce',
      403,
    );
    expect(ok.headers['access-control-allow-headers']).toContain('X-CMS-Nonce, X-WP-Nonce');
  });

  it('answers a fresh nonce as plain text for the session cookie alone, never cached', async () => {
    const { cookie } = await login('author');
    const res = await t.http.get('/cms-json/cms-auth/v1/nonce').set('Cookie', cookie).expect(200);
    expect(res.headers['content-type']).toBe('text/plain; charset=UTF-8');
    expect(res.headers['cache-control']).toBe('no-cache, must-revalidate, max-age=0');
    expect(res.headers.expires).toBe('Wed, 11 Jan 1984 05:00:00 GMT');
    expect(res.text).toMatch(/^[0-9a-f]{10}$/);
    expect(res.headers['x-cms-nonce']).toBe(res.text);
    const me = await t.http
      .get('/cms-json/cms/v2/users/me')
      .set('Cookie', cookie)
      .set('X-CMS-Nonce', res.text)
      .expect(200);
    expect(me.body.id).toBe(t.users.author.id);

    // Without a session: a JSON error, and nothing of the session's answer was kept for anonymous callers.
    const anonymous = await t.http.get('/cms-json/cms-auth/v1/nonce');
    expectRestError(anonymous, 'rest_not_logged_in', 401);
    expect(anonymous.headers['content-type']).toBe('application/json; charset=UTF-8');
    expectRestError(
      await t.http.get('/cms-json/cms-auth/v1/nonce').set('Cookie', 'cms_logged_in=author|1|forged|mac'),
      'rest_not_logged_in',
      401,
    );
    // A page of another origin never gets a nonce through the cookie.
    expectRestError(
      await t.http.get('/cms-json/cms-auth/v1/nonce').set('Cookie', cookie).set('Origin', 'https://evil.example'),
      'rest_not_logged_in',
      401,
    );
  });

  it('ends with the session: no nonce after logout', async () => {
    const { cookie, nonce } = await login('editor');
    await t.http.post('/cms-json/cms-auth/v1/logout').set('Cookie', cookie).set('X-CMS-Nonce', nonce).expect(200);
    expectRestError(await t.http.get('/cms-json/cms-auth/v1/nonce').set('Cookie', cookie), 'rest_not_logged_in', 401);
  });
});

describe('WordPress wire names in a host app (CmsModule.forRootAsync)', () => {
  let app: INestApplication;

  beforeAll(async () => {
    const databaseUrl = await testDatabaseUrl('wire_names_host');
    const moduleRef = await Test.createTestingModule({
      imports: [
        TypeOrmModule.forRoot(buildDataSourceOptions({ databaseUrl, tablePrefix: 'cms_' })),
        // wireNames is structure, given to forRootAsync itself: the factory's is ignored.
        CmsModule.forRootAsync({
          wireNames: 'wordpress',
          useFactory: () => ({ baseUrl: 'https://host.example', wireNames: 'cms' as const }),
        }),
      ],
    }).compile();
    app = moduleRef.createNestApplication({ logger: ['error'] });
    await app.init();
  });
  afterAll(async () => {
    await app.close();
    await dropTestDatabase('wire_names_host');
  });

  it('serves wp-json and wp/v2 through the Nest route, with X-WP-Total', async () => {
    const index = await request(app.getHttpServer()).get('/wp-json/').expect(200);
    expect(index.body.namespaces).toEqual(['wp/v2', 'cms-auth/v1']);
    expect(index.body.routes['/wp/v2/types']._links.self[0].href).toBe('https://host.example/wp-json/wp/v2/types');
    const categories = await request(app.getHttpServer()).get('/wp-json/wp/v2/categories').expect(200);
    expect(categories.headers['x-wp-total']).toBe('1');
    await request(app.getHttpServer()).get('/cms-json/cms/v2/categories').expect(404);
  });
});

describe("extensions under WordPress's wire names", () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp('wire_names_ext', {
      cms: { wireNames: 'wordpress' },
      extensions: [NotesModule, LibraryExtensionModule],
    });
  });
  afterAll(() => t.close());

  it('serves routes and post types declared in cms/v2 in wp/v2, and leaves other namespaces alone', async () => {
    const index = await t.http.get('/wp-json/').expect(200);
    expect(index.body.namespaces).toEqual(['wp/v2', 'cms-auth/v1', 'library/v1']);
    const notes = await t.http.get('/wp-json/wp/v2/notes').expect(200);
    expect(notes.headers['x-wp-total']).toBe('1');
    expect(notes.body[0]._links.self).toEqual([{ href: 'http://example.org/wp-json/wp/v2/notes/1' }]);
    const created = await t.http
      .post('/wp-json/wp/v2/notes')
      .set('Authorization', t.users.editor.authorization)
      .send({ text: 'Hi' })
      .expect(201);
    expect(created.headers.location).toBe(`http://example.org/wp-json/wp/v2/notes/${created.body.id}`);

    const book = await t.http
      .post('/wp-json/wp/v2/books')
      .set('Authorization', t.users.editor.authorization)
      .send({ title: 'Dune', status: 'publish' })
      .expect(201);
    expect(book.body._links.about).toEqual([{ href: 'http://example.org/wp-json/wp/v2/types/book' }]);
    expect((await t.http.get('/wp-json/wp/v2/types/book').expect(200)).body.rest_namespace).toBe('wp/v2');

    const shelves = await t.http.get('/wp-json/library/v1/shelves?per_page=1&total=2').expect(200);
    expect(shelves.headers['x-wp-totalpages']).toBe('2');
    expect(shelves.headers.link).toBe(
      '<http://example.org/wp-json/library/v1/shelves?per_page=1&total=2&page=2>; rel="next"',
    );
    expect(shelves.body[0]._links['wp:post_type']).toEqual([
      { embeddable: true, href: 'http://example.org/wp-json/wp/v2/types/post' },
    ]);
  });
});

describe('the standalone server with CMS_WIRE_NAMES=wordpress (node dist/main)', () => {
  const main = join(__dirname, '..', '..', 'dist', 'main.js');
  const file = join(tmpdir(), `cms-wire-names-standalone-${process.pid}.sqlite`);
  afterAll(async () => {
    await dropTestDatabase('wire_names_standalone');
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
  });

  it('logs, discovers and serves the API at wp-json', async () => {
    if (!existsSync(main)) throw new Error('dist/main.js is missing: npm test builds it first (pretest)');
    const port = String(40000 + Math.floor(Math.random() * 10000));
    const databaseUrl =
      testDatabaseKind() === 'sqlite' ? `sqlite:${file}` : await testDatabaseUrl('wire_names_standalone');
    const child = spawn(process.execPath, [main], {
      env: {
        PATH: process.env.PATH ?? '',
        PORT: port,
        DATABASE_URL: databaseUrl,
        CMS_WIRE_NAMES: 'wordpress',
        CMS_SERVE_UPLOADS: 'false',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d) => (output += String(d)));
    child.stderr.on('data', (d) => (output += String(d)));
    try {
      let home: Response | undefined;
      for (let i = 0; i < 100 && !home; i++) {
        if (child.exitCode !== null) throw new Error(`server exited: ${output}`);
        home = await fetch(`http://127.0.0.1:${port}/`).catch(
          () => new Promise<undefined>((r) => setTimeout(() => r(undefined), 100)),
        );
      }
      expect(home?.headers.get('link')).toBe(`<http://127.0.0.1:${port}/wp-json/>; rel="https://api.w.org/"`);
      expect(output).toContain(`Serving http://localhost:${port}/wp-json/`);
      const categories = await fetch(`http://127.0.0.1:${port}/wp-json/wp/v2/categories`);
      expect(categories.status).toBe(200);
      expect(categories.headers.get('x-wp-total')).toBe('1');
      expect((await fetch(`http://127.0.0.1:${port}/cms-json/cms/v2/categories`)).status).toBe(404);
    } finally {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  });
});
