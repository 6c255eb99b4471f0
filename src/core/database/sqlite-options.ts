import type { DataSource } from 'typeorm';
import { CACHE_ENTRY_SHARE, SQLITE_RUNNER_STATEMENTS } from '../memory/cache-limits';
import { sqliteStatementBytes } from './raw-query';

/**
 * A statement cache within {@link SQLITE_RUNNER_STATEMENTS}: past its estimated bytes (`sqliteStatementBytes`) or
 * count, the oldest statements are dropped (SQLite finalizes them once they are garbage); one larger than an eighth
 * of the bytes is not kept.
 */
class RunnerStatements<V> extends Map<string, V> {
  private bytes = 0;

  override set(sql: string, statement: V): this {
    const size = sqliteStatementBytes(sql, 0);
    if (size > SQLITE_RUNNER_STATEMENTS.bytes * CACHE_ENTRY_SHARE) return this;
    if (!this.has(sql)) this.bytes += size;
    super.set(sql, statement);
    while (this.size > SQLITE_RUNNER_STATEMENTS.entries || this.bytes > SQLITE_RUNNER_STATEMENTS.bytes)
      this.delete(this.keys().next().value as string);
    return this;
  }

  override delete(sql: string): boolean {
    if (!super.delete(sql)) return false;
    this.bytes -= sqliteStatementBytes(sql, 0);
    return true;
  }
}

/**
 * Sizes the statement cache of TypeORM's SQLite query runner (one per data source: every query and transaction runs
 * on it) to {@link SQLITE_RUNNER_STATEMENTS}: bounded in bytes, and more statements than TypeORM's 100.
 */
function boundRunnerStatements(dataSource: DataSource): void {
  const runner = dataSource.driver.createQueryRunner('master') as unknown as {
    stmtCache?: Map<string, unknown>;
    cacheSize?: number;
  };
  if (!(runner.stmtCache instanceof Map) || runner.stmtCache instanceof RunnerStatements) return;
  const statements = new RunnerStatements<unknown>();
  for (const [sql, statement] of runner.stmtCache) statements.set(sql, statement);
  runner.stmtCache = statements;
  // The cache bounds itself; the runner's own trimming (past `cacheSize`) then finds nothing to drop.
  runner.cacheSize = SQLITE_RUNNER_STATEMENTS.entries;
}

/**
 * The SQLite part of `afterDataSourceInit` (see there): TypeORM's statement cache sized, the query planner's
 * statistics refreshed, without sample statistics.
 */
export async function afterSqliteInit(dataSource: DataSource): Promise<void> {
  boundRunnerStatements(dataSource);
  // Statistics for the query planner (sqlite_stat1), gathered where missing or stale, as SQLite advises for a
  // connection that stays open: without them it may walk a (type, status) index over every revision where the
  // post_parent index finds a post's few.
  await dataSource.query('PRAGMA optimize=0x10002');
  // Without sample statistics (sqlite_stat4, which ANALYZE writes in this build) SQLite plans a statement once;
  // with them it re-plans a statement on every new set of bound values for an indexed column — a page query
  // then cost 50 µs instead of 30. The per-index figures of sqlite_stat1 are all these plans need.
  type Count = Array<{ n: number | string }>;
  const [samples] = await dataSource.query<Count>(
    "SELECT COUNT(*) AS n FROM sqlite_master WHERE name = 'sqlite_stat4'",
  );
  if (
    Number(samples?.n) > 0 &&
    Number((await dataSource.query<Count>('SELECT COUNT(*) AS n FROM sqlite_stat4'))[0]?.n) > 0
  ) {
    await dataSource.query('DELETE FROM sqlite_stat4');
    await dataSource.query('ANALYZE sqlite_master');
  }
}
