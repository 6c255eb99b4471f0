import { DataSource } from 'typeorm';
import { createPost, createTerm } from '../factories/post.factory';
import { createTestApp, expectRestError, TestApp } from '../utils/test-app';
import { TermTaxonomyEntity } from '../../src/core/database/entities/term-taxonomy.entity';

const API = '/cms-json/cms/v2';
const HOME = 'http://example.org';

/** Ids of what the search tests find. */
interface Seeded {
  post: number;
  page: number;
  childPage: number;
  parentPage: number;
  draft: number;
  privatePost: number;
  protectedPost: number;
  authorProtected: number;
  parentCategory: number;
  childCategory: number;
  tag: number;
}

/** Makes a term a child of another (the factory writes top-level terms). */
async function setParent(ds: DataSource, termId: number, parent: number): Promise<void> {
  await ds.getRepository(TermTaxonomyEntity).update({ termId }, { parent });
}

/** The site every test reads: posts and pages of every status, categories, a tag and two post formats' terms. */
async function seed(t: TestApp): Promise<Seeded> {
  const ds = t.dataSource;
  const at = (day: number) => `2024-03-${String(day).padStart(2, '0')} 10:00:00`;
  const post = (await createPost(ds, { title: 'Alpha launch', name: 'alpha-launch', date: at(10) })).id;
  const parentPage = (await createPost(ds, { type: 'page', title: 'About', name: 'about', date: at(1) })).id;
  const page = (await createPost(ds, { type: 'page', title: 'Alpha page', name: 'alpha-page', date: at(9) })).id;
  const childPage = (
    await createPost(ds, { type: 'page', title: 'Alpha team', name: 'team', parent: parentPage, date: at(8) })
  ).id;
  const draft = (await createPost(ds, { title: 'Alpha draft', status: 'draft', date: at(11) })).id;
  const privatePost = (await createPost(ds, { title: 'Alpha private', status: 'private', date: at(12) })).id;
  const protectedPost = (
    await createPost(ds, { title: 'Alpha sealed', password: 'secret', author: t.users.editor.id, date: at(7) })
  ).id;
  const authorProtected = (
    await createPost(ds, { title: 'Alpha mine', password: 'secret', author: t.users.author.id, date: at(6) })
  ).id;
  const parentCategory = await createTerm(ds, 'category', 'Parent cat');
  const childCategory = await createTerm(ds, 'category', 'Alpha child');
  await setParent(ds, childCategory, parentCategory);
  const tag = await createTerm(ds, 'post_tag', 'Alphatag');
  await createTerm(ds, 'post_format', 'post-format-aside');
  await createTerm(ds, 'post_format', 'post-format-audio');
  return {
    post,
    page,
    childPage,
    parentPage,
    draft,
    privatePost,
    protectedPost,
    authorProtected,
    parentCategory,
    childCategory,
    tag,
  };
}

const ids = (body: Array<{ id: unknown }>) => body.map((r) => r.id);

describe('GET search (cms names)', () => {
  let t: TestApp;
  let s: Seeded;

  beforeAll(async () => {
    t = await createTestApp('search_route');
    s = await seed(t);
  });
  afterAll(() => t.close());

  it('finds published posts and pages by default (type post, subtype any), newest first, with their links', async () => {
    const res = await t.http.get(`${API}/search?search=alpha`).expect(200);
    // Relevance: every title holds "alpha"; then newest first. Drafts, private and protected posts are not found.
    expect(ids(res.body)).toEqual([s.post, s.page, s.childPage]);
    expect(res.headers['x-cms-total']).toBe('3');
    expect(res.headers['x-cms-totalpages']).toBe('1');
    expect(res.body[0]).toEqual({
      id: s.post,
      title: 'Alpha launch',
      url: `${HOME}/alpha-launch/`,
      type: 'post',
      subtype: 'post',
      _links: {
        self: [{ embeddable: true, href: `${HOME}${API}/posts/${s.post}` }],
        about: [{ href: `${HOME}${API}/types/post` }],
        collection: [{ href: `${HOME}${API}/search` }],
      },
    });
    // A page's address goes through its parents.
    expect(res.body[2]).toMatchObject({ subtype: 'page', url: `${HOME}/about/team/` });
    expect(res.body[2]._links.self).toEqual([{ embeddable: true, href: `${HOME}${API}/pages/${s.childPage}` }]);
  });

  it("orders posts by relevance when there is a search (WP_Query's default for a search)", async () => {
    const older = (await createPost(t.dataSource, { title: 'Delta echo', date: '2023-01-01 10:00:00' })).id;
    const newer = (await createPost(t.dataSource, { title: 'Echo', content: 'delta', date: '2023-02-01 10:00:00' })).id;
    const res = await t.http.get(`${API}/search?search=delta%20echo`).expect(200);
    expect(ids(res.body)).toEqual([older, newer]);
    await t.http
      .delete(`${API}/posts/${older}?force=true`)
      .set('Authorization', t.users.administrator.authorization)
      .expect(200);
    await t.http
      .delete(`${API}/posts/${newer}?force=true`)
      .set('Authorization', t.users.administrator.authorization)
      .expect(200);
  });

  it('lists every published post and page without a search, newest first', async () => {
    const res = await t.http.get(`${API}/search`).expect(200);
    expect(ids(res.body)).toEqual([s.post, s.page, s.childPage, s.protectedPost, s.authorProtected, s.parentPage]);
    // Without a search, protected posts are listed (their title only), as WordPress lists them.
    expect(res.body.find((r: { id: number }) => r.id === s.protectedPost).title).toBe('Alpha sealed');
  });

  it('limits posts to the subtypes asked for; any wins; a subtype of another type leaves posts only', async () => {
    const pages = await t.http.get(`${API}/search?search=alpha&subtype=page`).expect(200);
    expect(ids(pages.body)).toEqual([s.page, s.childPage]);
    const both = await t.http.get(`${API}/search?search=alpha&subtype[]=post&subtype[]=page`).expect(200);
    expect(ids(both.body)).toEqual([s.post, s.page, s.childPage]);
    const any = await t.http.get(`${API}/search?search=alpha&subtype=page,any`).expect(200);
    expect(ids(any.body)).toEqual([s.post, s.page, s.childPage]);
    // WordPress's WP_Query reads an empty list of post types as `post`.
    const none = await t.http.get(`${API}/search?search=alpha&subtype=category`).expect(200);
    expect(ids(none.body)).toEqual([s.post]);
  });

  it('takes include and exclude', async () => {
    const inc = await t.http.get(`${API}/search?search=alpha&include=${s.page},${s.draft}`).expect(200);
    expect(ids(inc.body)).toEqual([s.page]);
    const exc = await t.http.get(`${API}/search?search=alpha&exclude=${s.page}`).expect(200);
    expect(ids(exc.body)).toEqual([s.post, s.childPage]);
  });

  it('never finds drafts or private posts, nor, for anonymous callers, password-protected ones', async () => {
    for (const agent of [t.http.get(`${API}/search?search=alpha`), t.http.get(`${API}/search?search=private`)]) {
      const res = await agent.expect(200);
      expect(ids(res.body)).not.toContain(s.draft);
      expect(ids(res.body)).not.toContain(s.privatePost);
      expect(ids(res.body)).not.toContain(s.protectedPost);
    }
    const admin = await t.http
      .get(`${API}/search?search=alpha`)
      .set('Authorization', t.users.administrator.authorization)
      .expect(200);
    expect(ids(admin.body)).not.toContain(s.draft);
    expect(ids(admin.body)).not.toContain(s.privatePost);
  });

  it('finds password-protected posts for the callers who can edit them only', async () => {
    const editor = await t.http
      .get(`${API}/search?search=alpha`)
      .set('Authorization', t.users.editor.authorization)
      .expect(200);
    expect(ids(editor.body)).toEqual(expect.arrayContaining([s.protectedPost, s.authorProtected]));
    // An author may edit its own posts, not pages: its protected posts are found when only posts are searched.
    const author = t.users.author.authorization;
    const own = await t.http.get(`${API}/search?search=alpha&subtype=post`).set('Authorization', author).expect(200);
    expect(ids(own.body)).toEqual([s.post, s.authorProtected]);
    const any = await t.http.get(`${API}/search?search=alpha`).set('Authorization', author).expect(200);
    expect(ids(any.body)).toEqual([s.post, s.page, s.childPage]);
    const subscriber = await t.http
      .get(`${API}/search?search=sealed`)
      .set('Authorization', t.users.subscriber.authorization)
      .expect(200);
    expect(subscriber.body).toEqual([]);
  });

  it('searches terms of every public REST taxonomy by name and slug, by name (type term)', async () => {
    const res = await t.http.get(`${API}/search?type=term&search=alpha`).expect(200);
    expect(res.body).toEqual([
      {
        id: s.childCategory,
        title: 'Alpha child',
        url: `${HOME}/category/parent-cat/alpha-child/`,
        // WordPress 6.1 names the taxonomy here, and gives no subtype.
        type: 'category',
        _links: {
          self: [{ embeddable: true, href: `${HOME}${API}/categories/${s.childCategory}` }],
          about: [{ href: `${HOME}${API}/taxonomies/category` }],
          collection: [{ href: `${HOME}${API}/search` }],
        },
      },
      expect.objectContaining({ id: s.tag, title: 'Alphatag', url: `${HOME}/tag/alphatag/`, type: 'post_tag' }),
    ]);
    const tags = await t.http.get(`${API}/search?type=term&search=alpha&subtype=post_tag`).expect(200);
    expect(ids(tags.body)).toEqual([s.tag]);
    // `include` wins over `exclude` (WP_Term_Query).
    const inc = await t.http
      .get(`${API}/search?type=term&include=${s.tag},${s.parentCategory}&exclude=${s.tag}`)
      .expect(200);
    expect(ids(inc.body)).toEqual([s.tag, s.parentCategory]);
    const exc = await t.http.get(`${API}/search?type=term&search=alpha&exclude=${s.tag}`).expect(200);
    expect(ids(exc.body)).toEqual([s.childCategory]);
    // The post format terms are not of a REST taxonomy.
    const all = await t.http.get(`${API}/search?type=term&per_page=100`).expect(200);
    expect(all.body.map((r: { type: string }) => r.type)).not.toContain('post_format');
  });

  it('searches post formats that have a term, by slug and name (type post-format)', async () => {
    const res = await t.http.get(`${API}/search?type=post-format&search=AU`).expect(200);
    expect(res.body).toEqual([
      {
        id: 'audio',
        title: 'Audio',
        url: `${HOME}/type/audio/`,
        type: 'post-format',
        _links: { collection: [{ href: `${HOME}${API}/search` }] },
      },
    ]);
    const all = await t.http.get(`${API}/search?type=post-format`).expect(200);
    expect(ids(all.body)).toEqual(['aside', 'audio']);
    expect(all.headers['x-cms-total']).toBe('2');
  });

  it('pages results with the totals and Link headers', async () => {
    const res = await t.http.get(`${API}/search?search=alpha&per_page=1&page=2`).expect(200);
    expect(ids(res.body)).toEqual([s.page]);
    expect(res.headers['x-cms-total']).toBe('3');
    expect(res.headers['x-cms-totalpages']).toBe('3');
    expect(res.headers.link).toBe(
      `<${HOME}${API}/search?search=alpha&per_page=1&page=1>; rel="prev", ` +
        `<${HOME}${API}/search?search=alpha&per_page=1&page=3>; rel="next"`,
    );
  });

  it('refuses a page past the last for terms and formats; for posts answers none (found_posts stays 0)', async () => {
    expectRestError(
      await t.http.get(`${API}/search?type=term&search=alpha&page=5`),
      'rest_search_invalid_page_number',
      400,
    );
    expectRestError(await t.http.get(`${API}/search?type=post-format&page=2`), 'rest_search_invalid_page_number', 400);
    const posts = await t.http.get(`${API}/search?search=alpha&page=5`).expect(200);
    expect(posts.body).toEqual([]);
    expect(posts.headers['x-cms-total']).toBe('0');
    expect(posts.headers['x-cms-totalpages']).toBe('0');
    // WP_REST_Search_Controller links the page before the asked one, past the last page too.
    expect(posts.headers.link).toBe(`<${HOME}${API}/search?search=alpha&page=4>; rel="prev"`);
    // A page number past what an integer holds: no 500.
    const huge = await t.http.get(`${API}/search?search=alpha&page=99999999999999999999`).expect(200);
    expect(huge.body).toEqual([]);
    expectRestError(
      await t.http.get(`${API}/search?type=term&page=99999999999999999999`),
      'rest_search_invalid_page_number',
      400,
    );
    expect((await t.http.get(`${API}/search?type=post-format&search=zzz&page=99999999999999999999`)).status).toBe(200);
  });

  it('refuses a bad type, subtype, context or page with rest_invalid_param', async () => {
    for (const query of ['type=user', 'subtype=nope', 'subtype=post,nope', 'context=edit', 'page=0', 'per_page=101']) {
      const res = await t.http.get(`${API}/search?${query}`);
      expectRestError(res, 'rest_invalid_param', 400);
    }
    const res = await t.http.get(`${API}/search?type=user`);
    expect(Object.keys(res.body.data.params)).toEqual(['type']);
  });

  it('embeds the post or term found through self', async () => {
    const res = await t.http.get(`${API}/search?search=alpha&_embed`).expect(200);
    const first = res.body[0];
    expect(first._embedded.self).toHaveLength(1);
    expect(first._embedded.self[0]).toMatchObject({ id: s.post, type: 'post', title: { rendered: 'Alpha launch' } });
    // Embedded in the embed context: no content.
    expect(first._embedded.self[0].content).toBeUndefined();
    const terms = await t.http.get(`${API}/search?type=term&search=alpha&_embed=self`).expect(200);
    expect(terms.body[0]._embedded.self[0]).toMatchObject({ id: s.childCategory, name: 'Alpha child' });
    const formats = await t.http.get(`${API}/search?type=post-format&_embed`).expect(200);
    expect(formats.body[0]._embedded).toBeUndefined();
  });

  it('answers OPTIONS with the arguments and the item schema', async () => {
    const res = await t.http.options(`${API}/search`).expect(200);
    expect(res.body.namespace).toBe('cms/v2');
    expect(res.body.methods).toEqual(['GET']);
    const args = res.body.endpoints[0].args;
    expect(Object.keys(args)).toEqual([
      'context',
      'page',
      'per_page',
      'search',
      'type',
      'subtype',
      'exclude',
      'include',
    ]);
    expect(args.context).toMatchObject({ default: 'view', enum: ['view', 'embed'] });
    expect(args.type).toEqual({
      default: 'post',
      description: 'Limit results to items of an object type.',
      type: 'string',
      enum: ['post', 'term', 'post-format'],
      required: false,
    });
    expect(args.subtype).toMatchObject({
      default: 'any',
      type: 'array',
      items: { enum: ['post', 'page', 'category', 'post_tag', 'any'], type: 'string' },
    });
    expect(args.include).toMatchObject({ type: 'array', items: { type: 'integer' }, default: [] });
    const schema = res.body.schema;
    expect(schema.title).toBe('search-result');
    expect(Object.keys(schema.properties)).toEqual(['id', 'title', 'url', 'type', 'subtype']);
    expect(schema.properties.id.type).toEqual(['integer', 'string']);
    expect(schema.properties.subtype.enum).toEqual(['post', 'page', 'category', 'post_tag']);
  });

  it('is open to everyone: logged-in callers get the same answer', async () => {
    const anonymous = await t.http.get(`${API}/search?type=term`).expect(200);
    const subscriber = await t.http
      .get(`${API}/search?type=term`)
      .set('Authorization', t.users.subscriber.authorization)
      .expect(200);
    expect(subscriber.body).toEqual(anonymous.body);
  });

  it('costs a fixed number of queries for a page of 100 results, _embed included', async () => {
    for (let i = 0; i < 100; i++) await createPost(t.dataSource, { title: `Bulk omega ${i}`, name: `omega-${i}` });
    // Once: the scheduled posts' check, the options, the total of the search (kept a moment).
    await t.http.get(`${API}/search?search=omega&per_page=1&_embed`).expect(200);
    const small = await t.queries.during(() => t.http.get(`${API}/search?search=omega&per_page=5&_embed`).expect(200));
    const large = await t.queries.during(async () => {
      const res = await t.http.get(`${API}/search?search=omega&per_page=100&_embed`).expect(200);
      expect(res.body).toHaveLength(100);
      expect(res.body[99]._embedded.self[0].title.rendered).toMatch(/^Bulk omega/);
    });
    // The page of results; the embedded posts' extras (their rows are those the search read).
    expect(large).toBe(small);
    expect(large).toBeLessThanOrEqual(2);
  });

  it('costs a fixed number of queries for a page of 100 terms, _embed included', async () => {
    for (let i = 0; i < 100; i++) await createTerm(t.dataSource, i % 2 ? 'post_tag' : 'category', `Omega term ${i}`);
    await t.http.get(`${API}/search?type=term&search=omega&per_page=1&_embed`).expect(200);
    const small = await t.queries.during(() =>
      t.http.get(`${API}/search?type=term&search=omega&per_page=5&_embed`).expect(200),
    );
    const large = await t.queries.during(async () => {
      const res = await t.http.get(`${API}/search?type=term&search=omega&per_page=100&_embed`).expect(200);
      expect(res.body).toHaveLength(100);
      expect(res.body[99]._embedded.self[0].name).toMatch(/^Omega term/);
    });
    expect(large).toBe(small);
    expect(large).toBeLessThanOrEqual(3);
  });

  it('keeps anonymous answers in the response cache until an edit changes what a search finds', async () => {
    const url = `${API}/search?search=kappa`;
    expect((await t.http.get(url).expect(200)).body).toEqual([]);
    expect(await t.queries.during(() => t.http.get(url).expect(200))).toBe(0);
    await t.http
      .post(`${API}/pages/${s.parentPage}`)
      .set('Authorization', t.users.administrator.authorization)
      .send({ title: 'Kappa about' })
      .expect(200);
    expect(ids((await t.http.get(url).expect(200)).body)).toEqual([s.parentPage]);
    // A search of terms reads no post: it outlives an edit of a post's title.
    const terms = `${API}/search?type=term&search=alpha`;
    await t.http.get(terms).expect(200);
    await t.http
      .post(`${API}/pages/${s.parentPage}`)
      .set('Authorization', t.users.administrator.authorization)
      .send({ title: 'About us' })
      .expect(200);
    expect(await t.queries.during(() => t.http.get(terms).expect(200))).toBe(0);
  });
});

describe('GET search (WordPress names)', () => {
  let t: TestApp;
  let s: Seeded;

  beforeAll(async () => {
    t = await createTestApp('search_route_wp', { cms: { wireNames: 'wordpress' } });
    s = await seed(t);
  });
  afterAll(() => t.close());

  it('serves wp/v2/search with X-WP-* headers and wp/v2 links', async () => {
    const res = await t.http.get('/wp-json/wp/v2/search?search=alpha&per_page=2').expect(200);
    expect(res.headers['x-wp-total']).toBe('3');
    expect(res.headers['x-wp-totalpages']).toBe('2');
    expect(res.headers['x-cms-total']).toBeUndefined();
    expect(res.headers.link).toBe(`<${HOME}/wp-json/wp/v2/search?search=alpha&per_page=2&page=2>; rel="next"`);
    expect(res.body[0]._links).toEqual({
      self: [{ embeddable: true, href: `${HOME}/wp-json/wp/v2/posts/${s.post}` }],
      about: [{ href: `${HOME}/wp-json/wp/v2/types/post` }],
      collection: [{ href: `${HOME}/wp-json/wp/v2/search` }],
    });
    const terms = await t.http.get('/wp-json/wp/v2/search?type=term&search=alpha&_embed').expect(200);
    expect(terms.body[0]._links.about).toEqual([{ href: `${HOME}/wp-json/wp/v2/taxonomies/category` }]);
    expect(terms.body[0]._embedded.self[0]).toMatchObject({ id: s.childCategory, taxonomy: 'category' });
  });

  it('answers the same errors', async () => {
    expectRestError(await t.http.get('/wp-json/wp/v2/search?type=nope'), 'rest_invalid_param', 400);
    expectRestError(await t.http.get('/wp-json/wp/v2/search?subtype=nope'), 'rest_invalid_param', 400);
    expectRestError(await t.http.get('/wp-json/wp/v2/search?type=term&page=9'), 'rest_search_invalid_page_number', 400);
    const options = await t.http.options('/wp-json/wp/v2/search').expect(200);
    expect(options.body.namespace).toBe('wp/v2');
  });
});
