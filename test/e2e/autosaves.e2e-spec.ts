import { PostEntity } from '../../src/core/database/entities/post.entity';
import { PostMetaEntity } from '../../src/core/database/entities/post-meta.entity';
import { createPost } from '../factories/post.factory';
import { createTestApp, expectRestError, TestApp } from '../utils/test-app';

/** The wire names each mode serves the API under. */
const MODES = [
  { mode: 'cms', api: '/cms-json/cms/v2', ns: 'cms/v2', options: {} },
  { mode: 'wordpress', api: '/wp-json/wp/v2', ns: 'wp/v2', options: { wireNames: 'wordpress' as const } },
];

/** The autosaves of a post as stored (revisions named `<post>-autosave-v1`), oldest first. */
async function storedAutosaves(t: TestApp, parent: number): Promise<PostEntity[]> {
  const rows = await t.dataSource
    .getRepository(PostEntity)
    .find({ where: { parent, type: 'revision', name: `${parent}-autosave-v1` }, order: { id: 'ASC' } });
  return rows.map((r) => ({ ...r, id: Number(r.id), author: Number(r.author), parent: Number(r.parent) }));
}

async function storedPost(t: TestApp, id: number): Promise<PostEntity> {
  return t.dataSource.getRepository(PostEntity).findOneByOrFail({ id });
}

async function revisionCount(t: TestApp, parent: number): Promise<number> {
  return t.dataSource.getRepository(PostEntity).countBy({ parent, type: 'revision' });
}

describe.each(MODES)('autosaves ($mode names)', ({ mode, api, ns, options }) => {
  let t: TestApp;
  const auth = (role: keyof TestApp['users']) => t.users[role].authorization;
  const post = (path: string, body: Record<string, unknown>, as?: keyof TestApp['users']) => {
    const req = t.http.post(`${api}/${path}`);
    return (as ? req.set('Authorization', auth(as)) : req).send(body);
  };
  const get = (path: string, as?: keyof TestApp['users']) => {
    const req = t.http.get(`${api}/${path}`);
    return as ? req.set('Authorization', auth(as)) : req;
  };

  beforeAll(async () => {
    t = await createTestApp(`autosaves_${mode}`, { cms: options });
  });
  afterAll(() => t.close());

  describe('routes', () => {
    it('registers the collection (GET, POST) and the item (GET) for posts and pages, not for media', async () => {
      const index = await t.http.get(`${api.replace(/\/[^/]+\/v2$/, '')}/`).expect(200);
      const routes = index.body.routes;
      for (const base of ['posts', 'pages']) {
        expect(routes[`/${ns}/${base}/(?P<id>[\\d]+)/autosaves`].methods).toEqual(['GET', 'POST']);
        expect(routes[`/${ns}/${base}/(?P<parent>[\\d]+)/autosaves/(?P<id>[\\d]+)`].methods).toEqual(['GET']);
      }
      expect(Object.keys(routes).filter((r) => r.includes('/media/') && r.includes('autosaves'))).toEqual([]);
    });

    it('describes the arguments and the schema as WordPress: parent and context; parent and the update arguments', async () => {
      const { id } = await createPost(t.dataSource, { author: t.users.editor.id });
      const res = await t.http.options(`${api}/posts/${id}/autosaves`).expect(200);
      const [read, create] = res.body.endpoints;
      expect(Object.keys(read.args)).toEqual(['parent', 'context']);
      expect(read.args.context).toMatchObject({ default: 'view', type: 'string' });
      expect([...read.args.context.enum].sort()).toEqual(['edit', 'embed', 'view']);
      expect(create.methods).toEqual(['POST']);
      expect(Object.keys(create.args)).toEqual(
        expect.arrayContaining(['parent', 'title', 'content', 'excerpt', 'status']),
      );
      expect(create.args).not.toHaveProperty('id');
      expect(res.body.schema.title).toBe('post-revision');
      expect(res.body.schema.properties.preview_link).toEqual({
        description: 'Preview link for the post.',
        type: 'string',
        format: 'uri',
        context: ['edit'],
        readonly: true,
      });
      const item = await t.http.options(`${api}/posts/${id}/autosaves/1`).expect(200);
      expect(item.body.methods).toEqual(['GET']);
      expect(Object.keys(item.body.endpoints[0].args)).toEqual(['parent', 'id', 'context']);
      expect(item.body.endpoints[0].args.id.description).toBe('The ID for the autosave.');
    });

    it('takes the page schema’s own parent argument on pages, the route’s on the collection read', async () => {
      const { id } = await createPost(t.dataSource, { type: 'page', author: t.users.editor.id });
      const res = await t.http.options(`${api}/pages/${id}/autosaves`).expect(200);
      expect(res.body.schema.title).toBe('page-revision');
      expect(res.body.endpoints[0].args.parent.description).toBe('The ID for the parent of the autosave.');
      expect(res.body.endpoints[1].args.parent.description).not.toBe('The ID for the parent of the autosave.');
    });
  });

  describe('permissions and errors', () => {
    let published: PostEntity;
    beforeAll(async () => {
      published = await createPost(t.dataSource, { author: t.users.editor.id, title: 'Guarded', content: 'Text.' });
    });

    it('refuses to list the autosaves to callers who may not edit the post: 401 anonymous, 403 logged in', async () => {
      expectRestError(await get(`posts/${published.id}/autosaves`), 'rest_cannot_read', 401);
      expectRestError(await get(`posts/${published.id}/autosaves`, 'contributor'), 'rest_cannot_read', 403);
      expectRestError(await get(`posts/${published.id}/autosaves`, 'subscriber'), 'rest_cannot_read', 403);
    });

    it('refuses to read the newest autosave to callers who may not edit the post', async () => {
      expectRestError(await get(`posts/${published.id}/autosaves/1`), 'rest_cannot_read', 401);
      expectRestError(await get(`posts/${published.id}/autosaves/1`, 'author'), 'rest_cannot_read', 403);
    });

    it('refuses to save an autosave to callers who may not update the post', async () => {
      expectRestError(await post(`posts/${published.id}/autosaves`, { title: 'x' }), 'rest_cannot_edit', 401);
      expectRestError(
        await post(`posts/${published.id}/autosaves`, { title: 'x' }, 'contributor'),
        'rest_cannot_edit',
        403,
      );
      expect(await storedAutosaves(t, published.id)).toEqual([]);
    });

    it('answers a missing parent, or one of another type, with rest_post_invalid_parent (read) or rest_post_invalid_id (save)', async () => {
      const page = await createPost(t.dataSource, { type: 'page', author: t.users.editor.id });
      for (const path of ['posts/99999999/autosaves', `posts/${page.id}/autosaves`, 'posts/99999999/autosaves/1'])
        expectRestError(await get(path, 'editor'), 'rest_post_invalid_parent', 404);
      expectRestError(await post('posts/99999999/autosaves', { title: 'x' }, 'editor'), 'rest_post_invalid_id', 404);
      expectRestError(await post('posts/0/autosaves', { title: 'x' }, 'editor'), 'rest_post_invalid_id', 404);
    });

    it('answers a post without autosave with rest_post_no_autosave', async () => {
      expectRestError(await get(`posts/${published.id}/autosaves/1`, 'editor'), 'rest_post_no_autosave', 404);
      expect((await get(`posts/${published.id}/autosaves`, 'editor').expect(200)).body).toEqual([]);
    });

    it('refuses bad input with rest_invalid_param, and a status the caller may not give', async () => {
      const res = await post(`posts/${published.id}/autosaves`, { status: 'nonsense' }, 'editor');
      expectRestError(res, 'rest_invalid_param', 400);
      expectRestError(
        await get(`posts/${published.id}/autosaves?context=nonsense`, 'editor'),
        'rest_invalid_param',
        400,
      );
      const own = await createPost(t.dataSource, { author: t.users.contributor.id, status: 'draft', title: 'Mine' });
      expectRestError(
        await post(`posts/${own.id}/autosaves`, { status: 'publish' }, 'contributor'),
        'rest_cannot_publish',
        403,
      );
    });

    it('says which methods the caller may use in Allow', async () => {
      expect((await get(`posts/${published.id}/autosaves`, 'editor')).headers.allow).toBe('GET, POST');
    });
  });

  describe('saving', () => {
    it('saves the author’s own draft itself, without a revision nor an autosave', async () => {
      const draft = await createPost(t.dataSource, { author: t.users.author.id, status: 'draft', title: 'Draft' });
      const res = await post(`posts/${draft.id}/autosaves`, { title: 'Draft, saved', content: 'Saved.' }, 'author');
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        id: draft.id,
        author: t.users.author.id,
        parent: 0,
        date: null,
        date_gmt: null,
        title: { raw: 'Draft, saved' },
        content: { raw: 'Saved.' },
        preview_link: `http://example.org/?p=${draft.id}&preview=true`,
      });
      expect(res.body._links).toBeUndefined();
      const stored = await storedPost(t, draft.id);
      expect([stored.title, stored.content, stored.status]).toEqual(['Draft, saved', 'Saved.', 'draft']);
      expect(await revisionCount(t, draft.id)).toBe(0);
    });

    it('filters HTML for callers without unfiltered_html, as a save does', async () => {
      const draft = await createPost(t.dataSource, { author: t.users.author.id, status: 'draft', title: 'Html' });
      const res = await post(`posts/${draft.id}/autosaves`, { content: 'Hi<script>alert(1)</script>' }, 'author');
      expect(res.body.content.raw).toBe('Hialert(1)');
      const pub = await createPost(t.dataSource, { author: t.users.editor.id, title: 'Raw html' });
      const kept = await post(`posts/${pub.id}/autosaves`, { content: 'Hi<script>x</script>' }, 'editor');
      expect(kept.body.content.raw).toBe('Hi<script>x</script>');
    });

    it('saves an editor’s autosave of an author’s published post as the editor’s own revision, leaving the post', async () => {
      const pub = await createPost(t.dataSource, { author: t.users.author.id, title: 'Published', content: 'As is.' });
      const res = await post(`posts/${pub.id}/autosaves`, { title: 'Edited', content: 'Being edited.' }, 'editor');
      expect(res.status).toBe(200);
      const [autosave] = await storedAutosaves(t, pub.id);
      expect(autosave).toMatchObject({ author: t.users.editor.id, status: 'inherit', type: 'revision' });
      expect(res.body).toMatchObject({
        id: autosave.id,
        author: t.users.editor.id,
        parent: pub.id,
        slug: `${pub.id}-autosave-v1`,
        title: { raw: 'Edited' },
        content: { raw: 'Being edited.' },
        excerpt: { raw: '' },
        guid: { raw: `http://example.org/?p=${autosave.id}` },
      });
      expect(res.body.preview_link).toMatch(
        new RegExp(
          `^http://example\\.org/${pub.name}/\\?preview_id=${pub.id}&preview_nonce=[0-9a-f]{10}&preview=true$`,
        ),
      );
      expect(res.body._links.parent).toEqual([{ href: `http://example.org${api}/posts/${pub.id}` }]);
      const stored = await storedPost(t, pub.id);
      expect([stored.title, stored.content]).toEqual(['Published', 'As is.']);
      expect(await revisionCount(t, pub.id)).toBe(1);
    });

    it('keeps one autosave per user: saving again overwrites it, the texts not sent kept', async () => {
      const pub = await createPost(t.dataSource, { author: t.users.author.id, title: 'Once', content: 'Once.' });
      const first = await post(`posts/${pub.id}/autosaves`, { title: 'Twice', content: 'Twice.' }, 'editor');
      const second = await post(`posts/${pub.id}/autosaves`, { content: 'Thrice.' }, 'editor').expect(200);
      expect(second.body.id).toBe(first.body.id);
      expect(second.body).toMatchObject({ title: { raw: 'Twice' }, content: { raw: 'Thrice.' } });
      // The author's autosave of the same post is another one.
      const mine = await post(`posts/${pub.id}/autosaves`, { content: 'By the author.' }, 'author').expect(200);
      expect(mine.body.id).not.toBe(first.body.id);
      expect(mine.body.title.raw).toBe('');
      expect((await storedAutosaves(t, pub.id)).map((a) => a.author)).toEqual([t.users.editor.id, t.users.author.id]);
    });

    it('drops the caller’s autosave when it comes back to the post’s text: rest_autosave_no_changes', async () => {
      const pub = await createPost(t.dataSource, { author: t.users.author.id, title: 'Same', content: 'Same.' });
      await post(`posts/${pub.id}/autosaves`, { content: 'Different.' }, 'editor').expect(200);
      const res = await post(`posts/${pub.id}/autosaves`, { title: 'Same', content: 'Same.' }, 'editor');
      expectRestError(res, 'rest_autosave_no_changes', 400);
      expect(await storedAutosaves(t, pub.id)).toEqual([]);
    });

    it('saves an autosave revision of the author’s own draft while another user holds its edit lock', async () => {
      const draft = await createPost(t.dataSource, { author: t.users.author.id, status: 'draft', title: 'Locked' });
      await t.dataSource
        .getRepository(PostMetaEntity)
        .save({ postId: draft.id, key: '_edit_lock', value: `${Math.floor(Date.now() / 1000)}:${t.users.editor.id}` });
      const res = await post(`posts/${draft.id}/autosaves`, { title: 'Meanwhile' }, 'author').expect(200);
      expect(res.body.slug).toBe(`${draft.id}-autosave-v1`);
      expect((await storedPost(t, draft.id)).title).toBe('Locked');
    });

    it('saves pages’ autosaves under pages/<id>/autosaves', async () => {
      const page = await createPost(t.dataSource, { type: 'page', author: t.users.editor.id, title: 'A page' });
      const res = await post(`pages/${page.id}/autosaves`, { content: 'Page draft.' }, 'administrator').expect(200);
      expect(res.body).toMatchObject({ parent: page.id, slug: `${page.id}-autosave-v1` });
      expect(res.body._links.parent[0].href).toBe(`http://example.org${api}/pages/${page.id}`);
    });
  });

  describe('reading', () => {
    let pub: PostEntity;
    let byEditor: number;
    let byAdmin: number;
    beforeAll(async () => {
      pub = await createPost(t.dataSource, { author: t.users.author.id, title: 'Read me', content: 'Read.' });
      byEditor = (await post(`posts/${pub.id}/autosaves`, { content: 'Editor’s.' }, 'editor').expect(200)).body.id;
      byAdmin = (await post(`posts/${pub.id}/autosaves`, { content: 'Admin’s.' }, 'administrator').expect(200)).body.id;
      // The administrator's is the newer one.
      await t.dataSource
        .getRepository(PostEntity)
        .update({ id: byEditor }, { date: '2020-01-01 00:00:00', dateGmt: '2020-01-01 00:00:00' });
    });

    it('lists every user’s autosave of the post, newest first, to whoever may edit it', async () => {
      const res = await get(`posts/${pub.id}/autosaves`, 'author').expect(200);
      expect(res.body.map((a: { id: number }) => a.id)).toEqual([byAdmin, byEditor]);
      expect(res.headers['x-wp-total'] ?? res.headers['x-cms-total']).toBeUndefined();
    });

    it('shows the view fields without preview_link, and preview_link in the edit context', async () => {
      const view = await get(`posts/${pub.id}/autosaves`, 'editor').expect(200);
      expect(view.body[0]).not.toHaveProperty('preview_link');
      expect(view.body[0].content).toEqual({ rendered: '<p>Admin’s.</p>\n' });
      const edit = await get(`posts/${pub.id}/autosaves?context=edit`, 'editor').expect(200);
      expect(edit.body[0].preview_link).toContain(`preview_id=${pub.id}&preview_nonce=`);
      const embed = await get(`posts/${pub.id}/autosaves?context=embed`, 'editor').expect(200);
      expect(Object.keys(embed.body[0]).sort()).toEqual(
        ['_links', 'author', 'date', 'excerpt', 'id', 'parent', 'slug', 'title'].sort(),
      );
    });

    it('reads the newest autosave of the post, whoever made it, whatever id the route names', async () => {
      for (const id of [byEditor, 1]) {
        const res = await get(`posts/${pub.id}/autosaves/${id}?context=edit`, 'author').expect(200);
        expect(res.body).toMatchObject({ id: byAdmin, author: t.users.administrator.id, content: { raw: 'Admin’s.' } });
        expect(res.headers.allow).toBe('GET');
      }
    });

    it('answers _embed without embedding anything (the parent link is not embeddable)', async () => {
      const res = await get(`posts/${pub.id}/autosaves?_embed=1`, 'editor').expect(200);
      expect(res.body[0]._embedded).toBeUndefined();
    });

    it('lists in a fixed number of queries, whatever the number of autosaves', async () => {
      const count = (id: number) =>
        t.queries.during(() => get(`posts/${id}/autosaves?context=edit`, 'editor').expect(200));
      const one = await createPost(t.dataSource, { author: t.users.author.id, title: 'One' });
      await post(`posts/${one.id}/autosaves`, { content: 'Only.' }, 'editor').expect(200);
      await count(one.id);
      await count(pub.id);
      expect(await count(pub.id)).toBe(await count(one.id));
    });
  });
});
