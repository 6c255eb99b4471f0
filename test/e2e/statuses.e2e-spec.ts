import { createTestApp, expectRestError, TestApp } from '../utils/test-app';

/** Post statuses controller (`/cms/v2/statuses`), reference 3.9 and 6.14, with WordPress 6.1's fields. */

type Role = keyof TestApp['users'];

const API = 'http://example.org/cms-json/cms/v2';
const ITEM_ROUTE = '/cms/v2/statuses/(?P<status>[\\w-]+)';
const LISTED = ['publish', 'future', 'draft', 'pending', 'private', 'trash'];

/** WordPress 6.1's status schema: property → contexts. */
const SCHEMA_CONTEXTS: Record<string, string[]> = {
  name: ['embed', 'view', 'edit'],
  private: ['edit'],
  protected: ['edit'],
  public: ['view', 'edit'],
  queryable: ['view', 'edit'],
  show_in_list: ['edit'],
  slug: ['embed', 'view', 'edit'],
  date_floating: ['view', 'edit'],
};

/** Edit-context data of the statuses an editor of posts may see, as WordPress 6.1 registers them. */
const EDIT_DATA: Record<string, Record<string, unknown>> = {
  publish: {
    name: 'Published',
    private: false,
    protected: false,
    public: true,
    queryable: true,
    show_in_list: true,
    date_floating: false,
  },
  future: {
    name: 'Scheduled',
    private: false,
    protected: true,
    public: false,
    queryable: false,
    show_in_list: true,
    date_floating: false,
  },
  draft: {
    name: 'Draft',
    private: false,
    protected: true,
    public: false,
    queryable: false,
    show_in_list: true,
    date_floating: true,
  },
  pending: {
    name: 'Pending',
    private: false,
    protected: true,
    public: false,
    queryable: false,
    show_in_list: true,
    date_floating: true,
  },
  private: {
    name: 'Private',
    private: true,
    protected: false,
    public: false,
    queryable: false,
    show_in_list: true,
    date_floating: false,
  },
  trash: {
    name: 'Trash',
    private: false,
    protected: false,
    public: false,
    queryable: false,
    show_in_list: false,
    date_floating: false,
  },
};

const archives = (slug: string) => ({
  archives: [{ href: slug === 'publish' ? `${API}/posts` : `${API}/posts?status=${slug}` }],
});

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp('statuses_controller');
});

afterAll(() => t.close());

function get(path: string, as?: Role) {
  const req = t.http.get(`/cms-json/cms/v2${path}`);
  return as ? req.set('Authorization', t.users[as].authorization) : req;
}

describe('routes and arguments', () => {
  it('lists the collection and item routes in the namespace index', async () => {
    const res = await t.http.get('/cms-json/cms/v2');
    expect(res.status).toBe(200);
    expect(res.body.routes['/cms/v2/statuses']).toMatchObject({ namespace: 'cms/v2', methods: ['GET'] });
    expect(res.body.routes[ITEM_ROUTE]).toMatchObject({ namespace: 'cms/v2', methods: ['GET'] });
  });

  it.each([['/statuses'], ['/statuses/publish']])(
    'declares context (default view, enum view/embed/edit) on %s',
    async (path) => {
      const res = await t.http.options(`/cms-json/cms/v2${path}`);
      expect(res.status).toBe(200);
      const context = res.body.endpoints[0].args.context;
      expect(context.default).toBe('view');
      expect(context.enum).toEqual(['view', 'embed', 'edit']);
    },
  );

  it('publishes the WordPress 6.1 item schema with 8 read-only properties incl. date_floating', async () => {
    const res = await t.http.options('/cms-json/cms/v2/statuses/publish');
    const schema = res.body.schema;
    expect(schema.title).toBe('status');
    expect(Object.keys(schema.properties).sort()).toEqual(Object.keys(SCHEMA_CONTEXTS).sort());
    expect(Object.keys(schema.properties)).toHaveLength(8);
    for (const [name, prop] of Object.entries<Record<string, unknown>>(schema.properties)) {
      expect({ name, readonly: prop.readonly, context: prop.context }).toEqual({
        name,
        readonly: true,
        context: SCHEMA_CONTEXTS[name],
      });
    }
    expect(schema.properties.date_floating.type).toBe('boolean');
    const collection = await t.http.options('/cms-json/cms/v2/statuses');
    expect(collection.body.schema).toEqual(schema);
  });

  it.each([['/statuses'], ['/statuses/publish']])(
    'rejects context=banana on %s with rest_invalid_param 400',
    async (path) => {
      const res = await get(`${path}?context=banana`);
      expectRestError(res, 'rest_invalid_param', 400);
      expect(typeof res.body.data.params.context).toBe('string');
    },
  );
});

describe('GET /statuses', () => {
  it('shows anonymous callers exactly the publish status', async () => {
    const res = await get('/statuses');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['publish']);
  });

  it('shows a subscriber (no edit_posts) exactly the publish status', async () => {
    const res = await get('/statuses', 'subscriber');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['publish']);
  });

  it('shows an author publish, future, draft, pending, private and trash (no internal statuses)', async () => {
    const res = await get('/statuses', 'author');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(LISTED);
    expect(res.body.inherit).toBeUndefined();
    expect(res.body['auto-draft']).toBeUndefined();
  });

  it('links each item to its archive and nothing else', async () => {
    const res = await get('/statuses', 'author');
    for (const slug of LISTED) {
      expect({ slug, links: res.body[slug]._links }).toEqual({ slug, links: archives(slug) });
    }
    expect(res.body.publish._links.archives[0].href).toBe('http://example.org/cms-json/cms/v2/posts');
    expect(res.body.draft._links.archives[0].href).toBe('http://example.org/cms-json/cms/v2/posts?status=draft');
  });

  it('hides private, protected and show_in_list in view context', async () => {
    const res = await get('/statuses', 'author');
    for (const slug of LISTED) {
      const item = res.body[slug];
      expect(Object.keys(item).sort()).toEqual(['_links', 'date_floating', 'name', 'public', 'queryable', 'slug']);
      const { name, public: isPublic, queryable, date_floating } = EDIT_DATA[slug];
      expect(item).toMatchObject({ name, slug, public: isPublic, queryable, date_floating });
    }
  });

  it('refuses context=edit to anonymous callers with rest_cannot_view 401', async () => {
    expectRestError(await get('/statuses?context=edit'), 'rest_cannot_view', 401);
  });

  it('refuses context=edit to a subscriber with rest_cannot_view 403', async () => {
    expectRestError(await get('/statuses?context=edit', 'subscriber'), 'rest_cannot_view', 403);
  });

  it('gives an author every field of every listed status in edit context', async () => {
    const res = await get('/statuses?context=edit', 'author');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(LISTED);
    for (const slug of LISTED) {
      expect(res.body[slug]).toEqual({ ...EDIT_DATA[slug], slug, _links: archives(slug) });
    }
  });

  it('shows only name and slug in embed context', async () => {
    const res = await get('/statuses?context=embed', 'author');
    expect(res.status).toBe(200);
    expect(res.body.draft).toEqual({ name: 'Draft', slug: 'draft', _links: archives('draft') });
  });

  it('sends no pagination headers', async () => {
    const res = await get('/statuses', 'author');
    expect(res.status).toBe(200);
    expect(res.headers['x-cms-total']).toBeUndefined();
    expect(res.headers['x-cms-totalpages']).toBeUndefined();
  });
});

describe('GET /statuses/<status>', () => {
  it('gives an author the publish status in edit context', async () => {
    const res = await get('/statuses/publish?context=edit', 'author');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      name: 'Published',
      private: false,
      protected: false,
      public: true,
      queryable: true,
      show_in_list: true,
      slug: 'publish',
    });
    expect(res.body).toEqual({ ...EDIT_DATA.publish, slug: 'publish', _links: archives('publish') });
    expect(Object.keys(res.body._links)).toEqual(['archives']);
  });

  it('links the draft status to the drafts listing of posts', async () => {
    const res = await get('/statuses/draft?context=edit', 'author');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...EDIT_DATA.draft, slug: 'draft', _links: archives('draft') });
    expect(res.body._links.archives[0].href).toBe('http://example.org/cms-json/cms/v2/posts?status=draft');
  });

  it('shows the publish status to anonymous callers in view context', async () => {
    const res = await get('/statuses/publish');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      name: 'Published',
      public: true,
      queryable: true,
      slug: 'publish',
      date_floating: false,
      _links: archives('publish'),
    });
  });

  it('shows only name and slug in embed context', async () => {
    const res = await get('/statuses/publish?context=embed');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ name: 'Published', slug: 'publish', _links: archives('publish') });
  });

  it('returns rest_status_invalid 404 for an unknown status', async () => {
    expectRestError(await get('/statuses/invalid'), 'rest_status_invalid', 404);
    expectRestError(await get('/statuses/invalid', 'administrator'), 'rest_status_invalid', 404);
  });

  it('refuses a non-public status to anonymous callers with rest_cannot_read_status 401', async () => {
    expectRestError(await get('/statuses/draft'), 'rest_cannot_read_status', 401);
  });

  it('refuses an internal status to a subscriber with rest_cannot_read_status 403', async () => {
    expectRestError(await get('/statuses/inherit', 'subscriber'), 'rest_cannot_read_status', 403);
  });

  it('refuses trash to a subscriber but shows it to an author', async () => {
    expectRestError(await get('/statuses/trash', 'subscriber'), 'rest_cannot_read_status', 403);
    const res = await get('/statuses/trash', 'author');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: 'Trash', slug: 'trash', public: false });
    expect(res.body._links).toEqual(archives('trash'));
  });

  it('never shows the internal statuses inherit and auto-draft, even to an administrator', async () => {
    expectRestError(await get('/statuses/inherit', 'administrator'), 'rest_cannot_read_status', 403);
    expectRestError(await get('/statuses/auto-draft', 'administrator'), 'rest_cannot_read_status', 403);
  });
});
