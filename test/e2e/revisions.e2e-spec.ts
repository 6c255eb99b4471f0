import { Injectable, Module, OnModuleInit } from '@nestjs/common';
import { CmsExtensionRegistry } from '../../src';
import { PostEntity } from '../../src/core/database/entities/post.entity';
import { createPost } from '../factories/post.factory';
import { createTestApp, expectRestError, TestApp } from '../utils/test-app';

const API = '/cms-json/cms/v2';
const VIEW_KEYS = [
  'author',
  'content',
  'date',
  'date_gmt',
  'excerpt',
  'guid',
  'id',
  'modified',
  'modified_gmt',
  'parent',
  'slug',
  'title',
];
const EMBED_KEYS = ['author', 'date', 'excerpt', 'id', 'parent', 'slug', 'title'];

/** The revisions of a post as stored, oldest first. */
async function storedRevisions(t: TestApp, parent: number): Promise<PostEntity[]> {
  const rows = await t.dataSource
    .getRepository(PostEntity)
    .find({ where: { parent, type: 'revision' }, order: { id: 'ASC' } });
  return rows.map((r) => ({ ...r, id: Number(r.id), author: Number(r.author), parent: Number(r.parent) }));
}

/** Updates a post through the API as the editor. */
async function update(t: TestApp, base: string, id: number, body: Record<string, unknown>): Promise<void> {
  await t.http.put(`${API}/${base}/${id}`).set('Authorization', t.users.editor.authorization).send(body).expect(200);
}

describe('revisions', () => {
  let t: TestApp;
  let post: number;
  let page: number;
  let revision1: PostEntity;
  let revision2: PostEntity;

  beforeAll(async () => {
    t = await createTestApp('revisions');
    post = (
      await createPost(t.dataSource, {
        author: t.users.editor.id,
        title: 'Original title',
        content: 'Original content.',
      })
    ).id;
    // Two updates of the text: two revisions, each holding the post as it was saved.
    await update(t, 'posts', post, { content: 'This content is better.', excerpt: 'Better excerpt.' });
    await update(t, 'posts', post, { content: 'This content is marvelous.', excerpt: 'Marvelous excerpt.' });
    [revision1, revision2] = await storedRevisions(t, post);
    page = (
      await createPost(t.dataSource, {
        type: 'page',
        author: t.users.editor.id,
        title: 'A page',
        content: 'Page text.',
      })
    ).id;
  });
  afterAll(() => t.close());

  const list = (parent: number, query = '', auth?: string) => {
    const req = t.http.get(`${API}/posts/${parent}/revisions${query}`);
    return auth ? req.set('Authorization', auth) : req;
  };
  const item = (parent: number, id: number, query = '', auth?: string) => {
    const req = t.http.get(`${API}/posts/${parent}/revisions/${id}${query}`);
    return auth ? req.set('Authorization', auth) : req;
  };

  describe('storage', () => {
    it('stores one revision per update of the text, holding the post as saved', async () => {
      const revisions = await storedRevisions(t, post);
      expect(revisions).toHaveLength(2);
      expect(revisions.map((r) => [r.title, r.content, r.excerpt])).toEqual([
        ['Original title', 'This content is better.', 'Better excerpt.'],
        ['Original title', 'This content is marvelous.', 'Marvelous excerpt.'],
      ]);
      expect(revisions[0]).toMatchObject({
        status: 'inherit',
        name: `${post}-revision-v1`,
        author: t.users.editor.id,
        parent: post,
      });
    });

    it('stores a revision on the first update even without a text change, then only when title, content or excerpt change', async () => {
      const id = (await createPost(t.dataSource, { author: t.users.editor.id, title: 'Quiet', content: 'Quiet text.' }))
        .id;
      await update(t, 'posts', id, { comment_status: 'closed' });
      expect(await storedRevisions(t, id)).toHaveLength(1);
      await update(t, 'posts', id, { comment_status: 'open', ping_status: 'closed' });
      expect(await storedRevisions(t, id)).toHaveLength(1);
      await update(t, 'posts', id, { title: 'Louder' });
      await update(t, 'posts', id, { excerpt: 'An excerpt.' });
      await update(t, 'posts', id, { content: 'Loud text.' });
      expect((await storedRevisions(t, id)).map((r) => r.title)).toEqual(['Quiet', 'Louder', 'Louder', 'Louder']);
    });

    it('stores revisions through POST on the item route too', async () => {
      const id = (await createPost(t.dataSource, { author: t.users.editor.id, title: 'Posted' })).id;
      await t.http
        .post(`${API}/posts/${id}`)
        .set('Authorization', t.users.editor.authorization)
        .send({ title: 'Posted again' })
        .expect(200);
      expect((await storedRevisions(t, id)).map((r) => r.title)).toEqual(['Posted again']);
    });

    it('stores a revision when a post without one is trashed', async () => {
      const id = (await createPost(t.dataSource, { author: t.users.editor.id, title: 'Doomed' })).id;
      await t.http.delete(`${API}/posts/${id}`).set('Authorization', t.users.editor.authorization).expect(200);
      const revisions = await storedRevisions(t, id);
      expect(revisions.map((r) => r.title)).toEqual(['Doomed']);
    });
  });

  describe('routes', () => {
    it('registers the collection and item routes for posts and pages', async () => {
      const res = await t.http.get(`${API}`).expect(200);
      expect(Object.keys(res.body.routes)).toEqual(
        expect.arrayContaining([
          '/cms/v2/posts/(?P<parent>[\\d]+)/revisions',
          '/cms/v2/posts/(?P<parent>[\\d]+)/revisions/(?P<id>[\\d]+)',
          '/cms/v2/pages/(?P<parent>[\\d]+)/revisions',
          '/cms/v2/pages/(?P<parent>[\\d]+)/revisions/(?P<id>[\\d]+)',
        ]),
      );
      expect(res.body.routes['/cms/v2/posts/(?P<parent>[\\d]+)/revisions'].methods).toEqual(['GET']);
      expect(res.body.routes['/cms/v2/posts/(?P<parent>[\\d]+)/revisions/(?P<id>[\\d]+)'].methods).toEqual([
        'GET',
        'DELETE',
      ]);
    });

    it('offers a context param defaulting to view with the view, edit and embed values', async () => {
      for (const path of [`${API}/posts/${post}/revisions`, `${API}/posts/${post}/revisions/${revision1.id}`]) {
        const res = await t.http.options(path).expect(200);
        const context = res.body.endpoints[0].args.context;
        expect(context.default).toBe('view');
        expect([...context.enum].sort()).toEqual(['edit', 'embed', 'view']);
      }
    });

    it("accepts WordPress 6.1's collection params", async () => {
      const res = await t.http.options(`${API}/posts/${post}/revisions`).expect(200);
      const args = res.body.endpoints[0].args;
      expect(Object.keys(args)).toEqual(
        expect.arrayContaining([
          'context',
          'page',
          'per_page',
          'search',
          'exclude',
          'include',
          'offset',
          'order',
          'orderby',
        ]),
      );
      expect(args.per_page.default).toBeUndefined();
    });

    it('answers POST on the collection and item routes with rest_no_route', async () => {
      const editor = t.users.editor.authorization;
      expectRestError(
        await t.http.post(`${API}/posts/${post}/revisions`).set('Authorization', editor).send({ title: 'x' }),
        'rest_no_route',
        404,
      );
      expectRestError(
        await t.http
          .post(`${API}/posts/${post}/revisions/${revision1.id}`)
          .set('Authorization', editor)
          .send({ title: 'x' }),
        'rest_no_route',
        404,
      );
    });
  });

  describe('listing', () => {
    it('lists the revisions newest first with their fields and a parent link only', async () => {
      const res = await list(post, '', t.users.editor.authorization).expect(200);
      expect(res.body.map((r: { id: number }) => r.id)).toEqual([revision2.id, revision1.id]);
      for (const [data, revision] of [
        [res.body[0], revision2],
        [res.body[1], revision1],
      ] as const) {
        expect(data).toMatchObject({
          author: t.users.editor.id,
          id: revision.id,
          parent: post,
          slug: `${post}-revision-v1`,
          date: revision.date.replace(' ', 'T'),
          modified: revision.modified.replace(' ', 'T'),
          guid: { rendered: revision.guid },
          title: { rendered: 'Original title' },
          content: { rendered: `<p>${revision.content}</p>\n` },
          excerpt: { rendered: `<p>${revision.excerpt}</p>\n` },
        });
        expect(Object.keys(data._links)).toEqual(['parent']);
        expect(data._links.parent).toEqual([{ href: `http://example.org${API}/posts/${post}` }]);
      }
    });

    it('sends every revision without per_page, with the totals', async () => {
      const res = await list(post, '', t.users.editor.authorization).expect(200);
      expect(res.body).toHaveLength(2);
      expect(res.headers['x-cms-total']).toBe('2');
      expect(res.headers['x-cms-totalpages']).toBe('1');
    });

    it('paginates with per_page and page', async () => {
      const res = await list(post, '?per_page=1&page=2', t.users.editor.authorization).expect(200);
      expect(res.body.map((r: { id: number }) => r.id)).toEqual([revision1.id]);
      expect(res.headers['x-cms-total']).toBe('2');
      expect(res.headers['x-cms-totalpages']).toBe('2');
      expect(res.headers.link).toContain('rel="prev"');
    });

    it('answers a page beyond the last with rest_revision_invalid_page_number', async () => {
      expectRestError(
        await list(post, '?per_page=1&page=3', t.users.editor.authorization),
        'rest_revision_invalid_page_number',
        400,
      );
    });

    it('applies order, include, exclude, offset and search', async () => {
      const ids = async (query: string) =>
        (await list(post, query, t.users.editor.authorization).expect(200)).body.map((r: { id: number }) => r.id);
      expect(await ids('?order=asc')).toEqual([revision1.id, revision2.id]);
      expect(await ids(`?include=${revision1.id}`)).toEqual([revision1.id]);
      expect(await ids(`?exclude=${revision1.id}`)).toEqual([revision2.id]);
      expect(await ids('?per_page=1&offset=1')).toEqual([revision1.id]);
      expect(await ids('?search=marvelous')).toEqual([revision2.id]);
    });

    it('refuses callers who may not edit the parent', async () => {
      expectRestError(await list(post), 'rest_cannot_read', 401);
      expectRestError(await list(post, '', t.users.contributor.authorization), 'rest_cannot_read', 403);
    });

    it('answers a missing parent with rest_post_invalid_parent', async () => {
      expectRestError(await list(99999999, '', t.users.editor.authorization), 'rest_post_invalid_parent', 404);
    });

    it('answers a parent of another type with rest_post_invalid_parent', async () => {
      expectRestError(await list(page, '', t.users.editor.authorization), 'rest_post_invalid_parent', 404);
    });

    it('serves the revisions of pages under pages/<id>/revisions', async () => {
      await update(t, 'pages', page, { content: 'New page text.' });
      const [pageRevision] = await storedRevisions(t, page);
      const res = await t.http
        .get(`${API}/pages/${page}/revisions`)
        .set('Authorization', t.users.editor.authorization)
        .expect(200);
      expect(res.body.map((r: { id: number }) => r.id)).toEqual([pageRevision.id]);
      expect(res.body[0]._links.parent[0].href).toBe(`http://example.org${API}/pages/${page}`);
      expectRestError(
        await t.http.get(`${API}/pages/${post}/revisions`).set('Authorization', t.users.editor.authorization),
        'rest_post_invalid_parent',
        404,
      );
    });
  });

  describe('one revision', () => {
    it('serves a revision with exactly the view fields', async () => {
      const res = await item(post, revision2.id, '', t.users.editor.authorization).expect(200);
      const { _links, ...data } = res.body;
      expect(Object.keys(data).sort()).toEqual(VIEW_KEYS);
      expect(data).toMatchObject({
        author: t.users.editor.id,
        id: revision2.id,
        parent: post,
        title: { rendered: 'Original title' },
        content: { rendered: '<p>This content is marvelous.</p>\n' },
        excerpt: { rendered: '<p>Marvelous excerpt.</p>\n' },
      });
      expect(typeof data.author).toBe('number');
      expect(data.date_gmt).toBe(revision2.dateGmt.replace(' ', 'T'));
      expect(data.modified_gmt).toBe(revision2.modifiedGmt.replace(' ', 'T'));
      expect(Object.keys(_links)).toEqual(['parent']);
    });

    it('adds the raw values in the edit context', async () => {
      const res = await item(post, revision1.id, '?context=edit', t.users.editor.authorization).expect(200);
      expect(res.body.title).toEqual({ raw: 'Original title', rendered: 'Original title' });
      expect(res.body.content.raw).toBe('This content is better.');
      expect(res.body.excerpt.raw).toBe('Better excerpt.');
      expect(res.body.guid.raw).toBe(revision1.guid);
    });

    it('serves only the embed fields in the embed context', async () => {
      const res = await item(post, revision1.id, '?context=embed', t.users.editor.authorization).expect(200);
      const { _links: _omit, ...data } = res.body;
      expect(Object.keys(data).sort()).toEqual(EMBED_KEYS);
    });

    it('refuses callers who may not edit the parent', async () => {
      expectRestError(await item(post, revision1.id), 'rest_cannot_read', 401);
      expectRestError(await item(post, revision1.id, '', t.users.contributor.authorization), 'rest_cannot_read', 403);
    });

    it('answers a missing parent or a parent of another type with rest_post_invalid_parent', async () => {
      expectRestError(
        await item(99999999, revision1.id, '', t.users.editor.authorization),
        'rest_post_invalid_parent',
        404,
      );
      expectRestError(
        await item(page, revision1.id, '', t.users.editor.authorization),
        'rest_post_invalid_parent',
        404,
      );
    });

    it('answers an id that is not a revision with rest_post_invalid_id', async () => {
      expectRestError(await item(post, post, '', t.users.editor.authorization), 'rest_post_invalid_id', 404);
      expectRestError(await item(post, 99999999, '', t.users.editor.authorization), 'rest_post_invalid_id', 404);
    });

    it('links the post to its revisions with their count and to the latest one', async () => {
      const res = await t.http.get(`${API}/posts/${post}`).expect(200);
      expect(res.body._links['version-history']).toEqual([
        { count: 2, href: `http://example.org${API}/posts/${post}/revisions` },
      ]);
      expect(res.body._links['predecessor-version']).toEqual([
        { id: revision2.id, href: `http://example.org${API}/posts/${post}/revisions/${revision2.id}` },
      ]);
    });
  });

  describe('deleting', () => {
    let doomed: number;
    let doomedRevision: PostEntity;

    beforeAll(async () => {
      doomed = (await createPost(t.dataSource, { author: t.users.editor.id, title: 'To prune' })).id;
      await update(t, 'posts', doomed, { title: 'To prune, again' });
      [doomedRevision] = await storedRevisions(t, doomed);
    });

    const remove = (query: string, auth?: string) => {
      const req = t.http.delete(`${API}/posts/${doomed}/revisions/${doomedRevision.id}${query}`);
      return auth ? req.set('Authorization', auth) : req;
    };

    it('refuses to trash a revision: force is required', async () => {
      expectRestError(await remove('', t.users.editor.authorization), 'rest_trash_not_supported', 501);
      expect(await storedRevisions(t, doomed)).toHaveLength(1);
    });

    it('refuses callers who may not edit the parent', async () => {
      expectRestError(await remove('?force=true'), 'rest_cannot_read', 401);
      expectRestError(await remove('?force=true', t.users.contributor.authorization), 'rest_cannot_read', 403);
      expect(await storedRevisions(t, doomed)).toHaveLength(1);
    });

    it('deletes a revision for good with force, answering with it as it was in the edit context', async () => {
      const res = await remove('?force=true', t.users.editor.authorization).expect(200);
      expect(res.body).toMatchObject({ id: doomedRevision.id, parent: doomed, title: { raw: 'To prune, again' } });
      expect(res.body.content.raw).toBe(doomedRevision.content);
      expect(await storedRevisions(t, doomed)).toHaveLength(0);
      expect(await t.dataSource.getRepository(PostEntity).countBy({ id: doomedRevision.id })).toBe(0);
    });

    it('answers an id that is not a revision with rest_post_invalid_id', async () => {
      const editor = t.users.editor.authorization;
      expectRestError(
        await t.http.delete(`${API}/posts/${doomed}/revisions/99999999?force=true`).set('Authorization', editor),
        'rest_post_invalid_id',
        404,
      );
      expectRestError(
        await t.http.delete(`${API}/posts/${doomed}/revisions/${doomed}?force=true`).set('Authorization', editor),
        'rest_post_invalid_id',
        404,
      );
    });
  });

  describe('schema', () => {
    it('describes the 12 properties of a post-revision', async () => {
      const res = await t.http.options(`${API}/posts/${post}/revisions`).expect(200);
      expect(res.body.schema.title).toBe('post-revision');
      expect(Object.keys(res.body.schema.properties).sort()).toEqual(VIEW_KEYS);
      expect(res.body.schema.properties.author.type).toBe('integer');
      expect(res.body.schema.properties.title.properties).toHaveProperty('raw');
      const pages = await t.http.options(`${API}/pages/${page}/revisions`).expect(200);
      expect(pages.body.schema.title).toBe('page-revision');
    });
  });
});

/** Registers a field on the `post-revision` object type, like the reference's additional field test. */
@Injectable()
class RevisionFieldExtension implements OnModuleInit {
  constructor(private readonly cms: CmsExtensionRegistry) {}

  onModuleInit(): void {
    this.cms.registerRestField('post-revision', 'my_custom_int', {
      get: (data) => Number(data.id) * 2,
      schema: { description: 'Some integer of mine', type: 'integer', context: ['view', 'edit'] },
    });
  }
}

@Module({ providers: [RevisionFieldExtension] })
class RevisionFieldModule {}

describe('revisions: registered fields', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp('revisions_fields', { extensions: [RevisionFieldModule] });
  });
  afterAll(() => t.close());

  it('adds a field registered on post-revision to the schema and to each revision', async () => {
    const post = (await createPost(t.dataSource, { author: t.users.editor.id, title: 'Fielded' })).id;
    await update(t, 'posts', post, { content: 'Changed.' });
    const [revision] = await storedRevisions(t, post);
    const options = await t.http.options(`${API}/posts/${post}/revisions`).expect(200);
    expect(options.body.schema.properties.my_custom_int).toMatchObject({
      type: 'integer',
      description: 'Some integer of mine',
    });
    const res = await t.http
      .get(`${API}/posts/${post}/revisions/${revision.id}`)
      .set('Authorization', t.users.editor.authorization)
      .expect(200);
    expect(res.body.my_custom_int).toBe(revision.id * 2);
  });
});
