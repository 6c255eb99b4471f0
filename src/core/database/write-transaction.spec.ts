import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DataSource, EntityManager } from 'typeorm';
import { OptionEntity } from './entities/option.entity';
import { isLockConflict } from './database-errors';
import { LOCK_CONFLICT_RETRIES, writeTransaction } from './write-transaction';

/** A SQLite file shared by this process's data source and another connection, as by two server processes. */
describe('writeTransaction on a SQLite file written by another process', () => {
  let dir: string;
  let ds: DataSource;
  let other: Database.Database;
  let table: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cms-write-lock-'));
    const file = join(dir, 'site.sqlite');
    ds = new DataSource({ type: 'better-sqlite3', database: file, entities: [OptionEntity], enableWAL: true });
    await ds.initialize();
    table = ds.getMetadata(OptionEntity).tableName;
    await ds.query(
      `CREATE TABLE ${table} (option_id INTEGER PRIMARY KEY AUTOINCREMENT, option_name TEXT NOT NULL UNIQUE, option_value TEXT NOT NULL, autoload TEXT NOT NULL)`,
    );
    other = new Database(file);
  });

  afterAll(async () => {
    other?.close();
    if (ds?.isInitialized) await ds.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  const insert = (name: string) =>
    writeTransaction(ds, (em) =>
      em.query(`INSERT INTO ${table} (option_name, option_value, autoload) VALUES (?, '1', 'yes')`, [name]),
    );
  const stored = (name: string) =>
    other.prepare(`SELECT COUNT(*) AS n FROM ${table} WHERE option_name = ?`).get(name) as { n: number };

  it('waits for the other writer without blocking the process, then commits once', async () => {
    other.exec('BEGIN IMMEDIATE');
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    try {
      const done = insert('while-locked');
      // Timers keep firing while the transaction waits for the lock: a busy wait inside the driver would stop them
      // until the lock is released (never, here), and the wait below would end on its deadline with one tick. The
      // deadline is generous: on a loaded machine the process may not run for a while.
      const deadline = Date.now() + 3000;
      while (ticks <= 10 && Date.now() < deadline) await sleep(10);
      expect(ticks).toBeGreaterThan(10);
      other.exec('COMMIT');
      await done;
    } finally {
      clearInterval(timer);
      if (other.inTransaction) other.exec('ROLLBACK');
    }
    expect(stored('while-locked').n).toBe(1);
  });

  it('runs the work once and passes its own errors on without trying again', async () => {
    let runs = 0;
    await expect(
      writeTransaction(ds, async () => {
        runs++;
        throw Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
      }),
    ).rejects.toThrow('database is locked');
    expect(runs).toBe(1);
  });

  it('keeps the usual busy timeout on the connection afterwards', async () => {
    const connection = (ds.driver as unknown as { databaseConnection: Database.Database }).databaseConnection;
    const before = connection.pragma('busy_timeout', { simple: true });
    await insert('after');
    expect(connection.pragma('busy_timeout', { simple: true })).toBe(before);
    expect(before).toBeGreaterThan(0);
  });
});

/** A MySQL data source whose transactions fail with the given errors, in turn, before they succeed. */
function mysqlFailing(errors: unknown[]): { dataSource: DataSource; runs: () => number } {
  let runs = 0;
  const dataSource = {
    options: { type: 'mysql' },
    async transaction(work: (em: EntityManager) => Promise<unknown>) {
      runs++;
      const error = errors.shift();
      // eslint-disable-next-line @typescript-eslint/only-throw-error -- a driver's error as the driver throws it
      if (error) throw error;
      return work({} as EntityManager);
    },
  } as unknown as DataSource;
  return { dataSource, runs: () => runs };
}

const deadlock = Object.assign(new Error('Deadlock found when trying to get lock; try restarting transaction'), {
  driverError: { code: 'ER_LOCK_DEADLOCK', errno: 1213 },
});

describe('writeTransaction on MySQL', () => {
  it('runs a transaction again when InnoDB chose it as a deadlock victim', async () => {
    const { dataSource, runs } = mysqlFailing([deadlock, deadlock]);
    await expect(writeTransaction(dataSource, async () => 'done')).resolves.toBe('done');
    expect(runs()).toBe(3);
  });

  it('runs a transaction again when its COMMIT fails certification on a Galera cluster (1213), its work done again', async () => {
    // Galera certifies a transaction at commit: the work ran, then the commit was refused.
    let commits = 0;
    let works = 0;
    const certification = Object.assign(
      new Error('Deadlock found when trying to get lock; try restarting transaction'),
      { driverError: { code: 'ER_LOCK_DEADLOCK', errno: 1213 } },
    );
    const dataSource = {
      options: { type: 'mysql' },
      async transaction(work: (em: EntityManager) => Promise<unknown>) {
        const result = await work({} as EntityManager);
        if (commits++ === 0) throw certification;
        return result;
      },
    } as unknown as DataSource;
    await expect(writeTransaction(dataSource, async () => `work ${++works}`)).resolves.toBe('work 2');
    expect(commits).toBe(2);
  });

  it('runs a transaction again when its connection was lost before its work was done, not when lost at COMMIT', async () => {
    const lost = Object.assign(new Error('Connection lost: The server closed the connection.'), {
      code: 'PROTOCOL_CONNECTION_LOST',
      fatal: true,
    });
    let works = 0;
    const losing = (atCommit: boolean) =>
      ({
        options: { type: 'mysql' },
        async transaction(work: (em: EntityManager) => Promise<unknown>) {
          if (!atCommit && works === 0) {
            works++;
            throw lost;
          }
          const result = await work({} as EntityManager);
          if (atCommit) throw lost;
          return result;
        },
      }) as unknown as DataSource;
    await expect(writeTransaction(losing(false), async () => `work ${++works}`)).resolves.toBe('work 2');
    works = 0;
    let runs = 0;
    await expect(writeTransaction(losing(true), async () => ++runs)).rejects.toBe(lost);
    expect(runs).toBe(1);
  });

  it('gives up after its retries, with the deadlock', async () => {
    const { dataSource, runs } = mysqlFailing(new Array(LOCK_CONFLICT_RETRIES + 2).fill(deadlock));
    await expect(writeTransaction(dataSource, async () => 'done')).rejects.toBe(deadlock);
    expect(runs()).toBe(LOCK_CONFLICT_RETRIES + 1);
  });

  it('does not run a transaction again after any other error', async () => {
    const duplicate = Object.assign(new Error("Duplicate entry 'x' for key 'option_name'"), {
      driverError: { code: 'ER_DUP_ENTRY', errno: 1062 },
    });
    const { dataSource, runs } = mysqlFailing([duplicate]);
    await expect(writeTransaction(dataSource, async () => 'done')).rejects.toBe(duplicate);
    expect(runs()).toBe(1);
  });

  it('knows deadlocks and lock wait timeouts by code or number', () => {
    expect(
      [deadlock, { code: 'ER_LOCK_WAIT_TIMEOUT' }, { errno: 1205 }, { code: 'ER_DUP_ENTRY' }, null].map(isLockConflict),
    ).toEqual([true, true, true, false, false]);
  });
});
