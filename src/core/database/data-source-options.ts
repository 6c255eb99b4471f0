import * as fs from 'node:fs';
import * as path from 'node:path';
import * as mysql2 from 'mysql2';
import type { DataSource, DataSourceOptions, LoggerOptions } from 'typeorm';
import { CMS_ENTITIES } from './cms-entities';
import { CMS_MIGRATIONS } from './cms-migrations';
import { boundCommands } from './mysql-timeouts';
import { CACHE_ENTRY_SHARE, SQLITE_RUNNER_STATEMENTS } from '../memory/cache-limits';
import { sqliteStatementBytes } from './raw-query';
import { registerReplicaRouter, ReplicaRouter, replicaRouterOf, routedPool } from './replica-routing';

/** A parsed `DATABASE_URL`. */
export type ParsedDatabaseUrl =
  | { type: 'sqlite'; path: string }
  | {
      type: 'mysql';
      host: string;
      port: number;
      username: string;
      password: string;
      database: string;
      socketPath?: string;
    };

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

/**
 * Galera's causal reads: with it, a read on any node of a Galera cluster waits until that node has applied every write
 * the cluster committed before the read started, so a read on one node sees a write committed on another.
 */
export const GALERA_SYNC_WAIT_STATEMENT = 'SET SESSION wsrep_sync_wait = 1';

/**
 * The session settings of the connections of one data source (its primary's pool and its replicas'): WordPress's
 * sql_mode ({@link WP_SQL_MODE_STATEMENT}) always, and Galera's causal reads ({@link GALERA_SYNC_WAIT_STATEMENT})
 * once {@link afterDataSourceInit} found `wsrep_on` = ON.
 */
export interface SessionSettings {
  galera: boolean;
}

/** The one statement a new connection runs first under `settings`. */
export function sessionStatement(settings: SessionSettings): string {
  return settings.galera ? `${WP_SQL_MODE_STATEMENT}, SESSION wsrep_sync_wait = 1` : WP_SQL_MODE_STATEMENT;
}

/** Marks pools whose connections already get the session settings: the settings they get. */
const WP_SQL_MODE_APPLIED = Symbol.for('cms-api.wpSqlModeApplied');

type WarnFn = (message: string) => void;

/** The session settings a pool's new connections get, when a listener applies them. */
function settingsOfPool(pool: mysql2.Pool): SessionSettings | undefined {
  const settings = (pool as unknown as Record<symbol, unknown>)[WP_SQL_MODE_APPLIED];
  return settings && typeof settings === 'object' ? (settings as SessionSettings) : undefined;
}

/** Runs the session settings' statement ({@link sessionStatement}) on each new connection of a mysql2 (callback API) pool. */
function applyWpSqlModeToPool(pool: mysql2.Pool, warn: WarnFn, settings: SessionSettings = { galera: false }): void {
  const marked = pool as unknown as Record<symbol, unknown>;
  if (marked[WP_SQL_MODE_APPLIED]) return;
  marked[WP_SQL_MODE_APPLIED] = settings;
  // mysql2 emits 'connection' after the handshake and before handing the connection out, and runs a
  // connection's commands in order: the SET always runs before the first query of whoever acquired it.
  pool.on('connection', (connection) => {
    connection.query(sessionStatement(settings), (error) => {
      if (error) warn(`Could not set a WordPress-compatible sql_mode on a MySQL connection: ${error.message}`);
    });
  });
}

/** Runs `sql` on every connection a pool holds open now (`_allConnections`, mysql2's own list). */
async function onOpenConnections(pool: mysql2.Pool, sql: string): Promise<void> {
  const open = (pool as unknown as { _allConnections?: { toArray(): mysql2.PoolConnection[] } })._allConnections;
  await Promise.all(
    (open?.toArray() ?? []).map(
      (connection) =>
        new Promise<void>((resolve, reject) => connection.query(sql, (error) => (error ? reject(error) : resolve()))),
    ),
  );
}

/** A replica's address: its URL's, the rest of the primary's connection options kept. */
function replicaPoolOptions(config: mysql2.PoolOptions, url: string): mysql2.PoolOptions {
  const replica = parseDatabaseUrl(url);
  if (replica.type !== 'mysql')
    throw new Error(`Invalid DATABASE_REPLICA_URLS entry "${redact(url)}": a replica is a mysql:// or mariadb:// URL`);
  const { socketPath: _socket, ...rest } = config as mysql2.PoolOptions & { socketPath?: string };
  return {
    ...rest,
    host: replica.host,
    port: replica.port,
    user: replica.username,
    password: replica.password,
    database: replica.database,
    ...(replica.socketPath ? { socketPath: replica.socketPath } : {}),
  };
}

/**
 * The `mysql2` module with `createPool` wrapped so that every pooled connection runs the session settings
 * ({@link sessionStatement}) first and every command is bounded ({@link boundCommands}). Handed to TypeORM as the
 * `driver` option; the listener is attached before the pool opens its first connection, so no connection can escape
 * it. With `replicas`, the primary's pool is created with a pool per replica (the same options and session
 * settings, the replica's address) and handed to TypeORM routed ({@link routedPool}).
 */
function wordpressMysql2Driver(
  warn: WarnFn,
  timeoutMs?: number,
  replicas?: { urls: string[]; router: ReplicaRouter },
): typeof mysql2 {
  const settings: SessionSettings = { galera: false };
  const settled = (pool: mysql2.Pool): mysql2.Pool => {
    applyWpSqlModeToPool(pool, warn, settings);
    if (timeoutMs !== undefined) boundCommands(pool, timeoutMs);
    return pool;
  };
  const driver = {
    ...mysql2,
    createPool(config: mysql2.PoolOptions | string): mysql2.Pool {
      const pool = settled(mysql2.createPool(config as mysql2.PoolOptions));
      if (!replicas || typeof config !== 'object') return pool;
      replicas.urls.forEach((url, index) =>
        replicas.router.add(`replica ${index}`, settled(mysql2.createPool(replicaPoolOptions(config, url)))),
      );
      replicas.router.start();
      return routedPool(pool, replicas.router);
    },
  };
  if (replicas) registerReplicaRouter(driver, replicas.router);
  return driver;
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
   * Read replicas of a MySQL/MariaDB `databaseUrl` (`mysql://…` URLs, `DATABASE_REPLICA_URLS`): each API request
   * that reads is routed to one of them (see replica-routing.ts), with the same connection options and session
   * settings as the primary (WordPress's sql_mode, `group_concat_max_len`, the command timeouts, charset, time zone,
   * dates as strings, Galera's causal reads). Not with SQLite.
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
 *   WordPress's session `sql_mode` (see {@link WP_SQL_MODE_STATEMENT}) and, on a Galera cluster, causal reads
 *   ({@link GALERA_SYNC_WAIT_STATEMENT}, see {@link afterDataSourceInit}). With `replicaUrls`, a pool per replica
 *   with the same options and settings, and reads routed among them (see replica-routing.ts).
 *
 * @throws Error naming `DATABASE_REPLICA_URLS` when replicas are given with a SQLite `databaseUrl`, or one of them
 *   is not a MySQL/MariaDB URL.
 *
 * @example new DataSource(buildDataSourceOptions({ databaseUrl: 'sqlite:./data/cms.db', tablePrefix: 'wp_' }))
 */
export function buildDataSourceOptions(input: BuildDataSourceOptionsInput): DataSourceOptions {
  const { databaseUrl, tablePrefix, logger, logging, timeoutMs } = input;
  const replicaUrls = (input.replicaUrls ?? []).map((url) => url.trim()).filter((url) => url !== '');
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
  if (replicaUrls.length && parsed.type !== 'mysql') {
    throw new Error(
      'DATABASE_REPLICA_URLS: read replicas need a MySQL/MariaDB DATABASE_URL (mysql:// or mariadb://), not SQLite',
    );
  }
  for (const url of replicaUrls) {
    if (!/^(mysql|mariadb):\/\//i.test(url))
      throw new Error(
        `Invalid DATABASE_REPLICA_URLS entry "${redact(url)}": a replica is a mysql:// or mariadb:// URL`,
      );
    try {
      parseDatabaseUrl(url);
    } catch (error) {
      throw new Error(
        `Invalid DATABASE_REPLICA_URLS entry: ${(error as Error).message.replace(/^Invalid DATABASE_URL /, '')}`,
      );
    }
  }
  if (parsed.type === 'sqlite') {
    const memory = parsed.path === ':memory:';
    if (!memory) fs.mkdirSync(path.dirname(path.resolve(parsed.path)), { recursive: true });
    return {
      ...common,
      type: 'better-sqlite3',
      database: parsed.path,
      enableWAL: !memory,
      ...(timeoutMs !== undefined ? { timeout: timeoutMs } : {}),
    };
  }
  const warn: WarnFn = (message) => {
    if (typeof logger === 'object') logger.log('warn', message);
    else console.warn(message);
  };
  return {
    ...common,
    type: 'mysql',
    connectorPackage: 'mysql2',
    driver: wordpressMysql2Driver(
      warn,
      timeoutMs,
      replicaUrls.length
        ? { urls: replicaUrls, router: new ReplicaRouter(input.replicaMaxLagSeconds ?? 5) }
        : undefined,
    ),
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
 * Optional step after `dataSource.initialize()`, for any DataSource, including one a host built without
 * {@link buildDataSourceOptions}. On MySQL/MariaDB it makes sure every pooled connection gets WordPress's
 * session `sql_mode` (attaching the pool listener and updating the already-open connections when the pool
 * was not created by {@link buildDataSourceOptions}), then checks the mode on a live connection and throws if
 * a zero-date-hostile mode is still on. It also detects a Galera node, once (`SHOW VARIABLES LIKE 'wsrep_on'` = ON):
 * every pooled connection, the primary's and the replicas', open or to come, then runs
 * {@link GALERA_SYNC_WAIT_STATEMENT} (causal reads: a read on any node sees the writes committed on the others
 * before it started). Without wsrep nothing changes. On SQLite it sizes TypeORM's statement cache
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
    return;
  }
  if (type !== 'mysql' && type !== 'mariadb') return;
  const driver = dataSource.driver as unknown as { pool?: mysql2.Pool };
  const pool = driver.pool;
  if (pool && typeof pool.on === 'function' && !settingsOfPool(pool)) {
    applyWpSqlModeToPool(pool, (message) => {
      dataSource.logger.log('warn', message);
    });
    // Connections opened before the listener existed (TypeORM opens one to test the credentials); statements queue
    // behind any running command.
    await onOpenConnections(pool, WP_SQL_MODE_STATEMENT);
  }
  // A Galera node: every connection, the primary's and the replicas', reads causally from now on.
  const wsrep: Array<{ Value?: string; value?: string }> = await dataSource.query("SHOW VARIABLES LIKE 'wsrep_on'");
  const settings = pool ? settingsOfPool(pool) : undefined;
  if (String(wsrep[0]?.Value ?? wsrep[0]?.value ?? '').toUpperCase() === 'ON' && settings && !settings.galera) {
    settings.galera = true;
    await onOpenConnections(pool as mysql2.Pool, GALERA_SYNC_WAIT_STATEMENT);
    // Not waited for: a replica down now neither stops nor holds the start-up (it is skipped until its probe finds
    // it). The statement is queued on each open connection ahead of any later query; new ones get it as they open.
    for (const replica of replicaRouterOf(dataSource)?.pools ?? []) {
      const own = settingsOfPool(replica);
      if (own) own.galera = true;
      void onOpenConnections(replica, GALERA_SYNC_WAIT_STATEMENT).catch((error: Error) => {
        dataSource.logger.log('warn', `Could not set wsrep_sync_wait on a read replica's connection: ${error.message}`);
      });
    }
  }
  const rows: { mode: string }[] = await dataSource.query('SELECT @@SESSION.sql_mode AS mode');
  const active = (rows[0]?.mode ?? '').split(',');
  const bad = WP_INCOMPATIBLE_SQL_MODES.filter((mode) => active.includes(mode));
  if (bad.length > 0) {
    throw new Error(`MySQL session sql_mode still has ${bad.join(', ')}: WordPress zero dates cannot be written`);
  }
}
