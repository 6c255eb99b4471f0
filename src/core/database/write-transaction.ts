import { DataSource, EntityManager } from 'typeorm';
import { OptionEntity } from './entities/option.entity';

/** Transactions waiting for the one SQLite connection, per data source. */
const QUEUES = new WeakMap<DataSource, Promise<unknown>>();

/**
 * Runs `work` in one transaction. On SQLite the connection is shared by the whole process, so transactions take
 * turns (two interleaved ones would nest as savepoints of each other), and each first takes the database's write
 * lock — waiting for other processes' writers — so that it never has to upgrade a read snapshot that another
 * process made stale. On MySQL transactions run side by side on their pooled connections.
 *
 * Work must use only `em`: a query through the data source inside it would wait for a pooled connection that
 * the transactions themselves may all be holding.
 */
export function writeTransaction<T>(dataSource: DataSource, work: (em: EntityManager) => Promise<T>): Promise<T> {
  if (dataSource.options.type !== 'better-sqlite3' && dataSource.options.type !== 'sqlite') return dataSource.transaction(work);
  const previous = QUEUES.get(dataSource) ?? Promise.resolve();
  const run = previous.then(
    () => dataSource.transaction(async (em) => {
      await em.query(`UPDATE ${em.connection.getMetadata(OptionEntity).tableName} SET option_id = option_id WHERE option_id = -1`);
      return work(em);
    }),
  );
  QUEUES.set(dataSource, run.catch(() => undefined));
  return run;
}
