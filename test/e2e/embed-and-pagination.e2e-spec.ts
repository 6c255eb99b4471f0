import { LibraryExtensionModule } from '../fixtures/extensions/library.extension';
import { createTestApp, expectRestError, TestApp } from '../utils/test-app';

describe('REST engine: links, _embed and pagination', () => {
  let t: TestApp;
  const shelves = '/cms-json/library/v1/shelves';

  beforeAll(async () => {
    t = await createTestApp('embed_pagination', { extensions: [LibraryExtensionModule] });
  });
  afterAll(() => t.close());

  describe('links', () => {
    it('compacts relations under the link relation base with the cms curie, appended last', async () => {
      const res = await t.http.get(`${shelves}?per_page=1`).expect(200);
      const links = res.body[0]._links;
      expect(Object.keys(links)).toEqual(['self', 'author', 'about', 'cms:post_type', 'cms:missing', 'curies']);
      expect(links.author).toEqual([{ embeddable: true, href: 'http://example.org/cms-json/library/v1/readers/2' }]);
      expect(links.curies).toEqual([{ name: 'cms', href: 'https://api.w.org/{rel}', templated: true }]);
    });

    it('gives types, taxonomies and statuses their links', async () => {
      const type = await t.http.get('/cms-json/cms/v2/types/page').expect(200);
      expect(type.body._links['cms:items']).toEqual([{ href: 'http://example.org/cms-json/cms/v2/pages' }]);
      const status = await t.http.get('/cms-json/cms/v2/statuses/publish').expect(200);
      expect(status.body._links.archives).toEqual([{ href: 'http://example.org/cms-json/cms/v2/posts' }]);
    });
  });

  describe('_embed', () => {
    it('embeds linked resources in embed context, keeps their links, and embeds errors as error objects', async () => {
      const res = await t.http.get(`${shelves}?per_page=3&_embed`).expect(200);
      const first = res.body[0];
      expect(first._embedded.author).toEqual([{ id: 2, name: 'editor' }]);
      expect(first._embedded['cms:post_type'][0]).toMatchObject({ slug: 'post', name: 'Posts' });
      expect(first._embedded['cms:post_type'][0].description).toBeUndefined();
      expect(first._embedded['cms:post_type'][0]._links['cms:items']).toBeDefined();
      expect(first._embedded['cms:missing']).toEqual([
        { code: 'rest_user_invalid_id', message: 'Invalid user ID.', data: { status: 404 } },
      ]);
      expect(first._embedded.about).toBeUndefined();
      expect(first._embedded.self).toBeUndefined();
    });

    it('embeds only the relations named in _embed', async () => {
      const res = await t.http.get(`${shelves}?per_page=2&_embed=author`).expect(200);
      expect(Object.keys(res.body[0]._embedded)).toEqual(['author']);
    });

    it('embeds on single items too', async () => {
      const res = await t.http.get('/cms-json/cms/v2/types/post?_embed').expect(200);
      expect(res.body._embedded).toBeUndefined();
      expect(res.body.slug).toBe('post');
    });

    it('costs a fixed number of queries for a collection of 100 items, whatever its size', async () => {
      const small = await t.queries.during(() => t.http.get(`${shelves}?per_page=5&_embed`).expect(200));
      const large = await t.queries.during(async () => {
        const res = await t.http.get(`${shelves}?per_page=100&_embed`).expect(200);
        expect(res.body).toHaveLength(100);
        expect(res.body[99]._embedded.author[0].id).toBe(1);
      });
      // 200 embedded reader lookups (100 authors, 100 missing readers) batch into one query.
      expect(large).toBe(1);
      expect(small).toBe(large);
    });
  });

  describe('pagination', () => {
    it('sets X-CMS-Total and X-CMS-TotalPages and links to the next page', async () => {
      const res = await t.http.get(`${shelves}?per_page=10`).expect(200);
      expect(res.body).toHaveLength(10);
      expect(res.headers['x-cms-total']).toBe('250');
      expect(res.headers['x-cms-totalpages']).toBe('25');
      expect(res.headers.link).toBe('<http://example.org/cms-json/library/v1/shelves?per_page=10&page=2>; rel="next"');
    });

    it('links prev and next from a middle page, keeping the other query parameters and page where it was', async () => {
      // As WordPress's add_query_arg() replaces it (checked against the oracle).
      const res = await t.http.get(`${shelves}?per_page=50&page=3&total=200`).expect(200);
      expect(res.headers.link).toBe(
        '<http://example.org/cms-json/library/v1/shelves?per_page=50&page=2&total=200>; rel="prev", ' +
          '<http://example.org/cms-json/library/v1/shelves?per_page=50&page=4&total=200>; rel="next"',
      );
    });

    it('answers an empty page past the end with the totals and a prev link to the last page', async () => {
      const res = await t.http.get(`${shelves}?per_page=100&page=9`).expect(200);
      expect(res.body).toEqual([]);
      expect(res.headers['x-cms-total']).toBe('250');
      expect(res.headers.link).toBe('<http://example.org/cms-json/library/v1/shelves?per_page=100&page=3>; rel="prev"');
    });

    it('sets the totals on an empty collection', async () => {
      const res = await t.http.get(`${shelves}?total=0`).expect(200);
      expect(res.body).toEqual([]);
      expect(res.headers['x-cms-total']).toBe('0');
      expect(res.headers['x-cms-totalpages']).toBe('0');
    });

    it('enforces page >= 1 and per_page between 1 and 100', async () => {
      const page = await t.http.get(`${shelves}?page=0`);
      expectRestError(page, 'rest_invalid_param', 400);
      expect(page.body.data.params).toEqual({ page: 'page must be greater than 1 (inclusive)' });
      for (const perPage of [0, 101]) {
        const res = await t.http.get(`${shelves}?per_page=${perPage}`);
        expectRestError(res, 'rest_invalid_param', 400);
        expect(res.body.data.params).toEqual({
          per_page: 'per_page must be between 1 (inclusive) and 100 (inclusive)',
        });
      }
    });

    it('filters collection items by context', async () => {
      const view = await t.http.get(`${shelves}?per_page=1`).expect(200);
      expect(view.body[0]).not.toHaveProperty('note');
      const edit = await t.http.get(`${shelves}?per_page=1&context=edit`).expect(200);
      expect(edit.body[0].note).toBe('n');
      const embed = await t.http.get(`${shelves}?per_page=1&context=embed`).expect(200);
      expect(Object.keys(embed.body[0])).toEqual(['id', 'title', '_links']);
    });
  });
});
