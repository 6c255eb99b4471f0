import * as fs from 'node:fs';
import * as path from 'node:path';
import * as mysql2 from 'mysql2';
import type { DataSource, DataSourceOptions, Logger, LoggerOptions } from 'typeorm';
import { CMS_ENTITIES } from './cms-entities';
import { CMS_MIGRATIONS } from './cms-migrations';
import { boundCommands } from './mysql-timeouts';
import { CACHE_ENTRY_SHARE, SQLITE_RUNNER_STATEMENTS } from '../cache/cache-limits';
import { sqliteStatementBytes } from './raw-query';

/** A parsed `DATABASE_URL`. */
export type ParsedDatabaseUrl =
  | { type: 'sqlite'; path: string }
  | { type: 'mysql'; host: string; port: number; username: string; password: string; database: string; socketPath?: string };

const ALLOWED_FORMS =
  'sqlite:<path>, sqlite::memory:, mysql://user:password@host:port/database ' +
  'or mariadb://user:password@host:port/database (?socket=/path/to/mysqld.sock for a Unix socket)';

/** Hides the password of a URL for error messages. */
function redact(url: string): string {
  return url.replace(/^([a-z0-9+]+:\/\/[^:/@]*:)[^@/]*@/i, '$1***@');
}

/**
 * Parses a `DATABASE_URL`.
 *
 * - `sqlite:<path>` (relative or absolute; `sqlite://<path>` also works) and `sqlite::memory:`;
 * - `mysql://user:password@host:port/database` or `mariadb://...` (port defaults to 3306; user, password and
 *   database are URL-decoded); `?socket=/run/mysqld/mysqld.sock` connects through that Unix socket instead of TCP,
 *   as WordPress's `DB_HOST` of `localhost:/path/to/socket` does (a server without TCP, `skip-networking`).
 *
 * @throws Error naming `DATABASE_URL` and the allowed forms when the URL is not one of them.
 */
export function parseDatabaseUrl(url: string): ParsedDatabaseUrl {
  const invalid = (why: string): Error =>
    new Error(`Invalid DATABASE_URL "${redact(url)}": ${why}. Allowed forms: ${ALLOWED_FORMS}`);
  const text = url.trim();
  if (/^sqlite:/i.test(text)) {
    let file = text.slice('sqlite:'.length);
    if (file.startsWith('//')) file = file.slice(2);
    if (!file) throw invalid('missing file path');
    return { type: 'sqlite', path: file };
  }
  if (/^(mysql|mariadb):\/\//i.test(text)) {
    let parsed: URL;
    try {
      parsed = new URL(text);
    } catch {
      throw invalid('malformed URL');
    }
    const database = decodeURIComponent(parsed.pathname.replace(/^\//, ''));
    if (!parsed.hostname) throw invalid('missing host');
    if (!database || database.includes('/')) throw invalid('missing or invalid database name');
    const socket = parsed.searchParams.get('socket');
    if (socket !== null && !socket.startsWith('/')) throw invalid('socket must be an absolute path');
    return {
      type: 'mysql',
      host: parsed.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: parsed.port ? Number(parsed.port) : 3306,
      username: decodeURIComponent(parsed.username),
      password: decodeURIComponent(parsed.password),
      database,
      ...(socket ? { socketPath: socket } : {}),
    };
  }
  throw invalid('unsupported scheme');
}

/**
 * SQL modes that WordPress removes from each session (`wpdb::$incompatible_modes` and newer releases' list):
 * with them, zero dates (`0000-00-00 00:00:00`) and WordPress's loose inserts fail.
 */
export const WP_INCOMPATIBLE_SQL_MODES = [
  'NO_ZERO_DATE',
  'NO_ZERO_IN_DATE',
  'ERROR_FOR_DIVISION_BY_ZERO',
  'STRICT_TRANS_TABLES',
  'STRICT_ALL_TABLES',
  'TRADITIONAL',
  'ANSI',
  'ONLY_FULL_GROUP_BY',
] as const;

/** The session's `group_concat_max_len`: no list of a post's terms comes near it (MySQL's default, 1,024, does). */
export const GROUP_CONCAT_MAX_LEN = 1024 * 1024;

/**
 * One statement doing what `wpdb::set_sql_mode()` does: it takes the session's current `sql_mode`, removes
 * {@link WP_INCOMPATIBLE_SQL_MODES} and keeps the rest; it also sets {@link GROUP_CONCAT_MAX_LEN}. Being a single
 * statement, it can be queued on a new connection before any other query without waiting for a round trip.
 */
export const WP_SQL_MODE_STATEMENT = ((): string => {
  let expression = "CONCAT(',', @@SESSION.sql_mode, ',')";
  for (const mode of WP_INCOMPATIBLE_SQL_MODES) expression = `REPLACE(${expression}, ',${mode},', ',')`;
  return `SET SESSION sql_mode = TRIM(BOTH ',' FROM ${expression}), SESSION group_concat_max_len = ${GROUP_CONCAT_MAX_LEN}`;
})();

/** Marks pools whose connections already get {@link WP_SQL_MODE_STATEMENT}. */
const WP_SQL_MODE_APPLIED = Symbol.for('cms-api.wpSqlModeApplied');

type WarnFn = (message: string) => void;

/** Runs the WordPress sql_mode statement on each new connection of a mysql2 (callback API) pool. */
function applyWpSqlModeToPool(pool: mysql2.Pool, warn: WarnFn): void {
  const marked = pool as unknown as Record<symbol, boolean>;
  if (marked[WP_SQL_MODE_APPLIED]) return;
  marked[WP_SQL_MODE_APPLIED] = true;
  // mysql2 emits 'connection' after the handshake and before handing the connection out, and runs a
  // connection's commands in order: the SET always runs before the first query of whoever acquired it.
  pool.on('connection', (connection) => {
    connection.query(WP_SQL_MODE_STATEMENT, (error) => {
      if (error) warn(`Could not set a WordPress-compatible sql_mode on a MySQL connection: ${error.message}`);
    });
  });
}

/**
 * The `mysql2` module with `createPool` wrapped so that every pooled connection runs
 * {@link WP_SQL_MODE_STATEMENT} first. Handed to TypeORM as the `driver` option; the listener is attached
 * before the pool opens its first connection, so no connection can escape it.
 */
function wordpressMysql2Driver(warn: WarnFn, timeoutMs?: number): typeof mysql2 {
  return {
    ...mysql2,
    createPool(config: mysql2.PoolOptions | string): mysql2.Pool {
      const pool = mysql2.createPool(config as mysql2.PoolOptions);
      applyWpSqlModeToPool(pool, warn);
      if (timeoutMs !== undefined) boundCommands(pool, timeoutMs);
      return pool;
    },
  } as typeof mysql2;
}

/** Input of {@link buildDataSourceOptions}. */
export interface BuildDataSourceOptionsInput {
  /** A `DATABASE_URL` (see {@link parseDatabaseUrl}). */
  databaseUrl: string;
  /** WordPress table prefix (e.g. `wp_`, `cms_`), used as TypeORM's `entityPrefix`. */
  tablePrefix: string;
  /** TypeORM logger (an instance or one of TypeORM's names). */
  logger?: DataSourceOptions['logger'];
  /** TypeORM logging option. */
  logging?: LoggerOptions;
  /**
   * How long to wait for the database, in milliseconds, before giving up (the API then answers `503
   * rest_database_unavailable`): on MySQL a new connection and each command, its time queued on the connection
   * included (see {@link boundCommands}); on SQLite a lock another process holds. Default: the drivers' own (mysql2:
   * 10 s to connect, commands without limit; SQLite 5 s).
   */
  timeoutMs?: number;
  /**
   * Read replicas of a MySQL/MariaDB `databaseUrl` (`mysql://…` URLs): reads are routed to one of them (see
   * replica-routing.ts), with the same session settings as the primary.
   */
  replicaUrls?: string[];
  /** Seconds of replication lag past which a replica is skipped (default 5). */
  replicaMaxLagSeconds?: number;
}

/**
 * Builds the TypeORM DataSource options for a database URL: the WordPress entities and migrations, the table
 * prefix as `entityPrefix`, the migrations table `{prefix}cms_migrations`, no `synchronize`, no automatic
 * migrations.
 *
 * - SQLite (`better-sqlite3`): creates the file's parent directory if missing; WAL journal for files.
 * - MySQL/MariaDB (`mysql2`): utf8mb4 (`utf8mb4_unicode_520_ci`), dates as strings (zero dates included),
 *   BIGINT ids as JS numbers, UTC, no `IGNORE_SPACE` client flag, and every pooled connection runs with
 *   WordPress's session `sql_mode` (see {@link WP_SQL_MODE_STATEMENT}).
 *
 * @example new DataSource(buildDataSourceOptions({ databaseUrl: 'sqlite:./data/cms.db', tablePrefix: 'wp_' }))
 */
export function buildDataSourceOptions(input: BuildDataSourceOptionsInput): DataSourceOptions {
  const { databaseUrl, tablePrefix, logger, logging, timeoutMs } = input;
  if (!/^\w*$/.test(tablePrefix)) {
    throw new Error(`Invalid table prefix "${tablePrefix}": use letters, digits and _ only`);
  }
  const parsed = parseDatabaseUrl(databaseUrl);
  const common = {
    entities: CMS_ENTITIES,
    migrations: CMS_MIGRATIONS,
    migrationsTableName: `${tablePrefix}cms_migrations`,
    entityPrefix: tablePrefix,
    synchronize: false,
    migrationsRun: false,
    ...(logger !== undefined ? { logger } : {}),
    ...(logging !== undefined ? { logging } : {}),
  };
  if (parsed.type === 'sqlite') {
    const memory = parsed.path === ':memory:';
    if (!memory) fs.mkdirSync(path.dirname(path.resolve(parsed.path)), { recursive: true });
    return { ...common, type: 'better-sqlite3', database: parsed.path, enableWAL: !memory, ...(timeoutMs !== undefined ? { timeout: timeoutMs } : {}) };
  }
  const warn: WarnFn = (message) =>
    typeof logger === 'object' ? (logger as Logger).log('warn', message) : console.warn(message);
  return {
    ...common,
    type: 'mysql',
    connectorPackage: 'mysql2',
    driver: wordpressMysql2Driver(warn, timeoutMs),
    host: parsed.host,
    port: parsed.port,
    ...(parsed.socketPath ? { socketPath: parsed.socketPath } : {}),
    username: parsed.username,
    password: parsed.password,
    database: parsed.database,
    charset: 'utf8mb4_unicode_520_ci',
    timezone: 'Z',
    dateStrings: true,
    supportBigNumbers: true,
    bigNumberStrings: false,
    // mysql2 asks for CLIENT_IGNORE_SPACE by default, which adds IGNORE_SPACE to the session sql_mode and makes
    // function names such as COUNT reserved (`term_taxonomy.count`); PHP's mysqli, hence WordPress, does not.
    flags: ['-IGNORE_SPACE'],
    // A database that does not answer (a network cut, a server that hangs) fails the request after this long
    // instead of holding it: mysql2 gives up the connection attempt, and every command is bounded (boundCommands).
    ...(timeoutMs !== undefined ? { connectTimeout: timeoutMs } : {}),
    // Hot reads run as server-side prepared statements; each pooled connection keeps at most this many, well
    // under MySQL's server-wide max_prepared_stmt_count (16382) for any usual pool size.
    extra: { maxPreparedStatements: 256 },
  };
}

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
    while (this.size > SQLITE_RUNNER_STATEMENTS.entries || this.bytes > SQLITE_RUNNER_STATEMENTS.bytes) this.delete(this.keys().next().value as string);
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
  const runner = dataSource.driver.createQueryRunner('master') as unknown as { stmtCache?: Map<string, unknown>; cacheSize?: number };
  if (!(runner.stmtCache instanceof Map) || runner.stmtCache instanceof RunnerStatements) return;
  const statements = new RunnerStatements<unknown>();
  for (const [sql, statement] of runner.stmtCache) statements.set(sql, statement);
  runner.stmtCache = statements;
  // The cache bounds itself; the runner's own trimming (past `cacheSize`) then finds nothing to drop.
  runner.cacheSize = SQLITE_RUNNER_STATEMENTS.entries;
}

/**
 * Optional step after `dataSource.initialize()`, for any DataSource, including one a host built without
 * {@link buildDataSourceOptions}. On MySQL/MariaDB it makes sure every pooled connection gets WordPress's
 * session `sql_mode` (attaching the pool listener and updating the already-open connections when the pool
 * was not created by {@link buildDataSourceOptions}), then checks the mode on a live connection and throws if
 * a zero-date-hostile mode is still on. On SQLite it sizes TypeORM's statement cache
 * ({@link SQLITE_RUNNER_STATEMENTS}) and refreshes the query planner's statistics (without sample
 * statistics, see below). Safe to call
 * more than once.
 */
export async function afterDataSourceInit(dataSource: DataSource): Promise<void> {
  const { type } = dataSource.options;
  if (type === 'better-sqlite3') {
    boundRunnerStatements(dataSource);
    // Statistics for the query planner (sqlite_stat1), gathered where missing or stale, as SQLite advises for a
    // connection that stays open: without them it may walk a (type, status) index over every revision where the
    // post_parent index finds a post's few.
    await dataSource.query('PRAGMA optimize=0x10002');
    // Without sample statistics (sqlite_stat4, which ANALYZE writes in this build) SQLite plans a statement once;
    // with them it re-plans a statement on every new set of bound values for an indexed column — a page query
    // then cost 50 µs instead of 30. The per-index figures of sqlite_stat1 are all these plans need.
    const [samples] = await dataSource.query("SELECT COUNT(*) AS n FROM sqlite_master WHERE name = 'sqlite_stat4'");
    if (Number(samples?.n) > 0 && Number((await dataSource.query('SELECT COUNT(*) AS n FROM sqlite_stat4'))[0]?.n) > 0) {
      await dataSource.query('DELETE FROM sqlite_stat4');
      await dataSource.query('ANALYZE sqlite_master');
    }
    return;
  }
  if (type !== 'mysql' && type !== 'mariadb') return;
  const driver = dataSource.driver as unknown as { pool?: mysql2.Pool };
  const pool = driver.pool;
  if (pool && typeof pool.on === 'function' && !(pool as unknown as Record<symbol, boolean>)[WP_SQL_MODE_APPLIED]) {
    applyWpSqlModeToPool(pool, (message) => dataSource.logger.log('warn', message));
    // Connections opened before the listener existed (TypeORM opens one to test the credentials).
    // `_allConnections` is mysql2's internal list; statements queue behind any running command.
    const open = (pool as unknown as { _allConnections?: { toArray(): mysql2.PoolConnection[] } })._allConnections;
    await Promise.all(
      (open?.toArray() ?? []).map(
        (connection) =>
          new Promise<void>((resolve, reject) =>
            connection.query(WP_SQL_MODE_STATEMENT, (error) => (error ? reject(error) : resolve())),
          ),
      ),
    );
  }
  const rows: { mode: string }[] = await dataSource.query('SELECT @@SESSION.sql_mode AS mode');
  const active = (rows[0]?.mode ?? '').split(',');
  const bad = WP_INCOMPATIBLE_SQL_MODES.filter((mode) => active.includes(mode));
  if (bad.length > 0) {
    throw new Error(`MySQL session sql_mode still has ${bad.join(', ')}: WordPress zero dates cannot be written`);
  }
}
