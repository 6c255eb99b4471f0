import type { DataSource } from 'typeorm';
import { isConnectionLost } from './database-errors';
import { isMySql } from './query-helpers';

const PATCHED = Symbol.for('cms-api.readRetry');

/** Statements that only read (after any leading comments). */
const READ = /^\s*(?:\/\*[^]*?\*\/\s*)*(?:SELECT|SHOW|WITH|\()/i;

interface RunnerInternals {
  query(sql: string, params?: unknown[], structured?: boolean): Promise<unknown>;
  isTransactionActive: boolean;
  databaseConnection?: { destroy?: () => void };
  databaseConnectionPromise?: Promise<unknown>;
}

/**
 * MySQL/MariaDB: a read outside a transaction whose connection was lost under it — a database node killed or
 * restarted, a proxy failing over to another node — is run once more on a new connection, instead of failing the
 * request: it changed nothing. (The API's fast reads do the same, see rawQuery; write transactions are run again by
 * writeTransaction when their connection was lost before their COMMIT.) Applies to every query runner the data
 * source makes from now on; safe to call more than once.
 */
export function retryLostReads(dataSource: DataSource): void {
  if (!isMySql(dataSource)) return;
  const driver = dataSource.driver as unknown as {
    createQueryRunner(mode: string): RunnerInternals;
    [PATCHED]?: boolean;
  };
  if (driver[PATCHED]) return;
  driver[PATCHED] = true;
  const create = driver.createQueryRunner.bind(driver);
  driver.createQueryRunner = (mode: string) => {
    const runner = create(mode);
    const query = runner.query.bind(runner);
    runner.query = async (sql: string, params?: unknown[], structured?: boolean) => {
      try {
        return await query(sql, params, structured);
      } catch (error) {
        if (runner.isTransactionActive || !isConnectionLost(error) || !READ.test(sql)) throw error;
        // The runner's connection is dead: dropped, so that the next statement takes a new one from the pool.
        runner.databaseConnection?.destroy?.();
        runner.databaseConnection = undefined;
        runner.databaseConnectionPromise = undefined;
        return query(sql, params, structured);
      }
    };
    return runner;
  };
}
