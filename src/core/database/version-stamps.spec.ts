import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { resolveCmsOptions } from '../config/cms-options';
import { buildDataSourceOptions } from './data-source-options';
import { SQLITE_CHANGE_STATEMENTS } from './raw-query';
import { HookRegistry } from '../hooks/hook-registry.service';
import { AnswerSources } from '../cache/answer-sources';
import { matchHits, noneMatchHits, ResponseCache } from '../cache/response-cache';
import {
  CONTENT_CHANGES_KEPT,
  CONTENT_SEQUENCE,
  CONTENT_STAMP,
  contentSequence,
  VersionStamps,
} from './version-stamps';

describe('VersionStamps', () => {
  let ds: DataSource;
  let stamps: VersionStamps;

  beforeAll(async () => {
    ds = new DataSource(buildDataSourceOptions({ databaseUrl: 'sqlite::memory:', tablePrefix: 'wp_' }));
    await ds.initialize();
    await ds.runMigrations();
    stamps = new VersionStamps(ds, resolveCmsOptions({}));
    await stamps.onApplicationBootstrap();
  });
  afterAll(() => ds.destroy());
  /** What an answer showing these posts was made from. */
  const showing = (...ids: number[]) => Object.assign(new AnswerSources(), { posts: new Set(ids) });
  /** The database connection itself: writes made there are another node's (this process's data source sees none). */
  const raw = () => (ds.driver as unknown as { databaseConnection: { exec(sql: string): unknown } }).databaseConnection;

  it('tells the groups of a write statement by its table, as TypeORM and raw SQL write them', () => {
    expect(stamps.groupsOf('SELECT * FROM wp_posts')).toBeNull();
    expect(stamps.groupsOf('INSERT INTO "wp_posts"("post_author") VALUES (?)')).toEqual(['posts']);
    expect(stamps.groupsOf('UPDATE `wp_postmeta` SET meta_value = ?')).toEqual(['posts']);
    expect(stamps.groupsOf('DELETE FROM "wp_term_relationships" WHERE object_id = ?')).toEqual(['posts', 'terms']);
    expect(stamps.groupsOf('INSERT IGNORE INTO wp_terms (name) VALUES (?)')).toEqual(['terms']);
    expect(stamps.groupsOf('update wp_comments set comment_approved = ?')).toEqual(['comments']);
    expect(stamps.groupsOf('REPLACE INTO `test`.`wp_options` (option_name) VALUES (?)')).toEqual(['options']);
    expect(stamps.groupsOf('UPDATE wp_usermeta SET meta_value = ?')).toEqual(['users']);
    // Tables of no group, the lock probe, and multi-table statements (every group).
    expect(stamps.groupsOf('DELETE FROM sqlite_stat4')).toBeNull();
    expect(
      stamps.groupsOf('/* cms:no-stamp */ UPDATE wp_options SET option_id = option_id WHERE option_id = -1'),
    ).toBeNull();
    expect(stamps.groupsOf('DELETE p, m FROM wp_posts p JOIN wp_postmeta m')).toEqual([
      'posts',
      'terms',
      'comments',
      'users',
      'options',
    ]);
  });

  it('moves the versions of what a transaction wrote when it commits, and of nothing when it rolls back', async () => {
    const before = await stamps.current();
    await ds.transaction(async (em) => {
      await em.query("INSERT INTO wp_terms (name, slug, term_group) VALUES ('a', 'a', 0)");
    });
    const after = await stamps.current();
    expect(after.versions.terms).not.toBe(before.versions.terms);
    expect(after.versions.posts).toBe(before.versions.posts);
    await ds
      .transaction(async (em) => {
        await em.query("INSERT INTO wp_terms (name, slug, term_group) VALUES ('b', 'b', 0)");
        throw new Error('rolled back');
      })
      .catch(() => undefined);
    expect((await stamps.current()).token).toBe(after.token);
    // An autocommitted write moves its group at once.
    await ds.query("UPDATE wp_options SET option_value = 'x' WHERE option_name = 'blogname'");
    expect((await stamps.current()).versions.options).not.toBe(after.versions.options);
  });

  it('shares one read among the calls made before it starts, and calls listeners of the groups that moved', async () => {
    const seen: string[] = [];
    stamps.onChange('comments', () => void seen.push('comments'));
    await stamps.current();
    const [a, b] = [stamps.current(), stamps.current()];
    expect(a).toBe(b);
    await a;
    // A write of this process: its listeners run before the write returns.
    await ds.query("INSERT INTO wp_comments (comment_post_ID, comment_content) VALUES (1, 'c')");
    expect(seen).toEqual(['comments']);
    await stamps.current();
    seen.length = 0;
    // Another node's write (its bump, outside this process's data source): seen by the next read.
    const raw = (
      ds.driver as unknown as { databaseConnection: { prepare(sql: string): { run(...p: unknown[]): unknown } } }
    ).databaseConnection;
    raw.prepare("UPDATE wp_cms_versions SET version = version + 7 WHERE name = 'comments'").run();
    expect(seen).toEqual([]);
    await stamps.current();
    expect(seen).toEqual(['comments']);
  });

  it('moves the content version and the versions of the posts written, not the posts group, for a narrowed transaction', async () => {
    const before = await stamps.current();
    const postsBefore = await stamps.posts([1, 2]);
    await ds.transaction(async (em) => {
      stamps.narrow(em.queryRunner, [1]);
      await em.query("UPDATE wp_posts SET post_title = 'x' WHERE ID = 1");
      await em.query("INSERT INTO wp_postmeta (post_id, meta_key, meta_value) VALUES (1, 'k', 'v')");
    });
    const after = await stamps.current();
    expect(after.token).toBe(before.token);
    expect(after.content).not.toBe(before.content);
    const posts = await stamps.posts([1, 2]);
    expect(posts.get(1)).toBe(after.content);
    expect(posts.get(1)).not.toBe(postsBefore.get(1));
    expect(posts.get(2)).toBe(postsBefore.get(2));
    // Rolled back: nothing moves.
    await ds
      .transaction(async (em) => {
        stamps.narrow(em.queryRunner, [2]);
        await em.query("UPDATE wp_posts SET post_title = 'y' WHERE ID = 2");
        throw new Error('rolled back');
      })
      .catch(() => undefined);
    expect(await stamps.current()).toEqual(after);
    // A narrowed transaction that writes a term relationship moves the posts group (and terms) as any write does.
    await ds.transaction(async (em) => {
      stamps.narrow(em.queryRunner, [2]);
      await em.query("UPDATE wp_posts SET post_title = 'y' WHERE ID = 2");
      await em.query('INSERT INTO wp_term_relationships (object_id, term_taxonomy_id, term_order) VALUES (2, 1, 0)');
    });
    const moved = await stamps.current();
    expect(moved.versions.posts).not.toBe(after.versions.posts);
    expect(moved.versions.terms).not.toBe(after.versions.terms);
    // Without the declaration, a write of posts moves the group.
    await ds.transaction((em) => em.query("UPDATE wp_posts SET post_title = 'z' WHERE ID = 2"));
    expect((await stamps.current()).versions.posts).not.toBe(moved.versions.posts);
  });

  it('never serves an answer built while a post it shows was edited, and drops a kept one once a post it shows is', async () => {
    const cache = new ResponseCache(stamps, new HookRegistry(), resolveCmsOptions({}));
    const edit = (id: number) =>
      ds.transaction(async (em) => {
        stamps.narrow(em.queryRunner, [id]);
        await em.query(`UPDATE wp_posts SET post_excerpt = 'e' WHERE ID = ${id}`);
      });
    // Stamps read, then an edit commits before the answer is kept: it may show the post as it was. The next read of
    // the stamps finds the post written after them, and the answer is dropped; an answer that shows other posts stays.
    const early = await stamps.current();
    await edit(1);
    cache.store('a', early, showing(1), { body: Buffer.from('[]') });
    cache.store('c', early, showing(2, 3), { body: Buffer.from('[]') });
    const now = await stamps.current();
    expect(await cache.lookup('a', now)).toBeUndefined();
    expect(await cache.lookup('c', now)).toBeDefined();
    cache.store('a', now, showing(1), { body: Buffer.from('[]') });
    cache.store('b', now, showing(2), { body: Buffer.from('[]') });
    await edit(2);
    const later = await stamps.current();
    expect(await cache.lookup('a', later)).toBeDefined();
    expect(await cache.lookup('b', later)).toBeUndefined();
    expect(await cache.lookup('c', later)).toBeUndefined();
  });

  it("tells the posts edited in place since an answer was built from the stamps' read, without a statement per answer", async () => {
    const cache = new ResponseCache(stamps, new HookRegistry(), resolveCmsOptions({}));
    const built = await stamps.current();
    for (const id of [4, 5, 6]) cache.store(`shows ${id}`, built, showing(id), { body: Buffer.from('[]') });
    // Another node edits post 5 in place: its commit, written outside this process's data source.
    const next = (contentSequence(built.content) + 1) * CONTENT_SEQUENCE + 3;
    raw().exec(
      `UPDATE wp_cms_versions SET version = ${next} WHERE name = '${CONTENT_STAMP}'; INSERT OR REPLACE INTO wp_cms_post_versions (post_id, version) VALUES (5, ${next})`,
    );
    const reads = jest.spyOn(stamps, 'posts');
    const after = await stamps.current();
    expect(after.content).toBe(next);
    expect(stamps.postsWrittenAfter([4, 6], built.content, built.content)).toBe(false);
    expect(stamps.postsWrittenAfter([4, 5], built.content, built.content)).toBe(true);
    // Known only for answers checked since the first read: an older one is not told.
    expect(
      stamps.postsWrittenAfter([4], built.content - CONTENT_SEQUENCE * 1000, built.content - CONTENT_SEQUENCE * 1000),
    ).toBeUndefined();
    expect(await cache.lookup('shows 4', after)).toBeDefined();
    expect(await cache.lookup('shows 5', after)).toBeUndefined();
    expect(await cache.lookup('shows 6', after)).toBeDefined();
    expect(reads).not.toHaveBeenCalled();
    reads.mockRestore();
  });

  it('forgets the posts edited in place past its bound, and answers checked before then read their posts once', async () => {
    const cache = new ResponseCache(stamps, new HookRegistry(), resolveCmsOptions({}));
    const built = await stamps.current();
    cache.store('shows 7', built, showing(7), { body: Buffer.from('[]') });
    cache.store('shows 8', built, showing(8), { body: Buffer.from('[]') });
    // More posts written since the last read than a process keeps (post 8 among them).
    const next = (contentSequence(built.content) + 1) * CONTENT_SEQUENCE + 5;
    const rows = Array.from({ length: CONTENT_CHANGES_KEPT + 1 }, (_, i) => `(${i === 0 ? 8 : 100000 + i}, ${next})`);
    raw().exec(
      `UPDATE wp_cms_versions SET version = ${next} WHERE name = '${CONTENT_STAMP}'; INSERT OR REPLACE INTO wp_cms_post_versions (post_id, version) VALUES ${rows.join(', ')}`,
    );
    const after = await stamps.current();
    expect(after.content).toBe(next);
    expect(after.token).toBe(built.token);
    expect(stamps.postsWrittenAfter([7], built.content, built.content)).toBeUndefined();
    // Each answer reads its posts' versions (one statement), then is known again.
    const reads = jest.spyOn(stamps, 'posts');
    expect(await cache.lookup('shows 7', after)).toBeDefined();
    expect(await cache.lookup('shows 8', after)).toBeUndefined();
    expect(reads).toHaveBeenCalledTimes(2);
    expect(await cache.lookup('shows 7', after)).toBeDefined();
    expect(reads).toHaveBeenCalledTimes(2);
    reads.mockRestore();
    // Posts written after that are told from the stamps' read again.
    const again = (contentSequence(next) + 1) * CONTENT_SEQUENCE + 9;
    raw().exec(
      `UPDATE wp_cms_versions SET version = ${again} WHERE name = '${CONTENT_STAMP}'; INSERT OR REPLACE INTO wp_cms_post_versions (post_id, version) VALUES (7, ${again})`,
    );
    const last = await stamps.current();
    expect(stamps.postsWrittenAfter([7], built.content, next)).toBe(true);
    expect(await cache.lookup('shows 7', last)).toBeUndefined();
  });
});

describe('VersionStamps on a SQLite file shared by two connections', () => {
  let dir: string;
  let ds: DataSource;
  let stamps: VersionStamps;
  let other: { prepare(sql: string): { run(...params: unknown[]): unknown }; close(): void };
  const statements: string[] = [];
  const versionReads = () => statements.filter((sql) => /^SELECT name, version FROM/.test(sql)).length;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cms-stamps-'));
    const file = join(dir, 'site.sqlite');
    const logger = {
      logQuery: (sql: string) => void statements.push(sql),
      logQueryError() {},
      logQuerySlow() {},
      logSchemaBuild() {},
      logMigration() {},
      log() {},
    };
    ds = new DataSource(
      buildDataSourceOptions({ databaseUrl: `sqlite:${file}`, tablePrefix: 'wp_', logger, logging: true }),
    );
    await ds.initialize();
    await ds.runMigrations();
    stamps = new VersionStamps(ds, resolveCmsOptions({}));
    await stamps.onApplicationBootstrap();
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const Database = require('better-sqlite3') as new (file: string) => typeof other;
    other = new Database(file);
  });
  afterAll(async () => {
    other.close();
    await ds.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads the versions only when something was committed since, by another connection or by its own', async () => {
    const first = await stamps.current();
    statements.length = 0;
    // Nothing committed: each check is the two statements that read no table, and the versions are not read again.
    expect((await stamps.current()).token).toBe(first.token);
    expect((await stamps.current()).token).toBe(first.token);
    expect(statements).toEqual([...SQLITE_CHANGE_STATEMENTS, ...SQLITE_CHANGE_STATEMENTS]);
    expect(versionReads()).toBe(0);
    // Another connection's commit (another process, another node on the same file).
    other.prepare("UPDATE wp_cms_versions SET version = 77 WHERE name = 'comments'").run();
    expect((await stamps.current()).versions.comments).toBe(77);
    expect(versionReads()).toBe(1);
    // A write of its own connection that went around the instrumented query runners.
    (ds.driver as unknown as { databaseConnection: { exec(sql: string): unknown } }).databaseConnection.exec(
      "UPDATE wp_cms_versions SET version = 78 WHERE name = 'users'",
    );
    expect((await stamps.current()).versions.users).toBe(78);
    expect(versionReads()).toBe(2);
    expect((await stamps.current()).versions.users).toBe(78);
    expect(versionReads()).toBe(2);
  });
});

describe('conditional request headers', () => {
  it('compares If-None-Match weakly and If-Match strongly', () => {
    expect(noneMatchHits('"a", W/"b"', '"b"')).toBe(true);
    expect(noneMatchHits('*', '"b"')).toBe(true);
    expect(noneMatchHits(undefined, '"b"')).toBe(false);
    expect(noneMatchHits('"c"', '"b"')).toBe(false);
    expect(matchHits('W/"b"', '"b"')).toBe(false);
    expect(matchHits('"a" , "b"', '"b"')).toBe(true);
    expect(matchHits('*', '"b"')).toBe(true);
  });
});
