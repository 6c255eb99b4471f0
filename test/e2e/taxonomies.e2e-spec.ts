import { createTestApp, expectRestError, TestApp } from '../utils/test-app';

/** Taxonomies controller (`/cms/v2/taxonomies`), reference 3.7 and 6.12, with WordPress 6.1's fields. */

type Role = keyof TestApp['users'];

const API = 'http://example.org/cms-json/cms/v2';
const CURIES = [{ name: 'cms', href: 'https://api.w.org/{rel}', templated: true }];
const ITEM_ROUTE = '/cms/v2/taxonomies/(?P<taxonomy>[\\w-]+)';

/** WordPress 6.1's taxonomy schema: property → contexts. */
const SCHEMA_CONTEXTS: Record<string, string[]> = {
  capabilities: ['edit'],
  description: ['view', 'edit'],
  hierarchical: ['view', 'edit'],
  labels: ['edit'],
  name: ['view', 'edit', 'embed'],
  slug: ['view', 'edit', 'embed'],
  show_cloud: ['edit'],
  types: ['view', 'edit'],
  rest_base: ['view', 'edit', 'embed'],
  rest_namespace: ['view', 'edit', 'embed'],
  visibility: ['edit'],
};
const fieldsOf = (context: string) => Object.keys(SCHEMA_CONTEXTS).filter((k) => SCHEMA_CONTEXTS[k].includes(context));

const CAPABILITIES = {
  category: {
    manage_terms: 'manage_categories',
    edit_terms: 'edit_categories',
    delete_terms: 'delete_categories',
    assign_terms: 'assign_categories',
  },
  post_tag: {
    manage_terms: 'manage_post_tags',
    edit_terms: 'edit_post_tags',
    delete_terms: 'delete_post_tags',
    assign_terms: 'assign_post_tags',
  },
};

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp('taxonomies_controller');
});

afterAll(() => t.close());

function get(path: string, as?: Role) {
  const req = t.http.get(`/cms-json/cms/v2${path}`);
  return as ? req.set('Authorization', t.users[as].authorization) : req;
}

function taxonomyLinks(restBase: string) {
  return {
    collection: [{ href: `${API}/taxonomies` }],
    'cms:items': [{ href: `${API}/${restBase}` }],
    curies: CURIES,
  };
}

describe('routes and arguments', () => {
  it('lists the collection and item routes in the namespace index', async () => {
    const res = await t.http.get('/cms-json/cms/v2');
    expect(res.status).toBe(200);
    expect(res.body.routes['/cms/v2/taxonomies']).toMatchObject({ namespace: 'cms/v2', methods: ['GET'] });
    expect(res.body.routes[ITEM_ROUTE]).toMatchObject({ namespace: 'cms/v2', methods: ['GET'] });
  });

  it.each([['/taxonomies'], ['/taxonomies/post_tag']])(
    'declares context (default view, enum view/embed/edit) on %s',
    async (path) => {
      const res = await t.http.options(`/cms-json/cms/v2${path}`);
      expect(res.status).toBe(200);
      const context = res.body.endpoints[0].args.context;
      expect(context.default).toBe('view');
      expect(context.enum).toEqual(['view', 'embed', 'edit']);
    },
  );

  it('accepts a type argument on the collection', async () => {
    const res = await t.http.options('/cms-json/cms/v2/taxonomies');
    expect(res.body.endpoints[0].args.type).toMatchObject({ type: 'string', required: false });
  });

  it('publishes the WordPress 6.1 item schema, every property read-only, on both routes', async () => {
    const item = await t.http.options('/cms-json/cms/v2/taxonomies/category');
    const schema = item.body.schema;
    expect(schema.title).toBe('taxonomy');
    expect(Object.keys(schema.properties).sort()).toEqual(Object.keys(SCHEMA_CONTEXTS).sort());
    for (const [name, prop] of Object.entries<Record<string, unknown>>(schema.properties)) {
      expect({ name, readonly: prop.readonly, context: prop.context }).toEqual({
        name,
        readonly: true,
        context: SCHEMA_CONTEXTS[name],
      });
    }
    const collection = await t.http.options('/cms-json/cms/v2/taxonomies');
    expect(collection.body.schema).toEqual(schema);
  });

  it.each([['/taxonomies'], ['/taxonomies/category']])(
    'rejects context=banana on %s with rest_invalid_param 400',
    async (path) => {
      const res = await get(`${path}?context=banana`);
      expectRestError(res, 'rest_invalid_param', 400);
      expect(typeof res.body.data.params.context).toBe('string');
    },
  );
});

describe('GET /taxonomies', () => {
  it('is an object keyed by name with exactly category and post_tag', async () => {
    const res = await get('/taxonomies');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['category', 'post_tag']);
    expect(res.body.category).toMatchObject({
      name: 'Categories',
      slug: 'category',
      hierarchical: true,
      types: ['post'],
    });
    expect(res.body.post_tag).toMatchObject({ name: 'Tags', slug: 'post_tag', hierarchical: false, types: ['post'] });
    expect(res.body.category._links).toEqual(taxonomyLinks('categories'));
    expect(res.body.post_tag._links).toEqual(taxonomyLinks('tags'));
  });

  it('shows only view fields in the default context', async () => {
    const res = await get('/taxonomies', 'editor');
    for (const item of Object.values<Record<string, unknown>>(res.body)) {
      expect(Object.keys(item).sort()).toEqual([...fieldsOf('view'), '_links'].sort());
      expect(item.capabilities).toBeUndefined();
      expect(item.labels).toBeUndefined();
      expect(item.show_cloud).toBeUndefined();
    }
  });

  it('lists the taxonomies of post for ?type=post', async () => {
    const res = await get('/taxonomies?type=post');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['category', 'post_tag']);
  });

  it.each([['page'], ['banana']])('answers ?type=%s (no taxonomies) with an empty JSON object', async (type) => {
    const res = await get(`/taxonomies?type=${type}`);
    expect(res.status).toBe(200);
    expect(res.text).toBe('{}');
    expect(res.body).toEqual({});
  });

  it('refuses context=edit to anonymous callers with rest_cannot_view 401', async () => {
    expectRestError(await get('/taxonomies?context=edit'), 'rest_cannot_view', 401);
  });

  it('refuses context=edit to callers without manage_terms with rest_cannot_view 403', async () => {
    expectRestError(await get('/taxonomies?context=edit', 'subscriber'), 'rest_cannot_view', 403);
    expectRestError(await get('/taxonomies?context=edit', 'author'), 'rest_cannot_view', 403);
  });

  it('gives an editor capabilities, labels and show_cloud in edit context', async () => {
    const res = await get('/taxonomies?context=edit', 'editor');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['category', 'post_tag']);
    const { category, post_tag: tag } = res.body;
    expect(Object.keys(category).sort()).toEqual([...fieldsOf('edit'), '_links'].sort());
    expect(category.capabilities).toEqual(CAPABILITIES.category);
    expect(tag.capabilities).toEqual(CAPABILITIES.post_tag);
    expect(category.labels).toMatchObject({ name: 'Categories', singular_name: 'Category' });
    expect(tag.labels).toMatchObject({ name: 'Tags', singular_name: 'Tag' });
    expect(category.show_cloud).toBe(true);
    expect(tag.show_cloud).toBe(true);
    expect(category._links).toEqual(taxonomyLinks('categories'));
  });

  it('checks manage_terms only on the taxonomies of the requested type', async () => {
    expect(Object.keys((await get('/taxonomies?type=post&context=edit', 'editor')).body)).toEqual([
      'category',
      'post_tag',
    ]);
    expectRestError(await get('/taxonomies?type=page&context=edit', 'editor'), 'rest_cannot_view', 403);
  });

  it('shows only embed fields in embed context', async () => {
    const res = await get('/taxonomies?context=embed');
    expect(res.status).toBe(200);
    expect(res.body.post_tag).toEqual({
      name: 'Tags',
      slug: 'post_tag',
      rest_base: 'tags',
      rest_namespace: 'cms/v2',
      _links: taxonomyLinks('tags'),
    });
  });

  it('sends no pagination headers', async () => {
    const res = await get('/taxonomies');
    expect(res.status).toBe(200);
    expect(res.headers['x-cms-total']).toBeUndefined();
    expect(res.headers['x-cms-totalpages']).toBeUndefined();
  });
});

describe('GET /taxonomies/<taxonomy>', () => {
  it('returns category in view context without capabilities, labels or show_cloud', async () => {
    const res = await get('/taxonomies/category');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      name: 'Categories',
      slug: 'category',
      description: '',
      types: ['post'],
      hierarchical: true,
      rest_base: 'categories',
      rest_namespace: 'cms/v2',
      _links: taxonomyLinks('categories'),
    });
    expect(res.body._links.collection[0].href).toBe('http://example.org/cms-json/cms/v2/taxonomies');
    expect(res.body._links['cms:items'][0].href).toBe('http://example.org/cms-json/cms/v2/categories');
  });

  it('returns post_tag with its tags link', async () => {
    const res = await get('/taxonomies/post_tag');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: 'Tags', slug: 'post_tag', hierarchical: false, types: ['post'] });
    expect(res.body._links['cms:items'][0].href).toBe('http://example.org/cms-json/cms/v2/tags');
  });

  it('gives an editor the edit fields of category', async () => {
    const res = await get('/taxonomies/category?context=edit', 'editor');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual([...fieldsOf('edit'), '_links'].sort());
    expect(res.body).toMatchObject({
      name: 'Categories',
      slug: 'category',
      capabilities: CAPABILITIES.category,
      show_cloud: true,
      hierarchical: true,
      visibility: {
        public: true,
        publicly_queryable: true,
        show_admin_column: true,
        show_in_nav_menus: true,
        show_in_quick_edit: true,
        show_ui: true,
      },
    });
    expect(res.body.labels).toMatchObject({
      name: 'Categories',
      singular_name: 'Category',
      parent_item: 'Parent Category',
    });
  });

  it('refuses context=edit to anonymous callers with rest_forbidden_context 401', async () => {
    expectRestError(await get('/taxonomies/category?context=edit'), 'rest_forbidden_context', 401);
  });

  it('refuses context=edit to callers without manage_terms with rest_forbidden_context 403', async () => {
    expectRestError(await get('/taxonomies/category?context=edit', 'subscriber'), 'rest_forbidden_context', 403);
    expectRestError(await get('/taxonomies/post_tag?context=edit', 'contributor'), 'rest_forbidden_context', 403);
  });

  it('returns rest_taxonomy_invalid 404 for an unknown taxonomy, even in edit context', async () => {
    expectRestError(await get('/taxonomies/invalid'), 'rest_taxonomy_invalid', 404);
    expectRestError(await get('/taxonomies/invalid?context=edit'), 'rest_taxonomy_invalid', 404);
  });

  it('refuses a taxonomy not served by the API with rest_forbidden (401 anonymous, 403 logged in)', async () => {
    expectRestError(await get('/taxonomies/link_category'), 'rest_forbidden', 401);
    expectRestError(await get('/taxonomies/link_category', 'editor'), 'rest_forbidden', 403);
  });
});
