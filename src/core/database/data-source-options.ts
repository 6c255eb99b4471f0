import * as fs from 'node:fs';
import * as path from 'node:path';
import type { DataSource, DataSourceOptions, LoggerOptions } from 'typeorm';
import { CMS_ENTITIES } from './cms-entities';
import { CMS_MIGRATIONS } from './cms-migrations';
import { parseDatabaseUrl, redactUrl } from './database-url';
import { afterMysqlInit, WarnFn, wordpressMysql2Driver } from './mysql-options';
import { ReplicaRouter } from './replica-routing';
import { afterSqliteInit } from './sqlite-options';

export { parseDatabaseUrl } from './database-url';
export {
  GROUP_CONCAT_MAX_LEN,
  sessionStatement,
  WP_INCOMPATIBLE_SQL_MODES,
  WP_SQL_MODE_STATEMENT,
} from './mysql-options';

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
   * included (see `boundCommands`); on SQLite a lock another process holds. Default: the drivers' own (mysql2:
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
        `Invalid DATABASE_REPLICA_URLS entry "${redactUrl(url)}": a replica is a mysql:// or mariadb:// URL`,
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
 * Optional step after `dataSource.initialize()`, for any DataSource, including one a host built without
 * {@link buildDataSourceOptions}. On MySQL/MariaDB it makes sure every pooled connection gets WordPress's
 * session `sql_mode` (attaching the pool listener and updating the already-open connections when the pool
 * was not created by {@link buildDataSourceOptions}), then checks the mode on a live connection and throws if
 * a zero-date-hostile mode is still on. It also detects a Galera node, once (`SHOW VARIABLES LIKE 'wsrep_on'` = ON):
 * every pooled connection, the primary's and the replicas', open or to come, then runs
 * {@link GALERA_SYNC_WAIT_STATEMENT} (causal reads: a read on any node sees the writes committed on the others
 * before it started). Without wsrep nothing changes. On SQLite it sizes TypeORM's statement cache
 * (`SQLITE_RUNNER_STATEMENTS`) and refreshes the query planner's statistics (without sample statistics, see
 * `afterSqliteInit`). Safe to call more than once.
 */
export async function afterDataSourceInit(dataSource: DataSource): Promise<void> {
  const { type } = dataSource.options;
  if (type === 'better-sqlite3') return afterSqliteInit(dataSource);
  if (type === 'mysql' || type === 'mariadb') await afterMysqlInit(dataSource);
}
