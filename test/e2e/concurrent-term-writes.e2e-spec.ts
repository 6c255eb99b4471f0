import { createTestApp, TestApp } from '../utils/test-app';

/**
 * Terms written side by side (on MySQL, transactions run at once): a name is taken once and slugs stay unique.
 * Found by `npm run writers`, where 200 writers made two terms of one name and slug on MariaDB.
 */
const API = '/cms-json/cms/v2';

describe('concurrent term writes', () => {
  let t: TestApp;
  const auth = () => t.users.administrator.authorization;

  beforeAll(async () => {
    t = await createTestApp('concurrent_term_writes');
  });
  afterAll(async () => {
    await t?.close();
  });

  const slugs = async (taxonomy: string) =>
    await t.dataSource.query<Array<{ slug: string }>>(
      `SELECT x.slug AS slug FROM cms_terms x JOIN cms_term_taxonomy tt ON tt.term_id = x.term_id WHERE tt.taxonomy = ?`,
      [taxonomy],
    );

  it('creates a name once when many writers send it at the same time; the others are told term_exists', async () => {
    const answers = await Promise.all(
      Array.from({ length: 12 }, () =>
        t.http.post(`${API}/categories`).set('Authorization', auth()).send({ name: 'Same Name' }),
      ),
    );
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 400).map((a) => a.body.code)).toEqual(Array(11).fill('term_exists'));
    expect((await slugs('category')).filter((s) => s.slug === 'same-name')).toHaveLength(1);
  });

  it('gives every term a slug of its own when names differ but their slugs would not', async () => {
    const names = ['Café', 'Cafe', 'CAFE!', 'cafe?', 'Cafe.', 'café', 'Cafe,', 'cafe;'];
    const answers = await Promise.all(
      names.map((name) => t.http.post(`${API}/tags`).set('Authorization', auth()).send({ name })),
    );
    const created = answers.filter((a) => a.status === 201);
    expect(created.length).toBeGreaterThan(1);
    const all = (await slugs('post_tag')).map((s) => s.slug);
    expect(new Set(all).size).toBe(all.length);
  });
});
