import { ByteLru, LruEntry } from '../cache/byte-lru';
import { SHORT_CACHE } from '../cache/cache-limits';

/** Approximate bytes of a {@link ShortCache} entry besides its key and value (the entry, its promise). */
export const SHORT_ENTRY_BYTES = 160;

/**
 * Approximate bytes of a value kept by a {@link ShortCache}, in O(1): numbers, strings (two bytes a character),
 * arrays (of numbers: eight bytes an element); anything else as a small object.
 */
export function shortValueBytes(value: unknown): number {
  if (typeof value === 'string') return value.length * 2;
  if (Array.isArray(value)) return 16 + value.length * 8;
  return typeof value === 'object' && value !== null ? 64 : 8;
}

/** One value kept by a {@link ShortCache}. */
class Held<T> implements LruEntry {
  used = 0;

  constructor(
    readonly cache: ShortCache<T>,
    readonly key: string,
    readonly at: number,
    readonly value: Promise<T>,
    public size: number,
  ) {}

  evicted(): void {
    this.cache.forget(this);
  }
}

/**
 * Values read from the database and kept for a moment, by key — collection totals (`X-CMS-Total`), the authors who
 * published something: counting or collecting over every matching row is the costliest part of listing a large
 * collection, and the same filters come again and again. A write through this node clears the cache at once (see
 * {@link clearOnWrites}); writes made by other nodes show after at most `ttlMs`. At most `max` values and
 * `maxBytes` (keys two bytes a character, values by {@link shortValueBytes}) are kept, the least recently used
 * evicted first (see {@link SHORT_CACHE}).
 */
export class ShortCache<T> {
  private readonly entries = new Map<string, Held<T>>();
  readonly pool: ByteLru<Held<T>>;
  /** Set by {@link VersionStamps.validate}: values are kept until a version moves, not for `ttlMs`. */
  validated = false;

  constructor(
    private readonly ttlMs = 1000,
    max: number = SHORT_CACHE.entries,
    maxBytes: number = SHORT_CACHE.bytes,
  ) {
    this.pool = new ByteLru<Held<T>>('short-cache', maxBytes, max);
  }

  get(key: string, load: () => Promise<T>): Promise<T> {
    const now = Date.now();
    const hit = this.entries.get(key);
    if (hit) {
      if (this.validated || now - hit.at < this.ttlMs) {
        this.pool.touch(hit);
        return hit.value;
      }
      this.drop(hit);
    }
    const value = load();
    const entry = new Held(this, key, now, value, SHORT_ENTRY_BYTES + key.length * 2);
    if (this.pool.admit(entry)) {
      this.entries.set(key, entry);
      value.then(
        (loaded) => this.pool.resize(entry, entry.size + shortValueBytes(loaded)),
        () => this.drop(entry),
      );
    }
    return value;
  }

  /** Forgets every value (after a write). */
  clear(): void {
    this.entries.clear();
    this.pool.clear();
  }

  /** Forgets an entry the pool dropped. */
  forget(entry: Held<T>): void {
    if (this.entries.get(entry.key) === entry) this.entries.delete(entry.key);
  }

  private drop(entry: Held<T>): void {
    this.forget(entry);
    this.pool.remove(entry);
  }
}

/**
 * Clears the caches whenever anything is written through the data source (this server's writers, or code sharing it).
 * A cache the version stamps keep exact (`validated`, see `VersionStamps.validate`) is left to them: they clear it
 * when a write moves a group it depends on, and an edit of a post's text leaves a count of posts by status alone.
 */
export function clearOnWrites(dataSource: { subscribers: unknown[] }, ...caches: Array<{ clear(): void; validated?: boolean }>): void {
  const clear = () => {
    for (const cache of caches) if (!cache.validated) cache.clear();
  };
  // Again once the transaction has ended: a value read meanwhile (a count in SQLite's read thread sees committed rows
  // only) would be from before the write.
  dataSource.subscribers.push({ afterInsert: clear, afterUpdate: clear, afterRemove: clear, afterTransactionCommit: clear, afterTransactionRollback: clear });
}
