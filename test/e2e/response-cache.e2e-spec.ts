import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ResponseCache } from '../../src/core/cache/response-cache';
import { HookRegistry } from '../../src/core/hooks/hook-registry.service';
import { createUser } from '../factories/user.factory';
import { createTestApp, expectRestError, TEST_PREFIX, TestApp } from '../utils/test-app';
import { testDatabaseKind, testDatabaseUrl } from '../utils/test-db';

/**
 * The response cache of anonymous reads, its version stamps, conditional requests (ETag, 304, If-Match, 412) and
 * exact totals across nodes (issue 18). A cached answer costs one statement (the stamps); a built one more.
 */

const API = '/cms-json/cms/v2';

describe('response cache, version stamps and conditional requests', () => {
  let t: TestApp;
  const auth = (role: keyof TestApp['users']) => t.users[role].authorization;
  /**
   * Statements a request sends besides the version stamps' read: 0 when its answer comes from the cache. It reads
   * the stamps once.
   */
  const cost = async (run: () => Promise<unknown>) => {
    const n = await t.queries.during(run);
    expect(t.queries.stampReads).toBe(1);
    return n;
  };
  /** Reads anonymously twice: the second answer must come from the cache, and match the first. */
  const cached = async (path: string) => {
    const first = await t.http.get(`${API}/${path}`).expect(200);
    let second: { body: unknown; headers: Record<string, string> } | undefined;
    expect(await cost(async () => (second = await t.http.get(`${API}/${path}`).expect(200)))).toBe(0);
    expect(second?.body).toEqual(first.body);
    return first;
  };

  beforeAll(async () => {
    t = await createTestApp('response_cache');
  });
  afterAll(() => t.close());

  describe('what is cached', () => {
    it("forgets a post's terms (tags?post=<id>) once the post is a draft: they are no longer told", async () => {
      const post = await t.http
        .post(`${API}/posts`)
        .set('Authorization', auth('editor'))
        .send({ title: 'Tagged and cached', status: 'publish' })
        .expect(201);
      const tag = await t.http.post(`${API}/tags`).set('Authorization', auth('editor')).send({ name: 'Cached tag' });
      await t.http
        .post(`${API}/posts/${post.body.id}`)
        .set('Authorization', auth('editor'))
        .send({ tags: [tag.body.id] })
        .expect(200);
      const first = await cached(`tags?post=${post.body.id}`);
      expect(first.body.map((term: { id: number }) => term.id)).toEqual([tag.body.id]);
      await t.http
        .post(`${API}/posts/${post.body.id}`)
        .set('Authorization', auth('editor'))
        .send({ status: 'draft' })
        .expect(200);
      expectRestError(await t.http.get(`${API}/tags?post=${post.body.id}`), 'rest_forbidden_context', 401);
    });

    it('serves a repeated anonymous read from the cache, with the same body, headers and ETag', async () => {
      await t.http
        .post(`${API}/posts`)
        .set('Authorization', auth('editor'))
        .send({ title: 'Cached one', status: 'publish' })
        .expect(201);
      const first = await t.http.get(`${API}/posts?per_page=2`).expect(200);
      let second!: { headers: Record<string, string>; body: unknown };
      expect(await cost(async () => (second = await t.http.get(`${API}/posts?per_page=2`).expect(200)))).toBe(0);
      expect(second.body).toEqual(first.body);
      for (const name of ['x-cms-total', 'x-cms-totalpages', 'link', 'etag', 'cache-control', 'content-type'])
        expect(second.headers[name]).toBe(first.headers[name]);
      expect(first.headers.etag).toMatch(/^"[\w-]+"$/);
    });

    it('answers a cached read with the headers of its first answer, and a request from a page of another origin with CORS', async () => {
      await t.http
        .post(`${API}/posts`)
        .set('Authorization', auth('editor'))
        .send({ title: 'Cached headers', status: 'publish' })
        .expect(201);
      const path = `${API}/posts?per_page=3&orderby=id`;
      const first = await t.http.get(path).expect(200);
      const withoutDate = (headers: Record<string, string>) =>
        Object.fromEntries(Object.entries(headers).filter(([name]) => name !== 'date'));
      for (let i = 0; i < 2; i++) {
        let again!: { headers: Record<string, string> };
        expect(await cost(async () => (again = await t.http.get(path).expect(200)))).toBe(0);
        expect(withoutDate(again.headers)).toEqual(withoutDate(first.headers));
      }
      expect(first.headers['access-control-allow-origin']).toBeUndefined();
      let cors!: { headers: Record<string, string> };
      expect(
        await cost(async () => (cors = await t.http.get(path).set('Origin', 'https://elsewhere.example').expect(200))),
      ).toBe(0);
      expect(cors.headers['access-control-allow-origin']).toBe('https://elsewhere.example');
      expect(cors.headers.vary).toMatch(/Origin/);
      expect(cors.headers.etag).toBe(first.headers.etag);
      // And the next plain read is as the first again.
      const plain = await t.http.get(path).expect(200);
      expect(withoutDate(plain.headers)).toEqual(withoutDate(first.headers));
    });

    it('never serves authenticated or edit-context reads from the cache, nor caches them for others', async () => {
      const draft = await t.http
        .post(`${API}/posts`)
        .set('Authorization', auth('editor'))
        .send({ title: 'Only for editors', status: 'draft' })
        .expect(201);
      await cached('posts?per_page=5&status=publish');
      // The same URL, logged in: built (more than the stamps' read).
      expect(
        await cost(() =>
          t.http.get(`${API}/posts?per_page=5&status=publish`).set('Authorization', auth('subscriber')).expect(200),
        ),
      ).toBeGreaterThan(0);
      // An editor's view of drafts never reaches anonymous callers.
      const editors = await t.http.get(`${API}/posts?status=draft`).set('Authorization', auth('editor')).expect(200);
      expect(editors.body.map((p: { id: number }) => p.id)).toContain(draft.body.id);
      expectRestError(await t.http.get(`${API}/posts?status=draft`), 'rest_invalid_param', 400);
      // context=edit: built every time, and refused anonymously.
      for (let i = 0; i < 2; i++) {
        expect(
          await cost(() =>
            t.http.get(`${API}/posts/${draft.body.id}?context=edit`).set('Authorization', auth('editor')).expect(200),
          ),
        ).toBeGreaterThan(0);
      }
      expectRestError(await t.http.get(`${API}/posts/${draft.body.id}?context=edit`), 'rest_forbidden_context', 401);
      // An anonymous edit-context read is refused every time, never answered from an anonymous view-context entry.
      await cached('posts');
      for (let i = 0; i < 2; i++)
        expectRestError(await t.http.get(`${API}/posts?context=edit`), 'rest_forbidden_context', 401);
    });

    it("reuses posts' extras between logged-in reads while nothing changed, and reads them again after a term assignment", async () => {
      const tag = await t.http
        .post(`${API}/tags`)
        .set('Authorization', auth('editor'))
        .send({ name: 'Extras tag' })
        .expect(201);
      const post = await t.http
        .post(`${API}/posts`)
        .set('Authorization', auth('editor'))
        .send({ title: 'With extras', status: 'publish' })
        .expect(201);
      const reader = auth('subscriber');
      const extrasRead = () => t.queries.statements.filter((sql) => sql.includes('x_author')).length;
      await t.queries.during(() => t.http.get(`${API}/posts?per_page=5`).set('Authorization', reader).expect(200));
      expect(extrasRead()).toBe(1);
      const again = await t.http.get(`${API}/posts?per_page=5`).set('Authorization', reader).expect(200);
      await t.queries.during(() => t.http.get(`${API}/posts?per_page=5`).set('Authorization', reader).expect(200));
      expect(extrasRead()).toBe(0);
      expect(again.body.find((p: { id: number }) => p.id === post.body.id).tags).toEqual([]);
      await t.http
        .post(`${API}/posts/${post.body.id}`)
        .set('Authorization', auth('editor'))
        .send({ tags: [tag.body.id] })
        .expect(200);
      const after = await t.http.get(`${API}/posts?per_page=5`).set('Authorization', reader).expect(200);
      expect(after.body.find((p: { id: number }) => p.id === post.body.id).tags).toEqual([tag.body.id]);
    });

    it('reads again, after an edit in place, the extras of the post edited alone, and counts its new revision', async () => {
      const editor = auth('editor');
      const reader = auth('subscriber');
      const kept = await t.http
        .post(`${API}/posts`)
        .set('Authorization', editor)
        .send({ title: 'Extras kept', status: 'publish' })
        .expect(201);
      const edited = await t.http
        .post(`${API}/posts`)
        .set('Authorization', editor)
        .send({ title: 'Extras edited', status: 'publish' })
        .expect(201);
      const list = `${API}/posts?include=${kept.body.id},${edited.body.id}`;
      // Which posts' extras a read reads: the ids bound to the extras statement.
      const extrasRead = () => t.queries.statements.filter((sql) => sql.includes('x_author')).length;
      await t.http.get(list).set('Authorization', reader).expect(200);
      const before = await t.http.get(list).set('Authorization', reader).expect(200);
      const revisions = (body: Array<{ id: number; _links: Record<string, Array<{ count?: number }>> }>, id: number) =>
        body.find((p) => p.id === id)!._links['version-history'][0].count;
      await t.http
        .post(`${API}/posts/${edited.body.id}`)
        .set('Authorization', editor)
        .send({ content: 'New text' })
        .expect(200);
      let after!: { body: Array<{ id: number; _links: Record<string, Array<{ count?: number }>> }> };
      await t.queries.during(async () => (after = await t.http.get(list).set('Authorization', reader).expect(200)));
      // One read of extras, for the edited post alone (a statement per post asked for: one placeholder).
      expect(extrasRead()).toBe(1);
      const statement = t.queries.statements.find((sql) => sql.includes('x_author'))!;
      expect(statement).toMatch(/IN \(\?\)/);
      expect(revisions(after.body, edited.body.id)).toBe(revisions(before.body, edited.body.id)! + 1);
      expect(revisions(after.body, kept.body.id)).toBe(revisions(before.body, kept.body.id));
    });

    it('reuses a verified application-password caller between reads while users and roles are unchanged, never for writes', async () => {
      const reader = auth('author');
      const userReads = () =>
        t.queries.statements.filter((sql) => /UserEntity|UserMetaEntity|usermeta/.test(sql)).length;
      // The first use of the password writes its last_used (a users change): the read after it keeps the caller.
      for (let i = 0; i < 2; i++) await t.http.get(`${API}/posts?per_page=1`).set('Authorization', reader).expect(200);
      await t.queries.during(() => t.http.get(`${API}/posts?per_page=1`).set('Authorization', reader).expect(200));
      expect(userReads()).toBe(0);
      // The caller is who they were: their own drafts in edit context.
      const draft = await t.http
        .post(`${API}/posts`)
        .set('Authorization', reader)
        .send({ title: 'Author draft' })
        .expect(201);
      const mine = await t.http
        .get(`${API}/posts?status=draft&author=${t.users.author.id}&context=edit`)
        .set('Authorization', reader)
        .expect(200);
      expect(mine.body.map((p: { id: number }) => p.id)).toContain(draft.body.id);
      // A write checks the database every time.
      await t.queries.during(() =>
        t.http
          .post(`${API}/posts/${draft.body.id}`)
          .set('Authorization', reader)
          .send({ title: 'Author draft, again' })
          .expect(200),
      );
      expect(userReads()).toBeGreaterThan(0);
      // A wrong password is never taken for the right one, however recently the right one was verified.
      const wrong = `Basic ${Buffer.from(`${t.users.author.login}:${t.users.author.appPassword}x`).toString('base64')}`;
      expectRestError(
        await t.http.get(`${API}/posts?per_page=1`).set('Authorization', wrong),
        'incorrect_password',
        401,
      );
      // A change of users (here another user's) makes the next read check the database again.
      await t.http
        .post(`${API}/users/${t.users.subscriber.id}`)
        .set('Authorization', auth('administrator'))
        .send({ description: 'Changed' })
        .expect(200);
      await t.queries.during(() => t.http.get(`${API}/posts?per_page=1`).set('Authorization', reader).expect(200));
      expect(userReads()).toBeGreaterThan(0);
    });

    it('keys password, _embed and _fields apart', async () => {
      const post = await t.http
        .post(`${API}/posts`)
        .set('Authorization', auth('editor'))
        .send({ title: 'Locked', content: 'The secret text', status: 'publish', password: 'open' })
        .expect(201);
      const id = post.body.id;
      const locked = await cached(`posts/${id}`);
      expect(locked.body.content.rendered).toBe('');
      const open = await cached(`posts/${id}?password=open`);
      expect(open.body.content.rendered).toContain('The secret text');
      expectRestError(await t.http.get(`${API}/posts/${id}?password=wrong`), 'rest_post_incorrect_password', 403);
      expect((await t.http.get(`${API}/posts/${id}`).expect(200)).body.content.rendered).toBe('');
      const embedded = await cached(`posts/${id}?_embed`);
      expect(embedded.body._embedded.author[0].id).toBe(t.users.editor.id);
      expect((await cached(`posts/${id}`)).body._embedded).toBeUndefined();
      const fields = await cached(`posts/${id}?_fields=id,title`);
      expect(Object.keys(fields.body).sort()).toEqual(['id', 'title']);
      expect(Object.keys((await cached(`posts/${id}?_fields=id`)).body)).toEqual(['id']);
    });
  });

  describe('every kind of write invalidates what it affects', () => {
    it('post create, update, trash and delete', async () => {
      const before = await cached('posts?per_page=100');
      const created = await t.http
        .post(`${API}/posts`)
        .set('Authorization', auth('editor'))
        .send({ title: 'Fresh post', status: 'publish' })
        .expect(201);
      const afterCreate = await t.http.get(`${API}/posts?per_page=100`).expect(200);
      expect(afterCreate.body.map((p: { id: number }) => p.id)).toContain(created.body.id);
      expect(Number(afterCreate.headers['x-cms-total'])).toBe(Number(before.headers['x-cms-total']) + 1);
      await cached(`posts/${created.body.id}`);
      await t.http
        .post(`${API}/posts/${created.body.id}`)
        .set('Authorization', auth('editor'))
        .send({ title: 'Renamed post' })
        .expect(200);
      expect((await t.http.get(`${API}/posts/${created.body.id}`).expect(200)).body.title.rendered).toBe(
        'Renamed post',
      );
      await cached(`posts/${created.body.id}`);
      await t.http.delete(`${API}/posts/${created.body.id}`).set('Authorization', auth('editor')).expect(200);
      expectRestError(await t.http.get(`${API}/posts/${created.body.id}`), 'rest_forbidden', 401);
      await t.http
        .delete(`${API}/posts/${created.body.id}?force=true`)
        .set('Authorization', auth('editor'))
        .expect(200);
      expectRestError(await t.http.get(`${API}/posts/${created.body.id}`), 'rest_post_invalid_id', 404);
      expect((await t.http.get(`${API}/posts?per_page=100`).expect(200)).headers['x-cms-total']).toBe(
        before.headers['x-cms-total'],
      );
    });

    it('term assignment and term changes', async () => {
      const tag = await t.http
        .post(`${API}/tags`)
        .set('Authorization', auth('editor'))
        .send({ name: 'Cache tag' })
        .expect(201);
      const post = await t.http
        .post(`${API}/posts`)
        .set('Authorization', auth('editor'))
        .send({ title: 'Tagged later', status: 'publish' })
        .expect(201);
      expect((await cached(`posts?tags=${tag.body.id}`)).body).toEqual([]);
      await cached(`posts/${post.body.id}`);
      await t.http
        .post(`${API}/posts/${post.body.id}`)
        .set('Authorization', auth('editor'))
        .send({ tags: [tag.body.id] })
        .expect(200);
      expect(
        (await t.http.get(`${API}/posts?tags=${tag.body.id}`).expect(200)).body.map((p: { id: number }) => p.id),
      ).toEqual([post.body.id]);
      expect((await t.http.get(`${API}/posts/${post.body.id}`).expect(200)).body.tags).toEqual([tag.body.id]);
      await cached(`tags/${tag.body.id}`);
      await t.http
        .post(`${API}/tags/${tag.body.id}`)
        .set('Authorization', auth('editor'))
        .send({ name: 'Renamed tag' })
        .expect(200);
      expect((await t.http.get(`${API}/tags/${tag.body.id}`).expect(200)).body.name).toBe('Renamed tag');
    });

    it('comment creation and approval', async () => {
      const post = await t.http
        .post(`${API}/posts`)
        .set('Authorization', auth('editor'))
        .send({ title: 'Discussed', status: 'publish' })
        .expect(201);
      expect((await cached(`comments?post=${post.body.id}`)).body).toEqual([]);
      expect((await cached(`posts/${post.body.id}?_embed`)).body._embedded.replies).toBeUndefined();
      const comment = await t.http
        .post(`${API}/comments`)
        .set('Authorization', auth('editor'))
        .send({ post: post.body.id, content: 'Held at first', status: 'hold' })
        .expect(201);
      expect((await cached(`comments?post=${post.body.id}`)).body).toEqual([]);
      await t.http
        .post(`${API}/comments/${comment.body.id}`)
        .set('Authorization', auth('editor'))
        .send({ status: 'approved' })
        .expect(200);
      expect(
        (await t.http.get(`${API}/comments?post=${post.body.id}`).expect(200)).body.map((c: { id: number }) => c.id),
      ).toEqual([comment.body.id]);
      expect(
        (await t.http.get(`${API}/posts/${post.body.id}?_embed`).expect(200)).body._embedded.replies[0][0].id,
      ).toBe(comment.body.id);
    });

    it('option changes (settings) and user changes', async () => {
      await cached('');
      await t.http
        .post(`${API}/settings`)
        .set('Authorization', auth('administrator'))
        .send({ title: 'A cached site' })
        .expect(200);
      expect((await t.http.get('/cms-json/').expect(200)).body.name).toBe('A cached site');
      const post = await t.http
        .post(`${API}/posts`)
        .set('Authorization', auth('author'))
        .send({ title: 'By the author', status: 'publish' })
        .expect(201);
      expect((await cached(`users/${t.users.author.id}`)).body.name).toBe('author');
      await cached(`posts/${post.body.id}?_embed`);
      await t.http
        .post(`${API}/users/${t.users.author.id}`)
        .set('Authorization', auth('administrator'))
        .send({ name: 'Renamed Author' })
        .expect(200);
      expect((await t.http.get(`${API}/users/${t.users.author.id}`).expect(200)).body.name).toBe('Renamed Author');
      expect((await t.http.get(`${API}/posts/${post.body.id}?_embed`).expect(200)).body._embedded.author[0].name).toBe(
        'Renamed Author',
      );
    });

    it('publishes a scheduled post at its time, though nothing else changed', async () => {
      // A post is scheduled (not published at once) a minute or more ahead, as WordPress does it.
      const at = new Date(Date.now() + 90_000);
      const scheduled = await t.http
        .post(`${API}/posts`)
        .set('Authorization', auth('editor'))
        .send({ title: 'Due soon', status: 'future', date_gmt: at.toISOString().slice(0, 19) })
        .expect(201);
      expect(scheduled.body.status).toBe('future');
      expect((await cached('posts?per_page=100')).body.map((p: { id: number }) => p.id)).not.toContain(
        scheduled.body.id,
      );
      // Time passes (the server's clock, in this process); nothing is written.
      const now = Date.now;
      const later = now() + 95_000;
      jest.spyOn(Date, 'now').mockImplementation(() => later);
      try {
        expect(
          (await t.http.get(`${API}/posts?per_page=100`).expect(200)).body.map((p: { id: number }) => p.id),
        ).toContain(scheduled.body.id);
        expect((await t.http.get(`${API}/posts/${scheduled.body.id}`).expect(200)).body.status).toBe('publish');
      } finally {
        jest.restoreAllMocks();
      }
    });
  });

  describe('edits in place', () => {
    /** Reads anonymously: served from the cache (no statement but the stamps' and, at most, one of posts' versions). */
    const hit = async (path: string) => {
      let answer!: { body: any; headers: Record<string, string> };
      expect(await cost(async () => (answer = await t.http.get(`${API}/${path}`).expect(200)))).toBe(0);
      expect(t.queries.objectReads).toBeLessThanOrEqual(1);
      return answer;
    };
    /** Reads anonymously: built again. */
    const built = async (path: string) => {
      let answer!: { body: any; headers: Record<string, string> };
      expect(await cost(async () => (answer = await t.http.get(`${API}/${path}`).expect(200)))).toBeGreaterThan(0);
      return answer;
    };
    const editor = () => auth('editor');

    it('keeps the answers that do not show a post whose text was edited, and builds those that do, their _embed included', async () => {
      const edited = await t.http
        .post(`${API}/posts`)
        .set('Authorization', editor())
        .send({ title: 'Aardvark in place', status: 'publish' })
        .expect(201);
      const other = await t.http
        .post(`${API}/posts`)
        .set('Authorization', editor())
        .send({ title: 'Beaver in place', status: 'publish' })
        .expect(201);
      const parent = await t.http
        .post(`${API}/pages`)
        .set('Authorization', editor())
        .send({ title: 'Parent page', status: 'publish' })
        .expect(201);
      const child = await t.http
        .post(`${API}/pages`)
        .set('Authorization', editor())
        .send({ title: 'Child page', status: 'publish', parent: parent.body.id })
        .expect(201);
      await t.http
        .post(`${API}/comments`)
        .set('Authorization', editor())
        .send({ post: edited.body.id, content: 'On the edited one' })
        .expect(201);
      const [a, b] = [edited.body.id, other.body.id];
      const both = `include=${a},${b}`;
      const paths = {
        edited: `posts/${a}`,
        other: `posts/${b}`,
        listEdited: `posts?include=${a}`,
        listOther: `posts?include=${b}`,
        byTitle: `posts?${both}&orderby=title&order=asc`,
        search: 'posts?search=Aardvark',
        comments: `comments?post=${a}`,
        categories: 'categories',
        childEmbed: `pages/${child.body.id}?_embed`,
      };
      for (const path of Object.values(paths)) await cached(path);
      expect((await hit(paths.byTitle)).body.map((p: { id: number }) => p.id)).toEqual([a, b]);

      await t.http
        .post(`${API}/posts/${a}`)
        .set('Authorization', editor())
        .send({ title: 'Zebra in place', content: 'New text' })
        .expect(200);
      // Not showing the edited post: still the cached answer (the posts written are read once, with the stamps).
      expect((await hit(paths.other)).body.title.rendered).toBe('Beaver in place');
      expect(t.queries.objectReads).toBe(1);
      expect((await hit(paths.other)).body.title.rendered).toBe('Beaver in place');
      expect(t.queries.objectReads).toBe(0);
      // Another answer kept across the edit: checked without reading posts' versions again.
      await hit(paths.listOther);
      expect(t.queries.objectReads).toBe(0);
      await hit(paths.comments);
      await hit(paths.categories);
      // Showing it, or reading posts' text and titles: built again, with the edit.
      expect((await built(paths.edited)).body.title.rendered).toBe('Zebra in place');
      expect((await built(paths.listEdited)).body[0].content.rendered).toContain('New text');
      expect((await built(paths.byTitle)).body.map((p: { id: number }) => p.id)).toEqual([b, a]);
      expect((await built(paths.search)).body).toEqual([]);
      // An embedded post counts as shown: the parent page's edit reaches its child's answer.
      await t.http
        .post(`${API}/pages/${parent.body.id}`)
        .set('Authorization', editor())
        .send({ title: 'Renamed parent' })
        .expect(200);
      expect((await built(paths.childEmbed)).body._embedded.up[0].title.rendered).toBe('Renamed parent');
      await hit(paths.other);
    });

    it('builds a page with _embed again from the kept answers of its links that did not change, and shows those that did', async () => {
      const category = await t.http
        .post(`${API}/categories`)
        .set('Authorization', editor())
        .send({ name: 'Embedded kept' })
        .expect(201);
      const make = (title: string) =>
        t.http
          .post(`${API}/posts`)
          .set('Authorization', editor())
          .send({ title, status: 'publish', categories: [category.body.id] })
          .expect(201);
      const [a, b] = [(await make('Embedded edited')).body.id, (await make('Embedded left')).body.id];
      for (const id of [a, b])
        await t.http
          .post(`${API}/comments`)
          .set('Authorization', editor())
          .send({ post: id, content: `On ${id}` })
          .expect(201);
      const path = `${API}/posts?_embed&include=${a},${b}&orderby=include`;
      let first!: { body: any };
      const cold = await t.queries.during(async () => (first = await t.http.get(path).expect(200)));
      await t.http
        .post(`${API}/posts/${a}`)
        .set('Authorization', editor())
        .send({ title: 'Embedded and edited' })
        .expect(200);
      let again!: { body: any };
      const warm = await t.queries.during(async () => (again = await t.http.get(path).expect(200)));
      // The page's posts and their links: the links' answers (author, terms, comments) come from the cache.
      expect(warm).toBeLessThan(cold / 2);
      expect(again.body[0].title.rendered).toBe('Embedded and edited');
      expect(again.body[0]._embedded).toEqual(first.body[0]._embedded);
      expect(again.body[1]).toEqual(first.body[1]);
      // A link whose answer shows the edited post is built again: a reply's `up` embeds it.
      const replies = `${API}/comments?post=${a}&_embed=up`;
      expect((await t.http.get(replies).expect(200)).body[0]._embedded.up[0].title.rendered).toBe(
        'Embedded and edited',
      );
      await t.http.post(`${API}/posts/${a}`).set('Authorization', editor()).send({ title: 'Edited twice' }).expect(200);
      expect((await built(replies.replace(`${API}/`, ''))).body[0]._embedded.up[0].title.rendered).toBe('Edited twice');
      // The same answers as the API gives with the cache off (each link's own answer, as a client would ask for it).
      const fresh = await t.http.get(path).set('Authorization', auth('subscriber')).expect(200);
      expect(fresh.body[0]._embedded.author).toEqual(again.body[0]._embedded.author);
      expect(fresh.body[0]._embedded['cms:term']).toEqual(again.body[0]._embedded['cms:term']);
    });

    it("moves every post's answers for an edit that changes where a post stands: slug, author, terms, password, status", async () => {
      const moved = await t.http
        .post(`${API}/posts`)
        .set('Authorization', editor())
        .send({ title: 'Moved about', status: 'publish' })
        .expect(201);
      const watcher = await t.http
        .post(`${API}/posts`)
        .set('Authorization', editor())
        .send({ title: 'Watching', status: 'publish' })
        .expect(201);
      const category = await t.http
        .post(`${API}/categories`)
        .set('Authorization', editor())
        .send({ name: 'Moved here' })
        .expect(201);
      const changes: Array<Record<string, unknown>> = [
        { slug: 'moved-about-elsewhere' },
        { author: t.users.author.id },
        { categories: [category.body.id] },
        { password: 'secret' },
        { status: 'draft' },
      ];
      for (const change of changes) {
        const comments = `comments?post=${moved.body.id}`;
        // Its comments are public until it is protected by a password.
        const public_ = (await t.http.get(`${API}/${comments}`)).status === 200;
        await cached(`posts/${watcher.body.id}`);
        if (public_) await cached(comments);
        await t.http.post(`${API}/posts/${moved.body.id}`).set('Authorization', editor()).send(change).expect(200);
        await built(`posts/${watcher.body.id}`);
        // Built again (refused once the post is protected).
        if (public_) expect(await cost(() => t.http.get(`${API}/${comments}`))).toBeGreaterThan(0);
      }
    });

    it('builds every answer again after an edit in place while an extension shapes post answers (rest_prepare_post)', async () => {
      const edited = await t.http
        .post(`${API}/posts`)
        .set('Authorization', editor())
        .send({ title: 'Shaped edited', status: 'publish' })
        .expect(201);
      const other = await t.http
        .post(`${API}/posts`)
        .set('Authorization', editor())
        .send({ title: 'Shaped other', status: 'publish' })
        .expect(201);
      const remove = t.app.get(HookRegistry).addFilter('rest_prepare_post', (response) => response);
      try {
        await cached(`posts/${other.body.id}`);
        await t.http
          .post(`${API}/posts/${edited.body.id}`)
          .set('Authorization', editor())
          .send({ title: 'Shaped and edited' })
          .expect(200);
        await built(`posts/${other.body.id}`);
      } finally {
        remove();
      }
    });

    it('keeps the ETag of an answer kept across an edit of another post, and answers its revalidation with 304', async () => {
      const edited = await t.http
        .post(`${API}/posts`)
        .set('Authorization', editor())
        .send({ title: 'Tagged edited', status: 'publish' })
        .expect(201);
      const kept = await t.http
        .post(`${API}/posts`)
        .set('Authorization', editor())
        .send({ title: 'Tagged kept', status: 'publish' })
        .expect(201);
      const keptTag = (await cached(`posts/${kept.body.id}`)).headers.etag;
      const editedTag = (await cached(`posts/${edited.body.id}`)).headers.etag;
      await t.http
        .post(`${API}/posts/${edited.body.id}`)
        .set('Authorization', editor())
        .send({ excerpt: 'Edited' })
        .expect(200);
      await t.http.get(`${API}/posts/${kept.body.id}`).set('If-None-Match', keptTag).expect(304);
      const changed = await t.http.get(`${API}/posts/${edited.body.id}`).set('If-None-Match', editedTag).expect(200);
      expect(changed.headers.etag).not.toBe(editedTag);
    });
  });

  describe('conditional requests', () => {
    it('answers If-None-Match with 304 and no body, cached or not, and with 200 once the data changed', async () => {
      const post = await t.http
        .post(`${API}/posts`)
        .set('Authorization', auth('editor'))
        .send({ title: 'Revalidated', status: 'publish' })
        .expect(201);
      const first = await t.http.get(`${API}/posts/${post.body.id}`).expect(200);
      const etag = first.headers.etag;
      const again = await t.http.get(`${API}/posts/${post.body.id}`).set('If-None-Match', etag).expect(304);
      expect(again.text ?? '').toBe('');
      expect(again.headers.etag).toBe(etag);
      expect(again.headers['cache-control']).toBe('no-cache, must-revalidate, max-age=0');
      // Revalidated after the answer left the cache: still 304, from the key and the stamps alone.
      t.app.get(ResponseCache).pool.clear();
      expect(
        await cost(() =>
          t.http.get(`${API}/posts/${post.body.id}`).set('If-None-Match', `W/${etag}, "other"`).expect(304),
        ),
      ).toBe(0);
      await t.http
        .post(`${API}/posts/${post.body.id}`)
        .set('Authorization', auth('editor'))
        .send({ title: 'Changed' })
        .expect(200);
      const changed = await t.http.get(`${API}/posts/${post.body.id}`).set('If-None-Match', etag).expect(200);
      expect(changed.headers.etag).not.toBe(etag);
      // Logged in: the ETag of the body.
      const mine = await t.http
        .get(`${API}/posts/${post.body.id}?context=edit`)
        .set('Authorization', auth('editor'))
        .expect(200);
      expect(mine.headers.etag).toMatch(/^"[\w-]+"$/);
      await t.http
        .get(`${API}/posts/${post.body.id}?context=edit`)
        .set('Authorization', auth('editor'))
        .set('If-None-Match', mine.headers.etag)
        .expect(304);
      // Errors carry none.
      expect((await t.http.get(`${API}/posts/999999`).expect(404)).headers.etag).toBeUndefined();
    });

    it('gives single posts a Last-Modified of their modified date', async () => {
      const post = await t.http
        .post(`${API}/posts`)
        .set('Authorization', auth('editor'))
        .send({ title: 'Dated', status: 'publish' })
        .expect(201);
      const res = await t.http.get(`${API}/posts/${post.body.id}`).expect(200);
      expect(res.headers['last-modified']).toBe(new Date(`${post.body.modified_gmt}Z`).toUTCString());
    });

    it('refuses a write whose If-Match no longer names the item with 412, and takes a current one or *', async () => {
      const post = await t.http
        .post(`${API}/posts`)
        .set('Authorization', auth('editor'))
        .send({ title: 'Shared draft', status: 'draft' })
        .expect(201);
      const url = `${API}/posts/${post.body.id}`;
      const read = await t.http.get(`${url}?context=edit`).set('Authorization', auth('editor')).expect(200);
      // First editor saves with the ETag read.
      const saved = await t.http
        .put(url)
        .set('Authorization', auth('editor'))
        .set('If-Match', read.headers.etag)
        .send({ title: 'First edit', categories: [1] })
        .expect(200);
      expect([saved.body.title.raw, saved.body.categories]).toEqual(['First edit', [1]]);
      // Second editor, with the same (now old) ETag: refused, nothing written.
      expectRestError(
        await t.http
          .put(url)
          .set('Authorization', auth('administrator'))
          .set('If-Match', read.headers.etag)
          .send({ title: 'Second edit' }),
        'rest_precondition_failed',
        412,
      );
      expectRestError(
        await t.http
          .delete(`${url}?force=true`)
          .set('Authorization', auth('editor'))
          .set('If-Match', read.headers.etag),
        'rest_precondition_failed',
        412,
      );
      expect(
        (await t.http.get(`${url}?context=edit`).set('Authorization', auth('editor')).expect(200)).body.title.raw,
      ).toBe('First edit');
      // A view-context ETag is current too, and so is *.
      const view = await t.http.get(url).set('Authorization', auth('administrator')).expect(200);
      await t.http
        .patch(url)
        .set('Authorization', auth('administrator'))
        .set('If-Match', view.headers.etag)
        .send({ title: 'Second edit' })
        .expect(200);
      await t.http
        .post(url)
        .set('Authorization', auth('administrator'))
        .set('If-Match', '*')
        .send({ title: 'Third edit' })
        .expect(200);
      // A caller who cannot read the item gets the write's own refusal, not 412.
      expectRestError(
        await t.http.put(url).set('Authorization', auth('subscriber')).set('If-Match', '"x"').send({ title: 'No' }),
        'rest_cannot_edit',
        403,
      );
    });
  });

  describe('bounds', () => {
    it('keeps answers within its byte bound, evicting the least recently used, and none over an eighth of it', async () => {
      const small = await createTestApp('response_cache_bound', { cms: { responseCache: { maxBytes: 48 * 1024 } } });
      try {
        for (let i = 0; i < 8; i++) {
          await small.http
            .post(`${API}/posts`)
            .set('Authorization', small.users.editor.authorization)
            .send({ title: `Post ${i}`, content: 'x'.repeat(800), status: 'publish' })
            .expect(201);
        }
        const cache = small.app.get(ResponseCache);
        for (let i = 1; i <= 40; i++)
          await small.http.get(`${API}/posts?per_page=1&page=${(i % 8) + 1}&n=${i}`).expect(200);
        const usage = cache.usage();
        expect(usage.maxBytes).toBe(48 * 1024);
        expect(usage.bytes).toBeLessThanOrEqual(48 * 1024);
        expect(usage.entries).toBeGreaterThan(0);
        expect(usage.entries).toBeLessThan(40);
        // A page of eight long posts is over 6 KiB (an eighth): answered, never kept.
        const big = await small.http.get(`${API}/posts?per_page=8`).expect(200);
        expect(big.text.length).toBeGreaterThan(6 * 1024);
        expect(await small.queries.during(() => small.http.get(`${API}/posts?per_page=8`).expect(200))).toBeGreaterThan(
          0,
        );
      } finally {
        await small.close();
      }
    });

    it('is off with responseCache: false: no stamps read, every read built', async () => {
      const off = await createTestApp('response_cache_off', { cms: { responseCache: false } });
      try {
        await off.http.get(`${API}/posts`).expect(200);
        off.queries.statements.length = 0;
        const n = await off.queries.during(() => off.http.get(`${API}/posts`).expect(200));
        expect(n).toBeGreaterThan(0);
        expect(off.queries.statements.some((sql) => sql.includes('cms_versions'))).toBe(false);
        expect(off.app.get(ResponseCache).usage().entries).toBe(0);
      } finally {
        await off.close();
      }
    });
  });
});

describe('two nodes on one database', () => {
  const file = join(tmpdir(), `cms-two-nodes-${process.pid}.sqlite`);
  let a: TestApp;
  let b: TestApp;

  beforeAll(async () => {
    const databaseUrl = testDatabaseKind() === 'sqlite' ? `sqlite:${file}` : await testDatabaseUrl('two_nodes');
    a = await createTestApp('two_nodes', { databaseUrl });
    b = await createTestApp('two_nodes', { databaseUrl, users: a.users });
  });
  afterAll(async () => {
    await b.app.close();
    await a.close();
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
  });

  it('answers exact totals and fresh answers on one node right after a write through the other', async () => {
    for (let round = 0; round < 5; round++) {
      const anonymous = await a.http.get(`${API}/posts?per_page=1`).expect(200);
      const logged = await a.http
        .get(`${API}/posts?per_page=1`)
        .set('Authorization', a.users.subscriber.authorization)
        .expect(200);
      expect(logged.headers['x-cms-total']).toBe(anonymous.headers['x-cms-total']);
      const created = await b.http
        .post(`${API}/posts`)
        .set('Authorization', b.users.editor.authorization)
        .send({ title: `Round ${round}`, status: 'publish' })
        .expect(201);
      const fresh = await a.http.get(`${API}/posts?per_page=1`).expect(200);
      expect(fresh.headers['x-cms-total']).toBe(String(Number(anonymous.headers['x-cms-total']) + 1));
      expect(fresh.body[0].id).toBe(created.body.id);
      const freshLogged = await a.http
        .get(`${API}/posts?per_page=1`)
        .set('Authorization', a.users.subscriber.authorization)
        .expect(200);
      expect(freshLogged.headers['x-cms-total']).toBe(fresh.headers['x-cms-total']);
      // An option written on b shows on a at once.
      await b.http
        .post(`${API}/settings`)
        .set('Authorization', b.users.administrator.authorization)
        .send({ description: `Round ${round}` })
        .expect(200);
      expect((await a.http.get('/cms-json/').expect(200)).body.description).toBe(`Round ${round}`);
    }
  });

  it('answers, on one node, a post edited in place through the other at once, and keeps its answers of other posts', async () => {
    const edited = await b.http
      .post(`${API}/posts`)
      .set('Authorization', b.users.editor.authorization)
      .send({ title: 'Edited on b', status: 'publish' })
      .expect(201);
    const other = await b.http
      .post(`${API}/posts`)
      .set('Authorization', b.users.editor.authorization)
      .send({ title: 'Left alone', status: 'publish' })
      .expect(201);
    for (let round = 0; round < 5; round++) {
      await a.http.get(`${API}/posts/${edited.body.id}`).expect(200);
      await a.http.get(`${API}/posts/${other.body.id}`).expect(200);
      await b.http
        .post(`${API}/posts/${edited.body.id}`)
        .set('Authorization', b.users.editor.authorization)
        .send({ title: `Edit ${round}` })
        .expect(200);
      expect((await a.http.get(`${API}/posts/${edited.body.id}`).expect(200)).body.title.rendered).toBe(
        `Edit ${round}`,
      );
      expect(await a.queries.during(() => a.http.get(`${API}/posts/${other.body.id}`).expect(200))).toBe(0);
    }
  });

  it("answers, on one node, the totals of lists that read posts' text and the revision counts of a post edited in place through the other", async () => {
    const editor = b.users.editor.authorization;
    const edited = await b.http
      .post(`${API}/posts`)
      .set('Authorization', editor)
      .send({ title: 'Quiet title', content: 'First text', status: 'publish' })
      .expect(201);
    for (let round = 0; round < 3; round++) {
      const word = `Gnu${round}word`;
      const search = (node: TestApp, auth?: string) => {
        const request = node.http.get(`${API}/posts?search=${word}`);
        return (auth ? request.set('Authorization', auth) : request).expect(200);
      };
      // Counted and kept on a, anonymously and logged in.
      expect((await search(a)).headers['x-cms-total']).toBe('0');
      expect((await search(a, a.users.subscriber.authorization)).headers['x-cms-total']).toBe('0');
      const before = (
        await a.http
          .get(`${API}/posts/${edited.body.id}`)
          .set('Authorization', a.users.subscriber.authorization)
          .expect(200)
      ).body;
      await b.http
        .post(`${API}/posts/${edited.body.id}`)
        .set('Authorization', editor)
        .send({ title: `Now ${word}`, content: `Text ${round}` })
        .expect(200);
      for (const auth of [undefined, a.users.subscriber.authorization]) {
        const found = await search(a, auth);
        expect(found.body.map((p: { id: number }) => p.id)).toEqual([edited.body.id]);
        expect(found.headers['x-cms-total']).toBe('1');
      }
      // Its extras on a: the revision the edit stored is counted.
      const after = (
        await a.http
          .get(`${API}/posts/${edited.body.id}`)
          .set('Authorization', a.users.subscriber.authorization)
          .expect(200)
      ).body;
      expect(after._links['version-history'][0].count).toBe(before._links['version-history'][0].count + 1);
    }
  });

  it('refuses, on one node, an application password revoked and a role taken away through the other, at the next request', async () => {
    const user = await createUser(a.dataSource, TEST_PREFIX, 'two_nodes_editor', 'editor');
    const admin = b.users.administrator.authorization;
    const read = (node: TestApp) =>
      node.http.get(`${API}/posts?context=edit&per_page=1`).set('Authorization', user.authorization);
    // Verified on a, and reused there by reads.
    await read(a).expect(200);
    await read(a).expect(200);
    // Demoted on b: a's next read knows.
    await b.http
      .post(`${API}/users/${user.id}`)
      .set('Authorization', admin)
      .send({ roles: ['subscriber'] })
      .expect(200);
    expectRestError(await read(a), 'rest_forbidden_context', 403);
    await b.http
      .post(`${API}/users/${user.id}`)
      .set('Authorization', admin)
      .send({ roles: ['editor'] })
      .expect(200);
    await read(a).expect(200);
    // Revoked on b: a refuses the next write (no read in between) and the next read.
    const list = await b.http
      .get(`${API}/users/${user.id}/application-passwords`)
      .set('Authorization', admin)
      .expect(200);
    expect(list.body).toHaveLength(1);
    await b.http
      .delete(`${API}/users/${user.id}/application-passwords/${list.body[0].uuid}`)
      .set('Authorization', admin)
      .expect(200);
    expectRestError(
      await a.http.post(`${API}/posts`).set('Authorization', user.authorization).send({ title: 'After revocation' }),
      'incorrect_password',
      401,
    );
    expectRestError(await read(a), 'incorrect_password', 401);
  });
});
