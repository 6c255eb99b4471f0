import { setTimeout as sleep } from 'node:timers/promises';
import { DataSource, EntityManager } from 'typeorm';
import { NO_STAMP } from '../cache/version-stamps';
import { OptionEntity } from './entities/option.entity';

/** Transactions waiting for the one SQLite connection, per data source. */
const QUEUES = new WeakMap<DataSource, Promise<unknown>>();

/** How long a transaction waits for another process's writer before failing (SQLite's usual busy timeout). */
const LOCK_WAIT_MS = 5_000;

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
  if (dataSource.options.type !== 'better-sqlite3' && dataSource.options.type !== 'sqlite') return retriedTransaction(dataSource, work);
  const previous = QUEUES.get(dataSource) ?? Promise.resolve();
  const run = previous.then(() => lockedTransaction(dataSource, work));
  QUEUES.set(dataSource, run.catch(() => undefined));
  return run;
}

/** How often a MySQL transaction that InnoDB chose as a deadlock's victim is run again. */
const DEADLOCK_RETRIES = 3;

/**
 * MySQL: runs `work` in a transaction, and again (up to {@link DEADLOCK_RETRIES} times, a few milliseconds apart)
 * when InnoDB rolls it back as the victim of a deadlock or a lock wait timeout ("try restarting transaction"):
 * concurrent writes to the same post (a comment trashed while another is, each recounting the post's comments) may
 * meet in the locks of an index. The rolled-back transaction left nothing behind, so running it again is safe.
 */
async function retriedTransaction<T>(dataSource: DataSource, work: (em: EntityManager) => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await dataSource.transaction(work);
    } catch (error) {
      if (attempt >= DEADLOCK_RETRIES || !isDeadlock(error)) throw error;
      await sleep((2 + attempt * 5) * (0.5 + Math.random()));
    }
  }
}

/** Whether an error is InnoDB's deadlock (1213) or lock wait timeout (1205), after which the transaction is rolled back. */
export function isDeadlock(error: unknown): boolean {
  const e = error as { code?: unknown; errno?: unknown; driverError?: { code?: unknown; errno?: unknown } } | null;
  const code = String(e?.driverError?.code ?? e?.code ?? '');
  const errno = Number(e?.driverError?.errno ?? e?.errno);
  return code === 'ER_LOCK_DEADLOCK' || code === 'ER_LOCK_WAIT_TIMEOUT' || errno === 1213 || errno === 1205;
}

async function lockedTransaction<T>(dataSource: DataSource, work: (em: EntityManager) => Promise<T>): Promise<T> {
  const connection = (dataSource.driver as unknown as { databaseConnection?: SqliteConnection }).databaseConnection;
  const options = dataSource.getMetadata(OptionEntity).tableName;
  const started = Date.now();
  for (let attempt = 0; ; attempt++) {
    let locked = false;
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
        return work(em);
      });
    } catch (error) {
      // Only the lock is tried again: the work itself never ran.
      if (locked || !isBusy(error) || Date.now() - started >= LOCK_WAIT_MS) throw error;
      // A few milliseconds at first, growing: a writer holds the lock for about that long.
      await sleep(Math.min(1 + attempt, 10) * (0.5 + Math.random()));
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
  const code = String(e?.driverError?.code ?? e?.code ?? '');
  return code === 'SQLITE_BUSY' || code.startsWith('SQLITE_BUSY_');
}
