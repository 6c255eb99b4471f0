import { writeTransaction } from '../../src/core/database/write-transaction';
import { createTestApp, TestApp } from '../utils/test-app';

/**
 * Reads see committed rows only. On SQLite the process has one connection, shared by its write transaction and
 * every read; a read made while a transaction is under way waits for it to commit or roll back, instead of showing
 * (and the response cache keeping) rows that a rollback then takes back. On MySQL reads use other pooled connections.
 */
describe('reads during a write transaction of the same process', () => {
  let t: TestApp;
  let id: number;

  beforeAll(async () => {
    t = await createTestApp('committed_reads');
    const created = await t.http
      .post('/cms-json/cms/v2/posts')
      .set('Authorization', t.users.administrator.authorization)
      .send({ title: 'Committed title', status: 'publish' })
      .expect(201);
    id = created.body.id;
  });

  afterAll(() => t.close());

  const title = async (path: string) => {
    const res = await t.http.get(`/cms-json/cms/v2${path}`).expect(200);
    return Array.isArray(res.body)
      ? res.body.find((p: { id: number }) => p.id === id)?.title.rendered
      : res.body.title.rendered;
  };
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('never answers what a transaction wrote before it ends, nor after it is rolled back, and caches neither', async () => {
    const table = t.dataSource.getMetadata('PostEntity').tableName;
    let rollBack!: () => void;
    const decided = new Promise<void>((resolve) => (rollBack = resolve));
    let written = false;
    const transaction = writeTransaction(t.dataSource, async (em) => {
      await em.query(`UPDATE ${table} SET post_title = ? WHERE ID = ?`, ['Uncommitted title', id]);
      written = true;
      await decided;
      throw new Error('rolled back');
    }).catch((error: Error) => error.message);
    while (!written) await pause(5);
    // Asked while the transaction holds its uncommitted title: answered with the committed one.
    const during = Promise.all([title(`/posts/${id}`), title('/posts?per_page=100')]);
    await pause(100);
    rollBack();
    expect(await during).toEqual(['Committed title', 'Committed title']);
    expect(await transaction).toBe('rolled back');
    // Nothing of it was kept: the same requests again (the cache's answers, if it kept them) say the same.
    expect([await title(`/posts/${id}`), await title('/posts?per_page=100')]).toEqual([
      'Committed title',
      'Committed title',
    ]);
  });

  it('answers what a transaction wrote once it has committed', async () => {
    expect(await title(`/posts/${id}`)).toBe('Committed title');
    const committed = writeTransaction(t.dataSource, async (em) => {
      const table = t.dataSource.getMetadata('PostEntity').tableName;
      await em.query(`UPDATE ${table} SET post_title = ? WHERE ID = ?`, ['Later title', id]);
    });
    await committed;
    expect(await title(`/posts/${id}`)).toBe('Later title');
  });
});
