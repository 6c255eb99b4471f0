/**
 * Totals of collection queries (`X-CMS-Total`) kept for a moment: counting every matching row is the costliest
 * part of listing a large collection, and the same filters are counted again and again. A write on this node clears
 * the cache at once; writes made by other nodes show in totals after at most `ttlMs`.
 */
export class CountCache {
  private readonly entries = new Map<string, { at: number; value: Promise<number> }>();

  constructor(
    private readonly ttlMs = 1000,
    private readonly max = 500,
  ) {}

  get(key: string, count: () => Promise<number>): Promise<number> {
    const now = Date.now();
    const hit = this.entries.get(key);
    if (hit && now - hit.at < this.ttlMs) return hit.value;
    const value = count();
    if (this.entries.size >= this.max) this.entries.clear();
    this.entries.set(key, { at: now, value });
    value.catch(() => this.entries.delete(key));
    return value;
  }

  /** Forgets every total (after a write). */
  clear(): void {
    this.entries.clear();
  }
}
