import { NotesModule } from '../fixtures/extensions/notes.module';
import { createTestApp, expectRestError, TestApp } from '../utils/test-app';

/** The resource-module example of docs/architecture.md (handlers with @RestRoute, a guard policy, a schema, a service) works as shown. */
describe('a resource module added as docs/architecture.md shows', () => {
  let t: TestApp;
  const API = '/cms-json/cms/v2';

  beforeAll(async () => {
    t = await createTestApp('resource_module', { extensions: [NotesModule] });
  });
  afterAll(() => t.close());

  it('serves its routes, listed in the index with their arguments and schema', async () => {
    const list = await t.http.get(`${API}/notes`).expect(200);
    expect(list.body).toEqual([
      { id: 1, text: 'Hello', _links: { self: [{ href: `http://example.org${API}/notes/1` }] } },
    ]);
    expect(list.headers['x-cms-total']).toBe('1');
    const index = await t.http.get(`${API}?context=help`).expect(200);
    expect(index.body.routes['/cms/v2/notes'].methods).toEqual(['GET', 'POST']);
    expect(index.body.routes['/cms/v2/notes'].schema.title).toBe('note');
    expect([...index.body.routes['/cms/v2/notes/(?P<id>[\\d]+)'].endpoints[0].args.context.enum].sort()).toEqual([
      'edit',
      'embed',
      'view',
    ]);
    await t.http
      .get(`${API}/notes/1?context=embed`)
      .expect(200, { id: 1, _links: { self: [{ href: `http://example.org${API}/notes/1` }] } });
    expectRestError(await t.http.get(`${API}/notes/9`), 'rest_note_invalid_id', 404);
  });

  it('validates arguments before its guard policy, which answers 401 anonymous and 403 logged in', async () => {
    expectRestError(await t.http.post(`${API}/notes`).send({}), 'rest_missing_callback_param', 400);
    expectRestError(await t.http.post(`${API}/notes`).send({ text: 'x' }), 'rest_cannot_create', 401);
    expectRestError(
      await t.http.post(`${API}/notes`).set('Authorization', t.users.author.authorization).send({ text: 'x' }),
      'rest_cannot_create',
      403,
    );
    const created = await t.http
      .post(`${API}/notes`)
      .set('Authorization', t.users.editor.authorization)
      .send({ text: 'Second' })
      .expect(201);
    expect(created.headers.location).toBe(`http://example.org${API}/notes/2`);
    expect(created.body).toMatchObject({ id: 2, text: 'Second' });
  });

  it('answers OPTIONS with Allow from the same policy', async () => {
    expect((await t.http.options(`${API}/notes`)).headers.allow).toBe('GET');
    expect(
      (await t.http.options(`${API}/notes`).set('Authorization', t.users.editor.authorization)).headers.allow,
    ).toBe('GET, POST');
  });

  it('reads its collection arguments typed through CollectionQuery: the page window, search and its own parameter', async () => {
    const second = await t.http.get(`${API}/notes?per_page=1&page=2`).expect(200);
    expect(second.body.map((n: { id: number }) => n.id)).toEqual([2]);
    expect(second.headers['x-cms-totalpages']).toBe('2');
    expect(second.headers.link).toContain(`<http://example.org${API}/notes?per_page=1&page=1>; rel="prev"`);
    const offset = await t.http.get(`${API}/notes?per_page=1&offset=1`).expect(200);
    expect(offset.body.map((n: { id: number }) => n.id)).toEqual([2]);
    const search = await t.http.get(`${API}/notes?search=SEC`).expect(200);
    expect(search.body.map((n: { text: string }) => n.text)).toEqual(['Second']);
    expect(search.headers['x-cms-total']).toBe('1');
    const longer = await t.http.get(`${API}/notes?longer_than=5`).expect(200);
    expect(longer.body.map((n: { text: string }) => n.text)).toEqual(['Second']);
    expectRestError(await t.http.get(`${API}/notes?longer_than=-1`), 'rest_invalid_param', 400);
  });

  it('refuses by a declared capability (@Allow.cap) with the generic refusal, 401 anonymous and 403 logged in', async () => {
    expectRestError(await t.http.delete(`${API}/notes/2`), 'rest_forbidden', 401);
    expectRestError(
      await t.http.delete(`${API}/notes/2`).set('Authorization', t.users.author.authorization),
      'rest_forbidden',
      403,
    );
    expect((await t.http.options(`${API}/notes/2`)).headers.allow).toBe('GET');
    expect(
      (await t.http.options(`${API}/notes/2`).set('Authorization', t.users.editor.authorization)).headers.allow,
    ).toBe('GET, DELETE');
    await t.http
      .delete(`${API}/notes/2`)
      .set('Authorization', t.users.editor.authorization)
      .expect(200, { deleted: true, previous: { id: 2, text: 'Second' } });
    expectRestError(await t.http.get(`${API}/notes/2`), 'rest_note_invalid_id', 404);
  });
});
