import { Inject, Injectable, Optional } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { ByteLru, LruEntry } from '../memory/byte-lru';
import { CACHE_ENTRY_SHARE, OPTIONS_CACHE } from '../memory/cache-limits';
import { CMS_DATA_SOURCE } from '../database/cms-data-source';
import { OptionEntity } from '../database/entities/option.entity';
import { maybeSerialize, maybeUnserialize } from '../formatting/php-serialize';
import { writeTransaction } from '../database/write-transaction';
import { VersionStamps } from '../database/version-stamps';
import { isMySql } from '../database/query-helpers';

/** How long autoloaded options are kept in memory before they are read again (nodes share one database). */
const AUTOLOAD_TTL_MS = 5_000;

/** Longest option name (`option_name` is VARCHAR(191)): longer names are not remembered as missing. */
const NAME_MAX = 191;

/**
 * Approximate bytes an autoloaded option keeps in memory: its name and text, two bytes a character, its
 * unserialized value estimated at twice its text, and the entry.
 */
function optionBytes(name: string, value: string): number {
  return 96 + name.length * 2 + value.length * 6;
}

/** The longest option text kept in memory (longer ones are read when asked for; `LENGTH` in bytes on MySQL). */
const AUTOLOAD_MAX_CHARS = Math.floor(
  (OPTIONS_CACHE.bytes * CACHE_ENTRY_SHARE - optionBytes('x'.repeat(NAME_MAX), '')) / 6,
);

const UNPARSED = Symbol('unparsed');

/** An autoloaded option kept in memory. */
class Autoloaded implements LruEntry {
  used = 0;
  /** The unserialized value, once asked for (callers must not mutate it). */
  parsed: unknown = UNPARSED;

  constructor(
    readonly owner: Map<string, Autoloaded>,
    readonly name: string,
    readonly value: string,
    public size: number,
  ) {}

  evicted(): void {
    if (this.owner.get(this.name) === this) this.owner.delete(this.name);
  }
}

/**
 * Site options, stored where WordPress stores them (`<prefix>options`, PHP-serialized values, `autoload`).
 * Autoloaded options are read in one query and kept briefly, within {@link OPTIONS_CACHE}: the smallest first, as
 * many as fit; the others are read on demand, like the options that are not autoloaded.
 */
@Injectable()
export class OptionsService {
  private autoloaded: Map<string, Autoloaded> | null = null;
  /** The bytes of {@link autoloaded}. */
  private readonly pool = new ByteLru<Autoloaded>('options', OPTIONS_CACHE.bytes);
  /** Options known not to exist (WordPress's `notoptions`), forgotten with the autoloaded ones; a bounded number. */
  private missing = new Set<string>();
  private loadedAt = 0;
  /** Moves with every {@link invalidate}: a load that began before one is not kept. */
  private generation = 0;

  constructor(
    @Inject(CMS_DATA_SOURCE) private readonly dataSource: DataSource,
    @Optional() private readonly stamps?: VersionStamps,
  ) {
    // With version stamps, the options are kept until their version moves (a write on any node), not for a while.
    stamps?.onChange('options', () => this.invalidate());
  }

  private get repo() {
    return this.dataSource.getRepository(OptionEntity);
  }

  private async autoloadMap(): Promise<Map<string, Autoloaded>> {
    if (this.autoloaded && (this.stamps?.enabled || Date.now() - this.loadedAt < AUTOLOAD_TTL_MS))
      return this.autoloaded;
    const generation = this.generation;
    const rows = await this.repo
      .createQueryBuilder('o')
      .select(['o.name', 'o.value'])
      .where('o.autoload IN (:...yes)', { yes: ['yes', 'on', 'auto', 'auto-on'] })
      .andWhere('LENGTH(o.value) <= :chars', { chars: AUTOLOAD_MAX_CHARS })
      .getMany();
    // The smallest first, as many as fit: the ones left out are read when asked for.
    rows.sort((a, b) => a.value.length - b.value.length);
    const autoloaded = new Map<string, Autoloaded>();
    // Invalidated while reading: answer this caller from what was read, keep nothing.
    if (generation !== this.generation)
      return new Map(rows.map((row) => [row.name, new Autoloaded(autoloaded, row.name, row.value, 0)]));
    this.pool.clear();
    for (const row of rows) {
      const size = optionBytes(row.name, row.value);
      if (!this.pool.fits(size)) break;
      const option = new Autoloaded(autoloaded, row.name, row.value, size);
      this.pool.admit(option);
      autoloaded.set(row.name, option);
    }
    this.autoloaded = autoloaded;
    this.missing = new Set();
    this.loadedAt = Date.now();
    return autoloaded;
  }

  /** An autoloaded option's unserialized value, parsed once. */
  private parsedAutoload(option: Autoloaded): unknown {
    if (option.parsed === UNPARSED) option.parsed = maybeUnserialize(option.value);
    return option.parsed;
  }

  /** Remembers that an option does not exist, for a bounded number of names. */
  private remember(name: string): void {
    if (this.missing.size < OPTIONS_CACHE.missingNames && name.length <= NAME_MAX) this.missing.add(name);
  }

  /** The unserialized value of an option, or `fallback` when it does not exist. */
  async get<T = unknown>(name: string, fallback?: T): Promise<T> {
    const option = (await this.autoloadMap()).get(name);
    if (option) return this.parsedAutoload(option) as T;
    if (this.missing.has(name)) return fallback as T;
    const row = await this.repo.findOne({ where: { name }, select: { id: true, value: true } });
    if (!row) this.remember(name);
    return row ? (maybeUnserialize(row.value) as T) : (fallback as T);
  }

  /** Several options at once (autoloaded ones from memory, the rest in one query). */
  async getMany(names: string[]): Promise<Record<string, unknown>> {
    const auto = await this.autoloadMap();
    const out: Record<string, unknown> = {};
    const missing: string[] = [];
    for (const n of names) {
      const option = auto.get(n);
      if (option) out[n] = this.parsedAutoload(option);
      else if (!this.missing.has(n)) missing.push(n);
    }
    if (missing.length) {
      const rows = await this.repo.createQueryBuilder('o').where('o.name IN (:...missing)', { missing }).getMany();
      for (const row of rows) out[row.name] = maybeUnserialize(row.value);
      for (const n of missing) if (!(n in out)) this.remember(n);
    }
    return out;
  }

  /** Creates or updates an option (serialized the way WordPress does). */
  async set(name: string, value: unknown, autoload?: boolean): Promise<void> {
    const stored = maybeSerialize(value);
    await writeTransaction(this.dataSource, async (em) => {
      const repo = em.getRepository(OptionEntity);
      const row = await repo.findOne({ where: { name } });
      if (row) {
        row.value = stored;
        if (autoload !== undefined) row.autoload = autoload ? 'yes' : 'no';
        await repo.save(row);
      } else {
        // Another request may add the same option meanwhile: the row is written either way (last one wins).
        await repo
          .createQueryBuilder()
          .insert()
          .values({ name, value: stored, autoload: autoload === false ? 'no' : 'yes' })
          .orUpdate(['option_value', 'autoload'], ['option_name'])
          .execute();
      }
    });
    this.invalidate();
  }

  /**
   * Adds an option unless it exists (`add_option()`): of requests adding the same option at once, the first one's
   * value is kept. Answers the stored value.
   */
  async add<T = unknown>(name: string, value: unknown, autoload = true): Promise<T> {
    const stored = await writeTransaction(this.dataSource, async (em) => {
      const repo = em.getRepository(OptionEntity);
      await repo
        .createQueryBuilder()
        .insert()
        .values({ name, value: maybeSerialize(value), autoload: autoload ? 'yes' : 'no' })
        .orIgnore()
        .execute();
      return (await repo.findOne({ where: { name } }))?.value ?? '';
    });
    this.invalidate();
    return maybeUnserialize(stored) as T;
  }

  /**
   * Changes an option from its current value inside the caller's transaction (the row is locked on MySQL), e.g. to
   * add an id to `sticky_posts`. `change` returns the new value, or `undefined` to leave the option as it is.
   */
  async updateWithin(em: EntityManager, name: string, change: (current: unknown) => unknown): Promise<void> {
    const repo = em.getRepository(OptionEntity);
    const locking = isMySql(em.connection);
    const row = await repo.findOne({
      where: { name },
      ...(locking ? { lock: { mode: 'pessimistic_write' as const } } : {}),
    });
    const next = change(row ? maybeUnserialize(row.value) : undefined);
    if (next === undefined) return;
    const stored = maybeSerialize(next);
    if (row) await repo.update({ id: row.id }, { value: stored });
    else await repo.insert({ name, value: stored, autoload: 'yes' });
    this.invalidate();
  }

  async delete(name: string): Promise<boolean> {
    const result = await this.repo.delete({ name });
    this.invalidate();
    return (result.affected ?? 0) > 0;
  }

  /** Forgets cached values (after writes made elsewhere). */
  invalidate(): void {
    this.autoloaded = null;
    this.generation++;
  }
}
