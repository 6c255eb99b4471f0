import { DataSource } from 'typeorm';
import { buildDataSourceOptions } from '../../src/core/database/data-source-options';
import { OptionEntity } from '../../src/core/database/entities/option.entity';
import { LOCK_CONFLICT_RETRIES, writeTransaction } from '../../src/core/database/write-transaction';
import { dropTestDatabase, testDatabaseKind, testDatabaseUrl } from '../utils/test-db';

/**
 * Transactions that InnoDB picks as a deadlock's victim (1213) are run again from the start, a bounded number of
 * times, instead of failing the request with a 500. The deadlock is forced: two transactions lock two rows in
 * opposite orders. (SQLite's transactions take turns and cannot deadlock: there the two run one after the other.)
 */
const onMysql = testDatabaseKind() === 'mysql' ? it : it.skip;

describe('writeTransaction and lock conflicts', () => {
  let ds: DataSource;
  let table: string;

  beforeAll(async () => {
    const databaseUrl = await testDatabaseUrl('write_retries');
    ds = new DataSource({ ...buildDataSourceOptions({ databaseUrl, tablePrefix: 'cms_' }), entities: [OptionEntity] });
    await ds.initialize();
    table = ds.getMetadata(OptionEntity).tableName;
    const id =
      ds.options.type === 'mysql'
        ? 'BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY'
        : 'INTEGER PRIMARY KEY AUTOINCREMENT';
    await ds.query(
      `CREATE TABLE ${table} (option_id ${id}, option_name VARCHAR(191) NOT NULL UNIQUE, option_value TEXT NOT NULL, autoload VARCHAR(20) NOT NULL)`,
    );
    await ds.query(
      `INSERT INTO ${table} (option_name, option_value, autoload) VALUES ('a', '0', 'no'), ('b', '0', 'no')`,
    );
  });

  afterAll(async () => {
    if (ds?.isInitialized) await ds.destroy();
    await dropTestDatabase('write_retries');
  });

  const value = async (name: string) =>
    String((await ds.query(`SELECT option_value AS v FROM ${table} WHERE option_name = ?`, [name]))[0].v);

  onMysql('runs the deadlock victim again, and both transactions commit their work once', async () => {
    let runs = 0;
    let bothHoldFirstLock: () => void = () => undefined;
    let held = 0;
    const barrier = new Promise<void>((resolve) => (bothHoldFirstLock = resolve));
    const transfer = (first: string, second: string) =>
      writeTransaction(ds, async (em) => {
        runs++;
        await em.query(`UPDATE ${table} SET option_value = option_value + 1 WHERE option_name = ?`, [first]);
        // Only the first attempts wait for each other: the retried one runs on its own.
        if (++held <= 2) {
          if (held === 2) bothHoldFirstLock();
          await barrier;
        }
        await em.query(`UPDATE ${table} SET option_value = option_value + 10 WHERE option_name = ?`, [second]);
      });
    await Promise.all([transfer('a', 'b'), transfer('b', 'a')]);
    // One of them was rolled back and ran again: three runs, and each transaction's work counted once.
    expect(runs).toBe(3);
    expect([await value('a'), await value('b')]).toEqual(['11', '11']);
  });

  onMysql('passes the conflict on after the bounded retries', async () => {
    let runs = 0;
    const deadlock = Object.assign(new Error('Deadlock found when trying to get lock; try restarting transaction'), {
      code: 'ER_LOCK_DEADLOCK',
      errno: 1213,
    });
    await expect(
      writeTransaction(ds, async () => {
        runs++;
        throw deadlock;
      }),
    ).rejects.toBe(deadlock);
    expect(runs).toBe(LOCK_CONFLICT_RETRIES + 1);
  });

  it('runs other errors once', async () => {
    let runs = 0;
    await expect(
      writeTransaction(ds, async (em) => {
        runs++;
        await em.query(`INSERT INTO ${table} (option_name, option_value, autoload) VALUES ('a', '1', 'no')`);
      }),
    ).rejects.toThrow();
    expect(runs).toBe(1);
  });
});
