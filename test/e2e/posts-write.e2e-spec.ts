import { Injectable, Module, OnModuleInit } from '@nestjs/common';
import { CmsExtensionRegistry, HookRegistry } from '../../src';
import { PostEntity } from '../../src/core/database/entities/post.entity';
import { createPost, createTerm } from '../factories/post.factory';
import { createTestApp, expectRestError, TestApp } from '../utils/test-app';

const API = '/cms-json/cms/v2';

/** Records the write hooks, registers a field written through its update callback, and refuses trash for `book`. */
@Injectable()
class WriteHooksExtension implements OnModuleInit {
  static readonly events: string[] = [];
  static readonly customInts = new Map<number, number>();

  constructor(
    private readonly cms: CmsExtensionRegistry,
    private readonly hooks: HookRegistry,
  ) {}

  onModuleInit(): void {
    const events = WriteHooksExtension.events;
    this.hooks.addAction('rest_insert_post', (post: PostEntity, _req: unknown, creating: boolean) => {
      events.push(`insert:${post.id}:${creating}`);
    });
    this.hooks.addAction('rest_delete_post', (post: PostEntity, previous: { data: { status: string } }) => {
      events.push(`delete:${post.id}:${previous.data.status}`);
    });
    this.cms.registerPostType('book', {
      public: true,
      show_in_rest: true,
      rest_base: 'books',
      supports: ['title', 'editor'],
    });
    this.hooks.addFilter('rest_book_trashable', () => false);
    this.cms.registerPageTemplate('page-my-test-template.php', 'My Test Template');
    this.cms.registerRestField('post', 'my_custom_int', {
      schema: {
        type: 'integer',
        description: 'Some integer of mine',
        enum: [1, 2, 3, 4, 123],
        context: ['view', 'edit'],
      },
      get: (data) => WriteHooksExtension.customInts.get(Number((data as { id: number }).id)) ?? 0,
      update: (value, post) => {
        WriteHooksExtension.customInts.set((post as PostEntity).id, Number(value));
        return undefined;
      },
    });
  }
}

@Module({ providers: [WriteHooksExtension] })
class WriteHooksModule {}

describe('posts: writing', () => {
  let t: TestApp;
  const auth = (role: keyof TestApp['users']) => t.users[role].authorization;
  const stored = (id: number) => t.dataSource.getRepository(PostEntity).findOneBy({ id });

  beforeAll(async () => {
    t = await createTestApp('posts_write', { extensions: [WriteHooksModule] });
  });
  afterAll(() => t.close());

  describe('create', () => {
    it('creates a post from a JSON body: 201, Location, the item in edit context', async () => {
      const res = await t.http
        .post(`${API}/posts`)
        .set('Authorization', auth('editor'))
        .send({
          title: 'Post title',
          content: 'Post content',
          excerpt: 'Post excerpt',
          status: 'publish',
          slug: 'rest-api-post',
        })
        .expect(201);
      expect(res.headers.location).toBe(`http://example.org${API}/posts/${res.body.id}`);
      expect(res.body).toMatchObject({
        title: { raw: 'Post title', rendered: 'Post title' },
        content: { raw: 'Post content', rendered: '<p>Post content</p>\n', protected: false },
        excerpt: { raw: 'Post excerpt', rendered: '<p>Post excerpt</p>\n' },
        status: 'publish',
        slug: 'rest-api-post',
        author: t.users.editor.id,
        password: '',
        link: 'http://example.org/rest-api-post/',
        type: 'post',
      });
      const row = await stored(res.body.id);
      expect(row).toMatchObject({
        title: 'Post title',
        content: 'Post content',
        excerpt: 'Post excerpt',
        status: 'publish',
        name: 'rest-api-post',
      });
      expect(res.body.date).toBe(row!.date.replace(' ', 'T'));
    });

    it('answers a new page as it was stored, its guid too when its permalink is longer than the column (255)', async () => {
      const page = (body: object) =>
        t.http
          .post(`${API}/pages`)
          .set('Authorization', auth('editor'))
          .send({ status: 'publish', ...body })
          .expect(201);
      const parent = await page({ title: 'Parent', slug: 'a'.repeat(150) });
      const child = await page({ title: 'Child', slug: 'b'.repeat(150), parent: parent.body.id });
      const row = await stored(child.body.id);
      // SQLite keeps the whole permalink; MySQL (WordPress's sql_mode) cuts it at 255 characters.
      expect(child.body.guid).toEqual({ raw: row!.guid, rendered: row!.guid });
      expect(row!.guid.startsWith(`http://example.org/${'a'.repeat(150)}/`)).toBe(true);
      const read = await t.http
        .get(`${API}/pages/${child.body.id}?context=edit`)
        .set('Authorization', auth('editor'))
        .expect(200);
      expect(read.body.guid).toEqual(child.body.guid);
    });

    it('creates a post from a form-encoded body', async () => {
      const res = await t.http
        .post(`${API}/posts`)
        .set('Authorization', auth('editor'))
        .type('form')
        .send({ title: 'Form title', content: 'Form content', status: 'draft' })
        .expect(201);
      expect(res.body.title.raw).toBe('Form title');
      expect(res.body.status).toBe('draft');
    });

    it('refuses an id on create with rest_post_exists', async () => {
      const res = await t.http.post(`${API}/posts`).set('Authorization', auth('editor')).send({ id: 3, title: 'x' });
      expectRestError(res, 'rest_post_exists', 400);
    });

    it('lets a contributor create a pending post', async () => {
      const res = await t.http
        .post(`${API}/posts`)
        .set('Authorization', auth('contributor'))
        .send({ title: 'Pending', status: 'pending' })
        .expect(201);
      expect(res.body.status).toBe('pending');
      expect(res.body.author).toBe(t.users.contributor.id);
    });

    it('makes a post sticky when an editor asks, and refuses contributors', async () => {
      const res = await t.http
        .post(`${API}/posts`)
        .set('Authorization', auth('editor'))
        .send({ title: 'Sticky', sticky: true, status: 'publish' })
        .expect(201);
      expect(res.body.sticky).toBe(true);
      const refused = await t.http
        .post(`${API}/posts`)
        .set('Authorization', auth('contributor'))
        .send({ title: 'Sticky', sticky: true, status: 'pending' });
      expectRestError(refused, 'rest_cannot_assign_sticky', 403);
    });

    it('refuses to create posts as another user without edit_others_posts', async () => {
      const res = await t.http
        .post(`${API}/posts`)
        .set('Authorization', auth('author'))
        .send({ title: 'x', author: t.users.editor.id });
      expectRestError(res, 'rest_cannot_edit_others', 403);
    });

    it('refuses anonymous creation with 401 rest_cannot_create, and subscribers with 403', async () => {
      expectRestError(await t.http.post(`${API}/posts`).send({ title: 'x' }), 'rest_cannot_create', 401);
      expectRestError(
        await t.http.post(`${API}/posts`).set('Authorization', auth('subscriber')).send({ title: 'x' }),
        'rest_cannot_create',
        403,
      );
    });

    it('creates drafts without a slug and private posts', async () => {
      const draft = await t.http
        .post(`${API}/posts`)
        .set('Authorization', auth('editor'))
        .send({ title: 'A draft', status: 'draft' })
        .expect(201);
      expect(draft.body).toMatchObject({ status: 'draft', slug: '' });
      expect((await stored(draft.body.id))!.dateGmt).toBe('0000-00-00 00:00:00');
      const priv = await t.http
        .post(`${API}/posts`)
        .set('Authorization', auth('editor'))
        .send({ title: 'Private', status: 'private' })
        .expect(201);
      expect(priv.body.status).toBe('private');
    });

    it('refuses private and published posts to users without publish_posts', async () => {
      for (const status of ['private', 'publish', 'future']) {
        const res = await t.http
          .post(`${API}/posts`)
          .set('Authorization', auth('contributor'))
          .send({ title: 'x', status });
        expectRestError(res, 'rest_cannot_publish', 403);
      }
    });

    it('rejects unknown statuses, formats and invalid dates with rest_invalid_param', async () => {
      for (const body of [
        { status: 'teststatus' },
        { format: 'testformat' },
        { date: '2010-60-01T02:00:00Z' },
        { date_gmt: '2010-60-01T02:00:00' },
        { comment_status: 'maybe' },
        { sticky: 'perhaps' },
      ]) {
        const res = await t.http
          .post(`${API}/posts`)
          .set('Authorization', auth('editor'))
          .send({ title: 'x', ...body });
        expectRestError(res, 'rest_invalid_param', 400);
      }
    });

    it('stores the post format', async () => {
      const res = await t.http
        .post(`${API}/posts`)
        .set('Authorization', auth('editor'))
        .send({ title: 'Gallery', format: 'gallery' })
        .expect(201);
      expect(res.body.format).toBe('gallery');
      const read = await t.http
        .get(`${API}/posts/${res.body.id}`)
        .set('Authorization', auth('editor'))
        .query({ context: 'edit' });
      expect(read.body.format).toBe('gallery');
    });

    it('refuses an author that does not exist', async () => {
      const res = await t.http
        .post(`${API}/posts`)
        .set('Authorization', auth('editor'))
        .send({ title: 'x', author: 999999 });
      expectRestError(res, 'rest_invalid_author', 400);
    });

    it('keeps passwords, including falsy ones, and allows sticky with an empty password', async () => {
      const res = await t.http
        .post(`${API}/posts`)
        .set('Authorization', auth('editor'))
        .send({ title: 'x', password: 'testing' })
        .expect(201);
      expect(res.body.password).toBe('testing');
      const zero = await t.http
        .post(`${API}/posts`)
        .set('Authorization', auth('editor'))
        .send({ title: 'x', password: '0' })
        .expect(201);
      expect(zero.body.password).toBe('0');
      const sticky = await t.http
        .post(`${API}/posts`)
        .set('Authorization', auth('editor'))
        .send({ title: 'x', password: '', sticky: true })
        .expect(201);
      expect(sticky.body).toMatchObject({ password: '', sticky: true });
      const both = await t.http
        .post(`${API}/posts`)
        .set('Authorization', auth('editor'))
        .send({ title: 'x', password: '123', sticky: true });
      expectRestError(both, 'rest_invalid_field', 400);
    });

    it('reads a date without offset as site time and converts one with an offset', async () => {
      const utc = await t.http
        .post(`${API}/posts`)
        .set('Authorization', auth('editor'))
        .send({ title: 'x', date: '2010-01-01T02:00:00Z' })
        .expect(201);
      expect(utc.body.date).toBe('2010-01-01T02:00:00');
      expect((await stored(utc.body.id))!.date).toBe('2010-01-01 02:00:00');
      const offset = await t.http
        .post(`${API}/posts`)
        .set('Authorization', auth('editor'))
        .send({ title: 'x', date: '2010-01-01T02:00:00-10:00' })
        .expect(201);
      expect(offset.body.date).toBe('2010-01-01T12:00:00');
      expect(offset.body.modified).toBe('2010-01-01T12:00:00');
    });

    it('keeps quotes in titles as sent', async () => {
      const res = await t.http
        .post(`${API}/posts`)
        .set('Authorization', auth('editor'))
        .send({ title: "Rob O'Rourke's Diary" })
        .expect(201);
      expect(res.body.title.raw).toBe("Rob O'Rourke's Diary");
    });

    it('replaces the default category with the categories sent, and refuses ids that are not categories', async () => {
      const category = await createTerm(t.dataSource, 'category', 'Chosen');
      const res = await t.http
        .post(`${API}/posts`)
        .set('Authorization', auth('editor'))
        .send({ title: 'x', categories: [category] })
        .expect(201);
      expect(res.body.categories).toEqual([category]);
      const before = await t.dataSource.getRepository(PostEntity).count();
      const unknown = await t.http
        .post(`${API}/posts`)
        .set('Authorization', auth('editor'))
        .send({ title: 'x', categories: [99999999] });
      expectRestError(unknown, 'rest_invalid_param', 400);
      expect(unknown.body.data.params.categories).toContain('99999999');
      const tag = await createTerm(t.dataSource, 'post_tag', 'Not a category');
      expectRestError(
        await t.http
          .post(`${API}/posts`)
          .set('Authorization', auth('editor'))
          .send({ title: 'x', categories: [tag] }),
        'rest_invalid_param',
        400,
      );
      expect(await t.dataSource.getRepository(PostEntity).count()).toBe(before);
      const none = await t.http
        .post(`${API}/posts`)
        .set('Authorization', auth('editor'))
        .send({ title: 'x' })
        .expect(201);
      expect(none.body.categories).toEqual([1]);
    });

    it('refuses a post with neither title, content nor excerpt', async () => {
      const res = await t.http.post(`${API}/posts`).set('Authorization', auth('editor')).send({ status: 'draft' });
      expectRestError(res, 'empty_content', 400);
    });

    it('creates pages with a parent, a template offered by an extension and a menu order', async () => {
      const parent = await t.http
        .post(`${API}/pages`)
        .set('Authorization', auth('editor'))
        .send({ title: 'Parent', status: 'publish' })
        .expect(201);
      const child = await t.http
        .post(`${API}/pages`)
        .set('Authorization', auth('editor'))
        .send({
          title: 'Child',
          status: 'publish',
          parent: parent.body.id,
          template: 'page-my-test-template.php',
          menu_order: 1,
        })
        .expect(201);
      expect(child.body).toMatchObject({
        parent: parent.body.id,
        template: 'page-my-test-template.php',
        menu_order: 1,
        link: 'http://example.org/parent/child/',
      });
      expect(child.body._links.up[0].href).toBe(`http://example.org${API}/pages/${parent.body.id}`);
      const zero = await t.http
        .put(`${API}/pages/${child.body.id}`)
        .set('Authorization', auth('editor'))
        .send({ menu_order: 0 })
        .expect(200);
      expect(zero.body.menu_order).toBe(0);
      const invalid = await t.http
        .post(`${API}/pages`)
        .set('Authorization', auth('editor'))
        .send({ title: 'x', parent: -1 });
      expectRestError(invalid, 'rest_post_invalid_id', 400);
      const missing = await t.http
        .post(`${API}/pages`)
        .set('Authorization', auth('editor'))
        .send({ title: 'x', parent: 99999999 });
      expectRestError(missing, 'rest_post_invalid_id', 400);
    });

    it('stores registered fields through their update callback', async () => {
      const res = await t.http
        .post(`${API}/posts`)
        .set('Authorization', auth('editor'))
        .send({ title: 'x', my_custom_int: 123 })
        .expect(201);
      expect(res.body.my_custom_int).toBe(123);
      const bad = await t.http
        .post(`${API}/posts/${res.body.id}`)
        .set('Authorization', auth('editor'))
        .send({ my_custom_int: 'returnError' });
      expectRestError(bad, 'rest_invalid_param', 400);
    });

    it('creates items of extension types through their own route', async () => {
      const res = await t.http
        .post(`${API}/books`)
        .set('Authorization', auth('administrator'))
        .send({ title: 'A book', status: 'publish' })
        .expect(201);
      expect(res.body).toMatchObject({ type: 'book', slug: 'a-book', link: 'http://example.org/book/a-book/' });
      expect(res.headers.location).toBe(`http://example.org${API}/books/${res.body.id}`);
    });
  });

  describe('update', () => {
    let postId: number;
    beforeEach(async () => {
      postId = (
        await createPost(t.dataSource, { author: t.users.author.id, title: 'Original', content: 'Original content' })
      ).id;
    });

    it('updates from a form body and a JSON body, keeping the id', async () => {
      const form = await t.http
        .put(`${API}/posts/${postId}`)
        .set('Authorization', auth('editor'))
        .type('form')
        .send({ title: 'Form', content: 'C', excerpt: 'E' })
        .expect(200);
      expect(form.headers.location).toBeUndefined();
      expect(form.body).toMatchObject({
        id: postId,
        title: { raw: 'Form' },
        content: { raw: 'C' },
        excerpt: { raw: 'E' },
      });
      const json = await t.http
        .post(`${API}/posts/${postId}`)
        .set('Authorization', auth('editor'))
        .send({ title: { raw: 'Raw title' }, content: { raw: 'Raw content' }, excerpt: { raw: 'Raw excerpt' } })
        .expect(200);
      expect(json.body).toMatchObject({
        title: { raw: 'Raw title' },
        content: { raw: 'Raw content' },
        excerpt: { raw: 'Raw excerpt' },
      });
      expect(await stored(postId)).toMatchObject({
        title: 'Raw title',
        content: 'Raw content',
        excerpt: 'Raw excerpt',
      });
    });

    it('answers an update with the row as stored, also when the database stored a value otherwise than sent', async () => {
      const edit = (body: object) =>
        t.http.post(`${API}/posts/${postId}`).set('Authorization', auth('editor')).send(body).expect(200);
      const read = async () =>
        (await t.http.get(`${API}/posts/${postId}?context=edit`).set('Authorization', auth('editor')).expect(200)).body;
      // A password longer than its column (255 characters): SQLite keeps it whole, MySQL (WordPress's sql_mode) cuts
      // it. (Titles over their column's 65,535 bytes are refused before they are written.)
      const long = await edit({ password: 'p'.repeat(300), excerpt: 'Kept' });
      const row = await stored(postId);
      expect(long.body.password).toBe(row!.password);
      expect(row!.password.length).toBe(['mysql', 'mariadb'].includes(t.dataSource.options.type) ? 255 : 300);
      expect(long.body).toEqual(await read());
      await edit({ password: '' });
      // A lone surrogate is stored as replacement characters (MySQL one, SQLite one per byte of its encoding).
      const lone = await edit({ title: 'Half \ud83d pair' });
      expect(lone.body.title.raw).toMatch(/^Half \ufffd+ pair$/);
      expect(lone.body).toEqual(await read());
      // A plain edit answers what was sent, and what a read finds.
      const plain = await edit({ title: 'Plain edit', content: 'New content' });
      expect(plain.body).toMatchObject({
        title: { raw: 'Plain edit' },
        content: { raw: 'New content' },
        excerpt: { raw: 'Kept' },
      });
      expect(plain.body).toEqual(await read());
    });

    it('changes only what is sent', async () => {
      const res = await t.http
        .patch(`${API}/posts/${postId}`)
        .set('Authorization', auth('editor'))
        .send({ excerpt: 'Only this' })
        .expect(200);
      expect(res.body).toMatchObject({
        title: { raw: 'Original' },
        content: { raw: 'Original content' },
        excerpt: { raw: 'Only this' },
        status: 'publish',
        author: t.users.author.id,
      });
    });

    it('allows empty content and excerpt', async () => {
      const res = await t.http
        .put(`${API}/posts/${postId}`)
        .set('Authorization', auth('editor'))
        .send({ content: '', excerpt: '' })
        .expect(200);
      expect(res.body.content.raw).toBe('');
      expect(res.body.excerpt.raw).toBe('');
    });

    it('refuses users who cannot edit the post, before any other check', async () => {
      expectRestError(await t.http.put(`${API}/posts/${postId}`).send({ title: 'x' }), 'rest_cannot_edit', 401);
      const res = await t.http
        .put(`${API}/posts/${postId}`)
        .set('Authorization', auth('contributor'))
        .send({ title: 'x', sticky: true });
      expectRestError(res, 'rest_cannot_edit', 403);
    });

    it('answers 404 for unknown ids and posts of another type', async () => {
      expectRestError(
        await t.http.put(`${API}/posts/99999999`).set('Authorization', auth('editor')).send({ title: 'x' }),
        'rest_post_invalid_id',
        404,
      );
      expectRestError(
        await t.http.put(`${API}/pages/${postId}`).set('Authorization', auth('editor')).send({ title: 'x' }),
        'rest_post_invalid_id',
        404,
      );
    });

    it('ignores read-only fields and sets the modified date to now', async () => {
      const before = Date.now();
      const res = await t.http
        .put(`${API}/posts/${postId}`)
        .set('Authorization', auth('editor'))
        .send({ modified: '2001-01-01T00:00:00', guid: 'x', type: 'page', content: 'New' })
        .expect(200);
      expect(res.body.type).toBe('post');
      expect(Date.parse(`${res.body.modified_gmt}Z`)).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
      expect(res.body.content.raw).toBe('New');
    });

    it('sanitizes slugs, removing accents', async () => {
      const res = await t.http
        .put(`${API}/posts/${postId}`)
        .set('Authorization', auth('editor'))
        .send({ slug: 'tęst-acceńted-chäræcters' })
        .expect(200);
      expect(res.body.slug).toBe('test-accented-charaecters');
      expect((await stored(postId))!.name).toBe('test-accented-charaecters');
    });

    it('keeps a post sticky when an update does not mention it', async () => {
      await t.http
        .put(`${API}/posts/${postId}`)
        .set('Authorization', auth('editor'))
        .send({ sticky: true })
        .expect(200);
      const res = await t.http
        .put(`${API}/posts/${postId}`)
        .set('Authorization', auth('editor'))
        .send({ title: 'Still sticky' })
        .expect(200);
      expect(res.body.sticky).toBe(true);
      const off = await t.http
        .put(`${API}/posts/${postId}`)
        .set('Authorization', auth('editor'))
        .send({ sticky: false })
        .expect(200);
      expect(off.body.sticky).toBe(false);
    });

    it('refuses sticky posts with passwords in every combination', async () => {
      expectRestError(
        await t.http
          .put(`${API}/posts/${postId}`)
          .set('Authorization', auth('editor'))
          .send({ password: '123', sticky: true }),
        'rest_invalid_field',
        400,
      );
      await t.http
        .put(`${API}/posts/${postId}`)
        .set('Authorization', auth('editor'))
        .send({ sticky: true })
        .expect(200);
      expectRestError(
        await t.http.put(`${API}/posts/${postId}`).set('Authorization', auth('editor')).send({ password: '123' }),
        'rest_invalid_field',
        400,
      );
      const locked = (await createPost(t.dataSource, { password: 'secret' })).id;
      expectRestError(
        await t.http.put(`${API}/posts/${locked}`).set('Authorization', auth('editor')).send({ sticky: true }),
        'rest_invalid_field',
        400,
      );
    });

    it('changes the format, and rejects unknown ones', async () => {
      const res = await t.http
        .put(`${API}/posts/${postId}`)
        .set('Authorization', auth('editor'))
        .send({ format: 'gallery' })
        .expect(200);
      expect(res.body.format).toBe('gallery');
      expectRestError(
        await t.http.put(`${API}/posts/${postId}`).set('Authorization', auth('editor')).send({ format: 'testformat' }),
        'rest_invalid_param',
        400,
      );
    });

    it('replaces and clears categories, and the cms:term link finds the new ones', async () => {
      const category = await createTerm(t.dataSource, 'category', 'Test Category');
      const res = await t.http
        .put(`${API}/posts/${postId}`)
        .set('Authorization', auth('editor'))
        .send({ categories: [category] })
        .expect(200);
      expect(res.body.categories).toEqual([category]);
      const link = res.body._links['cms:term'].find((l: { taxonomy: string }) => l.taxonomy === 'category')
        .href as string;
      expect(link).toBe(`http://example.org${API}/categories?post=${postId}`);
      const cleared = await t.http
        .put(`${API}/posts/${postId}`)
        .set('Authorization', auth('editor'))
        .send({ categories: [] })
        .expect(200);
      expect(cleared.body.categories).toEqual([]);
    });

    it('refuses to change the author to another user without edit_others_posts', async () => {
      const own = (await createPost(t.dataSource, { author: t.users.author.id })).id;
      const res = await t.http
        .put(`${API}/posts/${own}`)
        .set('Authorization', auth('author'))
        .send({ author: t.users.editor.id });
      expectRestError(res, 'rest_cannot_edit_others', 403);
    });
  });

  describe('delete', () => {
    let postId: number;
    beforeEach(async () => {
      postId = (await createPost(t.dataSource, { author: t.users.author.id, title: 'Deleted post' })).id;
    });

    it('moves a post to the trash and answers with the post as it was', async () => {
      const res = await t.http.delete(`${API}/posts/${postId}`).set('Authorization', auth('editor')).expect(200);
      expect(res.body).toMatchObject({ id: postId, status: 'publish', title: { raw: 'Deleted post' } });
      expect((await stored(postId))!.status).toBe('trash');
    });

    it('deletes permanently with force=true', async () => {
      const res = await t.http
        .delete(`${API}/posts/${postId}`)
        .query({ force: true })
        .set('Authorization', auth('editor'))
        .expect(200);
      expect(res.body).toMatchObject({ id: postId, title: { raw: 'Deleted post' } });
      expect(res.body.deleted).toBeUndefined();
      expect(await stored(postId)).toBeNull();
    });

    it('answers 410 rest_already_trashed for a post already in the trash', async () => {
      await t.http.delete(`${API}/posts/${postId}`).set('Authorization', auth('editor')).expect(200);
      expectRestError(
        await t.http.delete(`${API}/posts/${postId}`).set('Authorization', auth('editor')),
        'rest_already_trashed',
        410,
      );
    });

    it('answers 501 rest_trash_not_supported for a type without trash, unless forced', async () => {
      const book = await t.http
        .post(`${API}/books`)
        .set('Authorization', auth('administrator'))
        .send({ title: 'Book', status: 'publish' })
        .expect(201);
      expectRestError(
        await t.http.delete(`${API}/books/${book.body.id}`).set('Authorization', auth('administrator')),
        'rest_trash_not_supported',
        501,
      );
      await t.http
        .delete(`${API}/books/${book.body.id}`)
        .query({ force: true })
        .set('Authorization', auth('administrator'))
        .expect(200);
    });

    it('answers 404 for unknown ids and posts of another type', async () => {
      expectRestError(
        await t.http.delete(`${API}/posts/99999999`).set('Authorization', auth('editor')),
        'rest_post_invalid_id',
        404,
      );
      const page = (await createPost(t.dataSource, { type: 'page' })).id;
      expectRestError(
        await t.http.delete(`${API}/posts/${page}`).set('Authorization', auth('editor')),
        'rest_post_invalid_id',
        404,
      );
      expect(await stored(page)).not.toBeNull();
    });

    it("refuses to delete another user's post without the capability", async () => {
      const editors = (await createPost(t.dataSource, { author: t.users.editor.id })).id;
      expectRestError(
        await t.http.delete(`${API}/posts/${editors}`).set('Authorization', auth('author')),
        'rest_cannot_delete',
        403,
      );
      expectRestError(await t.http.delete(`${API}/posts/${editors}`), 'rest_cannot_delete', 401);
    });
  });

  it('fires rest_insert_post on create and update and rest_delete_post on delete', async () => {
    WriteHooksExtension.events.length = 0;
    const created = await t.http
      .post(`${API}/posts`)
      .set('Authorization', auth('editor'))
      .send({ title: 'Hooked', status: 'publish' })
      .expect(201);
    const id = created.body.id;
    await t.http
      .put(`${API}/posts/${id}`)
      .set('Authorization', auth('editor'))
      .send({ title: 'Hooked again' })
      .expect(200);
    await t.http.delete(`${API}/posts/${id}`).set('Authorization', auth('editor')).expect(200);
    expect(WriteHooksExtension.events).toEqual([`insert:${id}:true`, `insert:${id}:false`, `delete:${id}:publish`]);
  });

  it('lists write methods in OPTIONS and the Allow header for those who may use them', async () => {
    const options = await t.http.options(`${API}/posts`).expect(200);
    expect(options.body.methods).toEqual(['GET', 'POST']);
    expect(Object.keys(options.body.endpoints[1].args)).toEqual(
      expect.arrayContaining(['title', 'content', 'status', 'sticky', 'categories', 'tags', 'meta']),
    );
    const item = (await createPost(t.dataSource, { author: t.users.editor.id })).id;
    const editor = await t.http.get(`${API}/posts/${item}`).set('Authorization', auth('editor')).expect(200);
    expect(editor.headers.allow).toBe('GET, POST, PUT, PATCH, DELETE');
    const anonymous = await t.http.get(`${API}/posts/${item}`).expect(200);
    expect(anonymous.headers.allow).toBe('GET');
  });

  it('serves many concurrent writes: every one succeeds, with unique slugs and a consistent sticky list', async () => {
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        t.http
          .post(`${API}/posts`)
          .set('Authorization', auth('editor'))
          .send({ title: 'Crowded title', status: 'publish', sticky: i % 2 === 0 }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(new Array(40).fill(201));
    const slugs = results.map((r) => r.body.slug as string);
    expect(new Set(slugs).size).toBe(40);
    const read = await t.http.get(`${API}/posts`).query({ sticky: true, per_page: 100 }).expect(200);
    const sticky = new Set(read.body.map((p: { id: number }) => p.id));
    for (const [i, r] of results.entries()) expect(sticky.has(r.body.id)).toBe(i % 2 === 0);
  });

  it('reads back through GET exactly what the write answered', async () => {
    const created = await t.http
      .post(`${API}/posts`)
      .set('Authorization', auth('editor'))
      .send({
        title: 'Round trip',
        content: 'Body\n\nSecond',
        status: 'publish',
        comment_status: 'closed',
        ping_status: 'closed',
      })
      .expect(201);
    const read = await t.http
      .get(`${API}/posts/${created.body.id}`)
      .query({ context: 'edit' })
      .set('Authorization', auth('editor'))
      .expect(200);
    expect(read.body).toEqual(created.body);
  });
});
