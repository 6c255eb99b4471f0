import later from '../fixtures/reference/wp-later-content-types.json';
import { createTestApp, expectRestError, TestApp } from '../utils/test-app';

/** The post types and taxonomies WordPress 6.1 lists beyond the seed (captured: wp-later-content-types.json). */
const LATER_TYPES = ['nav_menu_item', 'wp_block', 'wp_template', 'wp_template_part', 'wp_navigation'];
const REQUEST_STATUSES = ['request-pending', 'request-confirmed', 'request-failed', 'request-completed'];

/** The answer's items without their links. */
function withoutLinks(map: Record<string, Record<string, unknown>>): Record<string, Record<string, unknown>> {
  return Object.fromEntries(Object.entries(map).map(([key, { _links: _omit, ...rest }]) => [key, rest]));
}

describe('content types WordPress added after the seed (types, taxonomies, statuses)', () => {
  let wp: TestApp;
  let cms: TestApp;
  const admin = (t: TestApp, path: string) =>
    t.http.get(path).set('Authorization', t.users.administrator.authorization);

  beforeAll(async () => {
    wp = await createTestApp('wp_content_types', { cms: { wireNames: 'wordpress' } });
    cms = await createTestApp('wp_content_types_cms');
  });
  afterAll(async () => {
    await wp?.close();
    await cms?.close();
  });

  describe('with WordPress names', () => {
    it('types lists nav_menu_item, wp_block, wp_template, wp_template_part and wp_navigation as WordPress 6.1 does (context=edit)', async () => {
      const res = await admin(wp, '/wp-json/wp/v2/types?context=edit').expect(200);
      expect(Object.keys(res.body)).toEqual(later.typesOrder);
      const items = withoutLinks(res.body);
      for (const name of LATER_TYPES) {
        expect(items[name]).toStrictEqual(later.typesEdit[name as keyof typeof later.typesEdit]);
        expect(JSON.stringify(items[name])).toBe(JSON.stringify(later.typesEdit[name as keyof typeof later.typesEdit]));
      }
      expect(res.body.wp_block._links['wp:items']).toEqual([{ href: 'http://example.org/wp-json/wp/v2/blocks' }]);
      expect(res.body.nav_menu_item._links['wp:items']).toEqual([
        { href: 'http://example.org/wp-json/wp/v2/menu-items' },
      ]);
    });

    it('types lists them to anonymous callers in the view context, as WordPress does', async () => {
      const res = await wp.http.get('/wp-json/wp/v2/types').expect(200);
      expect(Object.keys(res.body)).toEqual(later.typesOrder);
      const items = withoutLinks(res.body);
      for (const name of LATER_TYPES) {
        expect(items[name]).toStrictEqual(later.typesView[name as keyof typeof later.typesView]);
      }
    });

    it('types/<type> reads each one; context=edit of nav_menu_item needs edit_theme_options (403 for an editor)', async () => {
      for (const name of LATER_TYPES) {
        const res = await wp.http.get(`/wp-json/wp/v2/types/${name}`).expect(200);
        expect(res.body.slug).toBe(name);
      }
      const editor = await wp.http
        .get('/wp-json/wp/v2/types/nav_menu_item?context=edit')
        .set('Authorization', wp.users.editor.authorization);
      expectRestError(editor, 'rest_forbidden_context', 403);
      const block = await wp.http
        .get('/wp-json/wp/v2/types/wp_block?context=edit')
        .set('Authorization', wp.users.editor.authorization)
        .expect(200);
      expect(block.body.capabilities.read).toBe('edit_posts');
    });

    it('types?context=edit leaves out, for an editor, the types only edit_theme_options may edit', async () => {
      const res = await wp.http
        .get('/wp-json/wp/v2/types?context=edit')
        .set('Authorization', wp.users.editor.authorization)
        .expect(200);
      expect(Object.keys(res.body)).toEqual(['post', 'page', 'attachment', 'wp_block']);
    });

    it('taxonomies lists nav_menu as WordPress 6.1 does (edit and view contexts, ?type=nav_menu_item)', async () => {
      const edit = await admin(wp, '/wp-json/wp/v2/taxonomies?context=edit').expect(200);
      expect(Object.keys(edit.body)).toEqual(later.taxonomiesOrder);
      expect(withoutLinks(edit.body).nav_menu).toStrictEqual(later.taxonomiesEdit.nav_menu);
      const view = await wp.http.get('/wp-json/wp/v2/taxonomies').expect(200);
      expect(view.body.nav_menu).toStrictEqual({
        ...later.taxonomiesView.nav_menu,
        _links: {
          collection: [{ href: 'http://example.org/wp-json/wp/v2/taxonomies' }],
          'wp:items': [{ href: 'http://example.org/wp-json/wp/v2/menus' }],
          curies: [{ name: 'wp', href: 'https://api.w.org/{rel}', templated: true }],
        },
      });
      const ofType = await wp.http.get('/wp-json/wp/v2/taxonomies?type=nav_menu_item').expect(200);
      expect(Object.keys(ofType.body)).toEqual(['nav_menu']);
      const editor = await wp.http
        .get('/wp-json/wp/v2/taxonomies?context=edit')
        .set('Authorization', wp.users.editor.authorization)
        .expect(200);
      expect(Object.keys(editor.body)).toEqual(['category', 'post_tag']);
    });

    it('statuses does not list the internal request-* statuses; reading one is refused (401 anonymous, 403 logged in)', async () => {
      const res = await admin(wp, '/wp-json/wp/v2/statuses?context=edit').expect(200);
      expect(Object.keys(res.body)).toEqual(['publish', 'future', 'draft', 'pending', 'private', 'trash']);
      for (const status of REQUEST_STATUSES) {
        const anonymous = await wp.http.get(`/wp-json/wp/v2/statuses/${status}`);
        expectRestError(anonymous, 'rest_cannot_read_status', 401);
        expect(anonymous.body.message).toBe('Cannot view status.');
        expectRestError(await admin(wp, `/wp-json/wp/v2/statuses/${status}`), 'rest_cannot_read_status', 403);
      }
    });

    it('the posts status argument accepts the request-* statuses, as WordPress 6.1 lists every registered one', async () => {
      const res = await wp.http.options('/wp-json/wp/v2/posts').expect(200);
      expect(res.body.endpoints[0].args.status.items.enum).toEqual([
        'publish',
        'future',
        'draft',
        'pending',
        'private',
        'trash',
        'auto-draft',
        'inherit',
        ...REQUEST_STATUSES,
        'any',
      ]);
    });

    it('serves none of the listed-only types (templates, template parts, navigation)', async () => {
      for (const base of ['templates', 'template-parts', 'navigation']) {
        expectRestError(await admin(wp, `/wp-json/wp/v2/${base}`), 'rest_no_route', 404);
      }
      const index = await wp.http.get('/wp-json/').expect(200);
      const routes = Object.keys(index.body.routes);
      expect(routes.filter((r) => /templat|navigation/.test(r))).toEqual([]);
      expect(routes).toEqual(expect.arrayContaining(['/wp/v2/blocks', '/wp/v2/menus', '/wp/v2/menu-items']));
    });
  });

  describe('with cms names (the seed)', () => {
    it('types lists none of them, and reads them as before: unknown types 404, nav_menu_item not served', async () => {
      const res = await admin(cms, '/cms-json/cms/v2/types?context=edit').expect(200);
      expect(Object.keys(res.body)).toEqual(['post', 'page', 'attachment']);
      for (const name of ['wp_block', 'wp_template', 'wp_template_part', 'wp_navigation']) {
        expectRestError(await cms.http.get(`/cms-json/cms/v2/types/${name}`), 'rest_type_invalid', 404);
      }
      expectRestError(await cms.http.get('/cms-json/cms/v2/types/nav_menu_item'), 'rest_cannot_read_type', 401);
    });

    it('taxonomies does not list nav_menu; statuses lists the same and request-* are unknown', async () => {
      const tax = await admin(cms, '/cms-json/cms/v2/taxonomies?context=edit').expect(200);
      expect(Object.keys(tax.body)).toEqual(['category', 'post_tag']);
      const statuses = await admin(cms, '/cms-json/cms/v2/statuses?context=edit').expect(200);
      expect(Object.keys(statuses.body)).toEqual(['publish', 'future', 'draft', 'pending', 'private', 'trash']);
      expectRestError(await cms.http.get('/cms-json/cms/v2/statuses/request-pending'), 'rest_status_invalid', 404);
    });

    it('the posts status argument lists the seed statuses only', async () => {
      const res = await cms.http.options('/cms-json/cms/v2/posts').expect(200);
      const enumOf = res.body.endpoints[0].args.status.items.enum as string[];
      expect(enumOf.filter((s) => s.startsWith('request-'))).toEqual([]);
    });
  });
});
