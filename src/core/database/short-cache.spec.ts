import { memoryDatabase, OPTIONS_TABLE_SQL } from '../../../test/utils/memory-database';
import { DataSource } from 'typeorm';
import { OptionEntity } from './entities/option.entity';
import { countWithin } from './raw-query';
import { SHORT_CACHE } from '../memory/cache-limits';
import { clearOnWrites, SHORT_CACHE_STALE_MS, SHORT_ENTRY_BYTES, ShortCache, shortValueBytes } from './short-cache';

describe('ShortCache', () => {
  // A clock the tests move by hand.
  let now: number;
  let clock: jest.SpyInstance;
  beforeEach(() => {
    now = 1_000_000;
    clock = jest.spyOn(Date, 'now').mockImplementation(() => now);
  });
  afterEach(() => clock.mockRestore());

  it('keeps a value for its moment, then serves it while it is loaded again once, and the new value after', async () => {
    let loads = 0;
    const cache = new ShortCache<number>(1000);
    const load = async () => ++loads;
    expect(await cache.get('k', load)).toBe(1);
    now += 999;
    expect(await cache.get('k', load)).toBe(1);
    expect(loads).toBe(1);
    now += 1;
    // Expired: the previous value at once, the next one loading in the background.
    expect(await cache.get('k', load)).toBe(1);
    expect(loads).toBe(2);
    expect(await cache.get('k', load)).toBe(2);
    expect(loads).toBe(2);
  });

  /** A cache of a 1 s moment, a load that answers when the test releases it, and how many loads started. */
  function slowLoads() {
    const loader = {
      loads: 0,
      release: (_value: number): void => undefined,
      cache: new ShortCache<number>(1000),
      slow: () => {
        loader.loads++;
        return new Promise<number>((resolve) => (loader.release = resolve));
      },
    };
    return loader;
  }

  it('never starts a second load while one is under way, and requests do not wait for it', async () => {
    const loader = slowLoads();
    const { cache, slow } = loader;
    const first = cache.get('k', slow);
    // Requests arriving while the first load runs share it.
    const second = cache.get('k', slow);
    expect(loader.loads).toBe(1);
    loader.release(10);
    expect([await first, await second]).toEqual([10, 10]);
    now += 1500;
    // Expired: every request is answered with 10 at once while one load (of 20) is under way.
    const answers = await Promise.all([cache.get('k', slow), cache.get('k', slow), cache.get('k', slow)]);
    expect(answers).toEqual([10, 10, 10]);
    expect(loader.loads).toBe(2);
    loader.release(20);
    await new Promise((resolve) => setImmediate(resolve));
    expect(await cache.get('k', slow)).toBe(20);
    expect(loader.loads).toBe(2);
  });

  it('past the staleness bound, waits for the load under way instead of serving the old value', async () => {
    const loader = slowLoads();
    const { cache, slow } = loader;
    const first = cache.get('k', slow);
    loader.release(1);
    await first;
    now += 2000;
    expect(await cache.get('k', slow)).toBe(1);
    expect(loader.loads).toBe(2);
    now += SHORT_CACHE_STALE_MS;
    let settled = false;
    const waiting = cache.get('k', slow).then((value) => ((settled = true), value));
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    // Still the one load: no second count started for a value too old to serve.
    expect(loader.loads).toBe(2);
    loader.release(2);
    expect(await waiting).toBe(2);
  });

  it('keeps the old value when a background load fails, and drops what a load read across a clear', async () => {
    const cache = new ShortCache<number>(1000);
    expect(await cache.get('k', async () => 1)).toBe(1);
    now += 1500;
    let fail: (error: Error) => void = () => undefined;
    expect(await cache.get('k', () => new Promise<number>((_, reject) => (fail = reject)))).toBe(1);
    fail(new Error('down'));
    await new Promise((resolve) => setImmediate(resolve));
    let release: (value: number) => void = () => undefined;
    expect(await cache.get('k', () => new Promise<number>((resolve) => (release = resolve)))).toBe(1);
    // A write clears the cache while the load runs: what it read is not kept.
    cache.clear();
    release(5);
    await new Promise((resolve) => setImmediate(resolve));
    expect(await cache.get('k', async () => 6)).toBe(6);
  });

  it('forgets a failed load', async () => {
    const cache = new ShortCache<number>(60_000);
    await expect(cache.get('k', () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    expect(await cache.get('k', async () => 7)).toBe(7);
  });
});

describe('ShortCache bounds', () => {
  const key = (i: number, length = 100) => `k${i}`.padEnd(length, '.');

  it('counts keys (two bytes a character) and values once loaded, and keeps the most recently used within its bytes', async () => {
    const entry = SHORT_ENTRY_BYTES + 100 * 2 + shortValueBytes(1);
    const cache = new ShortCache<number>(60_000, 500, 10 * entry);
    for (let i = 0; i < 10; i++) await cache.get(key(i), async () => 1);
    expect(cache.pool.bytes).toBe(10 * entry);
    expect(await cache.get(key(0), async () => 2)).toBe(1); // the oldest, used again
    await cache.get(key(10), async () => 1);
    expect(cache.pool.bytes).toBe(10 * entry);
    expect(cache.pool.entries).toBe(10);
    expect(await cache.get(key(1), async () => 2)).toBe(2); // evicted: loaded again
    expect(await cache.get(key(0), async () => 3)).toBe(1);
  });

  it('counts arrays by their length', async () => {
    const cache = new ShortCache<number[]>(60_000, 500, 100_000);
    await cache.get('authors', async () => Array.from({ length: 1000 }, (_, i) => i));
    expect(cache.pool.bytes).toBe(SHORT_ENTRY_BYTES + 'authors'.length * 2 + 16 + 8000);
    expect(shortValueBytes('abc')).toBe(6);
  });

  it('does not keep an entry larger than an eighth of its bytes, and keeps its entry count cap', async () => {
    const cache = new ShortCache<number>(60_000, 3, 8000);
    let loads = 0;
    await cache.get(key(0, 1000), async () => ++loads);
    await cache.get(key(0, 1000), async () => ++loads);
    expect(loads).toBe(2);
    expect(cache.pool.entries).toBe(0);
    for (let i = 0; i < 5; i++) await cache.get(key(i, 10), async () => i);
    expect(cache.pool.entries).toBe(3);
  });

  it('stays within SHORT_CACHE bytes by default, whatever the keys', async () => {
    const cache = new ShortCache<number>();
    for (let i = 0; i < 600; i++) await cache.get(key(i, 20_000), async () => i);
    expect(cache.pool.maxBytes).toBe(SHORT_CACHE.bytes);
    expect(cache.pool.bytes).toBeLessThanOrEqual(SHORT_CACHE.bytes);
    expect(cache.pool.entries).toBeLessThan(600);
    for (let i = 0; i < 600; i++) await cache.get(key(i), async () => i);
    expect(cache.pool.entries).toBe(SHORT_CACHE.entries);
  });

  it('forgets a failed load without dropping a value loaded since, and empties on clear', async () => {
    const cache = new ShortCache<number>(60_000);
    let fail!: (e: Error) => void;
    const failing = cache.get('k', () => new Promise<number>((_, reject) => (fail = reject)));
    cache.clear();
    expect(cache.pool.bytes).toBe(0);
    expect(await cache.get('k', async () => 7)).toBe(7);
    fail(new Error('down'));
    await expect(failing).rejects.toThrow('down');
    expect(await cache.get('k', async () => 8)).toBe(7);
  });
});

describe('clearOnWrites', () => {
  let ds: DataSource;
  let table: string;

  beforeAll(async () => {
    ({ ds, table } = await memoryDatabase(OptionEntity, OPTIONS_TABLE_SQL));
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
    await ds.transaction((em) =>
      em.query(`INSERT INTO ${table} (option_name, option_value, autoload) VALUES ('raw', '1', 'yes')`),
    );
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
