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
  beforeAll(async () => {
    t = await createTestApp('blocks_cms');
  });
  afterAll(() => t?.close());

  it('does not serve blocks: the type is not registered', async () => {
    const res = await t.http.get('/cms-json/cms/v2/blocks').set('Authorization', t.users.administrator.authorization);
    expectRestError(res, 'rest_no_route', 404);
  });
});
