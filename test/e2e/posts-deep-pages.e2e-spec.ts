import { PostEntity } from '../../src/core/database/entities/post.entity';
import { createPost } from '../factories/post.factory';
import { createTestApp, TestApp } from '../utils/test-app';

const API = '/cms-json/cms/v2';
const POSTS = 320;

/**
 * Pages far into the list (on MySQL, from 250 posts skipped, a page finds its ids first and then their rows) list the
 * same posts, in the same order, as the first pages do: newest first, ties of date by id, descending.
 */
describe('posts: deep pages', () => {
  let t: TestApp;
  let expected: number[];
  const ids = (body: Array<{ id: number }>) => body.map((p) => p.id);

  beforeAll(async () => {
    t = await createTestApp('posts_deep_pages');
    // 320 posts on 28 days: most share their date with others, so the order within a date is the ids'.
    for (let i = 0; i < POSTS; i++)
      await createPost(t.dataSource, {
        author: t.users.author.id,
        date: `2024-03-${String((i % 28) + 1).padStart(2, '0')} 08:00:00`,
      });
    const rows = await t.dataSource
      .getRepository(PostEntity)
      .find({ select: { id: true }, where: { type: 'post', status: 'publish' }, order: { date: 'DESC', id: 'DESC' } });
    expected = rows.map((r) => r.id);
    expect(expected).toHaveLength(POSTS);
  });
  afterAll(() => t.close());

  it('lists every post once, in date order, through pages before and past 250 posts skipped', async () => {
    const listed: number[] = [];
    for (let page = 1; page <= 4; page++) {
      const res = await t.http.get(`${API}/posts`).query({ per_page: 100, page, _fields: 'id' }).expect(200);
      expect(res.headers['x-cms-total']).toBe(String(POSTS));
      listed.push(...ids(res.body));
    }
    expect(listed).toEqual(expected);
  });

  it('answers the pages on either side of 250 posts skipped with the posts in those places', async () => {
    for (const page of [25, 26, 27, 32]) {
      const res = await t.http.get(`${API}/posts`).query({ per_page: 10, page }).expect(200);
      expect(ids(res.body)).toEqual(expected.slice((page - 1) * 10, page * 10));
    }
  });

  it('embeds and prepares a deep page as a first one, for anonymous and logged-in callers', async () => {
    const deep = await t.http.get(`${API}/posts`).query({ per_page: 5, page: 60, _embed: 'author' }).expect(200);
    expect(ids(deep.body)).toEqual(expected.slice(295, 300));
    for (const post of deep.body) expect(post._embedded.author[0]).toMatchObject({ id: t.users.author.id });
    const edit = await t.http
      .get(`${API}/posts`)
      .query({ per_page: 5, page: 60, context: 'edit' })
      .set('Authorization', t.users.editor.authorization)
      .expect(200);
    expect(ids(edit.body)).toEqual(expected.slice(295, 300));
    expect(edit.body[0].content.raw).toMatch(/^Content of post \d+\.$/);
  });

  describe("several statuses (an editor's list)", () => {
    let mixed: PostEntity[];
    const STATUSES = ['publish', 'draft', 'pending', 'private'];

    beforeAll(async () => {
      // 60 more posts of three other statuses, their dates, modification dates and menu orders interleaved with the
      // published ones' (and with ties, which the id breaks).
      const statuses = ['draft', 'pending', 'private'];
      for (let i = 0; i < 60; i++) {
        const day = String((i % 28) + 1).padStart(2, '0');
        const post = await createPost(t.dataSource, {
          author: t.users.author.id,
          status: statuses[i % 3],
          date: `2024-03-${day} 08:00:00`,
          menuOrder: i % 7,
        });
        await t.dataSource
          .getRepository(PostEntity)
          .update(post.id, { modified: `2024-04-${String(((i * 5) % 28) + 1).padStart(2, '0')} 09:00:00` });
      }
      mixed = await t.dataSource
        .getRepository(PostEntity)
        .find({ where: STATUSES.map((status) => ({ type: 'post', status })) });
      expect(mixed).toHaveLength(POSTS + 60);
    });

    const compare =
      (key: (p: PostEntity) => string | number, order: 'asc' | 'desc', byIdOnly = false) =>
      (a: PostEntity, b: PostEntity) => {
        const sign = order === 'asc' ? 1 : -1;
        const ka = key(a);
        const kb = key(b);
        if (!byIdOnly && ka !== kb) return (ka < kb ? -1 : 1) * sign;
        return (a.id - b.id) * sign;
      };

    it.each([
      ['date', 'desc'],
      ['date', 'asc'],
      ['modified', 'desc'],
      ['id', 'desc'],
    ] as const)(
      'lists every post of every status once, ordered by %s %s, through first and deep pages',
      async (orderby, order) => {
        const key = {
          date: (p: PostEntity) => p.date,
          modified: (p: PostEntity) => p.modified,
          id: (p: PostEntity) => p.id,
        }[orderby];
        const want = [...mixed].sort(compare(key, order, orderby === 'id')).map((p) => p.id);
        const listed: number[] = [];
        for (let page = 1; page <= 4; page++) {
          const res = await t.http
            .get(`${API}/posts`)
            .query({ status: STATUSES.join(','), context: 'edit', orderby, order, per_page: 100, page, _fields: 'id' })
            .set('Authorization', t.users.editor.authorization)
            .expect(200);
          expect(res.headers['x-cms-total']).toBe(String(POSTS + 60));
          listed.push(...ids(res.body));
        }
        expect(listed).toEqual(want);
        const deep = await t.http
          .get(`${API}/posts`)
          .query({ status: STATUSES.join(','), context: 'edit', orderby, order, per_page: 7, page: 45, _fields: 'id' })
          .set('Authorization', t.users.editor.authorization)
          .expect(200);
        expect(ids(deep.body)).toEqual(want.slice(44 * 7, 45 * 7));
      },
    );
  });
});
