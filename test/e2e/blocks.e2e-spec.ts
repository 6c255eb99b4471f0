import { createPost } from '../factories/post.factory';
import { createTestApp, expectRestError, TestApp } from '../utils/test-app';

/** Reusable blocks (`wp_block`, `blocks`): served by the posts routes where WordPress's names list them. */
describe('reusable blocks (wp_block) with WordPress names', () => {
  let t: TestApp;
  const as = (role: keyof TestApp['users'] | null) => {
    const auth = role ? { Authorization: t.users[role].authorization } : {};
    return {
      get: (path: string) => t.http.get(`/wp-json/wp/v2${path}`).set(auth),
      post: (path: string, body: object = {}) => t.http.post(`/wp-json/wp/v2${path}`).set(auth).send(body),
      del: (path: string) => t.http.delete(`/wp-json/wp/v2${path}`).set(auth),
    };
  };

  beforeAll(async () => {
    t = await createTestApp('blocks', { cms: { wireNames: 'wordpress' } });
  });
  afterAll(() => t?.close());

  it('creates a block as an author (publish_posts), reads, updates and deletes it', async () => {
    const created = await as('author')
      .post('/blocks', {
        title: 'Banner',
        content: '<!-- wp:paragraph --><p>Hi</p><!-- /wp:paragraph -->',
        status: 'publish',
      })
      .expect(201);
    expect(created.body).toMatchObject({ type: 'wp_block', status: 'publish', title: { raw: 'Banner' } });
    expect(created.headers.location).toBe(`http://example.org/wp-json/wp/v2/blocks/${created.body.id}`);
    const read = await as('author').get(`/blocks/${created.body.id}?context=edit`).expect(200);
    expect(read.body.content.raw).toBe('<!-- wp:paragraph --><p>Hi</p><!-- /wp:paragraph -->');
    const updated = await as('author').post(`/blocks/${created.body.id}`, { title: 'Banner 2' }).expect(200);
    expect(updated.body.title.raw).toBe('Banner 2');
    const revisions = await as('author').get(`/blocks/${created.body.id}/revisions`).expect(200);
    expect(revisions.body.length).toBeGreaterThan(0);
    await as('author').del(`/blocks/${created.body.id}?force=true`).expect(200);
    expectRestError(await as('author').get(`/blocks/${created.body.id}`), 'rest_post_invalid_id', 404);
  });

  it('lists blocks to those who can edit posts; refuses contributors creating (rest_cannot_create 403)', async () => {
    await createPost(t.dataSource, { type: 'wp_block', title: 'Listed', status: 'publish' });
    const list = await as('contributor').get('/blocks?context=edit').expect(200);
    expect(list.body.map((b: { title: { raw?: string } }) => b.title.raw)).toContain('Listed');
    expectRestError(
      await as('contributor').post('/blocks', { title: 'No', status: 'publish' }),
      'rest_cannot_create',
      403,
    );
    expectRestError(await as(null).post('/blocks', { title: 'No' }), 'rest_cannot_create', 401);
  });

  it('refuses others: an editor may edit another author’s block, an author may not (rest_cannot_edit 403)', async () => {
    const block = await createPost(t.dataSource, {
      type: 'wp_block',
      title: 'Mine',
      status: 'publish',
      author: t.users.editor.id,
    });
    expectRestError(await as('author').post(`/blocks/${block.id}`, { title: 'Theirs' }), 'rest_cannot_edit', 403);
    await as('editor').post(`/blocks/${block.id}`, { title: 'Still mine' }).expect(200);
    expectRestError(await as('author').get('/blocks/999999'), 'rest_post_invalid_id', 404);
  });

  it('shows types/wp_block and the blocks route in the index; OPTIONS answers the wp_block schema', async () => {
    const type = await t.http.get('/wp-json/wp/v2/types/wp_block').expect(200);
    expect(type.body).toMatchObject({ slug: 'wp_block', rest_base: 'blocks' });
    const options = await t.http.options('/wp-json/wp/v2/blocks').expect(200);
    expect(options.body.schema.title).toBe('wp_block');
  });
});

describe('reusable blocks with cms names (the seed)', () => {
  let t: TestApp;
  const as = (role: keyof TestApp['users'] | null) => {
    const auth = role ? { Authorization: t.users[role].authorization } : {};
    return {
      get: (path: string) => t.http.get(`/cms-json/cms/v2${path}`).set(auth),
      post: (path: string, body: object = {}) => t.http.post(`/cms-json/cms/v2${path}`).set(auth).send(body),
      del: (path: string) => t.http.delete(`/cms-json/cms/v2${path}`).set(auth),
    };
  };
  beforeAll(async () => {
    t = await createTestApp('blocks_cms');
  });
  afterAll(() => t?.close());

  it('serves blocks: an author creates, reads, updates and deletes one; X-CMS-* headers on the list', async () => {
    const created = await as('author')
      .post('/blocks', { title: 'Footer', content: '<!-- wp:paragraph --><p>Bye</p><!-- /wp:paragraph -->' })
      .expect(201);
    expect(created.body).toMatchObject({ type: 'wp_block', status: 'draft', title: { raw: 'Footer' } });
    expect(created.body.content).toEqual({
      raw: '<!-- wp:paragraph --><p>Bye</p><!-- /wp:paragraph -->',
      protected: false,
    });
    expect(created.headers.location).toBe(`http://example.org/cms-json/cms/v2/blocks/${created.body.id}`);
    await as('author').post(`/blocks/${created.body.id}`, { status: 'publish' }).expect(200);
    const list = await as('contributor').get('/blocks').expect(200);
    expect(list.headers['x-cms-total']).toBe('1');
    expect(list.body.map((b: { id: number }) => b.id)).toEqual([created.body.id]);
    await as('author').del(`/blocks/${created.body.id}?force=true`).expect(200);
    expectRestError(await as('author').get(`/blocks/${created.body.id}`), 'rest_post_invalid_id', 404);
  });

  it('shows blocks only to those who can edit posts; refuses contributors creating (403)', async () => {
    const block = await createPost(t.dataSource, { type: 'wp_block', title: 'Shared', status: 'publish' });
    for (const role of [null, 'subscriber'] as const) {
      expect((await as(role).get('/blocks').expect(200)).body).toEqual([]);
    }
    expectRestError(await as(null).get(`/blocks/${block.id}`), 'rest_forbidden', 401);
    expectRestError(await as('subscriber').get(`/blocks/${block.id}`), 'rest_forbidden', 403);
    expectRestError(await as(null).get('/blocks?context=edit'), 'rest_forbidden_context', 401);
    expectRestError(await as('contributor').post('/blocks', { title: 'No' }), 'rest_cannot_create', 403);
    expect((await as('contributor').get(`/blocks/${block.id}`).expect(200)).body.title).toEqual({ raw: 'Shared' });
  });

  it('lists the blocks routes in the index and OPTIONS; types, statuses and authors stay the seed’s', async () => {
    const index = await t.http.get('/cms-json/').expect(200);
    expect(Object.keys(index.body.routes)).toEqual(
      expect.arrayContaining(['/cms/v2/blocks', '/cms/v2/blocks/(?P<id>[\\d]+)']),
    );
    const options = await t.http.options('/cms-json/cms/v2/blocks').expect(200);
    expect(options.body.schema.title).toBe('wp_block');
    const types = await as('administrator').get('/types?context=edit').expect(200);
    expect(Object.keys(types.body)).toEqual(['post', 'page', 'attachment']);
    expectRestError(await t.http.get('/cms-json/cms/v2/types/wp_block'), 'rest_type_invalid', 404);
    // A block published by a subscriber-turned-author does not make its author one of the seed's authors.
    await createPost(t.dataSource, {
      type: 'wp_block',
      title: 'Only a block',
      status: 'publish',
      author: t.users.editor.id,
    });
    const before = await as('administrator').get('/users?has_published_posts=true&per_page=100').expect(200);
    expect(before.body.map((u: { id: number }) => u.id)).not.toContain(t.users.editor.id);
  });
});
