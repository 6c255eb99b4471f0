import type { DataSource } from 'typeorm';
import { retryLostReads } from './read-retry';

const lost = () =>
  Object.assign(new Error('Connection lost: The server closed the connection.'), {
    code: 'PROTOCOL_CONNECTION_LOST',
    fatal: true,
  });

/** A MySQL data source whose runners' first statement loses its connection; counts connections taken. */
function losingOnce(options: { inTransaction?: boolean } = {}) {
  const connections: Array<{ destroyed: boolean }> = [];
  const statements: string[] = [];
  const driver = {
    createQueryRunner() {
      const runner = {
        isTransactionActive: options.inTransaction ?? false,
        databaseConnection: undefined as { destroyed: boolean; destroy(): void } | undefined,
        databaseConnectionPromise: undefined as Promise<unknown> | undefined,
        async query(sql: string) {
          if (!runner.databaseConnection) {
            const connection = { destroyed: false, destroy: () => (connection.destroyed = true) };
            connections.push(connection);
            runner.databaseConnection = connection;
          }
          statements.push(sql);
          if (connections.length === 1) throw lost();
          return [{ ok: 1 }];
        },
      };
      return runner;
    },
  };
  const dataSource = { options: { type: 'mysql' }, driver } as unknown as DataSource;
  retryLostReads(dataSource);
  return {
    runner: () =>
      (
        dataSource.driver as unknown as { createQueryRunner(m: string): { query(sql: string): Promise<unknown> } }
      ).createQueryRunner('master'),
    connections,
    statements,
  };
}

describe('retryLostReads', () => {
  it('reads once more on a new connection when the connection was lost under a read', async () => {
    const db = losingOnce();
    await expect(db.runner().query('/* note */ SELECT 1')).resolves.toEqual([{ ok: 1 }]);
    expect(db.statements).toEqual(['/* note */ SELECT 1', '/* note */ SELECT 1']);
    expect(db.connections.map((c) => c.destroyed)).toEqual([true, false]);
  });

  it('does not run a write again (it may have been applied)', async () => {
    const db = losingOnce();
    await expect(db.runner().query('UPDATE wp_options SET option_value = 1')).rejects.toMatchObject({
      code: 'PROTOCOL_CONNECTION_LOST',
    });
    expect(db.statements).toHaveLength(1);
  });

  it('does not run a statement of a transaction again (its transaction is gone)', async () => {
    const db = losingOnce({ inTransaction: true });
    await expect(db.runner().query('SELECT 1')).rejects.toMatchObject({ code: 'PROTOCOL_CONNECTION_LOST' });
    expect(db.statements).toHaveLength(1);
  });

  it('leaves SQLite alone', () => {
    const driver = { createQueryRunner: () => ({}) };
    const create = driver.createQueryRunner;
    retryLostReads({ options: { type: 'better-sqlite3' }, driver } as unknown as DataSource);
    expect(driver.createQueryRunner).toBe(create);
  });
});
