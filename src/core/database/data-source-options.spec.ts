import { DataSource } from 'typeorm';
import { SQLITE_RUNNER_STATEMENTS } from '../cache/cache-limits';
import { afterDataSourceInit, buildDataSourceOptions } from './data-source-options';
import { sqliteStatementBytes } from './raw-query';

describe('afterDataSourceInit on SQLite', () => {
  let ds: DataSource;

  beforeAll(async () => {
    ds = new DataSource(buildDataSourceOptions({ databaseUrl: 'sqlite::memory:', tablePrefix: 'wp_' }));
    await ds.initialize();
    await afterDataSourceInit(ds);
  });
  afterAll(() => ds.destroy());

  it("keeps TypeORM's prepared statements for reuse within a byte and count bound, past TypeORM's 100", async () => {
    const runner = ds.driver.createQueryRunner('master') as unknown as { stmtCache: Map<string, unknown> };
    const cache = runner.stmtCache;
    // More distinct statements than TypeORM's own bound: the first are still kept.
    for (let i = 0; i < 150; i++) await ds.query(`SELECT ${i} AS n`);
    expect(cache.has('SELECT 0 AS n')).toBe(true);
    expect(cache.has('SELECT 149 AS n')).toBe(true);
    // One statement over an eighth of the bytes is prepared but not kept.
    const long = `SELECT 1 AS n WHERE 1 IN (${Array.from({ length: 2 ** 17 }, () => '1').join(',')})`;
    expect(sqliteStatementBytes(long, 0)).toBeGreaterThan(SQLITE_RUNNER_STATEMENTS.bytes / 8);
    await ds.query(long);
    expect(cache.has(long)).toBe(false);
    // Past the count, the oldest go first.
    for (let i = 150; i < SQLITE_RUNNER_STATEMENTS.entries + 10; i++) await ds.query(`SELECT ${i} AS n`);
    expect(cache.size).toBeLessThanOrEqual(SQLITE_RUNNER_STATEMENTS.entries);
    expect(cache.has('SELECT 0 AS n')).toBe(false);
    expect(cache.has(`SELECT ${SQLITE_RUNNER_STATEMENTS.entries + 9} AS n`)).toBe(true);
  });
});
