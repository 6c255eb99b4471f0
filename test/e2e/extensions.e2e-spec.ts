import { CmsExtensionRegistry, HookRegistry, RouteRegistry } from '../../src';
import { LibraryExtensionModule, SHELF_COLORS } from '../fixtures/extensions/library.extension';
import { createTestApp, expectRestError, TestApp } from '../utils/test-app';

describe('extension API', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp('extensions', { extensions: [LibraryExtensionModule] });
  });
  afterAll(() => t.close());

  it('adds a registered field to the resource and to its schema', async () => {
    const post = await t.http.get('/cms-json/cms/v2/types/post').expect(200);
    expect(post.body.shelf_count).toBe(42);
    const page = await t.http.get('/cms-json/cms/v2/types/page').expect(200);
    expect(page.body.shelf_count).toBe(0);
    const options = await t.http.options('/cms-json/cms/v2/types/post').expect(200);
    expect(options.body.schema.properties.shelf_count).toEqual({
      description: 'Shelves holding items of this type.',
      type: 'integer',
      context: ['view', 'edit'],
      readonly: true,
    });
  });

  it('validates a registered field as an argument, stores it with its update callback and answers 201 with Location', async () => {
    const res = await t.http.post('/cms-json/library/v1/shelves').send({ title: 'New', color: 'red' }).expect(201);
    expect(res.headers.location).toBe('http://example.org/cms-json/library/v1/shelves/1000');
    expect(res.body).toMatchObject({ id: 1000, title: 'New', color: 'red' });
    expect(SHELF_COLORS.get(1000)).toBe('red');
    const bad = await t.http.post('/cms-json/library/v1/shelves').send({ title: 'New', color: 'green' });
    expectRestError(bad, 'rest_invalid_param', 400);
    expect(bad.body.data.params).toEqual({ color: 'color is not one of plain, red, black.' });
    const refused = await t.http.post('/cms-json/library/v1/shelves').send({ title: 'New', color: 'black' });
    expectRestError(refused, 'rest_shelf_color', 409);
    const options = await t.http.options('/cms-json/library/v1/shelves').expect(200);
    expect(options.body.endpoints[1].args.color).toMatchObject({
      type: 'string',
      enum: ['plain', 'red', 'black'],
      required: false,
    });
    expect(options.body.schema.properties.color.description).toBe('Colour of the shelf.');
  });

  it('filters registered fields by context like any other field', async () => {
    const embed = await t.http.get('/cms-json/cms/v2/types/post?context=embed').expect(200);
    expect(embed.body).not.toHaveProperty('shelf_count');
  });

  it('runs filters registered on the reference hook names', async () => {
    const res = await t.http.get('/cms-json/cms/v2/statuses/publish').expect(200);
    expect(res.body.badge).toBe('status:publish');
    const all = await t.http.get('/cms-json/cms/v2/statuses').expect(200);
    expect(all.body.publish.badge).toBe('status:publish');
  });

  it('serves registered post types and taxonomies in the registry endpoints', async () => {
    const types = await t.http.get('/cms-json/cms/v2/types').expect(200);
    expect(types.body.book).toMatchObject({ name: 'Books', slug: 'book', rest_base: 'books', taxonomies: ['genre'] });
    expect(types.body.book._links['cms:items'][0].href).toBe('http://example.org/cms-json/cms/v2/books');
    const taxonomies = await t.http.get('/cms-json/cms/v2/taxonomies?type=book').expect(200);
    expect(Object.keys(taxonomies.body)).toEqual(['genre']);
    expect(taxonomies.body.genre).toMatchObject({ name: 'Genres', hierarchical: true, types: ['book'] });
  });

  it('serves routes registered in other namespaces and lists the namespace', async () => {
    const index = await t.http.get('/cms-json/').expect(200);
    expect(index.body.namespaces).toContain('library/v1');
    await t.http
      .get('/cms-json/library/v1/readers/1')
      .expect(200, { id: 1, name: 'administrator', login: 'administrator' });
  });

  it('refuses registrations after the application has bootstrapped', () => {
    const registry = t.app.get(CmsExtensionRegistry);
    expect(() => registry.registerRestField('post', 'late', { get: () => 1 })).toThrow(
      /before the application bootstraps/,
    );
    expect(() => registry.registerPostType('late', { public: true })).toThrow(/before the application bootstraps/);
    expect(() => t.app.get(RouteRegistry).register('late/v1', '/x', { methods: 'GET', handler: () => 1 })).toThrow(
      /after the application bootstrapped/,
    );
  });

  it('runs hooks in priority order and awaits async handlers', async () => {
    const hooks = t.app.get(HookRegistry);
    const calls: string[] = [];
    hooks.addAction(
      'test_action',
      async () => {
        await new Promise((r) => setTimeout(r, 5));
        calls.push('late-registered-first-priority-20');
      },
      20,
    );
    hooks.addAction('test_action', () => calls.push('priority-5'), 5);
    const remove = hooks.addFilter('test_filter', (v: number, by: number) => v * by, 10);
    hooks.addFilter('test_filter', async (v: number) => v + 1, 1);
    await hooks.doAction('test_action');
    expect(calls).toEqual(['priority-5', 'late-registered-first-priority-20']);
    expect(await hooks.applyFilters('test_filter', 2, 10)).toBe(30);
    remove();
    expect(await hooks.applyFilters('test_filter', 2, 10)).toBe(3);
  });

  it('keeps registered meta keys per object type and subtype', () => {
    const registry = t.app.get(CmsExtensionRegistry);
    const keys = registry.metaKeys('post', 'book').map(([key]) => key);
    expect(keys).toEqual(['isbn']);
    expect(registry.metaKeys('post', 'page')).toEqual([]);
    expect(registry.metaKeys('post', 'book')[0][1]).toMatchObject({ type: 'string', single: true, default: '' });
  });
});
