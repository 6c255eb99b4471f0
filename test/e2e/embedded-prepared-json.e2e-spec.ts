import { HookRegistry, RestResponse } from '../../src';
import { OptionsService } from '../../src/core/options/options.service';
import { TermResource } from '../../src/resources/terms/term.resource';
import { assignTerms, createPost, createTerm } from '../factories/post.factory';
import { createTestApp, TEST_PREFIX, TestApp } from '../utils/test-app';

/**
 * Users and terms — listed, fetched, or embedded in posts (`_embed`) — are served as JSON prepared by an earlier
 * request while everything they are made from is unchanged. The same response built from objects (`_envelope`
 * turns prepared JSON off) is the reference; changes made behind the API's back must show at once.
 */
describe('prepared JSON of users, terms and embedded resources', () => {
  let t: TestApp;
  let post: number;
  let parent: number;
  let child: number;
  let tag: number;

  const embedded = async (query = '') =>
    (await t.http.get(`/cms-json/cms/v2/posts/${post}?_embed${query}`).expect(200)).body._embedded;
  /** The body of a request served through objects: the same request inside `_envelope`. */
  const asObjects = async (path: string) => {
    const res = await t.http.get(`${path}${path.includes('?') ? '&' : '?'}_envelope`).expect(200);
    return res.body.body;
  };

  beforeAll(async () => {
    t = await createTestApp('embedded_prepared_json');
    parent = await createTerm(t.dataSource, 'category', 'Parent topic');
    child = await createTerm(t.dataSource, 'category', 'Child topic', parent);
    tag = await createTerm(t.dataSource, 'post_tag', 'Shiny');
    post = (await createPost(t.dataSource, { author: t.users.author.id, title: 'Embedding' })).id;
    await assignTerms(t.dataSource, post, 'category', [child]);
    await assignTerms(t.dataSource, post, 'post_tag', [tag]);
  });
  afterAll(() => t.close());

  it('embeds the same JSON, in the same order, as when built from objects', async () => {
    for (const path of [
      `/cms-json/cms/v2/posts?_embed`,
      `/cms-json/cms/v2/posts/${post}?_embed`,
      `/cms-json/cms/v2/posts?_embed=author,cms:term`,
      `/cms-json/cms/v2/categories?_embed`,
      `/cms-json/cms/v2/categories/${child}?_embed`,
      `/cms-json/cms/v2/users/${t.users.author.id}`,
      `/cms-json/cms/v2/users?_embed`,
    ]) {
      const text = await t.http.get(path).expect(200);
      const again = await t.http.get(path).expect(200);
      expect(again.text).toBe(text.text);
      expect(text.text).toBe(JSON.stringify(await asObjects(path)));
    }
    const parts = await embedded();
    expect(parts.author[0]).toMatchObject({ id: t.users.author.id, slug: 'author' });
    expect(parts['cms:term'][0][0]).toMatchObject({
      id: child,
      name: 'Child topic',
      link: 'http://example.org/category/parent-topic/child-topic/',
    });
    expect(parts['cms:term'][1][0]).toMatchObject({ id: tag, name: 'Shiny' });
  });

  it('prepares an unchanged term once', async () => {
    const prepare = jest.spyOn(TermResource.prototype as unknown as { prepareItem: () => unknown }, 'prepareItem');
    try {
      await t.dataSource.query(`UPDATE ${TEST_PREFIX}term_taxonomy SET description = ? WHERE term_id = ?`, [
        'Described',
        tag,
      ]);
      await embedded();
      expect(prepare).toHaveBeenCalledTimes(1);
      prepare.mockClear();
      await embedded();
      await t.http.get(`/cms-json/cms/v2/tags/${tag}?context=embed`).expect(200);
      expect(prepare).not.toHaveBeenCalled();
    } finally {
      prepare.mockRestore();
    }
  });

  it('shows terms renamed in the database, and a parent slug changed in the child link', async () => {
    await embedded();
    await t.dataSource.query(`UPDATE ${TEST_PREFIX}terms SET name = ? WHERE term_id = ?`, ['Renamed child', child]);
    await t.dataSource.query(`UPDATE ${TEST_PREFIX}terms SET slug = ? WHERE term_id = ?`, ['moved', parent]);
    const [categories] = (await embedded())['cms:term'];
    expect(categories[0]).toMatchObject({
      name: 'Renamed child',
      link: 'http://example.org/category/moved/child-topic/',
    });
    expect((await t.http.get(`/cms-json/cms/v2/categories/${child}`).expect(200)).body.name).toBe('Renamed child');
  });

  it('shows an author changed in the database: row and meta', async () => {
    const id = t.users.author.id;
    await embedded();
    await t.dataSource.query(`UPDATE ${TEST_PREFIX}users SET display_name = ? WHERE ID = ?`, ['Renamed Author', id]);
    await t.dataSource.query(`DELETE FROM ${TEST_PREFIX}usermeta WHERE user_id = ? AND meta_key = ?`, [
      id,
      'description',
    ]);
    await t.dataSource.query(`INSERT INTO ${TEST_PREFIX}usermeta (user_id, meta_key, meta_value) VALUES (?, ?, ?)`, [
      id,
      'description',
      'Writes now',
    ]);
    const [author] = (await embedded()).author;
    expect(author).toMatchObject({ name: 'Renamed Author', description: 'Writes now' });
    expect((await t.http.get(`/cms-json/cms/v2/users/${id}`).expect(200)).body.name).toBe('Renamed Author');
  });

  it('shows capabilities of a role changed in the options', async () => {
    const self = () =>
      t.http
        .get(`/cms-json/cms/v2/users/${t.users.author.id}?context=edit`)
        .set('Authorization', t.users.administrator.authorization);
    expect((await self().expect(200)).body.capabilities.fly_kites).toBeUndefined();
    const options = t.app.get(OptionsService);
    const roles = await options.get<Record<string, { name: string; capabilities: Record<string, boolean> }>>(
      `${TEST_PREFIX}user_roles`,
    );
    const changed = {
      ...roles,
      author: { ...roles.author, capabilities: { ...roles.author.capabilities, fly_kites: true } },
    };
    await options.set(`${TEST_PREFIX}user_roles`, changed);
    try {
      expect((await self().expect(200)).body.capabilities.fly_kites).toBe(true);
    } finally {
      await options.set(`${TEST_PREFIX}user_roles`, roles);
    }
    expect((await self().expect(200)).body.capabilities.fly_kites).toBeUndefined();
  });

  it('passes embedded terms and authors through rest_prepare_* listeners, and stops when they are removed', async () => {
    await embedded();
    const hooks = t.app.get(HookRegistry);
    const mark = (response: RestResponse) => {
      (response.data as Record<string, unknown>).marked = true;
      return response;
    };
    const removers = [hooks.addFilter('rest_prepare_category', mark), hooks.addFilter('rest_prepare_user', mark)];
    try {
      const parts = await embedded();
      expect(parts['cms:term'][0][0].marked).toBe(true);
      expect(parts['cms:term'][1][0].marked).toBeUndefined();
      expect(parts.author[0].marked).toBe(true);
    } finally {
      for (const remove of removers) remove();
    }
    const parts = await embedded();
    expect(parts['cms:term'][0][0].marked).toBeUndefined();
    expect(parts.author[0].marked).toBeUndefined();
  });

  it('gives embedded sub-requests to rest_post_dispatch listeners as objects', async () => {
    const seen: unknown[] = [];
    const remove = t.app.get(HookRegistry).addFilter('rest_post_dispatch', (response: RestResponse) => {
      seen.push(response.data);
      return response;
    });
    try {
      const parts = await embedded();
      expect(parts.author[0].id).toBe(t.users.author.id);
    } finally {
      remove();
    }
    const author = seen.find((data) => (data as { id?: number })?.id === t.users.author.id) as Record<string, unknown>;
    expect(author).toMatchObject({ id: t.users.author.id, slug: 'author' });
    expect(
      Array.isArray(seen.find((data) => Array.isArray(data) && (data as Array<{ id: number }>)[0]?.id === tag)),
    ).toBe(true);
  });

  it('still filters fields while embedding', async () => {
    const body = (await t.http.get(`/cms-json/cms/v2/posts/${post}?_embed=author&_fields=id,title`).expect(200)).body;
    expect(Object.keys(body).sort()).toEqual(['_embedded', '_links', 'id', 'title']);
    expect(body._embedded.author[0].name).toBe('Renamed Author');
  });
});
