import { createHash } from 'node:crypto';
import { OptionsService } from '../../src/core/options/options.service';
import { CommentEntity } from '../../src/core/database/entities/comment.entity';
import { PostEntity } from '../../src/core/database/entities/post.entity';
import { UserEntity } from '../../src/core/database/entities/user.entity';
import { PostsService } from '../../src/resources/posts/posts.service';
import { insertComment, sqlDate, unflood } from '../factories/comment.factory';
import { createPost } from '../factories/post.factory';
import { createUser, TestUser } from '../factories/user.factory';
import { createTestApp, expectRestError, TEST_PREFIX, TestApp } from '../utils/test-app';

/**
 * The comments resource (`cms/v2/comments`): routes, schema, fields and contexts, read rules, the collection and its
 * parameters, create / update / delete with their error codes, the post's comment_count, embedding, and the cost in
 * SQL statements of embedded pages. The permission matrix, the moderation settings, hooks and meta are in
 * comments-rules.e2e-spec.ts.
 */

const API = '/cms-json/cms/v2';
const BASE = 'http://example.org';

/** Every key of a comment, in the response order. */
const ALL_KEYS = [
  'id',
  'post',
  'parent',
  'author',
  'author_name',
  'author_email',
  'author_url',
  'author_ip',
  'author_user_agent',
  'date',
  'date_gmt',
  'content',
  'karma',
  'link',
  'status',
  'type',
  'author_avatar_urls',
  'meta',
];
const VIEW = [
  'id',
  'post',
  'parent',
  'author',
  'author_name',
  'author_url',
  'date',
  'date_gmt',
  'content',
  'link',
  'status',
  'type',
  'author_avatar_urls',
  'meta',
];
const EMBED = [
  'id',
  'author',
  'author_name',
  'author_url',
  'date',
  'content',
  'link',
  'parent',
  'type',
  'author_avatar_urls',
];
const EDIT_ONLY = ['author_email', 'author_ip', 'author_user_agent', 'karma'];
const inOrder = (keys: string[]) => ALL_KEYS.filter((k) => keys.includes(k));
const VIEW_KEYS = [...inOrder(VIEW), '_links'];
const EMBED_KEYS = [...inOrder(EMBED), '_links'];
const EDIT_KEYS = [...ALL_KEYS, '_links'];

const COLLECTION_PARAMS = [
  'after',
  'author',
  'author_email',
  'author_exclude',
  'before',
  'context',
  'exclude',
  'include',
  'karma',
  'offset',
  'order',
  'orderby',
  'page',
  'parent',
  'parent_exclude',
  'password',
  'per_page',
  'post',
  'search',
  'status',
  'type',
];
const SCHEMA_PROPERTIES = [
  'author',
  'author_avatar_urls',
  'author_email',
  'author_ip',
  'author_name',
  'author_url',
  'author_user_agent',
  'content',
  'date',
  'date_gmt',
  'id',
  'karma',
  'link',
  'meta',
  'parent',
  'post',
  'status',
  'type',
];

type Role = 'administrator' | 'editor' | 'author' | 'contributor' | 'subscriber';
type Caller = 'anonymous' | Role | TestUser;
type Method = 'get' | 'post' | 'put' | 'patch' | 'delete' | 'options';

/** The gravatar URLs of an e-mail, as users' avatar_urls are built. */
function avatarUrls(email: string): Record<string, string> {
  const hash = createHash('md5').update(email.trim().toLowerCase()).digest('hex');
  const host = `http://${parseInt(hash[0], 16) % 3}.gravatar.com`;
  return Object.fromEntries([24, 48, 96].map((s) => [String(s), `${host}/avatar/${hash}?s=${s}&d=mm&r=g`]));
}

describe('comments', () => {
  let t: TestApp;
  let ipSeq = 0;
  let textSeq = 0;
  /** A distinct client address per request (the API trusts X-Forwarded-For from loopback), so anonymous callers do not flood. */
  const nextIp = () => `198.51.${Math.floor(ipSeq / 250) % 250}.${(ipSeq++ % 250) + 1}`;
  /** Unique comment text (no duplicates). */
  const text = (label = 'Comment') => `${label} number ${++textSeq}.`;
  /** Name and e-mail of a new guest. */
  const guest = () => ({ author_name: `Visitor ${++textSeq}`, author_email: `visitor${textSeq}@example.com` });

  function call(method: Method, path: string, who: Caller = 'anonymous', ip?: string) {
    let req = t.http[method](`${API}${path}`).set('X-Forwarded-For', ip ?? nextIp());
    if (who !== 'anonymous')
      req = req.set('Authorization', typeof who === 'string' ? t.users[who].authorization : who.authorization);
    return req;
  }
  const get = (path: string, who: Caller = 'anonymous') => call('get', path, who);
  const ids = (res: { body: Array<{ id: number }> }) => res.body.map((c) => c.id);
  const stored = (id: number) => t.dataSource.getRepository(CommentEntity).findOneBy({ id });
  const storedPost = (id: number) => t.dataSource.getRepository(PostEntity).findOneByOrFail({ id });
  const setOption = (name: string, value: unknown) => t.app.get(OptionsService).set(name, value);

  let owner: TestUser;
  let post: PostEntity;
  let privatePost: PostEntity;
  let approved: CommentEntity;
  let held: CommentEntity;

  beforeAll(async () => {
    t = await createTestApp('comments');
    owner = t.users.subscriber;
    post = await createPost(t.dataSource, { author: t.users.administrator.id, title: 'Commented', name: 'commented' });
    privatePost = await createPost(t.dataSource, {
      author: t.users.editor.id,
      status: 'private',
      title: 'Private',
      name: 'private-one',
    });
    approved = await insertComment(t.dataSource, {
      postId: post.id,
      author: 'Guest Poster',
      authorEmail: 'Guest.Poster@Example.ORG',
      authorUrl: 'http://guest.example',
      content: 'Hello',
      date: '2024-01-10 08:00:00',
    });
    held = await insertComment(t.dataSource, {
      postId: post.id,
      approved: '0',
      userId: owner.id,
      author: 'subscriber',
      authorEmail: 'subscriber@example.org',
      content: 'Waiting for approval',
      date: '2024-01-10 09:00:00',
    });
  });
  afterAll(() => t.close());
  beforeEach(() => unflood(t.dataSource));

  describe('routes and schema', () => {
    it('registers comments (GET, POST) and comments/<id> (GET, POST, PUT, PATCH, DELETE)', async () => {
      const index = await t.http.get('/cms-json/').expect(200);
      const list = index.body.routes['/cms/v2/comments'];
      const item = index.body.routes['/cms/v2/comments/(?P<id>[\\d]+)'];
      expect(list).toMatchObject({ namespace: 'cms/v2' });
      expect([...list.methods].sort()).toEqual(['GET', 'POST']);
      expect(list.endpoints).toHaveLength(2);
      expect([...item.methods].sort()).toEqual(['DELETE', 'GET', 'PATCH', 'POST', 'PUT']);
      expect(item.endpoints).toHaveLength(3);
      expect(list._links.self[0].href).toBe(`${BASE}${API}/comments`);
    });

    it('describes the collection parameters in OPTIONS, with their defaults (no user, no post_* parameters)', async () => {
      const res = await call('options', '/comments').expect(200);
      const args = res.body.endpoints[0].args;
      expect(Object.keys(args).sort()).toEqual(COLLECTION_PARAMS);
      expect(args.context).toMatchObject({ default: 'view', enum: ['view', 'embed', 'edit'] });
      expect(args.status.default).toBe('approve');
      expect(args.type.default).toBe('comment');
      expect(args.order).toMatchObject({ default: 'desc', enum: ['asc', 'desc'] });
      expect(args.orderby.default).toBe('date_gmt');
      expect([...args.orderby.enum].sort()).toEqual(['date', 'date_gmt', 'id', 'include', 'parent', 'post', 'type']);
      expect(args.page.default).toBe(1);
      expect(args.per_page.default).toBe(10);
    });

    it('gives the schema title comment and 18 properties', async () => {
      const res = await call('options', '/comments').expect(200);
      expect(res.body.schema.title).toBe('comment');
      expect(Object.keys(res.body.schema.properties).sort()).toEqual(SCHEMA_PROPERTIES);
      const props = res.body.schema.properties;
      expect(props.author_avatar_urls.properties).toEqual({
        24: expect.objectContaining({ type: 'string', format: 'uri' }),
        48: expect.objectContaining({ type: 'string', format: 'uri' }),
        96: expect.objectContaining({ type: 'string', format: 'uri' }),
      });
      expect(props.date_gmt.context).toEqual(['view', 'edit']);
      expect([...props.author_email.context]).toEqual(['edit']);
      // The reference's beta says ipv4; current WordPress says ip (the client address may be IPv6).
      expect(['ip', 'ipv4']).toContain(props.author_ip.format);
      expect(props.type.default).toBe('comment');
    });

    it('describes the item route: context on GET, the schema args on update, force (default false) on DELETE', async () => {
      const res = await call('options', `/comments/${approved.id}`).expect(200);
      const [read, update, remove] = res.body.endpoints;
      expect(read.methods).toEqual(['GET']);
      expect(read.args.context).toMatchObject({ default: 'view', enum: ['view', 'embed', 'edit'] });
      expect([...update.methods].sort()).toEqual(['PATCH', 'POST', 'PUT']);
      expect(Object.keys(update.args)).toEqual(
        expect.arrayContaining([
          'content',
          'author',
          'author_name',
          'status',
          'type',
          'post',
          'parent',
          'date',
          'date_gmt',
          'karma',
        ]),
      );
      expect(remove.methods).toEqual(['DELETE']);
      expect(remove.args.force).toMatchObject({ default: false });
    });

    it('leaves author_avatar_urls out of the schema and the items while show_avatars is off', async () => {
      await setOption('show_avatars', '');
      try {
        const res = await get(`/comments/${approved.id}`).expect(200);
        expect(res.body).not.toHaveProperty('author_avatar_urls');
        expect(Object.keys(res.body)).toEqual(VIEW_KEYS.filter((k) => k !== 'author_avatar_urls'));
        const options = await call('options', '/comments').expect(200);
        expect(Object.keys(options.body.schema.properties)).toHaveLength(17);
        expect(options.body.schema.properties.author_avatar_urls).toBeUndefined();
      } finally {
        await setOption('show_avatars', '1');
      }
      const back = await get(`/comments/${approved.id}`).expect(200);
      expect(back.body.author_avatar_urls).toBeDefined();
    });
  });

  describe('reading one comment', () => {
    it('answers a guest comment in view context: key order, values, link and links', async () => {
      const res = await get(`/comments/${approved.id}`).expect(200);
      expect(Object.keys(res.body)).toEqual(VIEW_KEYS);
      expect(res.body).toEqual({
        id: approved.id,
        post: post.id,
        parent: 0,
        author: 0,
        author_name: 'Guest Poster',
        author_url: 'http://guest.example',
        date: '2024-01-10T08:00:00',
        date_gmt: '2024-01-10T08:00:00',
        content: { rendered: '<p>Hello</p>\n' },
        link: `${BASE}/commented/#comment-${approved.id}`,
        status: 'approved',
        type: 'comment',
        author_avatar_urls: avatarUrls('guest.poster@example.org'),
        meta: [],
        _links: expect.any(Object),
      });
      expect(Object.keys(res.body._links)).toEqual(['self', 'collection', 'up']);
      expect(res.body._links.self).toEqual([{ href: `${BASE}${API}/comments/${approved.id}` }]);
      expect(res.body._links.collection).toEqual([{ href: `${BASE}${API}/comments` }]);
      expect(res.body._links.up).toEqual([
        { embeddable: true, post_type: 'post', href: `${BASE}${API}/posts/${post.id}` },
      ]);
      expect(res.headers.link ?? '').not.toMatch(/rel="(next|prev)"/);
    });

    it('answers the edit context to moderators, with e-mail, IP, user agent, raw content and karma', async () => {
      const res = await get(`/comments/${approved.id}?context=edit`, 'administrator').expect(200);
      expect(Object.keys(res.body)).toEqual(EDIT_KEYS);
      expect(res.body).toMatchObject({
        author_email: 'Guest.Poster@Example.ORG',
        author_ip: '192.0.2.1',
        author_user_agent: '',
        content: { rendered: '<p>Hello</p>\n', raw: 'Hello' },
        karma: 0,
      });
    });

    it('answers the embed context with the embeddable fields only', async () => {
      const res = await get(`/comments/${approved.id}?context=embed`).expect(200);
      expect(Object.keys(res.body)).toEqual(EMBED_KEYS);
      expect(res.body.content).toEqual({ rendered: '<p>Hello</p>\n' });
      for (const key of [...EDIT_ONLY, 'post', 'status', 'date_gmt', 'meta']) expect(res.body).not.toHaveProperty(key);
    });

    it('builds the author_avatar_urls (24, 48, 96) from the md5 of the lowercased, trimmed author e-mail', async () => {
      const c = await insertComment(t.dataSource, { postId: post.id, authorEmail: ' Mixed.Case@Example.ORG ' });
      const res = await get(`/comments/${c.id}`).expect(200);
      expect(Object.keys(res.body.author_avatar_urls)).toEqual(['24', '48', '96']);
      expect(res.body.author_avatar_urls).toEqual(avatarUrls('mixed.case@example.org'));
      expect(res.body.author_avatar_urls['96']).toMatch(
        /^http:\/\/[012]\.gravatar\.com\/avatar\/[0-9a-f]{32}\?s=96&d=mm&r=g$/,
      );
    });

    it('formats the rendered content as posts do (autop, texturize) and keeps raw as stored', async () => {
      const c = await insertComment(t.dataSource, {
        postId: post.id,
        content: "It's done -- now\nsecond line\n\nNew paragraph",
      });
      const res = await get(`/comments/${c.id}?context=edit`, 'administrator').expect(200);
      expect(res.body.content.raw).toBe("It's done -- now\nsecond line\n\nNew paragraph");
      expect(res.body.content.rendered).toBe(
        '<p>It&#8217;s done &#8212; now<br />\nsecond line</p>\n<p>New paragraph</p>\n',
      );
    });

    it('treats a stored empty type as the type comment', async () => {
      const c = await insertComment(t.dataSource, { postId: post.id, type: '' });
      expect((await get(`/comments/${c.id}`).expect(200)).body.type).toBe('comment');
    });

    it('maps stored statuses: 1 → approved, 0 → hold, spam and trash as they are', async () => {
      const spam = await insertComment(t.dataSource, { postId: post.id, approved: 'spam' });
      const trash = await insertComment(t.dataSource, { postId: post.id, approved: 'trash' });
      const status = async (id: number) => (await get(`/comments/${id}`, 'administrator').expect(200)).body.status;
      expect(await status(approved.id)).toBe('approved');
      expect(await status(held.id)).toBe('hold');
      expect(await status(spam.id)).toBe('spam');
      expect(await status(trash.id)).toBe('trash');
    });

    it('links the author (embeddable) when the comment has a user, and the parent as in-reply-to', async () => {
      const parent = await insertComment(t.dataSource, {
        postId: post.id,
        userId: t.users.author.id,
        author: 'author',
        authorEmail: 'author@example.org',
      });
      const child = await insertComment(t.dataSource, { postId: post.id, parent: parent.id });
      const res = await get(`/comments/${parent.id}`).expect(200);
      expect(res.body.author).toBe(t.users.author.id);
      expect(Object.keys(res.body._links)).toEqual(['self', 'collection', 'author', 'up', 'children']);
      expect(res.body._links.author).toEqual([{ embeddable: true, href: `${BASE}${API}/users/${t.users.author.id}` }]);
      expect(res.body._links.children).toEqual([{ href: `${BASE}${API}/comments?parent=${parent.id}` }]);
      const kid = await get(`/comments/${child.id}`).expect(200);
      expect(kid.body.parent).toBe(parent.id);
      expect(Object.keys(kid.body._links)).toEqual(['self', 'collection', 'up', 'in-reply-to']);
      expect(kid.body._links['in-reply-to']).toEqual([
        { embeddable: true, href: `${BASE}${API}/comments/${parent.id}` },
      ]);
    });

    it('gives a children link only for an approved or held child, not a spam or trashed one', async () => {
      const lonely = await insertComment(t.dataSource, { postId: post.id });
      const links = async (id: number) => Object.keys((await get(`/comments/${id}`).expect(200)).body._links);
      expect(await links(lonely.id)).not.toContain('children');
      await insertComment(t.dataSource, { postId: post.id, parent: lonely.id, approved: 'spam' });
      await insertComment(t.dataSource, { postId: post.id, parent: lonely.id, approved: 'trash' });
      expect(await links(lonely.id)).not.toContain('children');
      await insertComment(t.dataSource, { postId: post.id, parent: lonely.id, approved: '0' });
      expect(await links(lonely.id)).toContain('children');
    });

    it('answers an unknown id with rest_comment_invalid_id 404', async () => {
      const res = await get('/comments/99999999');
      expectRestError(res, 'rest_comment_invalid_id', 404);
      expect(res.body.message).toBe('Invalid comment id.');
      expectRestError(await get('/comments/99999999', 'administrator'), 'rest_comment_invalid_id', 404);
    });

    it('refuses the edit context without moderate_comments (rest_forbidden_context 401/403)', async () => {
      const anon = await get(`/comments/${approved.id}?context=edit`);
      expectRestError(anon, 'rest_forbidden_context', 401);
      expect(anon.body.message).toBe('Sorry, you cannot view this comment with edit context.');
      expectRestError(await get(`/comments/${approved.id}?context=edit`, 'author'), 'rest_forbidden_context', 403);
      await get(`/comments/${approved.id}?context=edit`, 'editor').expect(200);
    });

    it('hides a held comment (rest_cannot_read 401/403) except from its own author and moderators', async () => {
      const anon = await get(`/comments/${held.id}`);
      expectRestError(anon, 'rest_cannot_read', 401);
      expect(anon.body.message).toBe('Sorry, you cannot read this comment.');
      expectRestError(await get(`/comments/${held.id}`, 'contributor'), 'rest_cannot_read', 403);
      const own = await get(`/comments/${held.id}`, owner).expect(200);
      expect(own.body.status).toBe('hold');
      await get(`/comments/${held.id}`, 'editor').expect(200);
    });

    it('hides an approved comment of a private post from those who cannot read the post', async () => {
      const c = await insertComment(t.dataSource, { postId: privatePost.id });
      expectRestError(await get(`/comments/${c.id}`), 'rest_cannot_read', 401);
      expectRestError(await get(`/comments/${c.id}`, 'subscriber'), 'rest_cannot_read', 403);
      await get(`/comments/${c.id}`, 'administrator').expect(200);
      await get(`/comments/${c.id}`, 'editor').expect(200);
    });

    it('answers rest_cannot_read_post to the author of a comment on a post they cannot read', async () => {
      const mine = await insertComment(t.dataSource, {
        postId: privatePost.id,
        userId: owner.id,
        author: 'subscriber',
        authorEmail: 'subscriber@example.org',
      });
      const res = await get(`/comments/${mine.id}`, owner);
      expectRestError(res, 'rest_cannot_read_post', 403);
      expect(res.body.message).toBe('Sorry, you cannot read the post for this comment.');
    });

    it('hides a comment of a deleted post (rest_cannot_read 401) and answers rest_post_invalid_id 404 to an admin', async () => {
      const c = await insertComment(t.dataSource, { postId: 987654 });
      expectRestError(await get(`/comments/${c.id}`), 'rest_cannot_read', 401);
      const admin = await get(`/comments/${c.id}`, 'administrator');
      expectRestError(admin, 'rest_post_invalid_id', 404);
      expect(admin.body.message).toBe('Invalid post id.');
    });

    it('serves a comment without a post to moderators only, with the bare #comment-<id> link and no up link', async () => {
      const c = await insertComment(t.dataSource, { postId: 0 });
      expectRestError(await get(`/comments/${c.id}`), 'rest_cannot_read', 401);
      expectRestError(await get(`/comments/${c.id}`, 'author'), 'rest_cannot_read', 403);
      const res = await get(`/comments/${c.id}`, 'administrator').expect(200);
      expect(res.body).toMatchObject({ post: 0, link: `#comment-${c.id}` });
      expect(Object.keys(res.body._links)).toEqual(['self', 'collection']);
    });
  });

  describe('collection', () => {
    /** A published post with comments of its own, so that counts are not disturbed by other tests. */
    async function thread(count: number, fields: Partial<CommentEntity> = {}) {
      const p = await createPost(t.dataSource, { author: t.users.administrator.id });
      const comments: CommentEntity[] = [];
      for (let i = 0; i < count; i++) comments.push(await insertComment(t.dataSource, { postId: p.id, ...fields }));
      return { post: p, comments };
    }

    it('lists approved comments only, newest first by date_gmt, with totals', async () => {
      const { post: p, comments } = await thread(3);
      await insertComment(t.dataSource, { postId: p.id, approved: '0' });
      await insertComment(t.dataSource, { postId: p.id, approved: 'spam' });
      await insertComment(t.dataSource, { postId: p.id, approved: 'trash' });
      const res = await get(`/comments?post=${p.id}`).expect(200);
      expect(ids(res)).toEqual(comments.map((c) => c.id).reverse());
      expect(res.headers['x-cms-total']).toBe('3');
      expect(res.headers['x-cms-totalpages']).toBe('1');
      for (const item of res.body) expect(Object.keys(item)).toEqual(VIEW_KEYS);
      const all = await get('/comments?per_page=100').expect(200);
      expect(ids(all)).toContain(approved.id);
      expect(ids(all)).not.toContain(held.id);
    });

    it('lists in edit context for moderators', async () => {
      const res = await get(`/comments?post=${post.id}&context=edit`, 'administrator').expect(200);
      for (const item of res.body) expect(Object.keys(item)).toEqual(EDIT_KEYS);
    });

    it('refuses the edit context to callers without moderate_comments (rest_forbidden_context 401/403)', async () => {
      const anon = await get('/comments?context=edit');
      expectRestError(anon, 'rest_forbidden_context', 401);
      expect(anon.body.message).toBe('Sorry, you cannot view comments with edit context.');
      expectRestError(await get('/comments?context=edit', 'author'), 'rest_forbidden_context', 403);
      expectRestError(await get('/comments?context=edit', 'subscriber'), 'rest_forbidden_context', 403);
    });

    it('leaves comments of private and deleted posts out for anonymous callers, and lists them for an admin', async () => {
      const onPrivate = await insertComment(t.dataSource, { postId: privatePost.id });
      const onMissing = await insertComment(t.dataSource, { postId: 876543 });
      const anon = await get('/comments?per_page=100').expect(200);
      expect(ids(anon)).not.toContain(onPrivate.id);
      expect(ids(anon)).not.toContain(onMissing.id);
      const admin = await get('/comments?per_page=100', 'administrator').expect(200);
      expect(ids(admin)).toEqual(expect.arrayContaining([onPrivate.id, onMissing.id]));
    });

    it('filters by post: one id, several ids, and 0 (comments without a post) for moderators', async () => {
      const a = await thread(2);
      const b = await thread(1);
      const none = [await insertComment(t.dataSource, { postId: 0 }), await insertComment(t.dataSource, { postId: 0 })];
      expect(ids(await get(`/comments?post=${a.post.id}`).expect(200))).toEqual(a.comments.map((c) => c.id).reverse());
      const both = await get(`/comments?post=${a.post.id},${b.post.id}&orderby=id&order=asc`).expect(200);
      expect(ids(both)).toEqual([...a.comments, ...b.comments].map((c) => c.id));
      const arr = await get(`/comments?post[]=${a.post.id}&post[]=${b.post.id}&orderby=id&order=asc`).expect(200);
      expect(ids(arr)).toEqual(ids(both));
      const zero = await get('/comments?post=0&per_page=100', 'administrator').expect(200);
      expect(ids(zero)).toEqual(expect.arrayContaining(none.map((c) => c.id)));
      for (const item of zero.body) expect(item.post).toBe(0);
    });

    it('refuses post=0 without moderate_comments (rest_cannot_read 401/403)', async () => {
      const anon = await get('/comments?post=0');
      expectRestError(anon, 'rest_cannot_read', 401);
      expect(anon.body.message).toBe('Sorry, you cannot read comments without a post.');
      expectRestError(await get('/comments?post=0', 'author'), 'rest_cannot_read', 403);
      expectRestError(await get(`/comments?post=${post.id},0`, 'subscriber'), 'rest_cannot_read', 403);
    });

    it('refuses post=<unreadable post> (rest_cannot_read_post 401/403) and lists it for those who can read it', async () => {
      const c = await insertComment(t.dataSource, { postId: privatePost.id });
      const anon = await get(`/comments?post=${privatePost.id}`);
      expectRestError(anon, 'rest_cannot_read_post', 401);
      expect(anon.body.message).toBe('Sorry, you cannot read the post for this comment.');
      expectRestError(await get(`/comments?post=${privatePost.id}`, 'subscriber'), 'rest_cannot_read_post', 403);
      expect(ids(await get(`/comments?post=${privatePost.id}`, 'editor').expect(200))).toContain(c.id);
    });

    it('lets anonymous callers read the comments of a password-protected post with its password', async () => {
      const locked = await createPost(t.dataSource, { author: t.users.administrator.id, password: 'open-sesame' });
      const c = await insertComment(t.dataSource, { postId: locked.id });
      expect(ids(await get(`/comments?post=${locked.id}&password=open-sesame`).expect(200))).toEqual([c.id]);
      expectRestError(await get(`/comments?post=${locked.id}&password=wrong`), 'rest_cannot_read_post', 401);
    });

    it('refuses private parameters to callers without edit_posts (rest_forbidden_param), naming them', async () => {
      const cases: Array<[string, string]> = [
        [`author=${t.users.author.id}`, 'author'],
        [`author_exclude=${t.users.author.id}`, 'author_exclude'],
        ['author_email=a@example.org', 'author_email'],
        ['karma=1', 'karma'],
        ['status=hold', 'status'],
        ['type=pingback', 'type'],
      ];
      for (const [query, name] of cases) {
        const anon = await get(`/comments?${query}`);
        expectRestError(anon, 'rest_forbidden_param', 401);
        expect(anon.body.message).toBe(`Query parameter not permitted: ${name}`);
        expectRestError(await get(`/comments?${query}`, 'subscriber'), 'rest_forbidden_param', 403);
      }
      const several = await get(`/comments?author=1&karma=2&status=spam`, 'subscriber');
      expectRestError(several, 'rest_forbidden_param', 403);
      expect(several.body.message).toMatch(/^Query parameter not permitted: /);
      for (const name of ['author', 'karma', 'status']) expect(several.body.message).toContain(name);
      // The defaults spelled out are not private.
      await get('/comments?status=approve&type=comment').expect(200);
      // edit_posts is enough to use them.
      await get(`/comments?author=${t.users.author.id}&status=hold`, 'contributor').expect(200);
    });

    it('filters by author and author_exclude (user ids, one or many)', async () => {
      const p = await createPost(t.dataSource, { author: t.users.administrator.id });
      const byAuthor = await insertComment(t.dataSource, { postId: p.id, userId: t.users.author.id });
      const bySubscriber = await insertComment(t.dataSource, { postId: p.id, userId: t.users.subscriber.id });
      const byGuest = await insertComment(t.dataSource, { postId: p.id });
      const list = async (q: string) =>
        ids(await get(`/comments?post=${p.id}&orderby=id&order=asc&${q}`, 'administrator').expect(200));
      expect(await list(`author=${t.users.author.id}`)).toEqual([byAuthor.id]);
      expect(await list(`author=${t.users.author.id},${t.users.subscriber.id}`)).toEqual([
        byAuthor.id,
        bySubscriber.id,
      ]);
      expect(await list(`author_exclude=${t.users.author.id}`)).toEqual([bySubscriber.id, byGuest.id]);
      expect(await list(`author_exclude=${t.users.author.id},${t.users.subscriber.id}`)).toEqual([byGuest.id]);
    });

    it('filters by parent and parent_exclude', async () => {
      const p = await createPost(t.dataSource, { author: t.users.administrator.id });
      const p1 = await insertComment(t.dataSource, { postId: p.id });
      const p2 = await insertComment(t.dataSource, { postId: p.id });
      const c1 = await insertComment(t.dataSource, { postId: p.id, parent: p1.id });
      const c2 = await insertComment(t.dataSource, { postId: p.id, parent: p2.id });
      const list = async (q: string) => ids(await get(`/comments?post=${p.id}&orderby=id&order=asc&${q}`).expect(200));
      expect(await list('')).toEqual([p1.id, p2.id, c1.id, c2.id]);
      expect(await list(`parent=${p1.id}`)).toEqual([c1.id]);
      expect(await list(`parent=${p1.id},${p2.id}`)).toEqual([c1.id, c2.id]);
      expect(await list('parent=0')).toEqual([p1.id, p2.id]);
      expect(await list(`parent_exclude=${p1.id}`)).toEqual([p1.id, p2.id, c2.id]);
      expect(await list(`parent_exclude=${p1.id},${p2.id}`)).toEqual([p1.id, p2.id]);
    });

    it('filters by include and exclude, and orders by include', async () => {
      const { post: p, comments } = await thread(4);
      const [c1, c2, c3] = comments;
      expect(ids(await get(`/comments?include=${c3.id},${c1.id}&order=asc`).expect(200))).toEqual([c1.id, c3.id]);
      expect(ids(await get(`/comments?include=${c3.id},${c1.id}&orderby=include`).expect(200))).toEqual([c3.id, c1.id]);
      expect(ids(await get(`/comments?post=${p.id}&exclude=${c2.id}`).expect(200))).toEqual([
        comments[3].id,
        c3.id,
        c1.id,
      ]);
    });

    it('applies offset, per_page and page', async () => {
      const { post: p, comments } = await thread(4);
      const newest = comments.map((c) => c.id).reverse();
      expect(ids(await get(`/comments?post=${p.id}&offset=1`).expect(200))).toEqual(newest.slice(1));
      expect(ids(await get(`/comments?post=${p.id}&offset=1&per_page=2`).expect(200))).toEqual(newest.slice(1, 3));
      // offset wins over page.
      expect(ids(await get(`/comments?post=${p.id}&offset=1&per_page=2&page=3`).expect(200))).toEqual(
        newest.slice(1, 3),
      );
      expect(ids(await get(`/comments?post=${p.id}&per_page=3&page=2`).expect(200))).toEqual(newest.slice(3));
      expect(ids(await get(`/comments?post=${p.id}&offset=10`).expect(200))).toEqual([]);
    });

    it('orders desc by default and asc on request, by date, date_gmt, id, post, parent or type', async () => {
      const p = await createPost(t.dataSource, { author: t.users.administrator.id });
      const q = await createPost(t.dataSource, { author: t.users.administrator.id });
      // Local dates in another order than the GMT dates, and ids in another order than both.
      const late = await insertComment(t.dataSource, {
        postId: q.id,
        date: '2023-05-01 12:00:00',
        dateGmt: '2023-05-01 02:00:00',
      });
      const early = await insertComment(t.dataSource, {
        postId: p.id,
        date: '2023-05-01 01:00:00',
        dateGmt: '2023-05-01 03:00:00',
      });
      const both = `post=${p.id},${q.id}`;
      const list = async (qs: string) => ids(await get(`/comments?${both}&${qs}`, 'administrator').expect(200));
      expect(await list('')).toEqual([early.id, late.id]);
      expect(await list('order=asc')).toEqual([late.id, early.id]);
      expect(await list('orderby=date')).toEqual([late.id, early.id]);
      expect(await list('orderby=date&order=asc')).toEqual([early.id, late.id]);
      expect(await list('orderby=id&order=asc')).toEqual([late.id, early.id]);
      expect(await list('orderby=post&order=asc')).toEqual([early.id, late.id]);
      await get(`/comments?${both}&orderby=parent`).expect(200);
      await get(`/comments?${both}&orderby=type`).expect(200);
    });

    it('searches content and author name (search is empty when absent)', async () => {
      const p = await createPost(t.dataSource, { author: t.users.administrator.id });
      const byContent = await insertComment(t.dataSource, { postId: p.id, content: 'Something about foo.' });
      const byName = await insertComment(t.dataSource, { postId: p.id, author: 'Mr Foo' });
      await insertComment(t.dataSource, { postId: p.id, content: 'Nothing here.' });
      await insertComment(t.dataSource, { postId: p.id, content: 'Nothing there.' });
      expect(ids(await get(`/comments?post=${p.id}`).expect(200))).toHaveLength(4);
      expect(ids(await get(`/comments?post=${p.id}&search=foo&orderby=id&order=asc`).expect(200))).toEqual([
        byContent.id,
        byName.id,
      ]);
      expect(ids(await get(`/comments?post=${p.id}&search=`).expect(200))).toHaveLength(4);
    });

    it('filters by after and before, and refuses dates that are not dates (rest_invalid_param 400)', async () => {
      const p = await createPost(t.dataSource, { author: t.users.administrator.id });
      await insertComment(t.dataSource, { postId: p.id, date: '2016-01-15 00:00:00' });
      const jan16 = await insertComment(t.dataSource, { postId: p.id, date: '2016-01-16 00:00:00' });
      await insertComment(t.dataSource, { postId: p.id, date: '2016-01-17 00:00:00' });
      const res = await get(`/comments?post=${p.id}&after=2016-01-15T00:00:00Z&before=2016-01-17T00:00:00Z`).expect(
        200,
      );
      expect(ids(res)).toEqual([jan16.id]);
      expectRestError(await get('/comments?after=not-a-date'), 'rest_invalid_param', 400);
      expectRestError(await get('/comments?before=31/12/2020'), 'rest_invalid_param', 400);
    });

    it('filters moderators by status, type, karma and author_email', async () => {
      const p = await createPost(t.dataSource, { author: t.users.administrator.id });
      const hold = await insertComment(t.dataSource, { postId: p.id, approved: '0' });
      const spam = await insertComment(t.dataSource, { postId: p.id, approved: 'spam' });
      const trash = await insertComment(t.dataSource, { postId: p.id, approved: 'trash' });
      const ping = await insertComment(t.dataSource, { postId: p.id, type: 'pingback' });
      const karma = await insertComment(t.dataSource, { postId: p.id, karma: 5 });
      const mail = await insertComment(t.dataSource, { postId: p.id, authorEmail: 'unique-mail@example.net' });
      const list = async (q: string) => ids(await get(`/comments?post=${p.id}&${q}`, 'administrator').expect(200));
      expect(await list('status=hold')).toEqual([hold.id]);
      expect(await list('status=spam')).toEqual([spam.id]);
      expect(await list('status=trash')).toEqual([trash.id]);
      expect(await list('type=pingback')).toEqual([ping.id]);
      expect(await list('')).not.toContain(ping.id);
      expect(await list('karma=5')).toEqual([karma.id]);
      expect(await list('author_email=unique-mail@example.net')).toEqual([mail.id]);
    });

    it('validates context, order, orderby, page and per_page (rest_invalid_param 400)', async () => {
      for (const q of [
        'context=bogus',
        'order=sideways',
        'orderby=karma',
        'page=0',
        'per_page=0',
        'per_page=101',
        'author_email=not-an-email',
      ]) {
        expectRestError(await get(`/comments?${q}`, 'administrator'), 'rest_invalid_param', 400);
      }
    });

    it('does not apply the old user and post_* parameters', async () => {
      const all = ids(await get('/comments?per_page=100', 'administrator').expect(200));
      for (const q of [
        `user=${t.users.author.id}`,
        'post_slug=commented',
        `post_author=${t.users.administrator.id}`,
        'post_status=private',
      ]) {
        const res = await get(`/comments?per_page=100&${q}`, 'administrator');
        if (res.status === 200) expect(ids(res)).toEqual(all);
        else expectRestError(res, 'rest_invalid_param', 400);
      }
    });

    it('sets the totals and Link prev/next as for posts', async () => {
      const p = await createPost(t.dataSource, { author: t.users.administrator.id });
      const rows = Array.from({ length: 51 }, (_, i) => ({
        postId: p.id,
        author: `Pager ${i}`,
        authorEmail: '',
        authorUrl: '',
        authorIp: '192.0.2.9',
        date: sqlDate(Date.UTC(2022, 0, 1) + i * 60_000),
        dateGmt: sqlDate(Date.UTC(2022, 0, 1) + i * 60_000),
        content: `Page comment ${i}`,
        karma: 0,
        approved: '1',
        agent: '',
        type: 'comment',
        parent: 0,
        userId: 0,
      }));
      await t.dataSource.getRepository(CommentEntity).save(rows);
      /**
       * rel → page of the prev/next links (the discovery link aside). The other query parameters are kept, the
       * sanitised post list included (WordPress writes it back as post[0]=<id>).
       */
      const pages = (link: string | undefined) => {
        const out: Record<string, string> = {};
        for (const part of (link ?? '').split(/,\s*(?=<)/)) {
          const m = /^<([^>]+)>; rel="(prev|next)"$/.exec(part.trim());
          if (!m) continue;
          const u = new URL(m[1]);
          expect(`${u.origin}${u.pathname}`).toBe(`${BASE}${API}/comments`);
          expect([u.searchParams.get('post'), u.searchParams.get('post[0]')]).toContain(String(p.id));
          out[m[2]] = u.searchParams.get('page')!;
        }
        return out;
      };
      const first = await get(`/comments?post=${p.id}`).expect(200);
      expect(first.body).toHaveLength(10);
      expect(first.headers['x-cms-total']).toBe('51');
      expect(first.headers['x-cms-totalpages']).toBe('6');
      expect(pages(first.headers.link)).toEqual({ next: '2' });
      const third = await get(`/comments?post=${p.id}&page=3`).expect(200);
      expect(pages(third.headers.link)).toEqual({ prev: '2', next: '4' });
      expect(third.headers.link).toMatch(/rel="prev", <[^>]+>; rel="next"/);
      const last = await get(`/comments?post=${p.id}&page=6`).expect(200);
      expect(last.body).toHaveLength(1);
      expect(pages(last.headers.link)).toEqual({ prev: '5' });
      const beyond = await get(`/comments?post=${p.id}&page=8`).expect(200);
      expect(beyond.body).toEqual([]);
      expect(beyond.headers['x-cms-total']).toBe('51');
      expect(pages(beyond.headers.link)).toEqual({ prev: '6' });
      const fifty = await get(`/comments?post=${p.id}&per_page=50`).expect(200);
      expect(fifty.headers['x-cms-totalpages']).toBe('2');
    });

    it('sets X-CMS-Total and X-CMS-TotalPages to 0 when nothing matches', async () => {
      const res = await get('/comments?search=no-such-comment-anywhere').expect(200);
      expect(res.body).toEqual([]);
      expect(res.headers['x-cms-total']).toBe('0');
      expect(res.headers['x-cms-totalpages']).toBe('0');
      expect(res.headers.link ?? '').not.toMatch(/rel="(next|prev)"/);
    });

    it('lists a stored empty type under the default type comment', async () => {
      const p = await createPost(t.dataSource, { author: t.users.administrator.id });
      const empty = await insertComment(t.dataSource, { postId: p.id, type: '' });
      const res = await get(`/comments?post=${p.id}`).expect(200);
      expect(ids(res)).toEqual([empty.id]);
      expect(res.body[0].type).toBe('comment');
    });
  });

  describe('create', () => {
    it('creates an anonymous comment from JSON: 201, Location, view context, held, the given date', async () => {
      const content = text();
      const res = await call('post', '/comments')
        .send({
          post: post.id,
          author_name: 'Comic Book Guy',
          author_email: 'cbg@example.com',
          author_url: 'http://androidsdungeon.com',
          content,
          date: '2014-11-07T10:14:25',
        })
        .expect(201);
      expect(res.headers.location).toBe(`${BASE}${API}/comments/${res.body.id}`);
      expect(Object.keys(res.body)).toEqual(VIEW_KEYS);
      expect(res.body).toMatchObject({
        post: post.id,
        parent: 0,
        author: 0,
        author_name: 'Comic Book Guy',
        author_url: 'http://androidsdungeon.com',
        status: 'hold',
        type: 'comment',
        date: '2014-11-07T10:14:25',
        content: { rendered: `<p>${content}</p>\n` },
        author_avatar_urls: avatarUrls('cbg@example.com'),
      });
      const row = await stored(res.body.id);
      expect(row).toMatchObject({ postId: post.id, authorEmail: 'cbg@example.com', content, approved: '0', userId: 0 });
    });

    it('stores the client address as author_ip', async () => {
      const res = await call('post', '/comments', 'anonymous', '203.0.113.7')
        .send({ post: post.id, ...guest(), content: text() })
        .expect(201);
      expect((await stored(res.body.id))!.authorIp).toBe('203.0.113.7');
      const sub = await call('post', '/comments', 'contributor', '203.0.113.8')
        .send({ post: post.id, content: text() })
        .expect(201);
      expect((await stored(sub.body.id))!.authorIp).toBe('203.0.113.8');
    });

    it('refuses an id (rest_comment_exists 400)', async () => {
      const res = await call('post', '/comments', 'administrator').send({
        id: approved.id,
        post: post.id,
        content: text(),
      });
      expectRestError(res, 'rest_comment_exists', 400);
      expect(res.body.message).toBe('Cannot create existing comment.');
    });

    it('fills a logged-in author from the account and answers view context to non-moderators', async () => {
      await t.dataSource
        .getRepository(UserEntity)
        .update({ id: t.users.contributor.id }, { url: 'https://contributor.example' });
      const res = await call('post', '/comments', 'contributor').send({ post: post.id, content: text() }).expect(201);
      expect(Object.keys(res.body)).toEqual(VIEW_KEYS);
      expect(res.body).toMatchObject({
        author: t.users.contributor.id,
        author_name: 'contributor',
        author_url: 'https://contributor.example',
      });
      expect(await stored(res.body.id)).toMatchObject({
        userId: t.users.contributor.id,
        author: 'contributor',
        authorEmail: 'contributor@example.org',
        authorUrl: 'https://contributor.example',
      });
    });

    it('answers edit context to moderators, approved, with type comment, first in the post collection', async () => {
      const res = await call('post', '/comments', 'administrator').send({ post: post.id, content: text() }).expect(201);
      expect(Object.keys(res.body)).toEqual(EDIT_KEYS);
      expect(res.body).toMatchObject({
        author: t.users.administrator.id,
        author_name: 'administrator',
        author_email: 'administrator@example.org',
        status: 'approved',
        type: 'comment',
      });
      const list = await get(`/comments?post=${post.id}`).expect(200);
      expect(list.body[0].id).toBe(res.body.id);
    });

    it('lets moderators write for another user or a guest, and set status, karma and author_ip', async () => {
      const other = await call('post', '/comments', 'administrator')
        .send({ post: post.id, author: t.users.subscriber.id, content: text() })
        .expect(201);
      expect(other.body.author).toBe(t.users.subscriber.id);
      const asGuest = await call('post', '/comments', 'administrator')
        .send({
          post: post.id,
          author: 0,
          author_name: 'Guest Writer',
          author_email: 'gw@example.com',
          content: text(),
        })
        .expect(201);
      expect(asGuest.body).toMatchObject({ author: 0, author_name: 'Guest Writer', author_email: 'gw@example.com' });
      const full = await call('post', '/comments', 'editor')
        .send({ post: post.id, content: text(), status: 'hold', karma: 3, author_ip: '139.130.4.5' })
        .expect(201);
      expect(full.body).toMatchObject({ status: 'hold', karma: 3, author_ip: '139.130.4.5' });
    });

    it('refuses author, karma and status from non-moderators (401 anonymous, 403 logged in)', async () => {
      const author = await call('post', '/comments', 'subscriber').send({
        post: post.id,
        author: t.users.administrator.id,
        content: text(),
      });
      expectRestError(author, 'rest_comment_invalid_author', 403);
      expect(author.body.message).toBe('Comment author invalid.');
      expectRestError(
        await call('post', '/comments').send({
          post: post.id,
          author: t.users.administrator.id,
          ...guest(),
          content: text(),
        }),
        'rest_comment_invalid_author',
        401,
      );
      const karma = await call('post', '/comments', 'subscriber').send({ post: post.id, karma: 100, content: text() });
      expectRestError(karma, 'rest_comment_invalid_karma', 403);
      expect(karma.body.message).toBe('Sorry, you cannot set karma for comments.');
      expectRestError(
        await call('post', '/comments').send({ post: post.id, karma: 100, ...guest(), content: text() }),
        'rest_comment_invalid_karma',
        401,
      );
      const status = await call('post', '/comments', 'author').send({
        post: post.id,
        status: 'approved',
        content: text(),
      });
      expectRestError(status, 'rest_comment_invalid_status', 403);
      expect(status.body.message).toBe('Sorry, you cannot set status for comments.');
      expectRestError(
        await call('post', '/comments').send({ post: post.id, status: 'approved', ...guest(), content: text() }),
        'rest_comment_invalid_status',
        401,
      );
      // Naming oneself is allowed.
      await call('post', '/comments', 'subscriber')
        .send({ post: post.id, author: t.users.subscriber.id, content: text() })
        .expect(201);
    });

    it('validates author_ip and the dates (rest_invalid_param 400)', async () => {
      expectRestError(
        await call('post', '/comments', 'administrator').send({
          post: post.id,
          author_ip: '867.5309',
          content: text(),
        }),
        'rest_invalid_param',
        400,
      );
      expectRestError(
        await call('post', '/comments', 'administrator').send({ post: post.id, date: 'whenever', content: text() }),
        'rest_invalid_param',
        400,
      );
      expectRestError(
        await call('post', '/comments', 'administrator').send({
          post: post.id,
          date_gmt: 'yesterday',
          content: text(),
        }),
        'rest_invalid_param',
        400,
      );
    });

    it('lets moderators create a comment without a post, and nobody else (rest_comment_invalid_post_id 401/403)', async () => {
      const res = await call('post', '/comments', 'administrator').send({ content: text() }).expect(201);
      expect(res.body.post).toBe(0);
      await call('post', '/comments', 'editor').send({ post: 0, content: text() }).expect(201);
      const sub = await call('post', '/comments', 'subscriber').send({ content: text() });
      expectRestError(sub, 'rest_comment_invalid_post_id', 403);
      expectRestError(
        await call('post', '/comments', 'author').send({ post: 0, content: text() }),
        'rest_comment_invalid_post_id',
        403,
      );
      expectRestError(
        await call('post', '/comments').send({ ...guest(), content: text() }),
        'rest_comment_invalid_post_id',
        401,
      );
    });

    it('refuses a post id that does not exist, for everyone (rest_comment_invalid_post_id 401/403)', async () => {
      for (const who of ['administrator', 'subscriber', 'anonymous'] as const) {
        expectRestError(
          await call('post', '/comments', who).send({ post: 999999, ...guest(), content: text() }),
          'rest_comment_invalid_post_id',
          who === 'anonymous' ? 401 : 403,
        );
      }
    });

    it('refuses draft posts (rest_comment_draft_post 403) and trashed posts (rest_comment_trash_post 403)', async () => {
      const draft = await createPost(t.dataSource, { author: t.users.administrator.id, status: 'draft' });
      const trashed = await createPost(t.dataSource, { author: t.users.administrator.id, status: 'trash' });
      for (const who of ['administrator', 'subscriber'] as const) {
        expectRestError(
          await call('post', '/comments', who).send({ post: draft.id, content: text() }),
          'rest_comment_draft_post',
          403,
        );
        expectRestError(
          await call('post', '/comments', who).send({ post: trashed.id, content: text() }),
          'rest_comment_trash_post',
          403,
        );
      }
    });

    it('refuses posts the caller cannot read (rest_cannot_read_post 401/403)', async () => {
      const sub = await call('post', '/comments', 'subscriber').send({ post: privatePost.id, content: text() });
      expectRestError(sub, 'rest_cannot_read_post', 403);
      expect(sub.body.message).toBe('Sorry, you cannot read the post for this comment.');
      expectRestError(
        await call('post', '/comments').send({ post: privatePost.id, ...guest(), content: text() }),
        'rest_cannot_read_post',
        401,
      );
      await call('post', '/comments', 'editor').send({ post: privatePost.id, content: text() }).expect(201);
    });

    it('refuses posts with comments closed (rest_comment_closed 403, also for anonymous callers)', async () => {
      const closed = await createPost(t.dataSource, { author: t.users.administrator.id, commentStatus: 'closed' });
      const anon = await call('post', '/comments').send({ post: closed.id, ...guest(), content: text() });
      expectRestError(anon, 'rest_comment_closed', 403);
      expect(anon.body.message).toBe('Sorry, comments are closed on this post.');
      expectRestError(
        await call('post', '/comments', 'subscriber').send({ post: closed.id, content: text() }),
        'rest_comment_closed',
        403,
      );
    });

    it('requires a login when comment_registration is on (rest_comment_login_required 401)', async () => {
      await setOption('comment_registration', 1);
      try {
        const res = await call('post', '/comments').send({ post: post.id, ...guest(), content: text() });
        expectRestError(res, 'rest_comment_login_required', 401);
        expect(res.body.message).toBe('Sorry, you must be logged in to comment.');
        await call('post', '/comments', 'subscriber').send({ post: post.id, content: text() }).expect(201);
      } finally {
        await setOption('comment_registration', 0);
      }
      await call('post', '/comments')
        .send({ post: post.id, ...guest(), content: text() })
        .expect(201);
    });

    it('refuses a type other than comment (rest_invalid_comment_type 400)', async () => {
      expectRestError(
        await call('post', '/comments', 'administrator').send({ post: post.id, type: 'pingback', content: text() }),
        'rest_invalid_comment_type',
        400,
      );
      expectRestError(
        await call('post', '/comments').send({ post: post.id, type: 'review', ...guest(), content: text() }),
        'rest_invalid_comment_type',
        400,
      );
      const ok = await call('post', '/comments', 'administrator')
        .send({ post: post.id, type: 'comment', content: text() })
        .expect(201);
      expect(ok.body.type).toBe('comment');
    });

    it('refuses empty content (rest_comment_content_invalid 400)', async () => {
      expectRestError(
        await call('post', '/comments', 'administrator').send({ post: post.id, content: '' }),
        'rest_comment_content_invalid',
        400,
      );
      expectRestError(
        await call('post', '/comments', 'subscriber').send({ post: post.id }),
        'rest_comment_content_invalid',
        400,
      );
      expectRestError(
        await call('post', '/comments').send({ post: post.id, ...guest() }),
        'rest_comment_content_invalid',
        400,
      );
    });

    it('requires a name and an e-mail of anonymous callers while require_name_email is on', async () => {
      await setOption('require_name_email', 1);
      expectRestError(
        await call('post', '/comments').send({ post: post.id, author_name: 'No Mail', content: text() }),
        'rest_comment_author_data_required',
        400,
      );
      expectRestError(
        await call('post', '/comments').send({ post: post.id, author_email: 'noname@example.com', content: text() }),
        'rest_comment_author_data_required',
        400,
      );
      expectRestError(
        await call('post', '/comments').send({ post: post.id, content: text() }),
        'rest_comment_author_data_required',
        400,
      );
      await call('post', '/comments')
        .send({ post: post.id, ...guest(), content: text() })
        .expect(201);
      await setOption('require_name_email', 0);
      try {
        const res = await call('post', '/comments').send({ post: post.id, content: text() }).expect(201);
        expect(res.body).toMatchObject({ author: 0, author_name: '' });
      } finally {
        await setOption('require_name_email', 1);
      }
    });

    it('refuses a duplicate (comment_duplicate 409), unless the first one is in the trash', async () => {
      const body = {
        post: post.id,
        author_name: 'Twice',
        author_email: 'twice@example.com',
        content: text('Say it twice'),
      };
      const first = await call('post', '/comments').send(body).expect(201);
      expectRestError(await call('post', '/comments').send(body), 'comment_duplicate', 409);
      // Another parent is not a duplicate.
      await call('post', '/comments', 'administrator')
        .send({ ...body, parent: first.body.id })
        .expect(201);
      await call('delete', `/comments/${first.body.id}`, 'administrator').expect(200);
      await unflood(t.dataSource);
      await call('post', '/comments').send(body).expect(201);
    });

    it('refuses a second comment within 15 s from the same user or address (comment_flood 400), never from moderators', async () => {
      const flooder = await createUser(t.dataSource, TEST_PREFIX, 'flooder', 'subscriber');
      await call('post', '/comments', flooder).send({ post: post.id, content: text() }).expect(201);
      expectRestError(
        await call('post', '/comments', flooder).send({ post: post.id, content: text() }),
        'comment_flood',
        400,
      );
      await call('post', '/comments', 'anonymous', '203.0.113.50')
        .send({ post: post.id, ...guest(), content: text() })
        .expect(201);
      expectRestError(
        await call('post', '/comments', 'anonymous', '203.0.113.50').send({
          post: post.id,
          ...guest(),
          content: text(),
        }),
        'comment_flood',
        400,
      );
      // Another address is fine.
      await call('post', '/comments', 'anonymous', '203.0.113.51')
        .send({ post: post.id, ...guest(), content: text() })
        .expect(201);
      for (let i = 0; i < 3; i++)
        await call('post', '/comments', 'editor').send({ post: post.id, content: text() }).expect(201);
    });

    it('filters the content through kses for callers without unfiltered_html', async () => {
      const body = { post: post.id, content: '<script>alert(1)</script><strong>Hi</strong> there' };
      const sub = await call('post', '/comments', 'subscriber').send(body).expect(201);
      const subRaw = (await stored(sub.body.id))!.content;
      expect(subRaw).not.toContain('<script');
      expect(subRaw).toContain('<strong>Hi</strong> there');
      const admin = await call('post', '/comments', 'administrator').send(body).expect(201);
      expect(admin.body.content.raw).toBe('<script>alert(1)</script><strong>Hi</strong> there');
    });

    it('accepts a parent comment and links to it', async () => {
      const res = await call('post', '/comments', 'editor')
        .send({ post: post.id, parent: approved.id, content: text() })
        .expect(201);
      expect(res.body.parent).toBe(approved.id);
      expect(res.body._links['in-reply-to'][0].href).toBe(`${BASE}${API}/comments/${approved.id}`);
      const parent = await get(`/comments/${approved.id}`).expect(200);
      expect(parent.body._links.children).toEqual([{ href: `${BASE}${API}/comments?parent=${approved.id}` }]);
    });
  });

  describe('update', () => {
    it('updates every field for a moderator: 200, no Location, edit context', async () => {
      const other = await createPost(t.dataSource, { author: t.users.administrator.id });
      const c = await insertComment(t.dataSource, { postId: post.id });
      const res = await call('put', `/comments/${c.id}`, 'administrator')
        .send({
          content: 'Updated content',
          author: t.users.subscriber.id,
          author_name: 'Disco Stu',
          author_url: 'http://stusdisco.com',
          author_email: 'stu@stusdisco.com',
          author_ip: '4.4.4.4',
          date: '2014-11-07T10:14:25',
          karma: 100,
          post: other.id,
        })
        .expect(200);
      expect(res.headers.location).toBeUndefined();
      expect(Object.keys(res.body)).toEqual(EDIT_KEYS);
      expect(res.body).toMatchObject({
        id: c.id,
        content: { raw: 'Updated content', rendered: '<p>Updated content</p>\n' },
        author: t.users.subscriber.id,
        author_name: 'Disco Stu',
        author_url: 'http://stusdisco.com',
        author_email: 'stu@stusdisco.com',
        author_ip: '4.4.4.4',
        date: '2014-11-07T10:14:25',
        karma: 100,
        post: other.id,
      });
      expect(await stored(c.id)).toMatchObject({
        content: 'Updated content',
        postId: other.id,
        karma: 100,
        userId: t.users.subscriber.id,
        date: '2014-11-07 10:14:25',
      });
    });

    it('accepts POST and PATCH as well as PUT', async () => {
      const c = await insertComment(t.dataSource, { postId: post.id });
      await call('post', `/comments/${c.id}`, 'editor').send({ content: 'By POST' }).expect(200);
      await call('patch', `/comments/${c.id}`, 'editor').send({ content: 'By PATCH' }).expect(200);
      expect((await stored(c.id))!.content).toBe('By PATCH');
    });

    it('updates date_gmt', async () => {
      const c = await insertComment(t.dataSource, { postId: post.id });
      const res = await call('put', `/comments/${c.id}`, 'administrator')
        .send({ date_gmt: '2015-05-07T10:14:25' })
        .expect(200);
      expect(res.body.date_gmt).toBe('2015-05-07T10:14:25');
      expect((await stored(c.id))!.dateGmt).toBe('2015-05-07 10:14:25');
    });

    it('changes only the status on a status-only update, keeping the content', async () => {
      const c = await insertComment(t.dataSource, { postId: post.id, approved: '0', content: 'some content' });
      const res = await call('put', `/comments/${c.id}`, 'administrator').send({ status: 'approve' }).expect(200);
      expect(res.body.status).toBe('approved');
      expect(await stored(c.id)).toMatchObject({ approved: '1', content: 'some content' });
    });

    it('maps every status value: approved/approve/1, hold/0, spam, unspam, trash, untrash', async () => {
      const c = await insertComment(t.dataSource, { postId: post.id, approved: '0' });
      const put = async (status: string | number) =>
        (await call('put', `/comments/${c.id}`, 'editor').send({ status }).expect(200)).body.status;
      expect(await put('approved')).toBe('approved');
      expect(await put('hold')).toBe('hold');
      expect(await put('1')).toBe('approved');
      expect(await put('0')).toBe('hold');
      expect(await put('approve')).toBe('approved');
      expect(await put('spam')).toBe('spam');
      expect(await put('unspam')).toBe('approved');
      expect(await put('trash')).toBe('trash');
      expect(await put('untrash')).toBe('approved');
      expect((await stored(c.id))!.approved).toBe('1');
    });

    it('answers rest_comment_failed_edit 500 to a status-only update to the current status', async () => {
      const c = await insertComment(t.dataSource, { postId: post.id });
      const res = await call('put', `/comments/${c.id}`, 'administrator').send({ status: 'approved' });
      expectRestError(res, 'rest_comment_failed_edit', 500);
      expect(res.body.message).toBe('Updating comment status failed.');
    });

    it('refuses a type change (rest_comment_invalid_type 404) and accepts the current type, also when stored empty', async () => {
      const c = await insertComment(t.dataSource, { postId: post.id, type: '' });
      const res = await call('put', `/comments/${c.id}`, 'administrator').send({ type: 'trackback' });
      expectRestError(res, 'rest_comment_invalid_type', 404);
      expect(res.body.message).toBe('Sorry, you cannot change the comment type.');
      const same = await call('put', `/comments/${c.id}`, 'administrator')
        .send({ type: 'comment', content: 'Same type' })
        .expect(200);
      expect(same.body.type).toBe('comment');
    });

    it('answers an unknown id with rest_comment_invalid_id 404, before the permission check', async () => {
      expectRestError(await call('put', '/comments/99999999').send({ content: 'x' }), 'rest_comment_invalid_id', 404);
      expectRestError(
        await call('put', '/comments/99999999', 'subscriber').send({ content: 'x' }),
        'rest_comment_invalid_id',
        404,
      );
      expectRestError(
        await call('put', '/comments/99999999', 'administrator').send({ content: 'x' }),
        'rest_comment_invalid_id',
        404,
      );
    });

    it('refuses callers who cannot edit the comment (rest_cannot_edit 401/403)', async () => {
      const anon = await call('put', `/comments/${held.id}`).send({ content: 'Changed' });
      expectRestError(anon, 'rest_cannot_edit', 401);
      expect(anon.body.message).toBe('Sorry, you can not edit this comment.');
      const onPrivate = await insertComment(t.dataSource, { postId: privatePost.id });
      expectRestError(
        await call('put', `/comments/${onPrivate.id}`, 'subscriber').send({ content: 'Changed' }),
        'rest_cannot_edit',
        403,
      );
      expectRestError(
        await call('put', `/comments/${held.id}`, owner).send({ content: 'Changed' }),
        'rest_cannot_edit',
        403,
      );
      expect((await stored(held.id))!.content).toBe('Waiting for approval');
    });

    it('lets the post author edit comments of their post (without changing status), kses applied', async () => {
      const own = await createPost(t.dataSource, { author: t.users.author.id });
      const c = await insertComment(t.dataSource, { postId: own.id, approved: '0' });
      const res = await call('put', `/comments/${c.id}`, 'author')
        .send({ content: '<script>x()</script><em>Edited</em>' })
        .expect(200);
      expect(res.body.content.raw).toBe('x()<em>Edited</em>');
      expectRestError(
        await call('put', `/comments/${c.id}`, 'author').send({ status: 'approved' }),
        'rest_comment_invalid_status',
        403,
      );
      expect((await stored(c.id))!.approved).toBe('0');
    });

    it('validates the dates (rest_invalid_param 400)', async () => {
      expectRestError(
        await call('put', `/comments/${approved.id}`, 'administrator').send({ date: 'soon' }),
        'rest_invalid_param',
        400,
      );
      expectRestError(
        await call('put', `/comments/${approved.id}`, 'administrator').send({ date_gmt: 'later' }),
        'rest_invalid_param',
        400,
      );
    });

    it('gives the new parent a children link when a comment moves under it', async () => {
      const a = await insertComment(t.dataSource, { postId: post.id });
      const b = await insertComment(t.dataSource, { postId: post.id });
      expect(Object.keys((await get(`/comments/${a.id}`).expect(200)).body._links)).not.toContain('children');
      await call('put', `/comments/${b.id}`, 'administrator').send({ parent: a.id }).expect(200);
      expect((await get(`/comments/${a.id}`).expect(200)).body._links.children).toEqual([
        { href: `${BASE}${API}/comments?parent=${a.id}` },
      ]);
    });
  });

  describe('delete', () => {
    it('moves a comment to the trash without force: 200 with the comment as it was', async () => {
      const c = await insertComment(t.dataSource, { postId: post.id });
      const res = await call('delete', `/comments/${c.id}`, 'administrator').expect(200);
      expect(res.body).toMatchObject({ id: c.id, post: post.id, status: 'approved' });
      expect(res.body.deleted).toBeUndefined();
      expect((await stored(c.id))!.approved).toBe('trash');
      expect((await get(`/comments/${c.id}`, 'administrator').expect(200)).body.status).toBe('trash');
    });

    it('answers rest_already_trashed 410 when trashing a trashed comment', async () => {
      const c = await insertComment(t.dataSource, { postId: post.id });
      await call('delete', `/comments/${c.id}`, 'editor').expect(200);
      const res = await call('delete', `/comments/${c.id}`, 'editor');
      expectRestError(res, 'rest_already_trashed', 410);
      expect(res.body.message).toBe('The comment has already been trashed.');
    });

    it('deletes permanently with force=true, answering the original comment (not wrapped); children move up', async () => {
      const grand = await insertComment(t.dataSource, { postId: post.id });
      const c = await insertComment(t.dataSource, { postId: post.id, parent: grand.id });
      const kid = await insertComment(t.dataSource, { postId: post.id, parent: c.id });
      const res = await call('delete', `/comments/${c.id}?force=true`, 'administrator').expect(200);
      expect(res.body).toMatchObject({ id: c.id, post: post.id, parent: grand.id, status: 'approved' });
      expect(res.body).not.toHaveProperty('previous');
      expect(res.body).not.toHaveProperty('deleted');
      expect(await stored(c.id)).toBeNull();
      expect((await stored(kid.id))!.parent).toBe(grand.id);
      expectRestError(await get(`/comments/${c.id}`, 'administrator'), 'rest_comment_invalid_id', 404);
    });

    it('deletes a trashed comment permanently with force=true', async () => {
      const c = await insertComment(t.dataSource, { postId: post.id, approved: 'trash' });
      const res = await call('delete', `/comments/${c.id}?force=true`, 'administrator').expect(200);
      expect(res.body).toMatchObject({ id: c.id, status: 'trash' });
      expect(await stored(c.id)).toBeNull();
    });

    it('answers an unknown id with rest_comment_invalid_id 404 before the permission check', async () => {
      for (const who of ['anonymous', 'subscriber', 'administrator'] as const) {
        const res = await call('delete', '/comments/99999999', who);
        expectRestError(res, 'rest_comment_invalid_id', 404);
        expect(res.body.message).toBe('Invalid comment id.');
      }
    });

    it('refuses callers who cannot edit the comment (rest_cannot_delete 401/403)', async () => {
      const anon = await call('delete', `/comments/${approved.id}`);
      expectRestError(anon, 'rest_cannot_delete', 401);
      const sub = await call('delete', `/comments/${approved.id}`, 'subscriber');
      expectRestError(sub, 'rest_cannot_delete', 403);
      expect(sub.body.message).toBe('Sorry, you can not delete this comment.');
      expectRestError(await call('delete', `/comments/${held.id}?force=true`, owner), 'rest_cannot_delete', 403);
      expect((await stored(approved.id))!.approved).toBe('1');
    });

    it('removes the parent children link when its only child is trashed', async () => {
      const parent = await insertComment(t.dataSource, { postId: post.id });
      const child = await insertComment(t.dataSource, { postId: post.id, parent: parent.id });
      expect((await get(`/comments/${parent.id}`).expect(200)).body._links.children).toBeDefined();
      await call('delete', `/comments/${child.id}`, 'administrator').expect(200);
      expect((await get(`/comments/${parent.id}`).expect(200)).body._links.children).toBeUndefined();
    });
  });

  describe('comment_count of the post', () => {
    it('equals the number of approved comments after create, status changes, trash, untrash, spam and delete', async () => {
      const p = await createPost(t.dataSource, { author: t.users.administrator.id });
      const count = async () => {
        const recount = await t.dataSource.getRepository(CommentEntity).countBy({ postId: p.id, approved: '1' });
        const stored = (await storedPost(p.id)).commentCount;
        expect(Number(stored)).toBe(recount);
        return Number(stored);
      };
      expect(await count()).toBe(0);
      const a = (await call('post', '/comments', 'administrator').send({ post: p.id, content: text() }).expect(201))
        .body.id;
      expect(await count()).toBe(1);
      const h = (
        await call('post', '/comments')
          .send({ post: p.id, ...guest(), content: text() })
          .expect(201)
      ).body;
      expect(h.status).toBe('hold');
      expect(await count()).toBe(1);
      const put = (id: number, status: string) =>
        call('put', `/comments/${id}`, 'administrator').send({ status }).expect(200);
      await put(h.id, 'approved');
      expect(await count()).toBe(2);
      await put(h.id, 'hold');
      expect(await count()).toBe(1);
      await put(h.id, 'approve');
      expect(await count()).toBe(2);
      await put(a, 'spam');
      expect(await count()).toBe(1);
      await put(a, 'unspam');
      expect(await count()).toBe(2);
      await call('delete', `/comments/${a}`, 'administrator').expect(200);
      expect(await count()).toBe(1);
      await put(a, 'untrash');
      expect(await count()).toBe(2);
      await put(a, 'trash');
      expect(await count()).toBe(1);
      await call('delete', `/comments/${h.id}?force=true`, 'administrator').expect(200);
      expect(await count()).toBe(0);
      await call('delete', `/comments/${a}?force=true`, 'administrator').expect(200);
      expect(await count()).toBe(0);
    });

    it('moves the count along when an approved comment moves to another post', async () => {
      const p = await createPost(t.dataSource, { author: t.users.administrator.id });
      const q = await createPost(t.dataSource, { author: t.users.administrator.id });
      const m = (await call('post', '/comments', 'editor').send({ post: p.id, content: text() }).expect(201)).body.id;
      expect(Number((await storedPost(p.id)).commentCount)).toBe(1);
      await call('put', `/comments/${m}`, 'editor').send({ post: q.id }).expect(200);
      expect(Number((await storedPost(p.id)).commentCount)).toBe(0);
      expect(Number((await storedPost(q.id)).commentCount)).toBe(1);
    });
  });

  describe('embedding', () => {
    it('embeds the approved comments of a post as replies', async () => {
      const p = await createPost(t.dataSource, { author: t.users.administrator.id, name: 'with-replies' });
      const older = await insertComment(t.dataSource, { postId: p.id, content: 'Older' });
      const newer = await insertComment(t.dataSource, { postId: p.id, content: 'Newer', userId: t.users.author.id });
      await insertComment(t.dataSource, { postId: p.id, approved: '0' });
      const res = await get(`/posts/${p.id}?_embed`).expect(200);
      expect(res.body._links.replies).toEqual([{ embeddable: true, href: `${BASE}${API}/comments?post=${p.id}` }]);
      const replies = res.body._embedded.replies;
      expect(replies).toHaveLength(1);
      expect(replies[0].map((c: { id: number }) => c.id)).toEqual([newer.id, older.id]);
      expect(Object.keys(replies[0][0])).toEqual(EMBED_KEYS);
      expect(replies[0][1]).toMatchObject({
        content: { rendered: '<p>Older</p>\n' },
        link: `${BASE}/with-replies/#comment-${older.id}`,
      });
      const list = await get(`/posts?include=${p.id}&_embed`).expect(200);
      expect(list.body[0]._embedded.replies[0].map((c: { id: number }) => c.id)).toEqual([newer.id, older.id]);
    });

    it('leaves replies out of _embedded for a post without comments, and embeds no error', async () => {
      const p = await createPost(t.dataSource, { author: t.users.administrator.id });
      const res = await get(`/posts/${p.id}?_embed`).expect(200);
      // As WordPress: a relation whose embedded collections are all empty is left out of _embedded.
      expect(res.body._embedded?.replies).toBeUndefined();
      expect(res.body._links.replies).toBeDefined();
    });

    it('embeds the author, the post (up) and the parent (in-reply-to) of comments', async () => {
      const p = await createPost(t.dataSource, { author: t.users.administrator.id, title: 'Embedded post' });
      const parent = await insertComment(t.dataSource, {
        postId: p.id,
        userId: t.users.author.id,
        author: 'author',
        authorEmail: 'author@example.org',
      });
      const child = await insertComment(t.dataSource, {
        postId: p.id,
        parent: parent.id,
        userId: t.users.editor.id,
        author: 'editor',
      });
      const res = await get(`/comments?post=${p.id}&_embed`, 'administrator').expect(200);
      const [kid, top] = res.body;
      expect(kid.id).toBe(child.id);
      expect(Object.keys(kid._embedded).sort()).toEqual(['author', 'in-reply-to', 'up']);
      expect(kid._embedded.author[0]).toMatchObject({ id: t.users.editor.id, name: 'editor' });
      expect(kid._embedded.up[0]).toMatchObject({ id: p.id, title: { rendered: 'Embedded post' } });
      expect(kid._embedded['in-reply-to'][0]).toMatchObject({ id: parent.id, author: t.users.author.id });
      expect(Object.keys(kid._embedded['in-reply-to'][0])).toEqual(EMBED_KEYS);
      expect(Object.keys(top._embedded).sort()).toEqual(['author', 'up']);
      const single = await get(`/comments/${child.id}?_embed`, 'administrator').expect(200);
      expect(single.body._embedded['in-reply-to'][0].id).toBe(parent.id);
    });

    it('costs the same number of SQL statements for 5 and for 100 comments with _embed', async () => {
      const users: TestUser[] = [];
      for (let i = 0; i < 6; i++)
        users.push(await createUser(t.dataSource, TEST_PREFIX, `embedder${i}`, i % 2 ? 'author' : 'subscriber'));
      const posts: PostEntity[] = [];
      for (let i = 0; i < 4; i++) posts.push(await createPost(t.dataSource, { author: users[i].id }));
      const roots: CommentEntity[] = [];
      for (let i = 0; i < 120; i++) {
        // Replies to the previous thread (on the same page) and to the first one (on no page measured).
        const parent = i % 3 === 2 && roots.length ? roots[i % 6 === 2 ? 0 : roots.length - 1].id : 0;
        const c = await insertComment(t.dataSource, {
          postId: posts[i % posts.length].id,
          userId: i % 4 === 0 ? 0 : users[i % users.length].id,
          authorEmail: `e${i}@example.com`,
          parent,
          date: sqlDate(Date.UTC(2021, 0, 1) + i * 60_000),
        });
        if (!parent) roots.push(c);
      }
      const postIds = posts.map((p) => p.id).join(',');
      const small = () => get(`/comments?post=${postIds}&per_page=5&_embed`, 'administrator').expect(200);
      const large = () =>
        get(`/comments?post=${postIds}&per_page=100&_embed`, 'administrator')
          .expect(200)
          .expect((res) => {
            expect(res.body).toHaveLength(100);
            expect(
              res.body.filter((c: { _embedded?: { 'in-reply-to'?: unknown } }) => c._embedded?.['in-reply-to']).length,
            ).toBeGreaterThan(20);
            expect(
              res.body.filter((c: { _embedded?: { author?: unknown } }) => c._embedded?.author).length,
            ).toBeGreaterThan(50);
          });
      await small();
      await large();
      t.app.get(PostsService).clearCounts();
      const five = await t.queries.during(small);
      t.app.get(PostsService).clearCounts();
      t.app.get(PostsService).clearCounts();
      const hundred = await t.queries.during(large);
      expect(hundred).toBe(five);
    });

    it('costs the same number of SQL statements for 2 and for 10 posts with _embed and their replies', async () => {
      const posts: PostEntity[] = [];
      for (let i = 0; i < 10; i++) {
        const p = await createPost(t.dataSource, { author: i % 2 ? t.users.author.id : t.users.editor.id });
        posts.push(p);
        for (let j = 0; j < 3 + (i % 4); j++) {
          await insertComment(t.dataSource, { postId: p.id, userId: j % 2 ? t.users.subscriber.id : 0, parent: 0 });
        }
      }
      const two = posts
        .slice(0, 2)
        .map((p) => p.id)
        .join(',');
      const ten = posts.map((p) => p.id).join(',');
      const small = () => get(`/posts?include=${two}&_embed`).expect(200);
      const large = () =>
        get(`/posts?include=${ten}&_embed`)
          .expect(200)
          .expect((res) => {
            expect(res.body).toHaveLength(10);
            for (const p of res.body) expect(p._embedded.replies[0].length).toBeGreaterThanOrEqual(3);
          });
      await small();
      await large();
      t.app.get(PostsService).clearCounts();
      const few = await t.queries.during(small);
      t.app.get(PostsService).clearCounts();
      const many = await t.queries.during(large);
      expect(many).toBe(few);
    });
  });
});
