import type * as mysql2 from 'mysql2';
import type { DataSource } from 'typeorm';
import { parseDatabaseUrl, redactUrl } from './database-url';
import { boundCommands } from './mysql-timeouts';
import { registerReplicaRouter, ReplicaRouter, replicaRouterOf } from './replica-routing';
import { routedPool } from './routed-pool';

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
 * once `afterDataSourceInit` found `wsrep_on` = ON.
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

export type WarnFn = (message: string) => void;

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
    throw new Error(
      `Invalid DATABASE_REPLICA_URLS entry "${redactUrl(url)}": a replica is a mysql:// or mariadb:// URL`,
    );
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
export function wordpressMysql2Driver(
  warn: WarnFn,
  timeoutMs?: number,
  replicas?: { urls: string[]; router: ReplicaRouter },
): typeof mysql2 {
  // Loaded here, not at the top: a SQLite server never needs it.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const mysql2Module = require('mysql2') as typeof import('mysql2');
  const settings: SessionSettings = { galera: false };
  const settled = (pool: mysql2.Pool): mysql2.Pool => {
    applyWpSqlModeToPool(pool, warn, settings);
    if (timeoutMs !== undefined) boundCommands(pool, timeoutMs);
    return pool;
  };
  const driver = {
    ...mysql2Module,
    createPool(config: mysql2.PoolOptions | string): mysql2.Pool {
      const pool = settled(mysql2Module.createPool(config as mysql2.PoolOptions));
      if (!replicas || typeof config !== 'object') return pool;
      replicas.urls.forEach((url, index) =>
        replicas.router.add(`replica ${index}`, settled(mysql2Module.createPool(replicaPoolOptions(config, url)))),
      );
      replicas.router.start();
      return routedPool(pool, replicas.router);
    },
  };
  if (replicas) registerReplicaRouter(driver, replicas.router);
  return driver;
}

/**
 * The MySQL/MariaDB part of `afterDataSourceInit` (see there): WordPress's session `sql_mode` on every pooled
 * connection, Galera's causal reads once a Galera node is found, and a check of the mode on a live connection.
 */
export async function afterMysqlInit(dataSource: DataSource): Promise<void> {
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
