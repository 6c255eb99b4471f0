import { Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { CMS_DATA_SOURCE } from '../database/cms-data-source';
import { OptionEntity } from '../database/entities/option.entity';
import { maybeSerialize, maybeUnserialize } from '../database/php-serialize';
import { writeTransaction } from '../database/write-transaction';

/** How long autoloaded options are kept in memory before they are read again (nodes share one database). */
const AUTOLOAD_TTL_MS = 5_000;

/**
 * Site options, stored where WordPress stores them (`<prefix>options`, PHP-serialized values, `autoload`).
 * Autoloaded options are read in one query and kept briefly; other options are read on demand.
 */
@Injectable()
export class OptionsService {
  private autoloaded: Map<string, string> | null = null;
  /** Unserialized autoloaded values (parsed once per reload; callers must not mutate them). */
  private parsed = new Map<string, unknown>();
  /** Options known not to exist (WordPress's `notoptions`), forgotten with the autoloaded ones. */
  private missing = new Set<string>();
  private loadedAt = 0;

  constructor(@Inject(CMS_DATA_SOURCE) private readonly dataSource: DataSource) {}

  private get repo() {
    return this.dataSource.getRepository(OptionEntity);
  }

  private async autoloadMap(): Promise<Map<string, string>> {
    if (this.autoloaded && Date.now() - this.loadedAt < AUTOLOAD_TTL_MS) return this.autoloaded;
    const rows = await this.repo
      .createQueryBuilder('o')
      .select(['o.name', 'o.value'])
      .where('o.autoload IN (:...yes)', { yes: ['yes', 'on', 'auto', 'auto-on'] })
      .getMany();
    this.autoloaded = new Map(rows.map((r) => [r.name, r.value]));
    this.parsed = new Map();
    this.missing = new Set();
    this.loadedAt = Date.now();
    return this.autoloaded;
  }

  /** An autoloaded option's unserialized value, parsed once. */
  private parsedAutoload(auto: Map<string, string>, name: string): unknown {
    if (!this.parsed.has(name)) this.parsed.set(name, maybeUnserialize(auto.get(name)));
    return this.parsed.get(name);
  }

  /** The unserialized value of an option, or `fallback` when it does not exist. */
  async get<T = unknown>(name: string, fallback?: T): Promise<T> {
    const auto = await this.autoloadMap();
    if (auto.has(name)) return this.parsedAutoload(auto, name) as T;
    if (this.missing.has(name)) return fallback as T;
    const row = await this.repo.findOne({ where: { name }, select: { id: true, value: true } });
    if (!row) this.missing.add(name);
    return row ? (maybeUnserialize(row.value) as T) : (fallback as T);
  }

  /** Several options at once (autoloaded ones from memory, the rest in one query). */
  async getMany(names: string[]): Promise<Record<string, unknown>> {
    const auto = await this.autoloadMap();
    const out: Record<string, unknown> = {};
    const missing = names.filter((n) => !auto.has(n) && !this.missing.has(n));
    for (const n of names) if (auto.has(n)) out[n] = this.parsedAutoload(auto, n);
    if (missing.length) {
      const rows = await this.repo.createQueryBuilder('o').where('o.name IN (:...missing)', { missing }).getMany();
      for (const row of rows) out[row.name] = maybeUnserialize(row.value);
      for (const n of missing) if (!(n in out)) this.missing.add(n);
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
        await repo.insert({ name, value: stored, autoload: autoload === false ? 'no' : 'yes' });
      }
    });
    this.autoloaded = null;
  }

  /**
   * Changes an option from its current value inside the caller's transaction (the row is locked on MySQL), e.g. to
   * add an id to `sticky_posts`. `change` returns the new value, or `undefined` to leave the option as it is.
   */
  async updateWithin(em: EntityManager, name: string, change: (current: unknown) => unknown): Promise<void> {
    const repo = em.getRepository(OptionEntity);
    const locking = em.connection.options.type === 'mysql' || em.connection.options.type === 'mariadb';
    const row = await repo.findOne({ where: { name }, ...(locking ? { lock: { mode: 'pessimistic_write' as const } } : {}) });
    const next = change(row ? maybeUnserialize(row.value) : undefined);
    if (next === undefined) return;
    const stored = maybeSerialize(next);
    if (row) await repo.update({ id: row.id }, { value: stored });
    else await repo.insert({ name, value: stored, autoload: 'yes' });
    this.autoloaded = null;
  }

  async delete(name: string): Promise<boolean> {
    const result = await this.repo.delete({ name });
    this.autoloaded = null;
    return (result.affected ?? 0) > 0;
  }

  /** Forgets cached values (after writes made elsewhere). */
  invalidate(): void {
    this.autoloaded = null;
  }
}
