import { MenuLocations } from '../../src/resources/menus';
import { createPost, createTerm } from '../factories/post.factory';
import { createTestApp, expectRestError, TestApp } from '../utils/test-app';

/** The two wire modes: where the API lives under each. */
const MODES = [
  {
    name: 'WordPress names',
    db: 'menus_wp',
    cms: { wireNames: 'wordpress' as const },
    base: '/wp-json/wp/v2',
    curie: 'wp',
  },
  { name: 'cms names', db: 'menus_cms', cms: {}, base: '/cms-json/cms/v2', curie: 'cms' },
];

describe.each(MODES)('menus, menu items and menu locations ($name)', ({ db, cms, base, curie }) => {
  let t: TestApp;
  const as = (role: keyof TestApp['users'] | null) => {
    const auth = role ? { Authorization: t.users[role].authorization } : {};
    return {
      get: (path: string) => t.http.get(`${base}${path}`).set(auth),
      post: (path: string, body: object = {}) => t.http.post(`${base}${path}`).set(auth).send(body),
      del: (path: string) => t.http.delete(`${base}${path}`).set(auth),
    };
  };
  const admin = () => as('administrator');

  beforeAll(async () => {
    t = await createTestApp(db, { cms });
    t.app.get(MenuLocations).register({ primary: 'Primary menu', footer: 'Footer menu' });
  });
  afterAll(() => t?.close());

  describe('menus', () => {
    it('creates a menu (201, Location) with locations and auto_add, and reads it back', async () => {
      const res = await admin()
        .post('/menus', { name: 'Main', description: 'The main one', locations: ['primary'], auto_add: true })
        .expect(201);
      expect(res.headers.location).toBe(`http://example.org${base}/menus/${res.body.id}`);
      expect(res.body).toMatchObject({
        name: 'Main',
        slug: 'main',
        description: 'The main one',
        locations: ['primary'],
        auto_add: true,
        meta: [],
      });
      expect(Object.keys(res.body).filter((k) => k !== '_links')).toEqual([
        'id',
        'description',
        'name',
        'slug',
        'meta',
        'locations',
        'auto_add',
      ]);
      expect(res.body._links[`${curie}:menu-location`]).toEqual([
        { href: `http://example.org${base}/menu-locations/primary`, embeddable: true },
      ]);
      const read = await as('editor').get(`/menus/${res.body.id}`).expect(200);
      expect(read.body).toMatchObject({ id: res.body.id, locations: ['primary'], auto_add: true });
      const list = await as('author').get('/menus').expect(200);
      expect(list.body.map((m: { name: string }) => m.name)).toContain('Main');
      expect(list.headers[base.startsWith('/wp') ? 'x-wp-total' : 'x-cms-total']).toBeDefined();
    });

    it('refuses a taken name (menu_exists, 400) and an unknown location (rest_invalid_param)', async () => {
      const taken = (await admin().post('/menus', { name: 'Taken' }).expect(201)).body.id;
      const again = await admin().post('/menus', { name: 'Taken' });
      expectRestError(again, 'menu_exists', 400);
      // WordPress 5.6+ answers the data added before the status as `additional_data`.
      expect(again.body).toMatchObject({ data: { status: 400, term_id: taken }, additional_data: [taken] });
      expect(again.body.message).toBe(
        'The menu name <strong>Taken</strong> conflicts with another menu name. Please try another.',
      );
      expectRestError(
        await admin().post('/menus', { name: 'Other', locations: ['nowhere'] }),
        'rest_invalid_param',
        400,
      );
      expectRestError(await admin().post('/menus', {}), 'rest_missing_callback_param', 400);
    });

    it('updates a menu: name, slug from it, locations moved, auto_add off', async () => {
      const { body } = await admin().post('/menus', { name: 'Before', locations: ['footer'], auto_add: true });
      const res = await admin()
        .post(`/menus/${body.id}`, { name: 'After', locations: ['primary'], auto_add: false })
        .expect(200);
      expect(res.body).toMatchObject({ name: 'After', slug: 'after', locations: ['primary'], auto_add: false });
      const location = await admin().get('/menu-locations/primary').expect(200);
      expect(location.body).toMatchObject({ name: 'primary', description: 'Primary menu', menu: body.id });
    });

    it('deletes only with force (501 rest_trash_not_supported), answering { deleted, previous }, items gone', async () => {
      const { body: menu } = await admin().post('/menus', { name: 'Doomed', locations: ['footer'] });
      const { body: item } = await admin().post('/menu-items', {
        title: 'Home',
        url: 'https://example.org/',
        menus: menu.id,
      });
      expectRestError(await admin().del(`/menus/${menu.id}`), 'rest_trash_not_supported', 501);
      const res = await admin().del(`/menus/${menu.id}?force=true`).expect(200);
      expect(res.body).toMatchObject({ deleted: true, previous: { id: menu.id, name: 'Doomed' } });
      expectRestError(await admin().get(`/menus/${menu.id}`), 'rest_term_invalid', 404);
      expectRestError(await admin().get(`/menu-items/${item.id}`), 'rest_post_invalid_id', 404);
      const footer = await admin().get('/menu-locations/footer').expect(200);
      expect(footer.body.menu).toBe(0);
    });

    it('reads need edit_posts (401 anonymous, 403 subscriber); writes need edit_theme_options (403 editor)', async () => {
      const { body } = await admin().post('/menus', { name: 'Guarded' });
      expectRestError(await as(null).get('/menus'), 'rest_cannot_view', 401);
      expectRestError(await as('subscriber').get('/menus'), 'rest_cannot_view', 403);
      expectRestError(await as(null).get(`/menus/${body.id}`), 'rest_cannot_view', 401);
      await as('contributor').get(`/menus/${body.id}`).expect(200);
      expectRestError(await as('editor').get('/menus?context=edit'), 'rest_forbidden_context', 403);
      expectRestError(await as('editor').post('/menus', { name: 'No' }), 'rest_cannot_create', 403);
      expectRestError(await as(null).post('/menus', { name: 'No' }), 'rest_cannot_create', 401);
      expectRestError(await as('editor').post(`/menus/${body.id}`, { name: 'No' }), 'rest_cannot_update', 403);
      expectRestError(await as('editor').del(`/menus/${body.id}?force=true`), 'rest_cannot_delete', 403);
      expectRestError(await admin().get('/menus/999999'), 'rest_term_invalid', 404);
    });

    it('answers OPTIONS with the menus schema and arguments', async () => {
      const res = await t.http.options(`${base}/menus`).expect(200);
      expect(res.body.schema.title).toBe('nav_menu');
      expect(Object.keys(res.body.schema.properties)).toEqual([
        'id',
        'description',
        'name',
        'slug',
        'meta',
        'locations',
        'auto_add',
      ]);
      expect(res.body.endpoints[1].args.name.required).toBe(true);
    });
  });

  describe('menu items', () => {
    let menuId: number;
    beforeAll(async () => {
      menuId = (await admin().post('/menus', { name: 'Items' })).body.id;
    });

    it('creates a custom link (201, edit context) with WordPress fields, and lists it by menu', async () => {
      const res = await admin()
        .post('/menu-items', {
          title: 'Docs',
          url: 'https://example.org/docs',
          menus: menuId,
          classes: 'one two',
          xfn: ['friend'],
          target: '_blank',
          attr_title: 'Read',
        })
        .expect(201);
      expect(res.body).toMatchObject({
        title: { raw: 'Docs', rendered: 'Docs' },
        status: 'publish',
        url: 'https://example.org/docs',
        attr_title: 'Read',
        type: 'custom',
        type_label: 'Custom Link',
        object: 'custom',
        object_id: res.body.id,
        parent: 0,
        menu_order: 1,
        target: '_blank',
        classes: ['one', 'two'],
        xfn: ['friend'],
        invalid: false,
        menus: menuId,
      });
      const list = await as('editor').get(`/menu-items?menus=${menuId}`).expect(200);
      expect(list.body.map((i: { id: number }) => i.id)).toEqual([res.body.id]);
      expect(list.body[0].title).toEqual({ rendered: 'Docs' });
    });

    it('points at a post and a term: object, url and type_label from them; _embed follows menu-item-object', async () => {
      const post = await createPost(t.dataSource, { title: 'Hello', name: 'hello', status: 'publish' });
      const termId = await createTerm(t.dataSource, 'category', 'News');
      const toPost = await admin()
        .post('/menu-items', { type: 'post_type', object_id: post.id, menus: menuId, menu_order: 2 })
        .expect(201);
      expect(toPost.body).toMatchObject({
        title: { raw: 'Hello' },
        object: 'post',
        type_label: 'Post',
        url: 'http://example.org/hello/',
        invalid: false,
      });
      const toTerm = await admin()
        .post('/menu-items', { type: 'taxonomy', object_id: termId, menus: menuId, menu_order: 3 })
        .expect(201);
      expect(toTerm.body).toMatchObject({ object: 'category', type_label: 'Category', title: { raw: 'News' } });
      const embedded = await admin().get(`/menu-items/${toPost.body.id}?_embed=1`).expect(200);
      expect(embedded.body._embedded[`${curie}:menu-item-object`][0]).toMatchObject({ id: post.id });
    });

    it('refuses bad input: custom without title or url, unknown post, unknown menu, bad enum', async () => {
      expectRestError(await admin().post('/menu-items', { url: 'https://x.test/' }), 'rest_title_required', 400);
      expectRestError(await admin().post('/menu-items', { title: 'No url' }), 'rest_url_required', 400);
      expectRestError(
        await admin().post('/menu-items', { type: 'post_type', object_id: 999999 }),
        'rest_post_invalid_id',
        400,
      );
      expectRestError(
        await admin().post('/menu-items', { title: 'X', url: 'https://x.test/', menus: 999999 }),
        'invalid_menu_id',
        400,
      );
      expectRestError(await admin().post('/menu-items', { title: 'X', type: 'nope' }), 'rest_invalid_param', 400);
    });

    it('updates an item and deletes it only with force', async () => {
      const { body } = await admin().post('/menu-items', { title: 'Old', url: 'https://x.test/', menus: menuId });
      const res = await admin().post(`/menu-items/${body.id}`, { title: 'New', status: 'draft' }).expect(200);
      expect(res.body).toMatchObject({ title: { raw: 'New' }, status: 'draft', url: 'https://x.test/' });
      expectRestError(await admin().del(`/menu-items/${body.id}`), 'rest_trash_not_supported', 501);
      const deleted = await admin().del(`/menu-items/${body.id}?force=true`).expect(200);
      expect(deleted.body).toMatchObject({ deleted: true, previous: { id: body.id } });
    });

    it('permissions: reads 401 anonymous / 403 subscriber, writes 403 editor, drafts need edit_theme_options', async () => {
      const { body } = await admin().post('/menu-items', { title: 'P', url: 'https://x.test/', menus: menuId });
      expectRestError(await as(null).get('/menu-items'), 'rest_cannot_view', 401);
      expectRestError(await as('subscriber').get(`/menu-items/${body.id}`), 'rest_cannot_view', 403);
      await as('editor').get(`/menu-items/${body.id}`).expect(200);
      expectRestError(await as('editor').get('/menu-items?status=draft'), 'rest_invalid_param', 400);
      expectRestError(
        await as('editor').post('/menu-items', { title: 'X', url: 'https://x.test/' }),
        'rest_cannot_create',
        403,
      );
      expectRestError(await as('editor').post(`/menu-items/${body.id}`, { title: 'X' }), 'rest_cannot_edit', 403);
      expectRestError(await as('editor').del(`/menu-items/${body.id}?force=true`), 'rest_cannot_delete', 403);
    });

    it('lists a page in a fixed number of queries', async () => {
      for (let i = 0; i < 3; i++)
        await admin().post('/menu-items', { title: `Q${i}`, url: 'https://x.test/', menus: menuId });
      const count = () => t.queries.during(() => admin().get(`/menu-items?menus=${menuId}`).expect(200));
      const before = await count();
      for (let i = 0; i < 3; i++)
        await admin().post('/menu-items', { title: `R${i}`, url: 'https://x.test/', menus: menuId });
      expect(await count()).toBe(before);
    });

    it('filters as the posts collections do: slug, dates, menus_exclude, tax_relation, orderby and a page', async () => {
      const other = (await admin().post('/menus', { name: 'Filters elsewhere' })).body.id;
      const a = (await admin().post('/menu-items', { title: 'Alpha', url: 'https://x.test/a', menus: other })).body;
      const b = (await admin().post('/menu-items', { title: 'Beta', url: 'https://x.test/b', menus: other })).body;
      const ids = async (query: string) =>
        (await admin().get(`/menu-items?${query}`).expect(200)).body.map((i: { id: number }) => i.id);
      expect(await ids(`menus=${other}`)).toEqual([a.id, b.id]);
      expect(await ids(`menus=${other}&order=desc`)).toEqual([b.id, a.id]);
      expect(await ids(`menus=${other}&orderby=title&order=desc`)).toEqual([b.id, a.id]);
      expect(await ids(`menus=${other}&orderby=include&include=${b.id},${a.id}`)).toEqual([b.id, a.id]);
      expect(await ids(`menus=${other}&slug=${b.id}`)).toEqual([b.id]);
      expect(await ids(`menus=${other}&after=2000-01-01T00:00:00&before=2999-01-01T00:00:00`)).toEqual([a.id, b.id]);
      expect(await ids(`menus=${other}&after=2999-01-01T00:00:00`)).toEqual([]);
      expect(await ids(`menus=${other}&modified_before=2000-01-01T00:00:00`)).toEqual([]);
      const excluded = await ids(`menus_exclude=${other}&per_page=100`);
      expect(excluded).not.toContain(a.id);
      expect(excluded.length).toBeGreaterThan(0);
      expect(await ids(`menus=${other}&menus_exclude=${other}&tax_relation=OR`)).toEqual(
        expect.arrayContaining([a.id, b.id]),
      );
      expect(await ids(`menus=${other}&per_page=1&page=2`)).toEqual([b.id]);
      expectRestError(await admin().get('/menu-items?orderby=relevance'), 'rest_no_search_term_defined', 400);
      expectRestError(await admin().get('/menu-items?after=yesterday'), 'rest_invalid_param', 400);
    });

    it('answers OPTIONS with the menu items schema', async () => {
      const res = await t.http.options(`${base}/menu-items`).expect(200);
      expect(res.body.schema.title).toBe('nav_menu_item');
      expect(res.body.endpoints[0].args.per_page.default).toBe(100);
      expect(res.body.schema.properties.menus).toMatchObject({ type: 'integer' });
      const args = res.body.endpoints[0].args;
      for (const name of ['after', 'before', 'modified_after', 'modified_before', 'slug', 'tax_relation'])
        expect(args[name]).toBeDefined();
      expect(args.orderby).toMatchObject({ default: 'menu_order' });
      expect(args.order).toMatchObject({ default: 'asc' });
      expect(args.password).toBeUndefined();
      expect(args.filter).toBeUndefined();
      if (curie === 'wp') {
        // WordPress 5.7+: a taxonomy argument takes a list of term ids or { terms, operator }.
        expect(args.menus.type).toEqual(['object', 'array']);
        expect(res.body.schema.links.map((l: { rel: string }) => l.rel)).toEqual([
          'https://api.w.org/action-publish',
          'https://api.w.org/action-unfiltered-html',
          'https://api.w.org/action-assign-menus',
          'https://api.w.org/action-create-menus',
          'https://api.w.org/menu-item-object',
        ]);
      } else {
        expect(args.menus.type).toBe('array');
        expect(res.body.schema.links).toBeUndefined();
      }
    });

    it('adds the caller’s action links in the edit context with WordPress names only', async () => {
      const item = (await admin().post('/menu-items', { title: 'Acts', url: 'https://x.test/', menus: menuId })).body;
      const edit = await admin().get(`/menu-items/${item.id}?context=edit`).expect(200);
      const actions = Object.keys(edit.body._links).filter((rel) => rel.includes('action-'));
      if (curie === 'wp')
        expect(actions).toEqual([
          'wp:action-publish',
          'wp:action-unfiltered-html',
          'wp:action-create-menus',
          'wp:action-assign-menus',
        ]);
      else expect(actions).toEqual([]);
      const view = await admin().get(`/menu-items/${item.id}`).expect(200);
      expect(Object.keys(view.body._links).filter((rel) => rel.includes('action-'))).toEqual([]);
      if (curie === 'wp') {
        const list = await admin().get(`/menu-items?menus=${menuId}&context=edit&include=${item.id}`).expect(200);
        expect(list.body[0]._links['wp:action-assign-menus']).toEqual([
          { href: `http://example.org${base}/menu-items/${item.id}` },
        ]);
        const objectForm = await admin()
          .get(`/menu-items?menus[terms]=${menuId}&menus[operator]=AND&include=${item.id}`)
          .expect(200);
        expect(objectForm.body.map((i: { id: number }) => i.id)).toEqual([item.id]);
      }
    });
  });

  describe('menu locations', () => {
    it('lists the registered locations to edit_theme_options only (401, 403 editor)', async () => {
      const res = await admin().get('/menu-locations').expect(200);
      expect(Object.keys(res.body)).toEqual(['primary', 'footer']);
      expect(res.body.footer).toMatchObject({ name: 'footer', description: 'Footer menu' });
      expectRestError(await as(null).get('/menu-locations'), 'rest_cannot_view', 401);
      expectRestError(await as('editor').get('/menu-locations/primary'), 'rest_cannot_view', 403);
      expectRestError(await admin().get('/menu-locations/nowhere'), 'rest_menu_location_invalid', 404);
    });
  });
});

describe('menu locations without any registered (as WordPress 6.1 without a theme)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp('menus_none', { cms: { wireNames: 'wordpress' } });
  });
  afterAll(() => t?.close());

  it('answers an empty list', async () => {
    const res = await t.http
      .get('/wp-json/wp/v2/menu-locations')
      .set('Authorization', t.users.administrator.authorization)
      .expect(200);
    expect(res.body).toEqual([]);
  });
});
