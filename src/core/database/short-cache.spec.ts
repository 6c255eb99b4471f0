import { DataSource } from 'typeorm';
import { OptionEntity } from './entities/option.entity';
import { countWithin } from './raw-query';
import { clearOnWrites, ShortCache } from './short-cache';

describe('ShortCache', () => {
  it('keeps a value for its moment, then loads it again', async () => {
    let now = 1_000_000;
    const clock = jest.spyOn(Date, 'now').mockImplementation(() => now);
    try {
      let loads = 0;
      const cache = new ShortCache<number>(1000);
      const load = async () => ++loads;
      expect(await cache.get('k', load)).toBe(1);
      now += 999;
      expect(await cache.get('k', load)).toBe(1);
      now += 1;
      expect(await cache.get('k', load)).toBe(2);
    } finally {
      clock.mockRestore();
    }
  });

  it('forgets a failed load', async () => {
    const cache = new ShortCache<number>(60_000);
    await expect(cache.get('k', () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    expect(await cache.get('k', async () => 7)).toBe(7);
  });
});

describe('clearOnWrites', () => {
  let ds: DataSource;
  let table: string;

  beforeAll(async () => {
    ds = new DataSource({ type: 'better-sqlite3', database: ':memory:', entities: [OptionEntity] });
    await ds.initialize();
    table = ds.getMetadata(OptionEntity).tableName;
    await ds.query(`CREATE TABLE ${table} (option_id INTEGER PRIMARY KEY AUTOINCREMENT, option_name TEXT NOT NULL UNIQUE, option_value TEXT NOT NULL, autoload TEXT NOT NULL)`);
  });

  afterAll(async () => {
    if (ds?.isInitialized) await ds.destroy();
  });

  it('drops cached totals after entity writes and after any transaction, raw SQL writes included', async () => {
    const cache = new ShortCache<number>(60_000);
    clearOnWrites(ds, cache);
    const total = () => countWithin(cache, ds, `SELECT COUNT(*) AS n FROM ${table}`, []);
    expect(await total()).toBe(0);
    await ds.getRepository(OptionEntity).insert({ name: 'entity', value: '1', autoload: 'yes' });
    expect(await total()).toBe(1);
    // A plain statement inside a transaction fires no entity event: the commit clears the totals.
    await ds.transaction((em) => em.query(`INSERT INTO ${table} (option_name, option_value, autoload) VALUES ('raw', '1', 'yes')`));
    expect(await total()).toBe(2);
    // So does a rollback: a total read meanwhile may have counted rows that are gone.
    await expect(
      ds.transaction(async (em) => {
        await em.getRepository(OptionEntity).insert({ name: 'gone', value: '1', autoload: 'yes' });
        // Read on the same connection before the end: the uncommitted row is counted, and the total kept.
        expect(await total()).toBe(3);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(await total()).toBe(2);
  });
});
