import { CACHE_ENTRY_SHARE } from './cache-limits';

/**
 * What a {@link ByteLru} holds. The owner (a cache with its own lookup, usually a `Map`) creates the entry with its
 * approximate size, and forgets it in {@link evicted} when the pool drops it.
 */
export interface LruEntry {
  /** Approximate bytes the entry keeps alive (change it through {@link ByteLru.resize} while held). */
  size: number;
  /** The pool's clock at its last placement (set by the pool). */
  used: number;
  /** Called once when the pool drops the entry to stay within its bounds: the owner removes it from its lookup. */
  evicted(): void;
}

/**
 * The use order and byte count of cache entries, bounded in bytes (and optionally in entries): admitting an entry
 * evicts the least recently used ones until it fits, and an entry larger than `maxEntryBytes` is not admitted. Every
 * operation is O(1). Several caches may share one pool (one budget for all of them): each entry tells its own
 * owner when it is evicted.
 *
 * @example
 * const pool = new ByteLru<Entry>('rendered-html', 16 * 1024 * 1024, 4000);
 * if (pool.admit(entry)) map.set(key, entry); // on a hit: pool.touch(entry)
 */
export class ByteLru<E extends LruEntry = LruEntry> {
  /** Entries, least recently used first. */
  private readonly order = new Set<E>();
  private total = 0;
  /** Counts placements at the recent end of {@link order}. */
  private clock = 0;
  readonly maxEntryBytes: number;

  constructor(
    /** Shown by {@link cacheUsage}. */
    readonly name: string,
    readonly maxBytes: number,
    readonly maxEntries = Infinity,
    maxEntryBytes = Math.floor(maxBytes * CACHE_ENTRY_SHARE),
  ) {
    this.maxEntryBytes = Math.min(maxEntryBytes, maxBytes);
    track(this);
  }

  /** Bytes held. */
  get bytes(): number {
    return this.total;
  }

  /** Entries held. */
  get entries(): number {
    return this.order.size;
  }

  /** Whether an entry of `size` bytes would be admitted without evicting anything. */
  fits(size: number): boolean {
    return size <= this.maxEntryBytes && this.total + size <= this.maxBytes && this.order.size < this.maxEntries;
  }

  /**
   * Takes an entry in as the most recently used, after evicting the least recently used ones it would not fit with;
   * `false` (nothing evicted) when it is larger than {@link maxEntryBytes}: the owner does not keep it.
   */
  admit(entry: E): boolean {
    if (!(entry.size <= this.maxEntryBytes)) return false;
    if (this.order.has(entry)) return true;
    while (this.order.size > 0 && (this.total + entry.size > this.maxBytes || this.order.size >= this.maxEntries))
      this.evictOldest();
    this.order.add(entry);
    this.total += entry.size;
    entry.used = ++this.clock;
    return true;
  }

  /**
   * Marks a held entry as just used. One among the more recently placed half stays where it is (moving it costs
   * two set operations, on every hit of a page of items); eviction still finds the least recently used first.
   */
  touch(entry: E): void {
    if (this.clock - entry.used > this.order.size >> 1 && this.order.delete(entry)) {
      this.order.add(entry);
      entry.used = ++this.clock;
    }
  }

  /** Changes a held entry's size (an entry no longer held just takes the size), evicting what no longer fits. */
  resize(entry: E, size: number): void {
    if (!this.order.has(entry)) {
      entry.size = size;
      return;
    }
    this.total += size - entry.size;
    entry.size = size;
    if (!(size <= this.maxEntryBytes)) {
      this.remove(entry);
      entry.evicted();
      return;
    }
    while (this.total > this.maxBytes) this.evictOldest();
  }

  /** Drops an entry without telling its owner (the owner is the one removing it). */
  remove(entry: E): boolean {
    if (!this.order.delete(entry)) return false;
    this.total -= entry.size;
    return true;
  }

  /** Drops every entry without telling their owners (an owner clearing its own lookup, when it is the only one). */
  clear(): void {
    this.order.clear();
    this.total = 0;
  }

  private evictOldest(): void {
    const oldest = this.order.values().next().value as E;
    this.order.delete(oldest);
    this.total -= oldest.size;
    oldest.evicted();
  }
}

/** What one cache holds, and its bounds (see {@link cacheUsage}). */
export interface CacheUsage {
  name: string;
  bytes: number;
  entries: number;
  maxBytes: number;
  maxEntries: number;
}

const LIVE = new Set<WeakRef<ByteLru>>();
const COLLECTED = new FinalizationRegistry<WeakRef<ByteLru>>((ref) => LIVE.delete(ref));

function track(pool: ByteLru): void {
  const ref = new WeakRef(pool);
  LIVE.add(ref);
  COLLECTED.register(pool, ref);
}

/**
 * The bytes and entries every live cache of the process holds (one row per pool, by name: caches of several
 * application instances in one process, or several services, each have their own row).
 */
export function cacheUsage(): CacheUsage[] {
  const out: CacheUsage[] = [];
  for (const ref of LIVE) {
    const pool = ref.deref();
    if (pool)
      out.push({
        name: pool.name,
        bytes: pool.bytes,
        entries: pool.entries,
        maxBytes: pool.maxBytes,
        maxEntries: pool.maxEntries,
      });
  }
  return out;
}
