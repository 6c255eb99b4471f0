/**
 * Values read from the database and kept for a moment, by key — collection totals (`X-CMS-Total`), the authors who
 * published something: counting or collecting over every matching row is the costliest part of listing a large
 * collection, and the same filters come again and again. A write through this node clears the cache at once (see
 * {@link clearOnWrites}); writes made by other nodes show after at most `ttlMs`.
 */
export class ShortCache<T> {
  private readonly entries = new Map<string, { at: number; value: Promise<T> }>();

  constructor(
    private readonly ttlMs = 1000,
    private readonly max = 500,
  ) {}

  get(key: string, load: () => Promise<T>): Promise<T> {
    const now = Date.now();
    const hit = this.entries.get(key);
    if (hit && now - hit.at < this.ttlMs) return hit.value;
    const value = load();
    if (this.entries.size >= this.max) this.entries.clear();
    this.entries.set(key, { at: now, value });
    value.catch(() => this.entries.delete(key));
    return value;
  }

  /** Forgets every value (after a write). */
  clear(): void {
    this.entries.clear();
  }
}

/** Clears the caches whenever anything is written through the data source (this server's writers, or code sharing it). */
export function clearOnWrites(dataSource: { subscribers: unknown[] }, ...caches: Array<{ clear(): void }>): void {
  const clear = () => caches.forEach((c) => c.clear());
  // Again once the transaction has ended: a value read meanwhile (a count in SQLite's read thread sees committed rows
  // only) would be from before the write.
  dataSource.subscribers.push({ afterInsert: clear, afterUpdate: clear, afterRemove: clear, afterTransactionCommit: clear, afterTransactionRollback: clear });
}
