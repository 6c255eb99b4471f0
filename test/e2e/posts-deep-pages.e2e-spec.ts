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
    for (let i = 0; i < POSTS; i++) await createPost(t.dataSource, { author: t.users.author.id, date: `2024-03-${String((i % 28) + 1).padStart(2, '0')} 08:00:00` });
    const rows = await t.dataSource.getRepository(PostEntity).find({ select: { id: true }, where: { type: 'post', status: 'publish' }, order: { date: 'DESC', id: 'DESC' } });
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
    const edit = await t.http.get(`${API}/posts`).query({ per_page: 5, page: 60, context: 'edit' }).set('Authorization', t.users.editor.authorization).expect(200);
    expect(ids(edit.body)).toEqual(expected.slice(295, 300));
    expect(edit.body[0].content.raw).toMatch(/^Content of post \d+\.$/);
  });
});
