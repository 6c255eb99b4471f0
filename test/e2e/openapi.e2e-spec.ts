import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import * as ts from 'typescript';
import { OpenApiDocument } from '../../src/core/schema/openapi-document';
import { LibraryExtensionModule } from '../fixtures/extensions/library.extension';
import { createTestApp, TestApp } from '../utils/test-app';

type Doc = Record<string, any>;

const ROOT = resolve(__dirname, '../..');
const FIXTURES = join(ROOT, 'test/fixtures/openapi');

/** The schema objects of a document (values under `schema`, `items`, `properties`, …), walked from the top. */
function schemasOf(doc: Doc): Doc[] {
  const out: Doc[] = [];
  const walk = (s: unknown) => {
    if (!s || typeof s !== 'object') return;
    const schema = s as Doc;
    out.push(schema);
    if (schema.items) walk(schema.items);
    if (schema.additionalProperties && typeof schema.additionalProperties === 'object')
      walk(schema.additionalProperties);
    for (const p of Object.values(schema.properties ?? {})) walk(p);
    for (const k of ['anyOf', 'oneOf']) for (const p of schema[k] ?? []) walk(p);
  };
  for (const s of Object.values(doc.components.schemas)) walk(s);
  for (const item of Object.values<Doc>(doc.paths)) {
    for (const op of Object.values(item) as Doc[]) {
      for (const p of op.parameters ?? []) walk(p.schema);
      for (const c of Object.values<Doc>(op.requestBody?.content ?? {})) walk(c.schema);
      for (const r of Object.values<Doc>(op.responses))
        for (const c of Object.values<Doc>(r.content ?? {})) walk(c.schema);
    }
  }
  return out;
}

function parameter(op: Doc, name: string): Doc {
  const found = (op.parameters as Doc[]).find((p) => p.name === name);
  if (!found) throw new Error(`no parameter ${name}`);
  return found;
}

describe('OpenAPI document (/cms-json/openapi.json)', () => {
  let t: TestApp;
  let doc: Doc;
  let tmp: string;

  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'cms-openapi-'));
    t = await createTestApp('openapi', {
      extensions: [LibraryExtensionModule],
      cms: { uploadDir: join(tmp, 'uploads') },
    });
    doc = (await t.http.get('/cms-json/openapi.json').expect(200)).body;
  });
  afterAll(async () => {
    rmSync(tmp, { recursive: true, force: true });
    await t.close();
  });

  it('is served as JSON with the API headers, an ETag, and servers from the base URL links use', async () => {
    const res = await t.http.get('/cms-json/openapi.json').set('Origin', 'http://docs.example').expect(200);
    expect(res.headers['content-type']).toBe('application/json; charset=UTF-8');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['access-control-allow-origin']).toBe('http://docs.example');
    expect(res.headers.etag).toMatch(/^"/);
    expect(res.body.openapi).toBe('3.1.0');
    expect(res.body.servers).toEqual([{ url: 'http://example.org/cms-json' }]);
    await t.http.get('/cms-json/openapi.json').set('If-None-Match', res.headers.etag).expect(304);
    // The ?rest_route= form serves it too, for the same API root.
    const query = await t.http.get('/?rest_route=/openapi.json').expect(200);
    expect(query.body.servers).toEqual([{ url: 'http://example.org/cms-json' }]);
    expect(query.body.paths).toEqual(res.body.paths);
  });

  it('gives every operation a summary and a description', () => {
    const operations = Object.entries(doc.paths as Record<string, Doc>).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => ({ at: `${method.toUpperCase()} ${path}`, op: op as Doc })),
    );
    expect(operations.length).toBeGreaterThan(80);
    const missing = operations.filter(
      ({ op }) =>
        typeof op.summary !== 'string' ||
        !op.summary.trim() ||
        typeof op.description !== 'string' ||
        !op.description.trim(),
    );
    expect(missing.map((m) => m.at)).toEqual([]);
    const summary = (method: string, path: string) => (doc.paths[path] as Doc)[method].summary as string;
    // Derived from the resource and the method.
    expect(summary('get', '/cms/v2/posts')).toBe('List posts');
    expect(summary('post', '/cms/v2/posts')).toBe('Create a post');
    expect(summary('get', '/cms/v2/posts/{id}')).toBe('Retrieve a post');
    expect(summary('patch', '/cms/v2/posts/{id}')).toBe('Update a post');
    expect(summary('delete', '/cms/v2/posts/{id}')).toBe('Delete a post');
    expect(summary('get', '/cms/v2/categories')).toBe('List categories');
    expect(summary('post', '/cms/v2/users')).toBe('Create a user');
    expect(summary('get', '/cms/v2/posts/{parent}/revisions')).toBe('List revisions of a post');
    expect(summary('get', '/cms/v2/users/me')).toBe('Retrieve the current user');
    expect((doc.paths['/cms/v2/posts'] as Doc).get.description).toContain('per_page');
  });

  it('is not listed in the index, and other methods are refused', async () => {
    const index = await t.http.get('/cms-json/').expect(200);
    expect(Object.keys(index.body.routes).filter((r) => r.includes('openapi'))).toEqual([]);
    const post = await t.http.post('/cms-json/openapi.json').send({}).expect(404);
    expect(post.body.code).toBe('rest_no_route');
  });

  it('is built once per process: the same paths and components for every request', async () => {
    const documents = t.app.get(OpenApiDocument);
    const a = documents.forServer('http://a.example/cms-json');
    const b = documents.forServer('http://b.example/x/cms-json/');
    expect(a.paths).toBe(b.paths);
    expect(a.components).toBe(b.components);
    expect(b.servers).toEqual([{ url: 'http://b.example/x/cms-json' }]);
  });

  it('is a valid OpenAPI 3.1 document (@seriousme/openapi-schema-validator)', () => {
    const file = join(tmp, 'openapi.json');
    writeFileSync(file, JSON.stringify(doc));
    const out = JSON.parse(
      execFileSync(process.execPath, [join(FIXTURES, 'validate.mjs'), file], { cwd: ROOT, encoding: 'utf8' }),
    );
    expect(out).toEqual({ valid: true, version: '3.1', errors: null });
    // And the validator does refuse a broken one (a path parameter the path does not have).
    const broken = JSON.parse(JSON.stringify(doc));
    broken.paths['/cms/v2/posts/{id}'].get.parameters[0].in = 'elsewhere';
    writeFileSync(file, JSON.stringify(broken));
    const refused = JSON.parse(
      execFileSync(process.execPath, [join(FIXTURES, 'validate.mjs'), file], { cwd: ROOT, encoding: 'utf8' }),
    );
    expect(refused.valid).toBe(false);
  });

  it('turns route patterns into paths with typed path parameters', () => {
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/',
        '/cms/v2',
        '/cms/v2/posts',
        '/cms/v2/posts/{id}',
        '/cms/v2/posts/{parent}/revisions/{id}',
        '/cms/v2/types/{type}',
        '/cms/v2/users/me',
      ]),
    );
    expect(Object.keys(doc.paths).filter((p) => /[()?\\]/.test(p))).toEqual([]);
    expect(parameter(doc.paths['/cms/v2/posts/{id}'].get, 'id')).toMatchObject({
      in: 'path',
      required: true,
      schema: { type: 'integer' },
    });
    expect(parameter(doc.paths['/cms/v2/types/{type}'].get, 'type')).toMatchObject({
      in: 'path',
      required: true,
      schema: { type: 'string', pattern: '^[\\w-]+$' },
    });
    const userId = parameter(doc.paths['/cms/v2/users/{user_id}/application-passwords/{uuid}'].get, 'user_id');
    expect(userId.schema).toEqual({ type: 'string', pattern: '^(?:[\\d]+|me)$' });
    expect(new RegExp(userId.schema.pattern).test('me') && new RegExp(userId.schema.pattern).test('12')).toBe(true);
  });

  it('maps GET arguments to query parameters: types, bounds, enums, lists sent comma-separated, required ones', () => {
    const list = doc.paths['/cms/v2/posts'].get;
    expect(parameter(list, 'per_page')).toMatchObject({
      in: 'query',
      schema: { type: 'integer', minimum: 1, maximum: 100, default: 10 },
    });
    expect(parameter(list, 'context').schema).toEqual({
      type: 'string',
      enum: ['view', 'embed', 'edit'],
      default: 'view',
    });
    expect(parameter(list, 'status')).toMatchObject({
      style: 'form',
      explode: false,
      schema: { type: 'array', items: { type: 'string' } },
    });
    expect(parameter(list, 'status').schema.items.enum).toContain('publish');
    expect(parameter(list, 'after').schema.pattern).toBeDefined();
    expect(parameter(list, 'after').schema.format).toBeUndefined();
    const echo = doc.paths['/library/v1/echo'].get;
    expect(parameter(echo, 'somerequired')).toMatchObject({ required: true, schema: { type: 'string' } });
    expect(parameter(echo, 'someinteger').schema).toEqual({ type: 'integer', minimum: 2, maximum: 10 });
    expect(parameter(echo, 'someobject')).toMatchObject({ style: 'deepObject', explode: true });
    expect(parameter(echo, 'someip').schema).toEqual({
      type: 'string',
      anyOf: [{ format: 'ipv4' }, { format: 'ipv6' }],
    });
    expect(parameter(echo, 'someemail').schema).toEqual({ type: 'string', format: 'email' });
    // DELETE arguments are query parameters too.
    expect(parameter(doc.paths['/cms/v2/posts/{id}'].delete, 'force').schema.type).toBe('boolean');
  });

  it('keeps only JSON Schema 2020-12 keywords: no context, readonly, arg_options, $schema or boolean required', () => {
    const schemas = schemasOf(doc);
    expect(schemas.length).toBeGreaterThan(500);
    for (const schema of schemas) {
      expect(
        Object.keys(schema).filter((k) =>
          ['context', 'readonly', 'arg_options', '$schema', 'validate', 'sanitize'].includes(k),
        ),
      ).toEqual([]);
      if ('required' in schema) expect(Array.isArray(schema.required)).toBe(true);
      if ('exclusiveMinimum' in schema) expect(typeof schema.exclusiveMinimum).toBe('number');
      if (schema.format) expect(['email', 'uri', 'uuid', 'ipv4', 'ipv6', 'binary']).toContain(schema.format);
      if (Array.isArray(schema.type) && schema.enum)
        expect(schema.enum.includes(null)).toBe(schema.type.includes('null'));
    }
  });

  it('has item schemas as components: readOnly fields, the view context required, links', () => {
    const post = doc.components.schemas.post;
    expect(post.type).toBe('object');
    expect(post.properties.id).toMatchObject({ type: 'integer', readOnly: true });
    expect(post.properties.title).toMatchObject({ type: 'object', required: ['rendered'] });
    expect(post.properties.title.properties.rendered.readOnly).toBe(true);
    expect(post.required).toEqual(expect.arrayContaining(['id', 'title', 'content', 'status', 'link']));
    expect(post.required).not.toContain('password');
    expect(post.properties._links.readOnly).toBe(true);
    expect(doc.paths['/cms/v2/posts/{id}'].get.responses['200'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/post',
    });
    expect(doc.paths['/cms/v2/pages/{id}'].get.responses['200'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/page',
    });
  });

  it('answers a real post with every property its schema requires', async () => {
    const created = await t.http
      .post('/cms-json/cms/v2/posts')
      .auth(t.users.editor.login, t.users.editor.appPassword)
      .send({ title: 'OpenAPI', status: 'publish' })
      .expect(201);
    expect(doc.paths['/cms/v2/posts'].post.responses['201']).toBeDefined();
    const read = await t.http.get(`/cms-json/cms/v2/posts/${created.body.id}`).expect(200);
    const schema = doc.components.schemas.post;
    expect(schema.required.filter((k: string) => !(k in read.body))).toEqual([]);
    expect(Object.keys(read.body).filter((k) => !(k in schema.properties))).toEqual([]);
    const list = await t.http.get('/cms-json/cms/v2/posts?per_page=1').expect(200);
    const headers = doc.paths['/cms/v2/posts'].get.responses['200'].headers;
    expect(Object.keys(headers)).toEqual(['X-CMS-Total', 'X-CMS-TotalPages']);
    for (const name of Object.keys(headers)) expect(Number(list.headers[name.toLowerCase()])).toBeGreaterThanOrEqual(1);
  });

  it('describes what the API answers: every required property is there, and nothing the schema does not name', async () => {
    const admin = t.users.administrator;
    const category = await t.http
      .post('/cms-json/cms/v2/categories')
      .auth(admin.login, admin.appPassword)
      .send({ name: 'Described' })
      .expect(201);
    const post = await t.http
      .post('/cms-json/cms/v2/posts')
      .auth(admin.login, admin.appPassword)
      .send({ title: 'Commented', status: 'publish' })
      .expect(201);
    const comment = await t.http
      .post('/cms-json/cms/v2/comments')
      .auth(admin.login, admin.appPassword)
      .send({ post: post.body.id, content: 'Hi' })
      .expect(201);
    const checks: Array<[string, string, boolean]> = [
      [`/cms/v2/categories/${category.body.id}`, '/cms/v2/categories/{id}', false],
      [`/cms/v2/comments/${comment.body.id}`, '/cms/v2/comments/{id}', false],
      [`/cms/v2/users/${admin.id}`, '/cms/v2/users/{id}', false],
      ['/cms/v2/users/me', '/cms/v2/users/me', true],
      ['/cms/v2/types/post', '/cms/v2/types/{type}', false],
      ['/cms/v2/statuses/publish', '/cms/v2/statuses/{status}', false],
      ['/cms/v2/taxonomies/category', '/cms/v2/taxonomies/{taxonomy}', false],
      ['/cms/v2/settings', '/cms/v2/settings', true],
      ['/cms/v2/tags', '/cms/v2/tags', false],
    ];
    for (const [url, path, asAdmin] of checks) {
      const req = t.http.get(`/cms-json${url}`);
      const res = await (asAdmin ? req.auth(admin.login, admin.appPassword) : req).expect(200);
      let schema = doc.paths[path].get.responses['200'].content['application/json'].schema;
      if (schema.items) schema = schema.items;
      const component = doc.components.schemas[schema.$ref.split('/').pop()];
      for (const item of Array.isArray(res.body) ? res.body : [res.body]) {
        expect({ url, missing: (component.required ?? []).filter((k: string) => !(k in item)) }).toEqual({
          url,
          missing: [],
        });
        // The fixture's `rest_prepare_status` filter adds `badge` without a schema: no document can know of it.
        const unnamed = Object.keys(item).filter(
          (k) => !(k in component.properties) && !(k === 'badge' && path.startsWith('/cms/v2/statuses')),
        );
        expect({ url, unnamed }).toEqual({ url, unnamed: [] });
      }
    }
  });

  it('answers 201 for creates and 200 otherwise; lists are arrays, types/statuses/taxonomies objects by name', () => {
    const items = (path: string, method: string, status: string) =>
      doc.paths[path][method].responses[status].content['application/json'].schema;
    expect(items('/cms/v2/posts', 'post', '201')).toEqual({ $ref: '#/components/schemas/post' });
    expect(doc.paths['/cms/v2/posts'].post.responses['200']).toBeUndefined();
    expect(items('/cms/v2/posts/{id}', 'put', '200')).toEqual({ $ref: '#/components/schemas/post' });
    expect(items('/cms/v2/comments', 'post', '201')).toEqual({ $ref: '#/components/schemas/comment' });
    expect(items('/cms/v2/settings', 'post', '200')).toEqual({ $ref: '#/components/schemas/settings' });
    expect(doc.paths['/cms-auth/v1/login'].post.responses['200']).toBeDefined();
    expect(items('/cms/v2/posts', 'get', '200')).toEqual({
      type: 'array',
      items: { $ref: '#/components/schemas/post' },
    });
    expect(items('/cms/v2/types', 'get', '200')).toEqual({
      type: 'object',
      additionalProperties: { $ref: '#/components/schemas/type' },
    });
    expect(items('/cms/v2/types/{type}', 'get', '200')).toEqual({ $ref: '#/components/schemas/type' });
    expect(items('/cms/v2/users/{user_id}/application-passwords', 'get', '200')).toEqual({
      type: 'array',
      items: { $ref: '#/components/schemas/application-password' },
    });
    expect(doc.paths['/cms/v2/types'].get.responses['200'].headers).toBeUndefined();
  });

  it('describes JSON bodies for writes: writable fields only, strings accepted for titles, required ones', () => {
    const body = doc.paths['/cms/v2/posts'].post.requestBody.content['application/json'].schema;
    expect(body.type).toBe('object');
    expect(body.properties.id).toBeUndefined();
    expect(body.properties.link).toBeUndefined();
    expect(body.properties.status.enum).toContain('draft');
    expect(body.properties.title.anyOf).toEqual([
      { type: 'string' },
      { type: 'object', properties: { raw: expect.objectContaining({ type: 'string' }) } },
    ]);
    const users = doc.paths['/cms/v2/users'].post.requestBody.content['application/json'].schema;
    expect(users.required).toEqual(expect.arrayContaining(['username', 'email', 'password']));
    expect(doc.paths['/cms/v2/posts/{id}'].patch.requestBody).toEqual(doc.paths['/cms/v2/posts/{id}'].put.requestBody);
  });

  it('describes uploads: multipart with a file part, or the raw file with Content-Disposition', () => {
    const op = doc.paths['/cms/v2/media'].post;
    const multipart = op.requestBody.content['multipart/form-data'].schema;
    expect(multipart.properties.file).toMatchObject({ type: 'string', format: 'binary' });
    expect(multipart.required).toContain('file');
    expect(multipart.properties.alt_text.type).toBe('string');
    expect(op.requestBody.content['*/*'].schema).toMatchObject({ type: 'string', format: 'binary' });
    expect(parameter(op, 'Content-Disposition')).toMatchObject({ in: 'header', schema: { type: 'string' } });
    expect(op.responses['201']).toBeDefined();
    expect(doc.paths['/cms/v2/posts'].post.requestBody.content['multipart/form-data']).toBeUndefined();
  });

  it('describes uploads as the API takes them: both forms answer 201', async () => {
    const author = t.users.author;
    const raw = await t.http
      .post('/cms-json/cms/v2/media')
      .auth(author.login, author.appPassword)
      .set('Content-Type', 'text/csv')
      .set('Content-Disposition', 'attachment; filename="raw.csv"')
      .send('a,b\n')
      .expect(201);
    expect(raw.body.mime_type).toBe('text/csv');
    const form = await t.http
      .post('/cms-json/cms/v2/media')
      .auth(author.login, author.appPassword)
      .field('alt_text', 'A table')
      .attach('file', Buffer.from('c,d\n'), { filename: 'form.csv', contentType: 'text/csv' })
      .expect(201);
    expect(form.body.alt_text).toBe('A table');
    const schema = doc.components.schemas.attachment;
    expect(schema.required.filter((k: string) => !(k in form.body))).toEqual([]);
  });

  it('has the error body as a component, used by 400/401/403/404, and the body matches real errors', async () => {
    expect(doc.components.schemas.Error).toMatchObject({ type: 'object', required: ['code', 'message', 'data'] });
    const op = doc.paths['/cms/v2/posts/{id}'].get;
    for (const status of ['400', '401', '403', '404'])
      expect(op.responses[status].$ref).toMatch(/^#\/components\/responses\//);
    expect(doc.components.responses.NotFound.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/Error',
    });
    expect(doc.paths['/cms/v2/posts'].get.responses['404']).toBeUndefined();
    const missing = await t.http.get('/cms-json/cms/v2/posts/987654').expect(404);
    expect(Object.keys(missing.body).sort()).toEqual(['code', 'data', 'message']);
    expect(typeof missing.body.data.status).toBe('number');
  });

  it('declares application passwords, and the session cookie with its nonce header', () => {
    expect(doc.components.securitySchemes).toEqual({
      applicationPassword: expect.objectContaining({ type: 'http', scheme: 'basic' }),
      sessionCookie: expect.objectContaining({ type: 'apiKey', in: 'cookie', name: 'cms_logged_in' }),
      nonce: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-CMS-Nonce' }),
    });
    expect(doc.security).toEqual([{}, { applicationPassword: [] }, { sessionCookie: [], nonce: [] }]);
  });

  it('includes what extensions register: routes, post types, taxonomies, fields', () => {
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/library/v1/shelves',
        '/library/v1/readers/{id}',
        '/cms/v2/books',
        '/cms/v2/books/{id}',
        '/cms/v2/genre/{id}',
      ]),
    );
    expect(doc.components.schemas.shelf.properties.color).toEqual({
      description: 'Colour of the shelf.',
      type: 'string',
      enum: ['plain', 'red', 'black'],
    });
    expect(
      doc.paths['/library/v1/shelves'].post.requestBody.content['application/json'].schema.properties.color.enum,
    ).toEqual(['plain', 'red', 'black']);
    expect(doc.components.schemas.type.properties.shelf_count).toMatchObject({ type: 'integer', readOnly: true });
    // The taxonomy registered for books is a field of books only.
    expect(doc.components.schemas.book.properties.genre).toMatchObject({ type: 'array', items: { type: 'integer' } });
    expect(doc.components.schemas.post.properties.genre).toBeUndefined();
    expect(parameter(doc.paths['/library/v1/readers/{id}'].get, 'id').schema).toEqual({ type: 'integer' });
    expect(doc.tags.map((tag: Doc) => tag.name)).toEqual(
      expect.arrayContaining(['posts', 'books', 'library/v1', 'index']),
    );
  });

  it('operation ids are unique', () => {
    const ids = Object.values(doc.paths).flatMap((item: any) => Object.values(item).map((op: any) => op.operationId));
    expect(new Set(ids).size).toBe(ids.length);
    expect(doc.paths['/cms/v2/posts/{id}'].get.operationId).toBe('getCmsV2PostsById');
  });

  describe('a TypeScript client generated by openapi-typescript', () => {
    let diagnostics: (file: string) => ts.Diagnostic[];

    beforeAll(() => {
      const source = join(tmp, 'openapi-client.json');
      writeFileSync(source, JSON.stringify(doc));
      execFileSync(
        process.execPath,
        [join(ROOT, 'node_modules/openapi-typescript/bin/cli.js'), source, '-o', join(tmp, 'cms.d.ts')],
        { cwd: ROOT, stdio: 'pipe' },
      );
      copyFileSync(join(FIXTURES, 'usage.ts'), join(tmp, 'usage.ts'));
      copyFileSync(join(FIXTURES, 'wrong-usage.ts'), join(tmp, 'wrong-usage.ts'));
      diagnostics = (file) => {
        const program = ts.createProgram([join(tmp, file)], {
          strict: true,
          noEmit: true,
          target: ts.ScriptTarget.ES2022,
          module: ts.ModuleKind.CommonJS,
          types: [],
        });
        return [...ts.getPreEmitDiagnostics(program)];
      };
    }, 60000);

    it('type-checks the usage file (title.rendered, a post body, an upload, per_page)', () => {
      const found = diagnostics('usage.ts').map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      expect(found).toEqual([]);
    });

    it('refuses every wrong line of the wrong usage file, and only those', () => {
      const file = join(tmp, 'wrong-usage.ts');
      const lines = ts.sys.readFile(file)!.split('\n');
      const wrong = lines.map((line, i) => (line.endsWith('// wrong') ? i : -1)).filter((i) => i >= 0);
      expect(wrong.length).toBe(8);
      const found = diagnostics('wrong-usage.ts').filter((d) => d.file?.fileName === file);
      const failing = [...new Set(found.map((d) => d.file!.getLineAndCharacterOfPosition(d.start!).line))].sort(
        (a, b) => a - b,
      );
      expect(failing).toEqual(wrong);
    });
  });
});
