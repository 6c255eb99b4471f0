import { createTestApp, expectRestError, TestApp } from '../utils/test-app';

/** Post types controller (`/cms/v2/types`), reference 3.8 and 6.13, with WordPress 6.1's fields. */

type Role = keyof TestApp['users'];

const API = 'http://example.org/cms-json/cms/v2';
const CURIES = [{ name: 'cms', href: 'https://api.w.org/{rel}', templated: true }];
const ITEM_ROUTE = '/cms/v2/types/(?P<type>[\\w-]+)';

/** WordPress 6.1's post type schema: property → contexts. */
const SCHEMA_CONTEXTS: Record<string, string[]> = {
  capabilities: ['edit'],
  description: ['view', 'edit'],
  hierarchical: ['view', 'edit'],
  has_archive: ['view', 'edit'],
  visibility: ['edit'],
  viewable: ['edit'],
  labels: ['edit'],
  name: ['view', 'edit', 'embed'],
  slug: ['view', 'edit', 'embed'],
  icon: ['view', 'edit', 'embed'],
  supports: ['edit'],
  taxonomies: ['view', 'edit'],
  rest_base: ['view', 'edit', 'embed'],
  rest_namespace: ['view', 'edit', 'embed'],
};
const fieldsOf = (context: string) => Object.keys(SCHEMA_CONTEXTS).filter((k) => SCHEMA_CONTEXTS[k].includes(context));
const EDIT_ONLY = fieldsOf('edit').filter((k) => !SCHEMA_CONTEXTS[k].includes('view'));

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp('types_controller');
});

afterAll(() => t.close());

function get(path: string, as?: Role) {
  const req = t.http.get(`/cms-json/cms/v2${path}`);
  return as ? req.set('Authorization', t.users[as].authorization) : req;
}

function options(path: string) {
  return t.http.options(`/cms-json/cms/v2${path}`);
}

function typeLinks(restBase: string) {
  return {
    collection: [{ href: `${API}/types` }],
    'cms:items': [{ href: `${API}/${restBase}` }],
    curies: CURIES,
  };
}

describe('routes and arguments', () => {
  it('lists the collection and item routes in the namespace index', async () => {
    const res = await t.http.get('/cms-json/cms/v2');
    expect(res.status).toBe(200);
    const routes = res.body.routes;
    expect(routes['/cms/v2/types']).toMatchObject({ namespace: 'cms/v2', methods: ['GET'] });
    expect(routes[ITEM_ROUTE]).toMatchObject({ namespace: 'cms/v2', methods: ['GET'] });
    expect(routes['/cms/v2/types'].endpoints[0].args.context).toMatchObject({
      default: 'view',
      enum: ['view', 'embed', 'edit'],
    });
  });

  it.each([['/types'], ['/types/post']])(
    'declares context (default view, enum view/embed/edit) on %s',
    async (path) => {
      const res = await options(path);
      expect(res.status).toBe(200);
      const context = res.body.endpoints[0].args.context;
      expect(context.default).toBe('view');
      expect(context.enum).toEqual(['view', 'embed', 'edit']);
      expect(context.required).toBe(false);
    },
  );

  it('publishes the WordPress 6.1 item schema, every property read-only, on both routes', async () => {
    const collection = await options('/types');
    const item = await options('/types/post');
    const schema = item.body.schema;
    expect(schema.title).toBe('type');
    expect(schema.$schema).toBe('http://json-schema.org/draft-04/schema#');
    expect(Object.keys(schema.properties).sort()).toEqual(Object.keys(SCHEMA_CONTEXTS).sort());
    for (const [name, prop] of Object.entries<Record<string, unknown>>(schema.properties)) {
      expect({ name, readonly: prop.readonly, context: prop.context }).toEqual({
        name,
        readonly: true,
        context: SCHEMA_CONTEXTS[name],
      });
    }
    expect(collection.body.schema).toEqual(schema);
  });

  it.each([['/types'], ['/types/post']])('rejects context=banana on %s with rest_invalid_param 400', async (path) => {
    const res = await get(`${path}?context=banana`);
    expectRestError(res, 'rest_invalid_param', 400);
    expect(Object.keys(res.body.data.params)).toEqual(['context']);
    expect(typeof res.body.data.params.context).toBe('string');
  });
});

describe('GET /types', () => {
  it('is an object keyed by name with exactly post, page and attachment (no revision)', async () => {
    const res = await get('/types');
    expect(res.status).toBe(200);
    expect(Array.isArray(res.body)).toBe(false);
    expect(Object.keys(res.body)).toEqual(['post', 'page', 'attachment']);
    expect(res.body.revision).toBeUndefined();
  });

  it.each([
    ['post', 'Posts', false, 'posts'],
    ['page', 'Pages', true, 'pages'],
    ['attachment', 'Media', false, 'media'],
  ])(
    'describes %s with its label, slug, description, hierarchy and links',
    async (slug, label, hierarchical, restBase) => {
      const res = await get('/types');
      const item = res.body[slug];
      expect(item).toMatchObject({
        name: label,
        slug,
        description: '',
        hierarchical,
        rest_base: restBase,
        rest_namespace: 'cms/v2',
      });
      expect(item._links).toEqual(typeLinks(restBase));
      expect(item._links.collection[0].href).toBe('http://example.org/cms-json/cms/v2/types');
    },
  );

  it('shows only view fields in the default context', async () => {
    const res = await get('/types');
    for (const item of Object.values<Record<string, unknown>>(res.body)) {
      expect(Object.keys(item).sort()).toEqual([...fieldsOf('view'), '_links'].sort());
      for (const key of EDIT_ONLY) expect(item[key]).toBeUndefined();
    }
    expect(res.body.post.taxonomies).toEqual(['category', 'post_tag']);
    expect(res.body.page.taxonomies).toEqual([]);
  });

  it('shows only embed fields (WordPress 6.1: name, slug, icon, rest_base, rest_namespace) in embed context', async () => {
    const res = await get('/types?context=embed');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['post', 'page', 'attachment']);
    const post = res.body.post;
    expect(Object.keys(post).sort()).toEqual(['_links', 'icon', 'name', 'rest_base', 'rest_namespace', 'slug']);
    expect(post).toMatchObject({ name: 'Posts', slug: 'post', icon: 'dashicons-admin-post', rest_base: 'posts' });
    expect(post.description).toBeUndefined();
    expect(post.hierarchical).toBeUndefined();
    expect(post._links).toEqual(typeLinks('posts'));
  });

  it('refuses context=edit to anonymous callers with rest_cannot_view 401', async () => {
    const res = await get('/types?context=edit');
    expectRestError(res, 'rest_cannot_view', 401);
  });

  it('refuses context=edit to a subscriber with rest_cannot_view 403', async () => {
    const res = await get('/types?context=edit', 'subscriber');
    expectRestError(res, 'rest_cannot_view', 403);
  });

  it('gives an editor capabilities and labels in edit context', async () => {
    const res = await get('/types?context=edit', 'editor');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['post', 'page', 'attachment']);
    const { post, page, attachment } = res.body;
    expect(Object.keys(post).sort()).toEqual([...fieldsOf('edit'), '_links'].sort());
    expect(post.capabilities).toMatchObject({
      edit_post: 'edit_post',
      edit_posts: 'edit_posts',
      create_posts: 'edit_posts',
    });
    expect(page.capabilities).toMatchObject({
      edit_post: 'edit_page',
      edit_posts: 'edit_pages',
      publish_posts: 'publish_pages',
    });
    expect(attachment.capabilities.create_posts).toBe('upload_files');
    expect(post.labels).toMatchObject({ name: 'Posts', singular_name: 'Post' });
    expect(page.labels).toMatchObject({ name: 'Pages', singular_name: 'Page' });
    expect(attachment.labels.name).toBe('Media');
    expect(post._links).toEqual(typeLinks('posts'));
  });

  it('lists in edit context only the types whose edit_posts capability the caller has', async () => {
    const res = await get('/types?context=edit', 'author');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['post', 'attachment']);
  });

  it('answers HEAD with 200, no body and an Allow header', async () => {
    const res = await t.http.head('/cms-json/cms/v2/types');
    expect(res.status).toBe(200);
    expect(res.headers.allow).toBe('GET');
    expect(res.text ?? '').toBe('');
    expect(res.body).toEqual({});
  });

  it('sends no pagination headers', async () => {
    const res = await get('/types');
    expect(res.status).toBe(200);
    expect(res.headers['x-cms-total']).toBeUndefined();
    expect(res.headers['x-cms-totalpages']).toBeUndefined();
    expect(res.headers.link ?? '').not.toMatch(/rel="(next|prev)"/);
  });
});

describe('GET /types/<type>', () => {
  it('returns the post type in view context', async () => {
    const res = await get('/types/post');
    expect(res.status).toBe(200);
    expect(res.headers.allow).toBe('GET');
    expect(res.body).toEqual({
      description: '',
      hierarchical: false,
      has_archive: false,
      name: 'Posts',
      slug: 'post',
      icon: 'dashicons-admin-post',
      taxonomies: ['category', 'post_tag'],
      rest_base: 'posts',
      rest_namespace: 'cms/v2',
      _links: typeLinks('posts'),
    });
  });

  it('returns a hierarchical type with its own items link', async () => {
    const res = await get('/types/page');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: 'Pages', slug: 'page', hierarchical: true });
    expect(res.body._links).toEqual(typeLinks('pages'));
  });

  it('returns rest_type_invalid 404 for an unknown type, even in edit context', async () => {
    expectRestError(await get('/types/invalid'), 'rest_type_invalid', 404);
    expectRestError(await get('/types/invalid?context=edit'), 'rest_type_invalid', 404);
  });

  it('returns rest_cannot_read_type for a type not served by the API (revision)', async () => {
    expectRestError(await get('/types/revision'), 'rest_cannot_read_type', 401);
    expectRestError(await get('/types/revision', 'subscriber'), 'rest_cannot_read_type', 403);
  });

  it('refuses context=edit to anonymous callers with rest_forbidden_context 401', async () => {
    expectRestError(await get('/types/post?context=edit'), 'rest_forbidden_context', 401);
  });

  it("refuses context=edit to callers without the type's edit_posts with rest_forbidden_context 403", async () => {
    expectRestError(await get('/types/post?context=edit', 'subscriber'), 'rest_forbidden_context', 403);
    expectRestError(await get('/types/page?context=edit', 'author'), 'rest_forbidden_context', 403);
    expect((await get('/types/post?context=edit', 'author')).status).toBe(200);
  });

  it('gives an editor the edit fields of the type', async () => {
    const res = await get('/types/page?context=edit', 'editor');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual([...fieldsOf('edit'), '_links'].sort());
    expect(res.body).toMatchObject({
      name: 'Pages',
      slug: 'page',
      hierarchical: true,
      viewable: true,
      visibility: { show_in_nav_menus: true, show_ui: true },
      rest_base: 'pages',
    });
    expect(res.body.capabilities).toMatchObject({ edit_posts: 'edit_pages', read: 'read', create_posts: 'edit_pages' });
    expect(res.body.labels).toMatchObject({ name: 'Pages', singular_name: 'Page', parent_item_colon: 'Parent Page:' });
    expect(res.body.supports).toMatchObject({ title: true, 'page-attributes': true });
    expect(res.body._links).toEqual(typeLinks('pages'));
  });

  it('hides capabilities and labels in view context even for an editor', async () => {
    const res = await get('/types/post', 'editor');
    expect(res.status).toBe(200);
    for (const key of EDIT_ONLY) expect(res.body[key]).toBeUndefined();
    expect(res.body.name).toBe('Posts');
  });

  it('shows only embed fields in embed context', async () => {
    const res = await get('/types/attachment?context=embed');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      name: 'Media',
      slug: 'attachment',
      icon: 'dashicons-admin-media',
      rest_base: 'media',
      rest_namespace: 'cms/v2',
      _links: typeLinks('media'),
    });
  });
});
