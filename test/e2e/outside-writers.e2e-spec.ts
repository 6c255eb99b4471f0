import Database from 'better-sqlite3';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as mysql from 'mysql2/promise';
import { StampTriggersService } from '../../src/core/database/stamp-triggers';
import { CONTENT_STAMP, contentSequence } from '../../src/core/database/version-stamps';
import * as rawQueries from '../../src/core/database/raw-query';
import { createTestApp, TEST_PREFIX, TestApp } from '../utils/test-app';
import { dropTestDatabase, testDatabaseKind, testDatabaseUrl } from '../utils/test-db';
import { runCliInProcess } from '../utils/cli-in-process';

/**
 * Writes made outside the API — WordPress, SQL by hand, a plugin — on the database it serves (issue 32): the stamp
 * triggers move the version stamps in the writer's own transaction, so cached answers, memos and totals stay exact;
 * the answer cache and the memos are separate switches; totals are never waited on twice.
 */

const API = '/cms-json/cms/v2';
const P = TEST_PREFIX;

/** A connection of another program on the same database: no session flag, no instrumentation. */
interface OutsideWriter {
  run(sql: string, params?: unknown[]): Promise<{ insertId: number }>;
  rows<T>(sql: string, params?: unknown[]): Promise<T[]>;
  close(): Promise<void>;
}

async function outsideWriter(databaseUrl: string): Promise<OutsideWriter> {
  if (databaseUrl.startsWith('sqlite:')) {
    const db = new Database(databaseUrl.slice('sqlite:'.length));
    db.pragma('busy_timeout = 5000');
    return {
      run: async (sql, params = []) => ({ insertId: Number(db.prepare(sql).run(...params).lastInsertRowid) }),
      rows: async <T>(sql: string, params: unknown[] = []) => db.prepare(sql).all(...params) as T[],
      close: async () => void db.close(),
    };
  }
  const connection = await mysql.createConnection(databaseUrl);
  return {
    run: async (sql, params = []) => ({
      insertId: Number(((await connection.query(sql, params))[0] as { insertId: number }).insertId),
    }),
    rows: async <T>(sql: string, params: unknown[] = []) => (await connection.query(sql, params))[0] as T[],
    close: () => connection.end(),
  };
}

/** A post row as WordPress's `wp_insert_post` writes one. */
async function insertPost(
  w: OutsideWriter,
  title: string,
  fields: { status?: string; author?: number; date?: string } = {},
): Promise<number> {
  const date = fields.date ?? '2031-01-01 00:00:00';
  const { insertId } = await w.run(
    `INSERT INTO ${P}posts (post_author, post_date, post_date_gmt, post_content, post_title, post_excerpt, post_status, comment_status, ping_status, post_password,
       post_name, to_ping, pinged, post_modified, post_modified_gmt, post_content_filtered, post_parent, guid, menu_order, post_type, post_mime_type, comment_count)
     VALUES (?, ?, ?, ?, ?, '', ?, 'open', 'open', '', ?, '', '', ?, ?, '', 0, '', 0, 'post', '', 0)`,
    [
      fields.author ?? 1,
      date,
      date,
      `<p>${title}</p>`,
      title,
      fields.status ?? 'publish',
      title.toLowerCase().replace(/\W+/g, '-'),
      date,
      date,
    ],
  );
  return insertId;
}

type Versions = Record<string, number>;

async function versions(w: OutsideWriter): Promise<Versions> {
  const rows = await w.rows<{ name: string; version: number | string }>(`SELECT name, version FROM ${P}cms_versions`);
  return Object.fromEntries(rows.map((r) => [r.name, Number(r.version)]));
}

/** A CLI command (`npm run cms -- <args>`) on the test's database, run in this process (see runCliInProcess). */
async function cli(databaseUrl: string, ...args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  const run = await runCliInProcess(args, {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? tmpdir(),
    DATABASE_URL: databaseUrl,
    CMS_TABLE_PREFIX: P,
    CMS_MIGRATIONS_RUN: 'false',
  });
  return { code: run.code, out: run.stdout, err: run.stderr };
}

describe('stamp triggers: writes made outside the API', () => {
  const file = join(tmpdir(), `cms-outside-writers-${process.pid}.sqlite`);
  let databaseUrl: string;
  let t: TestApp;
  let w: OutsideWriter;
  const editor = () => t.users.editor.authorization;

  beforeAll(async () => {
    databaseUrl = testDatabaseKind() === 'sqlite' ? `sqlite:${file}` : await testDatabaseUrl('outside_writers');
    t = await createTestApp('outside_writers', { databaseUrl });
    w = await outsideWriter(databaseUrl);
  });
  afterAll(async () => {
    await w?.close();
    await t?.close();
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
  });

  it('installs with the CLI, says so, and installs again in place', async () => {
    expect(await cli(databaseUrl, 'triggers', 'status')).toEqual({
      code: 0,
      out: 'Not installed: only writes through this API move the version stamps.\n',
      err: '',
    });
    const installed = await cli(databaseUrl, 'triggers', 'install');
    expect(installed).toEqual({ code: 0, out: 'Installed 33 stamp triggers.\n', err: '' });
    expect((await cli(databaseUrl, 'triggers', 'install')).out).toBe('Installed 33 stamp triggers.\n');
    expect((await cli(databaseUrl, 'triggers', 'status')).out).toBe(
      'Installed (33 triggers): writes made outside this API move the version stamps.\n',
    );
    const status = await t.app.get(StampTriggersService).status();
    expect(status.state).toBe('installed');
    expect(status.installed).toContain(`${P}cms_stamp_posts_update`);
  });

  it('shows a post inserted by SQL in cached lists and totals at once, anonymous and logged in', async () => {
    const logged = await t.http
      .get(`${API}/posts?per_page=2`)
      .set('Authorization', t.users.subscriber.authorization)
      .expect(200);
    const first = await t.http.get(`${API}/posts?per_page=2`).expect(200);
    const total = Number(first.headers['x-cms-total']);
    expect(logged.headers['x-cms-total']).toBe(String(total));
    // Served from the cache while nothing moved.
    expect(await t.queries.during(() => t.http.get(`${API}/posts?per_page=2`).expect(200))).toBe(0);
    const id = await insertPost(w, 'Written by WordPress');
    const fresh = await t.http.get(`${API}/posts?per_page=2`).expect(200);
    expect(fresh.body[0].id).toBe(id);
    expect(fresh.headers['x-cms-total']).toBe(String(total + 1));
    expect(
      (await t.http.get(`${API}/posts?per_page=2`).set('Authorization', t.users.subscriber.authorization).expect(200))
        .headers['x-cms-total'],
    ).toBe(String(total + 1));
  });

  it("moves only that post's answers for an edit of its text by SQL, and every list's for a change of its status", async () => {
    const a = await insertPost(w, 'Edited by hand', { date: '2031-02-01 00:00:00' });
    const b = await insertPost(w, 'Left alone by hand', { date: '2031-02-02 00:00:00' });
    await t.http.get(`${API}/posts/${a}`).expect(200);
    await t.http.get(`${API}/posts/${b}`).expect(200);
    const list = await t.http.get(`${API}/posts?per_page=5`).expect(200);
    expect(list.body.map((p: { id: number }) => p.id)).toContain(a);
    await w.run(`UPDATE ${P}posts SET post_title = ?, post_modified = ? WHERE ID = ?`, [
      'Edited in place by hand',
      '2031-03-01 00:00:00',
      a,
    ]);
    expect((await t.http.get(`${API}/posts/${a}`).expect(200)).body.title.rendered).toBe('Edited in place by hand');
    // The other post's answer was kept: an edit in place moves the versions of the posts it wrote only.
    expect(await t.queries.during(() => t.http.get(`${API}/posts/${b}`).expect(200))).toBe(0);
    expect(
      (await t.http.get(`${API}/posts?per_page=5`).expect(200)).body.find((p: { id: number }) => p.id === a).title
        .rendered,
    ).toBe('Edited in place by hand');
    await w.run(`UPDATE ${P}posts SET post_status = 'draft' WHERE ID = ?`, [a]);
    const after = await t.http.get(`${API}/posts?per_page=5`).expect(200);
    expect(after.body.map((p: { id: number }) => p.id)).not.toContain(a);
    expect(after.headers['x-cms-total']).toBe(String(Number(list.headers['x-cms-total']) - 1));
    expect((await t.http.get(`${API}/posts/${a}`)).status).toBe(401);
  });

  it('shows term assignments, comments, users and options written by SQL, in answers and in the memos of logged-in reads', async () => {
    const category = await t.http
      .post(`${API}/categories`)
      .set('Authorization', editor())
      .send({ name: 'Set by hand' })
      .expect(201);
    const post = await insertPost(w, 'Categorised by hand', { date: '2031-04-01 00:00:00' });
    const filtered = `${API}/posts?categories=${category.body.id}`;
    expect((await t.http.get(filtered).expect(200)).headers['x-cms-total']).toBe('0');
    const loggedBefore = await t.http
      .get(`${API}/posts/${post}`)
      .set('Authorization', t.users.subscriber.authorization)
      .expect(200);
    expect(loggedBefore.body.categories).not.toContain(category.body.id);
    const [{ term_taxonomy_id: tt }] = await w.rows<{ term_taxonomy_id: number }>(
      `SELECT term_taxonomy_id FROM ${P}term_taxonomy WHERE term_id = ?`,
      [category.body.id],
    );
    await w.run(`INSERT INTO ${P}term_relationships (object_id, term_taxonomy_id, term_order) VALUES (?, ?, 0)`, [
      post,
      tt,
    ]);
    await w.run(`UPDATE ${P}term_taxonomy SET count = count + 1 WHERE term_taxonomy_id = ?`, [tt]);
    const found = await t.http.get(filtered).expect(200);
    expect(found.body.map((p: { id: number }) => p.id)).toEqual([post]);
    expect(found.headers['x-cms-total']).toBe('1');
    expect((await t.http.get(`${API}/categories/${category.body.id}`).expect(200)).body.count).toBe(1);
    expect(
      (await t.http.get(`${API}/posts/${post}`).set('Authorization', t.users.subscriber.authorization).expect(200)).body
        .categories,
    ).toContain(category.body.id);

    const comments = `${API}/comments?post=${post}`;
    expect((await t.http.get(comments).expect(200)).body).toEqual([]);
    await w.run(
      `INSERT INTO ${P}comments (comment_post_ID, comment_author, comment_author_email, comment_date, comment_date_gmt, comment_content, comment_approved, comment_type)
       VALUES (?, 'Visitor', 'visitor@example.org', '2031-04-02 00:00:00', '2031-04-02 00:00:00', 'Said in WordPress', '1', 'comment')`,
      [post],
    );
    expect(
      (await t.http.get(comments).expect(200)).body.map((c: { content: { rendered: string } }) => c.content.rendered),
    ).toEqual(['<p>Said in WordPress</p>\n']);

    const user = t.users.author.id;
    const admin = t.users.administrator.authorization;
    await t.http.get(`${API}/users/${user}`).set('Authorization', admin).expect(200);
    await w.run(`UPDATE ${P}users SET display_name = ? WHERE ID = ?`, ['Renamed by hand', user]);
    expect((await t.http.get(`${API}/users/${user}`).set('Authorization', admin).expect(200)).body.name).toBe(
      'Renamed by hand',
    );

    expect((await t.http.get('/cms-json/').expect(200)).body.name).not.toBe('Named by hand');
    await w.run(`UPDATE ${P}options SET option_value = ? WHERE option_name = 'blogname'`, ['Named by hand']);
    expect((await t.http.get('/cms-json/').expect(200)).body.name).toBe('Named by hand');
  });

  it("moves no version for WordPress's constant writes: transients, cron, the edit lock, sessions and screen settings", async () => {
    const post = await insertPost(w, 'Open in wp-admin', { date: '2031-05-01 00:00:00' });
    const before = await versions(w);
    await w.run(
      `INSERT INTO ${P}options (option_name, option_value, autoload) VALUES ('_transient_doing_cron', '1', 'yes')`,
    );
    await w.run(
      `INSERT INTO ${P}options (option_name, option_value, autoload) VALUES ('_site_transient_update_core', 'a:0:{}', 'no')`,
    );
    await w.run(`UPDATE ${P}options SET option_value = '1' WHERE option_name = '_transient_doing_cron'`);
    await w.run(`DELETE FROM ${P}options WHERE option_name = '_transient_doing_cron'`);
    await w.run(`INSERT INTO ${P}options (option_name, option_value, autoload) VALUES ('cron', 'a:0:{}', 'yes')`);
    await w.run(`INSERT INTO ${P}postmeta (post_id, meta_key, meta_value) VALUES (?, '_edit_lock', '1700000000:1')`, [
      post,
    ]);
    await w.run(`UPDATE ${P}postmeta SET meta_value = '1700000060:1' WHERE post_id = ? AND meta_key = '_edit_lock'`, [
      post,
    ]);
    await w.run(`INSERT INTO ${P}usermeta (user_id, meta_key, meta_value) VALUES (?, 'session_tokens', 'a:0:{}')`, [
      t.users.editor.id,
    ]);
    await w.run(`INSERT INTO ${P}usermeta (user_id, meta_key, meta_value) VALUES (?, ?, 'libraryContent=browse')`, [
      t.users.editor.id,
      `${P}user-settings`,
    ]);
    expect(await versions(w)).toEqual(before);
    // Renaming a transient into a real option is a real write.
    await w.run(
      `UPDATE ${P}options SET option_name = 'cms_outside_option' WHERE option_name = '_site_transient_update_core'`,
    );
    const after = await versions(w);
    expect(after.options).not.toBe(before.options);
    expect(after.posts).toBe(before.posts);
    // Any other meta of a post moves that post's version alone.
    await w.run(`INSERT INTO ${P}postmeta (post_id, meta_key, meta_value) VALUES (?, '_thumbnail_id', '0')`, [post]);
    const meta = await versions(w);
    expect(meta.posts).toBe(before.posts);
    expect(contentSequence(meta[CONTENT_STAMP])).toBe(contentSequence(after[CONTENT_STAMP]) + 1);
    const [row] = await w.rows<{ version: number | string }>(
      `SELECT version FROM ${P}cms_post_versions WHERE post_id = ?`,
      [post],
    );
    expect(Number(row.version)).toBe(meta[CONTENT_STAMP]);
  });

  it("moves the versions once for the API's own writes (on MySQL the triggers skip its connections)", async () => {
    const created = await t.http
      .post(`${API}/posts`)
      .set('Authorization', editor())
      .send({ title: 'Through the API', status: 'publish' })
      .expect(201);
    const before = await versions(w);
    await t.http
      .post(`${API}/posts/${created.body.id}`)
      .set('Authorization', editor())
      .send({ content: 'Edited in place through the API' })
      .expect(200);
    const after = await versions(w);
    expect(after.posts).toBe(before.posts);
    const steps = contentSequence(after[CONTENT_STAMP]) - contentSequence(before[CONTENT_STAMP]);
    // SQLite has no session variables: there the triggers move the content version too (only more invalidation).
    if (testDatabaseKind() === 'mysql') expect(steps).toBe(1);
    else expect(steps).toBeGreaterThanOrEqual(1);
  });

  it('removes with the CLI: SQL writes then move nothing', async () => {
    expect(await cli(databaseUrl, 'triggers', 'remove')).toEqual({
      code: 0,
      out: 'Removed 33 stamp triggers.\n',
      err: '',
    });
    expect((await cli(databaseUrl, 'triggers', 'status')).out).toBe(
      'Not installed: only writes through this API move the version stamps.\n',
    );
    const before = await versions(w);
    await insertPost(w, 'Unseen by the stamps');
    expect(await versions(w)).toEqual(before);
    expect((await cli(databaseUrl, 'triggers', 'remove')).out).toBe('Removed 0 stamp triggers.\n');
  });
});

describe('stamp triggers: the migration flag', () => {
  afterAll(() => dropTestDatabase('stamp_trigger_flag'));

  it("installs them with the migrations (stampTriggers: 'install') and removes them ('remove')", async () => {
    const file = join(tmpdir(), `cms-trigger-flag-${process.pid}.sqlite`);
    const databaseUrl =
      testDatabaseKind() === 'sqlite' ? `sqlite:${file}` : await testDatabaseUrl('stamp_trigger_flag');
    try {
      const first = await createTestApp('stamp_trigger_flag', { databaseUrl, cms: { stampTriggers: 'install' } });
      expect((await first.app.get(StampTriggersService).status()).state).toBe('installed');
      const users = first.users;
      await first.app.close();
      const second = await createTestApp('stamp_trigger_flag', {
        databaseUrl,
        users,
        cms: { stampTriggers: 'remove' },
      });
      expect(await second.app.get(StampTriggersService).status()).toEqual(
        expect.objectContaining({ state: 'absent', installed: [] }),
      );
      await second.app.close();
    } finally {
      for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
    }
  });
});

describe('the answer cache and the memos are separate switches', () => {
  const apps: TestApp[] = [];
  afterAll(async () => {
    for (const app of apps) await app.close();
  });
  const counts = (t: TestApp) => t.queries.statements.filter((s) => /^SELECT COUNT\(\*\)/.test(s)).length;

  it('memos on, answer cache off: every anonymous read is built, under the stamps, and the totals are kept until a write', async () => {
    const t = await createTestApp('switch_memos', { cms: { responseCache: false, memos: true } });
    apps.push(t);
    await t.http
      .post(`${API}/posts`)
      .set('Authorization', t.users.editor.authorization)
      .send({ title: 'Memo one', status: 'publish' })
      .expect(201);
    await t.http.get(`${API}/posts?per_page=1`).expect(200);
    const built = await t.queries.during(() => t.http.get(`${API}/posts?per_page=1`).expect(200));
    expect(built).toBeGreaterThan(0);
    expect(t.queries.stampReads).toBe(1);
    expect(counts(t)).toBe(0);
    await t.http
      .post(`${API}/posts`)
      .set('Authorization', t.users.editor.authorization)
      .send({ title: 'Memo two', status: 'publish' })
      .expect(201);
    let fresh!: { headers: Record<string, string> };
    await t.queries.during(async () => (fresh = await t.http.get(`${API}/posts?per_page=1`).expect(200)));
    expect(counts(t)).toBe(1);
    expect(fresh.headers['x-cms-total']).toBe('2');
  });

  it('memos off: no stamps are read, and a total is kept for a second, then served while it is counted again', async () => {
    const file = join(tmpdir(), `cms-switch-off-${process.pid}.sqlite`);
    const databaseUrl = testDatabaseKind() === 'sqlite' ? `sqlite:${file}` : await testDatabaseUrl('switch_off');
    const t = await createTestApp('switch_off', { databaseUrl, cms: { responseCache: false } });
    apps.push(t);
    const w = await outsideWriter(databaseUrl);
    try {
      await t.http
        .post(`${API}/posts`)
        .set('Authorization', t.users.editor.authorization)
        .send({ title: 'Off one', status: 'publish' })
        .expect(201);
      expect((await t.http.get(`${API}/posts?per_page=1`).expect(200)).headers['x-cms-total']).toBe('1');
      await t.queries.during(() => t.http.get(`${API}/posts?per_page=1`).expect(200));
      expect(t.queries.stampReads).toBe(0);
      expect(counts(t)).toBe(0);
      // A write outside the API: the total a second old is served once more while it is counted again, then the new one.
      await insertPost(w, 'Off two', { author: t.users.editor.id });
      await new Promise((resolve) => setTimeout(resolve, 1100));
      expect((await t.http.get(`${API}/posts?per_page=1`).expect(200)).headers['x-cms-total']).toBe('1');
      let total = '1';
      for (let i = 0; i < 40 && total === '1'; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        total = (await t.http.get(`${API}/posts?per_page=1`).expect(200)).headers['x-cms-total'];
      }
      expect(total).toBe('2');
    } finally {
      await w.close();
      for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
    }
  });

  describe('a slowed count', () => {
    let started = 0;
    let gate: Promise<void> = Promise.resolve();
    let open: () => void = () => undefined;
    const close = () => {
      gate = new Promise<void>((resolve) => (open = resolve));
    };
    let spy: jest.SpyInstance;
    beforeAll(() => {
      const original = rawQueries.countWithin;
      // The count of a posts list waits for the gate: the same cache and key as the real one.
      spy = jest.spyOn(rawQueries, 'countWithin').mockImplementation((cache, db, sql, params) =>
        /posts/.test(sql)
          ? cache.get(rawQueries.countKey(sql, params), async () => {
              started++;
              await gate;
              return Number((await db.query(sql, params))[0].n);
            })
          : original(cache, db, sql, params),
      );
    });
    afterAll(() => spy.mockRestore());

    /** Five reads at once; rejects if they are not all answered within `ms`. */
    const five = (t: TestApp, ms: number) =>
      Promise.race([
        Promise.all(Array.from({ length: 5 }, () => t.http.get(`${API}/posts?per_page=1`).expect(200))),
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`not answered within ${ms} ms`)), ms)),
      ]);

    it('with the stamps: the reads after a write share one count', async () => {
      const t = await createTestApp('slow_count_stamps', { cms: { responseCache: false, memos: true } });
      apps.push(t);
      await t.http
        .post(`${API}/posts`)
        .set('Authorization', t.users.editor.authorization)
        .send({ title: 'Slow one', status: 'publish' })
        .expect(201);
      close();
      started = 0;
      const answers = five(t, 20_000);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(started).toBe(1);
      open();
      expect((await answers).map((r) => r.headers['x-cms-total'])).toEqual(['1', '1', '1', '1', '1']);
      expect(started).toBe(1);
    });

    it('without the stamps: the reads are answered from the previous total while one count runs', async () => {
      const t = await createTestApp('slow_count_off', { cms: { responseCache: false } });
      apps.push(t);
      await t.http
        .post(`${API}/posts`)
        .set('Authorization', t.users.editor.authorization)
        .send({ title: 'Slow two', status: 'publish' })
        .expect(201);
      open();
      expect((await t.http.get(`${API}/posts?per_page=1`).expect(200)).headers['x-cms-total']).toBe('1');
      await new Promise((resolve) => setTimeout(resolve, 1100));
      close();
      started = 0;
      // The count started by the first of them is still held: none of them waits for it.
      const answers = await five(t, 5_000);
      expect(answers.map((r) => r.headers['x-cms-total'])).toEqual(['1', '1', '1', '1', '1']);
      expect(started).toBe(1);
      expect((await five(t, 5_000)).length).toBe(5);
      expect(started).toBe(1);
      open();
    });
  });
});
