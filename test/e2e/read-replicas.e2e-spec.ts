import * as mysql from 'mysql2/promise';
import { ResponseCache } from '../../src/core/cache/response-cache';
import { WP_INCOMPATIBLE_SQL_MODES } from '../../src/core/database/data-source-options';
import { rawQuery } from '../../src/core/database/raw-query';
import { RedisCallerMarks } from '../../src/core/database/redis-caller-marks';
import { PRIMARY, ReplicaRouter, replicaRouterOf } from '../../src/core/database/replica-routing';
import { createTestApp, TEST_PREFIX, TestApp } from '../utils/test-app';
import { testDatabaseKind, testDatabaseName } from '../utils/test-db';

const API = '/cms-json/cms/v2';
const NAME = 'read-replicas';
/** The read-after-write window of this file, in seconds. */
const WINDOW = 2;
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

// A replica is a MySQL/MariaDB server: SQLite has none (buildDataSourceOptions refuses replicas with a SQLite URL).
const mysqlOnly = testDatabaseKind() === 'mysql' ? describe : describe.skip;

/**
 * Read replicas, with a second MariaDB database as a stand-in replica: a copy of the primary's tables and rows made
 * once after set-up, which nothing replicates to afterwards. What a request reads therefore tells which server
 * answered it.
 */
mysqlOnly('read replicas (a second database as a stand-in replica)', () => {
  let t: TestApp;
  /** A second node of the fleet: the same primary and replica, the callers' marks shared through Redis. */
  let other: TestApp;
  let admin: mysql.Connection;
  let router: ReplicaRouter;
  const primaryDb = testDatabaseName(NAME);
  const replicaDb = `${primaryDb}_replica`;
  const posts = `${TEST_PREFIX}posts`;
  const versions = `${TEST_PREFIX}cms_versions`;
  let replicaOnlyId: number;
  let primaryOnlyId: number;

  const server = () => new URL(process.env.MYSQL_URL ?? 'mysql://root@127.0.0.1:3306');
  const auth = () => t.users.administrator.authorization;
  /** Reads anonymously, as another caller (its own client address). */
  const anonymous = (path: string) => t.http.get(`${API}/${path}`).set('X-Forwarded-For', '203.0.113.7');
  /** Reads as the administrator, the caller who writes here. */
  const asWriter = (path: string) => t.http.get(`${API}/${path}`).set('Authorization', auth());
  const titles = (body: Array<{ title: { rendered: string } }>) => body.map((post) => post.title.rendered);
  const probeSaysLag = async (lag: number | null) => {
    router.probe = async () => lag;
    await router.probeAll();
  };

  /** A published post written straight into `database`, its modification date a zero date. */
  async function insertPost(
    database: string,
    title: string,
    extra: { id?: number; status?: string; dateGmt?: string } = {},
  ): Promise<number> {
    const date = extra.dateGmt ?? '2020-01-01 00:00:00';
    const [result] = await admin.query<mysql.ResultSetHeader>(
      `INSERT INTO \`${database}\`.${posts} (ID, post_author, post_date, post_date_gmt, post_content, post_title, post_excerpt, post_status, post_name,
        to_ping, pinged, post_modified, post_modified_gmt, post_content_filtered, post_type)
       VALUES (?, ?, ?, ?, '', ?, '', ?, ?, '', '', '0000-00-00 00:00:00', '0000-00-00 00:00:00', '', 'post')`,
      [
        extra.id ?? null,
        t.users.administrator.id,
        date,
        date,
        title,
        extra.status ?? 'publish',
        title.toLowerCase().replace(/\W+/g, '-'),
      ],
    );
    return result.insertId;
  }

  /** Moves the posts' version stamp in `database`, as a write through the API would. */
  const bumpPosts = (database: string) =>
    admin.query(
      `UPDATE \`${database}\`.${versions} SET version = version + 1 WHERE name IN ('posts', 'posts.content')`,
    );

  beforeAll(async () => {
    const url = server();
    admin = await mysql.createConnection({
      host: url.hostname,
      port: url.port ? Number(url.port) : 3306,
      user: decodeURIComponent(url.username),
      password: decodeURIComponent(url.password),
    });
    // Zero dates written by hand, as WordPress writes them.
    await admin.query("SET SESSION sql_mode = ''");
    await admin.query(`DROP DATABASE IF EXISTS \`${replicaDb}\``);
    await admin.query(`CREATE DATABASE \`${replicaDb}\` DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_520_ci`);
    const replicaUrl = new URL(url.toString());
    replicaUrl.pathname = `/${replicaDb}`;
    const primaryUrl = new URL(url.toString());
    primaryUrl.pathname = `/${primaryDb}`;
    t = await createTestApp(NAME, {
      cms: { readAfterWriteSeconds: WINDOW, redisUrl: REDIS_URL },
      dataSource: { replicaUrls: [replicaUrl.toString()] },
    });
    router = replicaRouterOf(t.dataSource)!;
    other = await createTestApp(NAME, {
      databaseUrl: primaryUrl.toString(),
      users: t.users,
      cms: { readAfterWriteSeconds: WINDOW, redisUrl: REDIS_URL },
      dataSource: { replicaUrls: [replicaUrl.toString()] },
    });
    // The stand-in: the primary's tables and rows as they are after set-up.
    const [tables] = await admin.query<mysql.RowDataPacket[]>(`SHOW TABLES FROM \`${primaryDb}\``);
    for (const row of tables) {
      const table = String(Object.values(row)[0]);
      await admin.query(`CREATE TABLE \`${replicaDb}\`.\`${table}\` LIKE \`${primaryDb}\`.\`${table}\``);
      await admin.query(`INSERT INTO \`${replicaDb}\`.\`${table}\` SELECT * FROM \`${primaryDb}\`.\`${table}\``);
    }
    // The stand-in is no replica: SHOW REPLICA STATUS has no row, so it is in sync.
    await router.probeAll();
    await replicaRouterOf(other.dataSource)!.probeAll();
    expect([router.lags(), replicaRouterOf(other.dataSource)!.lags()]).toEqual([[0], [0]]);
    // Both nodes' connections to Redis are up (they connect in the background).
    const marks = [t, other].map((node) => replicaRouterOf(node.dataSource)!.marks as RedisCallerMarks);
    for (let i = 0; i < 200 && !marks.every((each) => each.connected); i++)
      await new Promise((resolve) => setTimeout(resolve, 25));
  });

  afterAll(async () => {
    await other?.app.close();
    await t?.close();
    await admin?.query(`DROP DATABASE IF EXISTS \`${replicaDb}\``);
    await admin?.end();
  });

  it("runs a read request's statements on the replica, with WordPress's session settings there too", async () => {
    const scope = await router.scopeFor('GET', 'a reader', 0);
    expect(scope.replica).toBe(0);
    const [viaRunner, viaFastPath] = await router.run(scope, async () => [
      (
        await t.dataSource.query(
          'SELECT DATABASE() AS db, @@SESSION.sql_mode AS mode, @@SESSION.group_concat_max_len AS gc',
        )
      )[0],
      (
        await rawQuery<{ db: string; mode: string }>(
          t.dataSource,
          'SELECT DATABASE() AS db, @@SESSION.sql_mode AS mode',
        )
      )[0],
    ]);
    for (const session of [viaRunner, viaFastPath]) {
      expect(session.db).toBe(replicaDb);
      const modes = String(session.mode).split(',');
      expect(WP_INCOMPATIBLE_SQL_MODES.filter((mode) => modes.includes(mode))).toEqual([]);
    }
    expect(Number(viaRunner.gc)).toBe(1024 * 1024);
    // Outside a request: the primary.
    expect((await t.dataSource.query('SELECT DATABASE() AS db'))[0].db).toBe(primaryDb);
  });

  it("serves anonymous reads from the replica, a cached answer re-made when the replica's stamps move (zero dates read)", async () => {
    const before = titles((await anonymous('posts?per_page=100').expect(200)).body);
    // An id far from the primary's next ones: the two servers never hold two posts under one id here.
    replicaOnlyId = await insertPost(replicaDb, 'Replica only', { id: 900_001 });
    // Cached under the replica's stamps: still the same answer.
    expect(titles((await anonymous('posts?per_page=100').expect(200)).body)).toEqual(before);
    await bumpPosts(replicaDb);
    expect(titles((await anonymous('posts?per_page=100').expect(200)).body)).toContain('Replica only');
    expect((await anonymous(`posts/${replicaOnlyId}`).expect(200)).body.title.rendered).toBe('Replica only');
  });

  it('writes to the primary; the writer reads its write within the window, others and later reads go to the replica', async () => {
    const created = await t.http
      .post(`${API}/posts`)
      .set('Authorization', auth())
      .send({ title: 'Primary only', status: 'publish' })
      .expect(201);
    primaryOnlyId = created.body.id;
    // The writer's own read, right after its write: the primary.
    expect((await asWriter(`posts/${primaryOnlyId}`).expect(200)).body.title.rendered).toBe('Primary only');
    const [[inPrimary], [inReplica]] = await Promise.all(
      [primaryDb, replicaDb].map((db) =>
        admin.query<mysql.RowDataPacket[]>(`SELECT COUNT(*) AS n FROM \`${db}\`.${posts} WHERE ID = ?`, [
          primaryOnlyId,
        ]),
      ),
    );
    expect([Number(inPrimary[0].n), Number(inReplica[0].n)]).toEqual([1, 0]);
    // On another node of the fleet too (the mark is in Redis).
    const marks = [t, other].map((node) => replicaRouterOf(node.dataSource)!.marks as RedisCallerMarks);
    expect(marks.map((each) => each.connected)).toEqual([true, true]);
    expect(
      (await other.http.get(`${API}/posts/${primaryOnlyId}`).set('Authorization', auth()).expect(200)).body.title
        .rendered,
    ).toBe('Primary only');
    // Another caller reads the replica, which has not got it.
    await other.http.get(`${API}/posts/${primaryOnlyId}`).set('X-Forwarded-For', '203.0.113.7').expect(404);
    expect((await anonymous(`posts/${primaryOnlyId}`).expect(404)).body.code).toBe('rest_post_invalid_id');
    expect(titles((await anonymous('posts?per_page=100').expect(200)).body)).not.toContain('Primary only');
    // Replication brings the users' rows over (the application password's `last_used`, written once a day at the
    // writer's first request: a replica without it would have the next read write it again, and so read the primary).
    await admin.query(
      `REPLACE INTO \`${replicaDb}\`.${TEST_PREFIX}usermeta SELECT * FROM \`${primaryDb}\`.${TEST_PREFIX}usermeta`,
    );
    // Past the window, the writer reads the replica again.
    await new Promise((resolve) => setTimeout(resolve, WINDOW * 1000 + 200));
    await asWriter(`posts/${primaryOnlyId}`).expect(404);
    expect((await asWriter(`posts/${replicaOnlyId}`).expect(200)).body.id).toBe(replicaOnlyId);
  });

  it("skips a lagging replica: reads then see the primary, never the replica's cached answer", async () => {
    // The replica's answer is cached.
    expect(titles((await anonymous('posts?per_page=100').expect(200)).body)).toContain('Replica only');
    await probeSaysLag(60);
    try {
      expect((await router.scopeFor('GET', 'a reader', 0)).replica).toBe(PRIMARY);
      const fromPrimary = titles((await anonymous('posts?per_page=100').expect(200)).body);
      expect(fromPrimary).toContain('Primary only');
      expect(fromPrimary).not.toContain('Replica only');
      await anonymous(`posts/${primaryOnlyId}`).expect(200);
      // Replication stopped (NULL) is skipped as well.
      await probeSaysLag(null);
      await anonymous(`posts/${primaryOnlyId}`).expect(200);
    } finally {
      await probeSaysLag(0);
    }
    expect(titles((await anonymous('posts?per_page=100').expect(200)).body)).toContain('Replica only');
  });

  it('does not cache the answer of a read that wrote (a scheduled post published on the way)', async () => {
    const cache = t.app.get(ResponseCache);
    // A control: an anonymous read that writes nothing is kept.
    const entries = cache.usage().entries;
    await anonymous('posts?per_page=99').expect(200);
    expect(cache.usage().entries).toBe(entries + 1);
    // A scheduled post now due, on both servers (as replication would have it), and the stamps moved on both.
    const dueId = await insertPost(primaryDb, 'Due now', {
      id: 800_001,
      status: 'future',
      dateGmt: '2021-01-01 00:00:00',
    });
    await insertPost(replicaDb, 'Due now', { id: dueId, status: 'future', dateGmt: '2021-01-01 00:00:00' });
    await Promise.all([bumpPosts(primaryDb), bumpPosts(replicaDb)]);
    // Read from the replica, published on the primary: the answer is right, and not kept.
    const after = cache.usage().entries;
    const answer = await anonymous('posts?per_page=98').expect(200);
    expect(titles(answer.body)).toContain('Due now');
    expect(cache.usage().entries).toBeLessThanOrEqual(after);
    const [[row]] = await admin.query<mysql.RowDataPacket[]>(
      `SELECT post_status FROM \`${primaryDb}\`.${posts} WHERE ID = ?`,
      [dueId],
    );
    expect(row.post_status).toBe('publish');
  });
});
