import { memoryDatabase, OPTIONS_TABLE_SQL } from '../../../test/utils/memory-database';
import { DataSource, Repository } from 'typeorm';
import { cacheUsage } from '../memory/byte-lru';
import { CACHE_ENTRY_SHARE, OPTIONS_CACHE } from '../memory/cache-limits';
import { OptionEntity } from '../database/entities/option.entity';
import { OptionsService } from './options.service';

/** The options kept in memory, within OPTIONS_CACHE, on an in-memory SQLite database. */
describe('OptionsService memory bounds', () => {
  let ds: DataSource;

  beforeAll(async () => {
    ({ ds } = await memoryDatabase(OptionEntity, OPTIONS_TABLE_SQL));
  });

  afterAll(async () => {
    if (ds?.isInitialized) await ds.destroy();
  });

  const insert = (name: string, value: string, autoload = 'yes') =>
    ds.getRepository(OptionEntity).insert({ name, value, autoload });
  const usage = () => cacheUsage().filter((c) => c.name === 'options');

  it('keeps autoloaded options within its bytes, and reads the others when asked for', async () => {
    await insert('blogname', 'Site');
    // 40 options of 100,000 characters: about 24 MB estimated (text and unserialized value), three times the bound.
    for (let i = 0; i < 40; i++) await insert(`large_${i}`, String(i).padEnd(100_000, 'x'));
    // Larger than an option may be in memory: never loaded with the others.
    const huge = 'h'.repeat(Math.ceil((OPTIONS_CACHE.bytes * CACHE_ENTRY_SHARE) / 6) + 1);
    await insert('huge', huge);
    const options = new OptionsService(ds);
    expect(await options.get('blogname')).toBe('Site');
    const [pool] = usage().filter((c) => c.entries > 0);
    expect(pool.maxBytes).toBe(OPTIONS_CACHE.bytes);
    expect(pool.bytes).toBeLessThanOrEqual(OPTIONS_CACHE.bytes);
    expect(pool.bytes).toBeGreaterThan(OPTIONS_CACHE.bytes / 2);
    expect(pool.entries).toBeLessThan(42);
    const kept = (options as unknown as { autoloaded: Map<string, unknown> }).autoloaded;
    expect(kept.has('blogname')).toBe(true);
    expect(kept.has('huge')).toBe(false);
    // Every value is still right, whether kept or read from the database.
    for (let i = 0; i < 40; i++) expect(await options.get(`large_${i}`)).toBe(String(i).padEnd(100_000, 'x'));
    expect(await options.get('huge')).toBe(huge);
    const many = await options.getMany(['blogname', 'huge', 'large_0', 'large_39', 'absent']);
    expect(Object.keys(many).sort()).toEqual(['blogname', 'huge', 'large_0', 'large_39']);
    expect(many.huge).toBe(huge);
    expect(usage().reduce((n, c) => Math.max(n, c.bytes), 0)).toBeLessThanOrEqual(OPTIONS_CACHE.bytes);
  });

  it('remembers a bounded number of missing option names', async () => {
    const options = new OptionsService(ds);
    for (let i = 0; i < OPTIONS_CACHE.missingNames + 200; i++)
      expect(await options.get(`absent_${i}`, 'fallback')).toBe('fallback');
    expect(await options.get('x'.repeat(500), 'long')).toBe('long');
    const missing = (options as unknown as { missing: Set<string> }).missing;
    expect(missing.size).toBe(OPTIONS_CACHE.missingNames);
    expect(missing.has('x'.repeat(500))).toBe(false);
    // A remembered name costs no query.
    const findOne = jest.spyOn(Repository.prototype, 'findOne');
    try {
      expect(await options.get('absent_0', 'again')).toBe('again');
      expect(findOne).not.toHaveBeenCalled();
      expect(await options.get(`absent_${OPTIONS_CACHE.missingNames + 100}`, 'again')).toBe('again');
      expect(findOne).toHaveBeenCalledTimes(1);
    } finally {
      findOne.mockRestore();
    }
  });
});
