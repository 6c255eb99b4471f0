import { setTimeout as sleep } from 'node:timers/promises';
import { DataSource, EntityManager } from 'typeorm';
import { NO_STAMP } from './version-stamps';
import { takeWriteTurnRow } from './cluster-lock';
import { isConnectionLost, isLockConflict } from './database-errors';
import { OptionEntity } from './entities/option.entity';
import { markSqliteWriting } from './sqlite-writing';
import { textOf } from '../formatting/php-serialize';

/** Transactions waiting for the one SQLite connection, per data source. */
const QUEUES = new WeakMap<DataSource, Promise<unknown>>();

/**
 * How long a transaction waits for another process's writer before failing: the data source's `timeout` (its
 * busy timeout, set from `CMS_DB_TIMEOUT` by the standalone server), or SQLite's usual 5 s.
 */
const LOCK_WAIT_MS = 5_000;

/** Times a MySQL transaction is run again after a deadlock or a lock wait timeout, before its error is passed on. */
export const LOCK_CONFLICT_RETRIES = 4;

/**
 * Runs `work` in one transaction. On SQLite the connection is shared by the whole process, so transactions take
 * turns (two interleaved ones would nest as savepoints of each other), and each first takes the database's write
 * lock — waiting for other processes' writers — so that it never has to upgrade a read snapshot that another
 * process made stale. On MySQL transactions run side by side on their pooled connections.
 *
 * The lock is waited for without blocking the process: SQLite's own busy handler sleeps inside the driver call,
 * and with it every request of the process. A transaction that finds the lock taken is rolled back before its
 * work began and tried again a moment later, for {@link LOCK_WAIT_MS} at most.
 *
 * Work must use only `em`: a query through the data source inside it would wait for a pooled connection that
 * the transactions themselves may all be holding.
 */
export function writeTransaction<T>(dataSource: DataSource, work: (em: EntityManager) => Promise<T>): Promise<T> {
  if (dataSource.options.type !== 'better-sqlite3' && dataSource.options.type !== 'sqlite')
    return retriedTransaction(dataSource, work);
  const previous = QUEUES.get(dataSource) ?? Promise.resolve();
  const run = previous.then(() => lockedTransaction(dataSource, work));
  QUEUES.set(
    dataSource,
    run.catch(() => undefined),
  );
  return run;
}

/**
 * MySQL: runs `work` in a transaction, and again (up to {@link LOCK_CONFLICT_RETRIES} times, a few milliseconds
 * apart, growing) when InnoDB rolls it back as the victim of a deadlock or a lock wait timeout ("try restarting
 * transaction"): concurrent writes to the same post (a comment trashed while another is, each recounting the post's
 * comments) may meet in the locks of an index; on a Galera cluster, a certification failure at commit is reported
 * the same way. The rolled-back transaction left nothing behind, so running it again is safe. So is running it again
 * when its connection was lost before its work was done (a database node killed, a proxy failing over): the server
 * rolls back what a lost connection had begun, and the next attempt gets a new connection. A connection lost after
 * the work, during the COMMIT, is not tried again: the commit may have happened.
 */
async function retriedTransaction<T>(dataSource: DataSource, work: (em: EntityManager) => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    let committing = false;
    try {
      return await dataSource.transaction(async (em) => {
        const result = await work(em);
        committing = true;
        return result;
      });
    } catch (error) {
      const retry = isLockConflict(error) || (!committing && isConnectionLost(error));
      if (attempt >= LOCK_CONFLICT_RETRIES || !retry) throw error;
      // The other transaction holds its locks until it commits: a few milliseconds, growing with each attempt.
      await sleep((5 << attempt) * (0.5 + Math.random()));
    }
  }
}

async function lockedTransaction<T>(dataSource: DataSource, work: (em: EntityManager) => Promise<T>): Promise<T> {
  const connection = (dataSource.driver as unknown as { databaseConnection?: SqliteConnection }).databaseConnection;
  const options = dataSource.getMetadata(OptionEntity).tableName;
  const wait = Number((dataSource.options as { timeout?: number }).timeout ?? LOCK_WAIT_MS);
  const started = Date.now();
  for (let attempt = 0; ; attempt++) {
    let locked = false;
    let ended: (() => void) | undefined;
    try {
      return await dataSource.transaction(async (em) => {
        // The first write takes the lock; it fails at once instead of sleeping when another process holds it.
        const restore = withoutBusyWait(connection);
        try {
          await em.query(`${NO_STAMP} UPDATE ${options} SET option_id = option_id WHERE option_id = -1`);
        } finally {
          restore?.();
        }
        locked = true;
        // Reads through the data source wait until it has committed or rolled back (see sqlite-writing).
        ended = markSqliteWriting(dataSource);
        return work(em);
      });
    } catch (error) {
      // Only the lock is tried again: the work itself never ran.
      if (locked || !isBusy(error) || Date.now() - started >= wait) throw error;
      // A few milliseconds at first, growing: a writer holds the lock for about that long.
      await sleep(Math.min(1 + attempt, 10) * (0.5 + Math.random()));
    } finally {
      ended?.();
    }
  }
}

interface SqliteConnection {
  pragma(source: string, options?: { simple?: boolean }): unknown;
}

/** Turns SQLite's busy wait off on the connection; returns what restores it. */
function withoutBusyWait(connection: SqliteConnection | undefined): (() => void) | undefined {
  if (!connection || typeof connection.pragma !== 'function') return undefined;
  const timeout = Number(connection.pragma('busy_timeout', { simple: true }));
  connection.pragma('busy_timeout = 0');
  return () => connection.pragma(`busy_timeout = ${Number.isFinite(timeout) ? timeout : LOCK_WAIT_MS}`);
}

/** Whether an error is SQLite's "database is locked" (directly or wrapped by TypeORM). */
function isBusy(error: unknown): boolean {
  const e = error as { code?: unknown; driverError?: { code?: unknown } } | null;
  const code = textOf(e?.driverError?.code ?? e?.code);
  return code === 'SQLITE_BUSY' || code.startsWith('SQLITE_BUSY_');
}

/** Data sources whose locks table is missing (a schema migrated by an older release): the turn is a row lock. */
const WITHOUT_LOCKS_TABLE = new WeakSet<object>();

/**
 * The writers' turn across every node on MySQL: a write of the `writers` row of `{prefix}cms_locks`
 * ({@link takeWriteTurnRow}), held until the transaction ends. Writes that check what other writers committed
 * (unique post and term slugs, a term's name at its level) or count from their snapshot (term counts) take it
 * first, so that they see each other's rows, one after the other, and always take their locks in one order. Being
 * a write, it also orders writers on a Galera cluster with several writable nodes: the second of two that took it
 * on two nodes fails certification (1213) and is run again by {@link writeTransaction}. On a schema without the
 * locks table it falls back to a row lock on the `sticky_posts` option (one server only). On SQLite write
 * transactions already take turns: nothing to do.
 */
export async function takeWriteTurn(em: EntityManager): Promise<void> {
  const type = em.connection.options.type;
  if (type !== 'mysql' && type !== 'mariadb') return;
  if (!WITHOUT_LOCKS_TABLE.has(em.connection)) {
    try {
      await takeWriteTurnRow(em);
      return;
    } catch (error) {
      const e = (error as { driverError?: { errno?: number } }).driverError ?? (error as { errno?: number });
      // ER_NO_SUCH_TABLE: InnoDB rolled back that statement alone; the transaction goes on.
      if (e?.errno !== 1146) throw error;
      WITHOUT_LOCKS_TABLE.add(em.connection);
    }
  }
  const repo = em.getRepository(OptionEntity);
  const row = await repo.findOne({
    where: { name: 'sticky_posts' },
    lock: { mode: 'pessimistic_write' },
    select: { id: true },
  });
  if (!row) await repo.insert({ name: 'sticky_posts', value: 'a:0:{}', autoload: 'yes' });
}
