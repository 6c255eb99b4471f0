import type { DataSource } from 'typeorm';

/**
 * The write transaction under way on a SQLite data source's one connection, while it holds the write lock. Reads
 * through the data source wait for it to end ({@link committedRead}): on that shared connection they would otherwise
 * see its rows before it commits — rows a rollback then takes back, which an answer (and the response cache) would
 * have shown — and run their statements between its own, holding the database's write lock for longer.
 */
const WRITING = new WeakMap<DataSource, Promise<void>>();

/** Reads that waited this long for a write transaction go ahead and warn: a read made inside one would wait forever. */
export const COMMITTED_READ_WAIT_MS = 2_000;

/** Marks a write transaction under way on `db`; the function returned marks its end (commit or rollback). */
export function markSqliteWriting(db: DataSource): () => void {
  let end!: () => void;
  const writing = new Promise<void>((resolve) => (end = resolve));
  WRITING.set(db, writing);
  return () => {
    if (WRITING.get(db) === writing) WRITING.delete(db);
    end();
  };
}

/**
 * Resolves once no write transaction of this process is under way on `db` (at once when none is), so that a read
 * sees committed rows only. Work inside a transaction must read through its `EntityManager`; a read through the data
 * source from inside one goes ahead after {@link COMMITTED_READ_WAIT_MS} with a warning instead of waiting forever.
 */
export function committedRead(db: DataSource): Promise<void> | undefined {
  const writing = WRITING.get(db);
  return writing ? waitFor(db, writing) : undefined;
}

async function waitFor(db: DataSource, writing: Promise<void>): Promise<void> {
  const started = Date.now();
  for (let current: Promise<void> | undefined = writing; current; current = WRITING.get(db)) {
    const left = COMMITTED_READ_WAIT_MS - (Date.now() - started);
    let timer: NodeJS.Timeout | undefined;
    const timedOut = await Promise.race([
      current.then(() => false),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), Math.max(0, left)))),
    ]);
    clearTimeout(timer);
    if (timedOut) {
      db.logger.log(
        'warn',
        `A read waited ${COMMITTED_READ_WAIT_MS} ms for a write transaction of this process and went ahead: reads inside a transaction must use its EntityManager.`,
      );
      return;
    }
  }
}
