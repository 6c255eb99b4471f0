import { DataSource } from 'typeorm';
import { resolveCmsOptions } from '../../cms-options';
import { buildDataSourceOptions } from '../database/data-source-options';
import { matchHits, noneMatchHits } from './response-cache';
import { VersionStamps } from './version-stamps';

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
    expect(stamps.groupsOf('/* cms:no-stamp */ UPDATE wp_options SET option_id = option_id WHERE option_id = -1')).toBeNull();
    expect(stamps.groupsOf('DELETE p, m FROM wp_posts p JOIN wp_postmeta m')).toEqual(['posts', 'terms', 'comments', 'users', 'options']);
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
    const raw = (ds.driver as unknown as { databaseConnection: { prepare(sql: string): { run(...p: unknown[]): unknown } } }).databaseConnection;
    raw.prepare("UPDATE wp_cms_versions SET version = version + 7 WHERE name = 'comments'").run();
    expect(seen).toEqual([]);
    await stamps.current();
    expect(seen).toEqual(['comments']);
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
