import { ByteLru, LruEntry } from '../memory/byte-lru';
import { SHORT_CACHE } from '../memory/cache-limits';

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

/**
 * How old a {@link ShortCache}'s value may be served while it is loaded again in the background (without version
 * stamps): past it, requests wait for the load already under way instead (never start a second one).
 */
export const SHORT_CACHE_STALE_MS = 10_000;

/** One value kept by a {@link ShortCache}. */
class Held<T> implements LruEntry {
  used = 0;
  /** The value, once loaded (a value still loading, or that failed, is never served stale). */
  loaded = false;
  /** The load of the next value, under way. */
  refresh: Promise<T> | null = null;

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
 * {@link clearOnWrites}); writes made by other nodes show after at most `ttlMs` plus the time of one load: a value
 * older than `ttlMs` is still served while one request loads it again in the background, and the requests that come
 * meanwhile never wait for that load — unless the value is older than {@link SHORT_CACHE_STALE_MS}, when they share
 * it. Values validated by the version stamps ({@link validated}) are kept until a version moves instead; the
 * requests that arrive while a value is loaded share that one load. At most `max` values and `maxBytes` (keys two
 * bytes a character, values by {@link shortValueBytes}) are kept, the least recently used evicted first (see
 * {@link SHORT_CACHE}).
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
      if (hit.loaded) {
        this.pool.touch(hit);
        const refresh = hit.refresh ?? this.refresh(hit, load, now);
        return now - hit.at < SHORT_CACHE_STALE_MS ? hit.value : refresh;
      }
      this.drop(hit);
    }
    return this.load(key, load, now);
  }

  private load(key: string, load: () => Promise<T>, now: number): Promise<T> {
    const value = load();
    const entry = new Held(this, key, now, value, SHORT_ENTRY_BYTES + key.length * 2);
    if (this.pool.admit(entry)) {
      this.entries.set(key, entry);
      value.then(
        (loaded) => {
          entry.loaded = true;
          this.pool.resize(entry, entry.size + shortValueBytes(loaded));
        },
        () => this.drop(entry),
      );
    }
    return value;
  }

  /** Loads `entry`'s value again in the background; the new value replaces it once read (a failure keeps it). */
  private refresh(entry: Held<T>, load: () => Promise<T>, now: number): Promise<T> {
    const refresh = load();
    entry.refresh = refresh;
    refresh.then(
      () => {
        // Cleared or evicted meanwhile (a write): the value read is not kept.
        if (this.entries.get(entry.key) !== entry) return;
        this.drop(entry);
        void this.load(entry.key, () => refresh, now);
      },
      () => {
        if (entry.refresh === refresh) entry.refresh = null;
      },
    );
    return refresh;
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
export function clearOnWrites(
  dataSource: { subscribers: unknown[] },
  ...caches: Array<{ clear(): void; validated?: boolean }>
): void {
  const clear = () => {
    for (const cache of caches) if (!cache.validated) cache.clear();
  };
  // Again once the transaction has ended: a value read meanwhile (a count in SQLite's read thread sees committed rows
  // only) would be from before the write.
  dataSource.subscribers.push({
    afterInsert: clear,
    afterUpdate: clear,
    afterRemove: clear,
    afterTransactionCommit: clear,
    afterTransactionRollback: clear,
  });
}
