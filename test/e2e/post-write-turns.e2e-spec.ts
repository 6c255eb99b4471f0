import { createTestApp, TEST_PREFIX, TestApp } from '../utils/test-app';
import { testDatabaseKind } from '../utils/test-db';

/**
 * Post writes that move a post among others (slugs, statuses, terms and their counts, the sticky list) take turns
 * across every node — on MySQL a write of the `writers` row of `cms_locks` — while an edit of a post's text runs beside
 * them, and is run again with the turn when it finds it needs it.
 */

const API = '/cms-json/cms/v2';
const mysql = testDatabaseKind() === 'mysql';

describe("post writes and the posts' turn", () => {
  let t: TestApp;
  const editor = () => t.users.editor.authorization;
  /** Writes of the writers' row of the locks table (the turn). */
  const turns = () =>
    t.queries.statements.filter((sql) => sql.includes(`${TEST_PREFIX}cms_locks`) && /SET turns = turns \+ 1/i.test(sql))
      .length;
  const table = (name: string) => `${TEST_PREFIX}${name}`;

  beforeAll(async () => {
    t = await createTestApp('post_write_turns');
  });
  afterAll(() => t.close());

  it("edits a post's text without the turn, and takes it to change its slug or status", async () => {
    const post = await t.http
      .post(`${API}/posts`)
      .set('Authorization', editor())
      .send({ title: 'Turn taker', status: 'publish' })
      .expect(201);
    await t.queries.during(() =>
      t.http
        .post(`${API}/posts/${post.body.id}`)
        .set('Authorization', editor())
        .send({ title: 'Turn taker, edited', content: 'New text' })
        .expect(200),
    );
    expect(turns()).toBe(0);
    const edited = await t.http
      .get(`${API}/posts/${post.body.id}?context=edit`)
      .set('Authorization', editor())
      .expect(200);
    expect(edited.body.title.raw).toBe('Turn taker, edited');
    expect(edited.body.slug).toBe('turn-taker');
    // The same status sent again keeps its place too.
    await t.queries.during(() =>
      t.http
        .post(`${API}/posts/${post.body.id}`)
        .set('Authorization', editor())
        .send({ excerpt: 'Short', status: 'publish' })
        .expect(200),
    );
    expect(turns()).toBe(0);
    await t.queries.during(() =>
      t.http
        .post(`${API}/posts/${post.body.id}`)
        .set('Authorization', editor())
        .send({ slug: 'turn-taker-moved' })
        .expect(200),
    );
    expect(turns()).toBe(mysql ? 1 : 0);
    await t.queries.during(() =>
      t.http.post(`${API}/posts/${post.body.id}`).set('Authorization', editor()).send({ status: 'draft' }).expect(200),
    );
    expect(turns()).toBe(mysql ? 1 : 0);
  });

  it('gives a post found without categories the default one back on a text edit, and counts it', async () => {
    const post = await t.http
      .post(`${API}/posts`)
      .set('Authorization', editor())
      .send({ title: 'Lost its category', status: 'publish' })
      .expect(201);
    expect(post.body.categories).toEqual([1]);
    // Its category taken away behind the API's back (as SQL by hand would), and the count set to match.
    await t.dataSource.query(`DELETE FROM ${table('term_relationships')} WHERE object_id = ?`, [post.body.id]);
    await t.dataSource.query(`UPDATE ${table('term_taxonomy')} SET count = count - 1 WHERE term_taxonomy_id = 1`);
    const before = Number(
      (await t.dataSource.query(`SELECT count FROM ${table('term_taxonomy')} WHERE term_taxonomy_id = 1`))[0].count,
    );
    await t.queries.during(() =>
      t.http
        .post(`${API}/posts/${post.body.id}`)
        .set('Authorization', editor())
        .send({ title: 'Found its category' })
        .expect(200),
    );
    // Begun beside other writers, then run again with the turn (MySQL).
    expect(turns()).toBe(mysql ? 1 : 0);
    const after = await t.http.get(`${API}/posts/${post.body.id}`).expect(200);
    expect(after.body.categories).toEqual([1]);
    expect(after.body.title.rendered).toBe('Found its category');
    const count = Number(
      (await t.dataSource.query(`SELECT count FROM ${table('term_taxonomy')} WHERE term_taxonomy_id = 1`))[0].count,
    );
    expect(count).toBe(before + 1);
  });

  it('keeps every term count exact under concurrent text edits, term changes and status changes', async () => {
    const tags = await Promise.all(
      ['alpha', 'beta', 'gamma'].map((name) =>
        t.http
          .post(`${API}/tags`)
          .set('Authorization', editor())
          .send({ name: `Turns ${name}` })
          .expect(201),
      ),
    );
    const tagIds = tags.map((tag) => tag.body.id as number);
    const posts: number[] = [];
    for (let i = 0; i < 8; i++) {
      const created = await t.http
        .post(`${API}/posts`)
        .set('Authorization', editor())
        .send({ title: `Concurrent ${i}`, status: 'publish', tags: [tagIds[i % 3]] })
        .expect(201);
      posts.push(created.body.id);
    }
    const writes: Array<Promise<{ status: number }>> = [];
    for (let round = 0; round < 3; round++) {
      posts.forEach((id, i) => {
        const body =
          (i + round) % 3 === 0
            ? { title: `Concurrent ${i}, round ${round}` }
            : (i + round) % 3 === 1
              ? { tags: [tagIds[(i + round) % 3], tagIds[(i + round + 1) % 3]] }
              : { status: round % 2 ? 'publish' : 'draft', content: `Round ${round}` };
        writes.push(
          t.http
            .post(`${API}/posts/${id}`)
            .set('Authorization', editor())
            .send(body)
            .then((res) => res),
        );
      });
    }
    const answers = await Promise.all(writes);
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
    const counts = await t.dataSource.query<Array<{ id: number; stored: number | string; counted: number | string }>>(
      `SELECT tt.term_taxonomy_id AS id, tt.count AS stored,
         (SELECT COUNT(*) FROM ${table('term_relationships')} r INNER JOIN ${table('posts')} p ON p.ID = r.object_id
           WHERE r.term_taxonomy_id = tt.term_taxonomy_id AND p.post_status = 'publish' AND p.post_type = 'post') AS counted
       FROM ${table('term_taxonomy')} tt WHERE tt.term_taxonomy_id IN (?, ?, ?)`,
      tagIds,
    );
    expect(counts).toHaveLength(3);
    for (const row of counts) expect(Number(row.stored)).toBe(Number(row.counted));
  });
});
