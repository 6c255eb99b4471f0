import { DataSource, EntityManager } from 'typeorm';
import { isDeadlock, writeTransaction } from './write-transaction';

/** A MySQL data source whose transactions fail with the given errors, in turn, before they succeed. */
function mysqlFailing(errors: unknown[]): { dataSource: DataSource; runs: () => number } {
  let runs = 0;
  const dataSource = {
    options: { type: 'mysql' },
    async transaction(work: (em: EntityManager) => Promise<unknown>) {
      runs++;
      const error = errors.shift();
      if (error) throw error;
      return work({} as EntityManager);
    },
  } as unknown as DataSource;
  return { dataSource, runs: () => runs };
}

const deadlock = Object.assign(new Error('Deadlock found when trying to get lock; try restarting transaction'), { driverError: { code: 'ER_LOCK_DEADLOCK', errno: 1213 } });

describe('writeTransaction on MySQL', () => {
  it('runs a transaction again when InnoDB chose it as a deadlock victim', async () => {
    const { dataSource, runs } = mysqlFailing([deadlock, deadlock]);
    await expect(writeTransaction(dataSource, async () => 'done')).resolves.toBe('done');
    expect(runs()).toBe(3);
  });

  it('gives up after three retries, with the deadlock', async () => {
    const { dataSource, runs } = mysqlFailing([deadlock, deadlock, deadlock, deadlock, deadlock]);
    await expect(writeTransaction(dataSource, async () => 'done')).rejects.toBe(deadlock);
    expect(runs()).toBe(4);
  });

  it('does not run a transaction again after any other error', async () => {
    const duplicate = Object.assign(new Error("Duplicate entry 'x' for key 'option_name'"), { driverError: { code: 'ER_DUP_ENTRY', errno: 1062 } });
    const { dataSource, runs } = mysqlFailing([duplicate]);
    await expect(writeTransaction(dataSource, async () => 'done')).rejects.toBe(duplicate);
    expect(runs()).toBe(1);
  });

  it('knows deadlocks and lock wait timeouts by code or number', () => {
    expect([deadlock, { code: 'ER_LOCK_WAIT_TIMEOUT' }, { errno: 1205 }, { code: 'ER_DUP_ENTRY' }, null].map(isDeadlock)).toEqual([true, true, true, false, false]);
  });
});
