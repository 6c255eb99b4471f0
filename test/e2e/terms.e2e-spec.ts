import { TermTaxonomyEntity } from '../../src/core/database/entities/term-taxonomy.entity';
import { assignTerms, createPost, createTerm } from '../factories/post.factory';
import { PostsService } from '../../src/resources/posts/posts.service';
import { createTestApp, expectRestError, TestApp } from '../utils/test-app';

const API = '/cms-json/cms/v2';

describe('terms: categories and tags', () => {
  let t: TestApp;
  const auth = (role: keyof TestApp['users']) => t.users[role].authorization;
  let parent: number;
  let child: number;
  let tag: number;
  let post: number;

  beforeAll(async () => {
    t = await createTestApp('terms');
    parent = await createTerm(t.dataSource, 'category', 'Parent');
    child = await createTerm(t.dataSource, 'category', 'Child', parent);
    tag = await createTerm(t.dataSource, 'post_tag', 'News');
    post = (await createPost(t.dataSource, { title: 'Tagged' })).id;
    await assignTerms(t.dataSource, post, 'post_tag', [tag]);
    await assignTerms(t.dataSource, post, 'category', [child]);
    await t.dataSource.getRepository(TermTaxonomyEntity).update({ termId: tag, taxonomy: 'post_tag' }, { count: 1 });
  });
  afterAll(() => t.close());

  it('lists categories by name with totals, fields in the reference order and links', async () => {
    const res = await t.http.get(`${API}/categories`).expect(200);
    expect(res.headers['x-cms-total']).toBe('3');
    expect(res.body.map((c: { name: string }) => c.name)).toEqual(['Child', 'Parent', 'Uncategorized']);
    const item = res.body[0];
    expect(Object.keys(item)).toEqual([
      'id',
      'count',
      'description',
      'link',
      'name',
      'slug',
      'taxonomy',
      'parent',
      'meta',
      '_links',
    ]);
    expect(item).toMatchObject({
      id: child,
      link: 'http://example.org/category/parent/child/',
      slug: 'child',
      taxonomy: 'category',
      parent,
    });
    expect(item._links.up[0]).toEqual({ embeddable: true, href: `http://example.org${API}/categories/${parent}` });
    expect(item._links['cms:post_type'][0].href).toBe(`http://example.org${API}/posts?categories=${child}`);
    expect(item._links.about[0].href).toBe(`http://example.org${API}/taxonomies/category`);
  });

  it('gives tags no parent and the schema title tag', async () => {
    const res = await t.http.get(`${API}/tags/${tag}`).expect(200);
    expect(res.body).toMatchObject({
      id: tag,
      name: 'News',
      count: 1,
      link: 'http://example.org/tag/news/',
      taxonomy: 'post_tag',
    });
    expect(res.body.parent).toBeUndefined();
    const options = await t.http.options(`${API}/tags`).expect(200);
    expect(options.body.schema.title).toBe('tag');
    expect(Object.keys(options.body.schema.properties).sort()).toEqual([
      'count',
      'description',
      'id',
      'link',
      'meta',
      'name',
      'slug',
      'taxonomy',
    ]);
  });

  it('answers a term through the route of another taxonomy with rest_term_invalid', async () => {
    expectRestError(await t.http.get(`${API}/categories/${tag}`), 'rest_term_invalid', 404);
    expectRestError(await t.http.get(`${API}/tags/999999`), 'rest_term_invalid', 404);
  });

  it('filters by parent, post, search, slug, include/exclude and hide_empty', async () => {
    const names = async (q: string, base = 'categories') =>
      (await t.http.get(`${API}/${base}?${q}`).expect(200)).body.map((c: { name: string }) => c.name);
    expect(await names('parent=0')).toEqual(['Parent', 'Uncategorized']);
    expect(await names(`parent=${parent}`)).toEqual(['Child']);
    expect(await names(`post=${post}`)).toEqual(['Child']);
    expect(await names(`post=${post}`, 'tags')).toEqual(['News']);
    expect(await names('search=chi')).toEqual(['Child']);
    expect(await names('slug=parent')).toEqual(['Parent']);
    expect(await names(`include=${parent},${child}&orderby=include`)).toEqual(['Parent', 'Child']);
    expect(await names(`exclude=${parent}`)).toEqual(['Child', 'Uncategorized']);
    expect(await names('hide_empty=true', 'tags')).toEqual(['News']);
    expect(await names('orderby=id&order=desc')).toEqual(['Child', 'Parent', 'Uncategorized']);
    const empty = await t.http.get(`${API}/tags?search=nothing`).expect(200);
    expect(empty.headers['x-cms-total']).toBe('0');
    expect(empty.headers['x-cms-totalpages']).toBe('0');
  });

  it('refuses a parent filter on tags and an edit context to callers who cannot edit terms', async () => {
    expectRestError(await t.http.get(`${API}/tags?parent=1`), 'rest_taxonomy_not_hierarchical', 400);
    expectRestError(await t.http.get(`${API}/categories?context=edit`), 'rest_forbidden_context', 401);
    await t.http.get(`${API}/categories?context=edit`).set('Authorization', auth('editor')).expect(200);
  });

  it('creates a term: 201 with Location, slug from the name, duplicates refused with term_exists', async () => {
    const res = await t.http
      .post(`${API}/tags`)
      .set('Authorization', auth('editor'))
      .send({ name: 'Rock & Roll', description: 'Music' })
      .expect(201);
    expect(res.headers.location).toBe(`http://example.org${API}/tags/${res.body.id}`);
    expect(res.body).toMatchObject({ name: 'Rock &amp; Roll', slug: 'rock-roll', description: 'Music', count: 0 });
    const dup = await t.http.post(`${API}/tags`).set('Authorization', auth('editor')).send({ name: 'Rock & Roll' });
    expectRestError(dup, 'term_exists', 400);
    expect(dup.body.data.term_id).toBe(res.body.id);
    const sameSlug = await t.http
      .post(`${API}/tags`)
      .set('Authorization', auth('editor'))
      .send({ name: 'Rock-Roll' })
      .expect(201);
    expect(sameSlug.body.slug).toBe('rock-roll-2');
  });

  it('checks parents on create: missing parent, and parents on a flat taxonomy', async () => {
    expectRestError(
      await t.http
        .post(`${API}/categories`)
        .set('Authorization', auth('editor'))
        .send({ name: 'Orphan', parent: 999999 }),
      'rest_term_invalid',
      400,
    );
    expectRestError(
      await t.http.post(`${API}/tags`).set('Authorization', auth('editor')).send({ name: 'Flat', parent: tag }),
      'rest_taxonomy_not_hierarchical',
      400,
    );
    const nested = await t.http
      .post(`${API}/categories`)
      .set('Authorization', auth('editor'))
      .send({ name: 'Grandchild', parent: child })
      .expect(201);
    expect(nested.body.link).toBe('http://example.org/category/parent/child/grandchild/');
  });

  it('requires the taxonomy capabilities to write terms', async () => {
    expectRestError(await t.http.post(`${API}/categories`).send({ name: 'x' }), 'rest_cannot_create', 401);
    expectRestError(
      await t.http.post(`${API}/categories`).set('Authorization', auth('author')).send({ name: 'x' }),
      'rest_cannot_create',
      403,
    );
    expectRestError(
      await t.http.put(`${API}/tags/${tag}`).set('Authorization', auth('contributor')).send({ name: 'x' }),
      'rest_cannot_update',
      403,
    );
    expectRestError(
      await t.http.delete(`${API}/tags/${tag}?force=true`).set('Authorization', auth('author')),
      'rest_cannot_delete',
      403,
    );
    expectRestError(
      await t.http.put(`${API}/tags/999999`).set('Authorization', auth('editor')).send({ name: 'x' }),
      'rest_term_invalid',
      404,
    );
  });

  it('updates name, slug, description and parent', async () => {
    const created = await t.http
      .post(`${API}/categories`)
      .set('Authorization', auth('editor'))
      .send({ name: 'Movable' })
      .expect(201);
    const res = await t.http
      .put(`${API}/categories/${created.body.id}`)
      .set('Authorization', auth('editor'))
      .send({ name: 'Moved', slug: 'moved-here', description: '<b>Bold</b><script>x</script>', parent })
      .expect(200);
    expect(res.body).toMatchObject({ name: 'Moved', slug: 'moved-here', description: '<b>Bold</b>x', parent });
    const taken = await t.http
      .put(`${API}/categories/${created.body.id}`)
      .set('Authorization', auth('editor'))
      .send({ slug: 'child' });
    expectRestError(taken, 'duplicate_term_slug', 400);
  });

  it('deletes only with force, answering the term as it was; children move up; posts lose it', async () => {
    const doomed = await t.http
      .post(`${API}/categories`)
      .set('Authorization', auth('editor'))
      .send({ name: 'Doomed' })
      .expect(201);
    const kid = await t.http
      .post(`${API}/categories`)
      .set('Authorization', auth('editor'))
      .send({ name: 'Kid', parent: doomed.body.id })
      .expect(201);
    const filed = (await createPost(t.dataSource, { title: 'Filed' })).id;
    await assignTerms(t.dataSource, filed, 'category', [doomed.body.id]);
    expectRestError(
      await t.http.delete(`${API}/categories/${doomed.body.id}`).set('Authorization', auth('editor')),
      'rest_trash_not_supported',
      501,
    );
    const res = await t.http
      .delete(`${API}/categories/${doomed.body.id}?force=true`)
      .set('Authorization', auth('editor'))
      .expect(200);
    expect(res.body).toMatchObject({ id: doomed.body.id, name: 'Doomed' });
    expectRestError(await t.http.get(`${API}/categories/${doomed.body.id}`), 'rest_term_invalid', 404);
    expect((await t.http.get(`${API}/categories/${kid.body.id}`).expect(200)).body.parent).toBe(0);
    const after = await t.http.get(`${API}/posts/${filed}`).expect(200);
    expect(after.body.categories).toEqual([1]);
  });

  it('agrees with taxonomies?type=: each taxonomy of the type has its route and its array on posts', async () => {
    const taxonomies = (await t.http.get(`${API}/taxonomies?type=post`).expect(200)).body as Record<
      string,
      { rest_base: string }
    >;
    expect(Object.keys(taxonomies).sort()).toEqual(['category', 'post_tag']);
    const item = (await t.http.get(`${API}/posts/${post}`).expect(200)).body;
    for (const { rest_base } of Object.values(taxonomies)) {
      const ofPost = (await t.http.get(`${API}/${rest_base}?post=${post}`).expect(200)).body.map(
        (x: { id: number }) => x.id,
      );
      expect(item[rest_base]).toEqual(ofPost);
    }
    expect(Object.keys((await t.http.get(`${API}/taxonomies?type=page`).expect(200)).body)).toEqual([]);
  });

  it('lists 100 posts with all their term arrays in as many queries as 5', async () => {
    const cats = [
      await createTerm(t.dataSource, 'category', 'Bulk A'),
      await createTerm(t.dataSource, 'category', 'Bulk B'),
    ];
    const tags = [
      await createTerm(t.dataSource, 'post_tag', 'Bulk x'),
      await createTerm(t.dataSource, 'post_tag', 'Bulk y'),
    ];
    for (let i = 0; i < 100; i++) {
      const id = (await createPost(t.dataSource, { title: `Bulk ${i}`, date: '2031-01-01 00:00:00' })).id;
      await assignTerms(t.dataSource, id, 'category', [cats[i % 2]]);
      await assignTerms(t.dataSource, id, 'post_tag', tags.slice(0, i % 3));
    }
    const posts = t.app.get(PostsService);
    await t.http.get(`${API}/posts?per_page=1`).expect(200);
    posts.clearCounts();
    const few = await t.queries.during(() => t.http.get(`${API}/posts?per_page=5`).expect(200));
    posts.clearCounts();
    let body: Array<{ categories: number[]; tags: number[] }> = [];
    const many = await t.queries.during(async () => {
      body = (await t.http.get(`${API}/posts?per_page=100`).expect(200)).body;
    });
    expect(body).toHaveLength(100);
    expect(body.every((p) => p.categories.length === 1)).toBe(true);
    expect(many).toBe(few);
  });

  it('keeps a post and its terms in agreement: posts?tags=, tags?post= and the post term arrays', async () => {
    const created = await t.http
      .post(`${API}/posts`)
      .set('Authorization', auth('editor'))
      .send({ title: 'Agree', status: 'publish', tags: [tag] })
      .expect(201);
    const byTag = (await t.http.get(`${API}/posts?tags=${tag}`).expect(200)).body.map((p: { id: number }) => p.id);
    expect(byTag).toContain(created.body.id);
    const tagsOfPost = (await t.http.get(`${API}/tags?post=${created.body.id}`).expect(200)).body.map(
      (x: { id: number }) => x.id,
    );
    expect(tagsOfPost).toEqual(created.body.tags);
    expect((await t.http.get(`${API}/tags/${tag}`).expect(200)).body.count).toBe(2);
  });
});
