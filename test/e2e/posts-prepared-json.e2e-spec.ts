import { HookRegistry, RestResponse } from '../../src';
import { PostEntity } from '../../src/core/database/entities/post.entity';
import { PostPresenter } from '../../src/resources/posts/post-presenter';
import { assignTerms, createPost, createTerm } from '../factories/post.factory';
import { createTestApp, TestApp } from '../utils/test-app';

/**
 * Collection items are served from JSON prepared by an earlier request while everything they are made from is
 * unchanged. These tests change one input at a time — behind the API's back where they can — and expect the next
 * response to show it.
 */
describe('posts: collection items prepared once', () => {
  let t: TestApp;
  let first: number;
  let locked: number;
  let table: string;

  const list = (query = '') => t.http.get(`/cms-json/cms/v2/posts?include=${first},${locked}&orderby=include${query}`);
  const item = async (query = '') => (await list(query).expect(200)).body[0];

  beforeAll(async () => {
    t = await createTestApp('posts_prepared_json');
    first = (await createPost(t.dataSource, { author: t.users.author.id, title: 'First', content: 'Original text' }))
      .id;
    locked = (
      await createPost(t.dataSource, {
        author: t.users.author.id,
        title: 'Locked',
        content: 'Secret text',
        password: 'pw',
      })
    ).id;
    table = t.dataSource.getMetadata(PostEntity).tableName;
  });
  afterAll(() => t.close());

  it('answers the same collection twice with the same body', async () => {
    const one = await list().expect(200);
    const two = await list().expect(200);
    expect(two.text).toBe(one.text);
    expect(JSON.parse(two.text)).toEqual(one.body);
  });

  it('prepares an unchanged item once', async () => {
    const prepare = jest.spyOn(PostPresenter.prototype as unknown as { prepareItem: () => unknown }, 'prepareItem');
    try {
      await t.dataSource.query(`UPDATE ${table} SET post_excerpt = ? WHERE ID = ?`, ['New excerpt', first]);
      await list().expect(200);
      expect(prepare).toHaveBeenCalledTimes(1);
      prepare.mockClear();
      await list().expect(200);
      expect(prepare).not.toHaveBeenCalled();
    } finally {
      prepare.mockRestore();
    }
  });

  it('shows a row changed in the database without a new modified date', async () => {
    await item();
    await t.dataSource.query(`UPDATE ${table} SET post_content = ?, post_title = ? WHERE ID = ?`, [
      'Changed text',
      'Renamed',
      first,
    ]);
    const changed = await item();
    expect(changed.content.rendered).toBe('<p>Changed text</p>\n');
    expect(changed.title.rendered).toBe('Renamed');
  });

  it('shows terms assigned in the database', async () => {
    const before = await item();
    const tag = await createTerm(t.dataSource, 'post_tag', 'prepared-tag');
    await assignTerms(t.dataSource, first, 'post_tag', [tag]);
    expect((await item()).tags).toEqual([...before.tags, tag]);
  });

  it('follows the password and the context of each request', async () => {
    const hidden = (await list().expect(200)).body[1];
    const shown = (await list('&password=pw').expect(200)).body[1];
    expect(hidden.content).toEqual({ rendered: '', protected: true });
    expect(shown.content).toEqual({ rendered: '<p>Secret text</p>\n', protected: true });
    expect((await list().expect(200)).body[1].content.rendered).toBe('');

    const edit = await list('&context=edit').set('Authorization', t.users.editor.authorization).expect(200);
    expect(edit.body[0].content.raw).toBe('Changed text');
    expect((await item()).content.raw).toBeUndefined();
  });

  it('passes items through a rest_prepare_post listener added later, and stops when it is removed', async () => {
    await item();
    const remove = t.app.get(HookRegistry).addFilter('rest_prepare_post', (response: RestResponse) => {
      (response.data as Record<string, unknown>).marked = true;
      return response;
    });
    try {
      expect((await item()).marked).toBe(true);
    } finally {
      remove();
    }
    expect((await item()).marked).toBeUndefined();
  });

  it('keeps no item changed by a rest_prepare_post listener added while the collection was prepared', async () => {
    await t.dataSource.query(`UPDATE ${table} SET post_excerpt = ? WHERE ID = ?`, ['Excerpt while hooked', first]);
    const hooks = t.app.get(HookRegistry);
    let remove: (() => void) | undefined;
    const presenter = PostPresenter.prototype as unknown as {
      prepareItem: (...args: unknown[]) => Promise<RestResponse>;
    };
    const prepareItem = presenter.prepareItem;
    const spy = jest.spyOn(presenter, 'prepareItem').mockImplementationOnce(function (
      this: unknown,
      ...args: unknown[]
    ) {
      remove = hooks.addFilter('rest_prepare_post', (response: RestResponse) => {
        (response.data as Record<string, unknown>).late = true;
        return response;
      });
      return prepareItem.apply(this, args);
    });
    try {
      expect((await item()).late).toBe(true);
    } finally {
      spy.mockRestore();
      remove?.();
    }
    expect((await item()).late).toBeUndefined();
  });

  it('serves one post the same way, with its Link header, and shows changes to it', async () => {
    const before = await t.http.get(`/cms-json/cms/v2/posts/${first}`).expect(200);
    const again = await t.http.get(`/cms-json/cms/v2/posts/${first}`).expect(200);
    expect(again.text).toBe(before.text);
    expect(again.headers.link).toBe(before.headers.link);
    expect(again.headers.link).toContain(`<${before.body.link}>; rel="alternate"; type=text/html`);
    expect(before.body).toEqual((await list().expect(200)).body[0]);
    await t.dataSource.query(`UPDATE ${table} SET post_title = ? WHERE ID = ?`, ['Retitled', first]);
    expect((await t.http.get(`/cms-json/cms/v2/posts/${first}`).expect(200)).body.title.rendered).toBe('Retitled');
    expect((await t.http.get(`/cms-json/cms/v2/posts/${first}?_fields=id`).expect(200)).body).toEqual({ id: first });
  });

  it('still filters fields and embeds on request', async () => {
    await item();
    expect((await list('&_fields=id,title').expect(200)).body[0]).toEqual({
      id: first,
      title: { rendered: 'Retitled' },
    });
    expect((await item('&_embed=author'))._embedded.author[0].id).toBe(t.users.author.id);
  });
});
