import { LibraryExtensionModule } from '../fixtures/extensions/library.extension';
import { createTestApp, expectRestError, TestApp } from '../utils/test-app';

describe('REST server: index, route forms, OPTIONS, HEAD and headers', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp('server_index', { extensions: [LibraryExtensionModule] });
  });
  afterAll(() => t.close());

  describe('index', () => {
    it('describes the site, its namespaces and every route', async () => {
      const res = await t.http.get('/cms-json/').expect(200);
      expect(res.body).toMatchObject({
        name: 'My CMS Site',
        url: 'http://example.org',
        home: 'http://example.org',
        namespaces: ['cms/v2', 'cms-auth/v1', 'library/v1'],
        authentication: [],
      });
      expect(Object.keys(res.body.routes)).toEqual(
        expect.arrayContaining([
          '/',
          '/cms/v2',
          '/cms/v2/types',
          '/cms/v2/types/(?P<type>[\\w-]+)',
          '/library/v1/echo',
        ]),
      );
      expect(res.body._links.help[0].href).toMatch(/^https:\/\//);
    });

    it('answers without the trailing slash too', async () => {
      const res = await t.http.get('/cms-json').expect(200);
      expect(res.body.namespaces).toContain('cms/v2');
    });

    it('describes a route with its methods, endpoint args and a self link for routes without variables', async () => {
      const res = await t.http.get('/cms-json/').expect(200);
      const types = res.body.routes['/cms/v2/types'];
      expect(types).toMatchObject({ namespace: 'cms/v2', methods: ['GET'] });
      expect(types.endpoints[0].args.context).toMatchObject({
        default: 'view',
        enum: ['view', 'embed', 'edit'],
        required: false,
      });
      expect(types._links.self[0].href).toBe('http://example.org/cms-json/cms/v2/types');
      expect(res.body.routes['/cms/v2/types/(?P<type>[\\w-]+)']._links).toBeUndefined();
      expect(res.body.routes['/library/v1/echo'].endpoints[0].args.somerequired.required).toBe(true);
      expect(types.schema).toBeUndefined();
    });

    it('includes every route schema with context=help', async () => {
      const res = await t.http.get('/cms-json/?context=help').expect(200);
      expect(res.body.routes['/cms/v2/types'].schema).toMatchObject({ title: 'type', type: 'object' });
      expect(res.body.routes['/cms/v2/statuses/(?P<status>[\\w-]+)'].schema.title).toBe('status');
    });

    it('serves a namespace index listing its routes and every namespace', async () => {
      const res = await t.http.get('/cms-json/cms/v2').expect(200);
      expect(res.body.namespace).toBe('cms/v2');
      expect(res.body.namespaces).toEqual(['cms/v2', 'cms-auth/v1', 'library/v1']);
      expect(Object.keys(res.body.routes).every((r) => r.startsWith('/cms/v2'))).toBe(true);
      expect(res.body.routes['/cms/v2/taxonomies']).toBeDefined();
      expect(res.body._links.up[0].href).toBe('http://example.org/cms-json/');
      const other = await t.http.get('/cms-json/library/v1').expect(200);
      expect(Object.keys(other.body.routes)).toContain('/library/v1/shelves');
    });
  });

  describe('the ?rest_route= form', () => {
    it('serves the index and routes', async () => {
      const index = await t.http.get('/?rest_route=/').expect(200);
      expect(index.body.namespaces).toContain('cms/v2');
      const types = await t.http.get('/?rest_route=/cms/v2/types/post&context=embed').expect(200);
      expect(types.body).toEqual(expect.objectContaining({ slug: 'post', name: 'Posts' }));
      expect(types.body.description).toBeUndefined();
    });

    it('answers rest_no_route for unknown routes', async () => {
      expectRestError(await t.http.get('/?rest_route=/cms/v2/nothing'), 'rest_no_route', 404);
    });
  });

  describe('errors', () => {
    it('answers rest_no_route 404 for unknown routes and unsupported methods', async () => {
      expectRestError(await t.http.get('/cms-json/cms/v2/nothing'), 'rest_no_route', 404);
      expectRestError(await t.http.delete('/cms-json/cms/v2/types'), 'rest_no_route', 404);
      const res = await t.http.get('/cms-json/nope/v9/x');
      expect(res.body).toEqual({
        code: 'rest_no_route',
        message: 'No route was found matching the URL and request method',
        data: { status: 404 },
      });
    });

    it('hides internals of unexpected failures behind a 500', async () => {
      const res = await t.http.get('/cms-json/library/v1/boom').expect(500);
      expect(res.body).toEqual({ code: 'internal_server_error', message: expect.any(String), data: { status: 500 } });
      expect(JSON.stringify(res.body)).not.toMatch(/SELECT|secret_table|at .*\.ts/);
    });

    it('answers rest_forbidden (401 anonymous, 403 logged in) when a permission check refuses without an error of its own', async () => {
      expectRestError(await t.http.get('/cms-json/library/v1/closed'), 'rest_forbidden', 401);
      expectRestError(
        await t.http.get('/cms-json/library/v1/closed').set('Authorization', t.users.subscriber.authorization),
        'rest_forbidden',
        403,
      );
    });

    it('passes a permission check error through with its status', async () => {
      expectRestError(await t.http.get('/cms-json/library/v1/private'), 'rest_forbidden', 401);
      await t.http
        .get('/cms-json/library/v1/private')
        .set('Authorization', t.users.subscriber.authorization)
        .expect(200);
    });

    it('rejects malformed JSON bodies with rest_invalid_json', async () => {
      const res = await t.http
        .post('/cms-json/library/v1/echo')
        .set('Content-Type', 'application/json')
        .send('{"somerequired": ');
      expectRestError(res, 'rest_invalid_json', 400);
    });

    it('rejects bodies over the size limit with 413', async () => {
      const big = JSON.stringify({ somerequired: 'x'.repeat(11 * 1024 * 1024) });
      const res = await t.http.post('/cms-json/library/v1/echo').set('Content-Type', 'application/json').send(big);
      expectRestError(res, 'rest_request_too_large', 413);
    });
  });

  describe('OPTIONS', () => {
    it('describes the matched route with its schema and an Allow header', async () => {
      const res = await t.http.options('/cms-json/cms/v2/types/post').expect(200);
      expect(res.body).toMatchObject({ namespace: 'cms/v2', methods: ['GET'] });
      expect(res.body.endpoints[0]).toMatchObject({ methods: ['GET'], args: { context: { default: 'view' } } });
      expect(res.body.schema).toMatchObject({
        $schema: 'http://json-schema.org/draft-04/schema#',
        title: 'type',
        type: 'object',
      });
      expect(res.body.schema.properties.slug).toMatchObject({ type: 'string', readonly: true });
      expect(res.headers.allow).toBe('GET');
    });

    it('lists only the methods whose permission check passes in Allow', async () => {
      const anon = await t.http.options('/cms-json/library/v1/private').expect(200);
      expect(anon.headers.allow).toBeUndefined();
      const user = await t.http
        .options('/cms-json/library/v1/private')
        .set('Authorization', t.users.editor.authorization);
      expect(user.headers.allow).toBe('GET');
      const echo = await t.http.get('/cms-json/library/v1/echo?somerequired=1').expect(200);
      expect(echo.headers.allow).toBe('GET, POST');
    });

    it('answers an empty list for paths no route matches', async () => {
      const res = await t.http.options('/cms-json/cms/v2/nothing/here').expect(200);
      expect(res.body).toEqual([]);
    });
  });

  describe('HEAD', () => {
    it('runs the GET handler and sends its headers without a body', async () => {
      const res = await t.http.head('/cms-json/cms/v2/statuses/publish').expect(200);
      expect(res.text ?? '').toBe('');
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.headers.allow).toBe('GET');
      const missing = await t.http.head('/cms-json/cms/v2/statuses/nope');
      expect(missing.status).toBe(404);
    });
  });

  describe('response headers', () => {
    it('sends no-cache, nosniff, robots and discovery headers on API responses', async () => {
      const res = await t.http.get('/cms-json/cms/v2/types').expect(200);
      expect(res.headers['cache-control']).toBe('no-cache, must-revalidate, max-age=0');
      expect(res.headers.expires).toBe('Wed, 11 Jan 1984 05:00:00 GMT');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['x-robots-tag']).toBe('noindex');
      expect(res.headers.link).toBe('<http://example.org/cms-json/>; rel="https://api.w.org/"');
      expect(res.headers['access-control-expose-headers']).toBe('X-CMS-Total, X-CMS-TotalPages, Link, ETag');
    });

    it("sends the discovery Link header on the site's home page, and on no other page of the host", async () => {
      const home = await t.http.get('/');
      expect(home.headers.link).toBe('<http://example.org/cms-json/>; rel="https://api.w.org/"');
      const res = await t.http.get('/some-page');
      expect(res.status).toBe(404);
      expect(res.headers.link).toBeUndefined();
    });

    it('answers CORS requests with the reflected origin, credentials and the allowed methods', async () => {
      const res = await t.http.get('/cms-json/cms/v2/types').set('Origin', 'https://other.example').expect(200);
      expect(res.headers['access-control-allow-origin']).toBe('https://other.example');
      expect(res.headers['access-control-allow-credentials']).toBe('true');
      expect(res.headers.vary).toMatch(/Origin/);
      const preflight = await t.http
        .options('/cms-json/cms/v2/types')
        .set('Origin', 'https://other.example')
        .expect(200);
      expect(preflight.headers['access-control-allow-methods']).toContain('DELETE');
    });

    it('tells authenticators when a request comes from another origin, so cookies cannot carry it', async () => {
      const cookie = 'library_session=reader';
      await t.http.get('/cms-json/library/v1/private').set('Cookie', cookie).expect(200);
      await t.http
        .get('/cms-json/library/v1/private')
        .set('Cookie', cookie)
        .set('Origin', 'http://example.org')
        .expect(200);
      expectRestError(
        await t.http.get('/cms-json/library/v1/private').set('Cookie', cookie).set('Origin', 'https://evil.example'),
        'rest_forbidden',
        401,
      );
      expectRestError(
        await t.http.get('/cms-json/library/v1/private').set('Cookie', cookie).set('Sec-Fetch-Site', 'cross-site'),
        'rest_forbidden',
        401,
      );
    });

    it('wraps the response in an envelope with _envelope', async () => {
      const res = await t.http.get('/cms-json/cms/v2/types/nope?_envelope').expect(200);
      expect(res.body).toMatchObject({ status: 404, body: { code: 'rest_type_invalid' }, headers: { Allow: 'GET' } });
    });
  });
});
