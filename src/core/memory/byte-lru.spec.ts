import { ByteLru, cacheUsage, LruEntry } from './byte-lru';

class Entry implements LruEntry {
  used = 0;
  dropped = 0;

  constructor(
    readonly name: string,
    public size: number,
  ) {}

  evicted(): void {
    this.dropped++;
  }
}

describe('ByteLru', () => {
  const fill = (pool: ByteLru<Entry>, n: number, size: number) => {
    const entries = Array.from({ length: n }, (_, i) => new Entry(`e${i}`, size));
    for (const e of entries) expect(pool.admit(e)).toBe(true);
    return entries;
  };

  it('keeps entries within its bytes, evicting the least recently used and telling each one', () => {
    const pool = new ByteLru<Entry>('test', 1000);
    const [a, b, c] = fill(pool, 10, 100);
    expect(pool.bytes).toBe(1000);
    expect(pool.entries).toBe(10);
    const big = new Entry('big', 120);
    expect(pool.admit(big)).toBe(true);
    // 120 more bytes: the two oldest went.
    expect([a.dropped, b.dropped, c.dropped]).toEqual([1, 1, 0]);
    expect(pool.bytes).toBe(920);
    expect(pool.entries).toBe(9);
  });

  it('keeps an entry count cap as well', () => {
    const pool = new ByteLru<Entry>('test', 1_000_000, 3);
    const [a, b] = fill(pool, 4, 1);
    expect(pool.entries).toBe(3);
    expect([a.dropped, b.dropped]).toEqual([1, 0]);
  });

  it('does not admit an entry larger than an eighth of its bytes (or the given limit), evicting nothing', () => {
    const pool = new ByteLru<Entry>('test', 800);
    const kept = fill(pool, 8, 100);
    expect(pool.maxEntryBytes).toBe(100);
    expect(pool.admit(new Entry('large', 101))).toBe(false);
    expect(kept.every((e) => e.dropped === 0)).toBe(true);
    expect(pool.bytes).toBe(800);
    expect([pool.fits(0), pool.fits(1)]).toEqual([true, false]);
    pool.remove(kept[0]);
    expect([pool.fits(100), pool.fits(101)]).toEqual([true, false]);
    const wide = new ByteLru<Entry>('test', 800, Infinity, 400);
    expect(wide.admit(new Entry('large', 400))).toBe(true);
    expect(new ByteLru<Entry>('test', 800, Infinity, 5000).maxEntryBytes).toBe(800);
  });

  it('moves a touched entry that is not among the recent half to the recent end', () => {
    const pool = new ByteLru<Entry>('test', 1000);
    const entries = fill(pool, 10, 100);
    pool.touch(entries[0]); // oldest: moved
    pool.touch(entries[8]); // recent: left in place
    pool.admit(new Entry('x', 100));
    pool.admit(new Entry('y', 100));
    expect(entries.filter((e) => e.dropped).map((e) => e.name)).toEqual(['e1', 'e2']);
  });

  it('resizes a held entry, evicting what no longer fits, and drops one grown past the entry limit', () => {
    const tight = new ByteLru<Entry>('test', 300, Infinity, 150);
    const [first, second, third] = fill(tight, 3, 100);
    tight.resize(third, 150);
    expect([first.dropped, second.dropped, third.dropped]).toEqual([1, 0, 0]);
    expect(tight.bytes).toBe(250);

    const pool = new ByteLru<Entry>('test', 800, Infinity, 200);
    const [a, b, , d] = fill(pool, 4, 100);
    pool.resize(d, 150);
    expect(pool.bytes).toBe(450);
    fill(pool, 4, 100);
    expect(a.dropped).toBe(1);
    expect(pool.bytes).toBe(750);
    pool.resize(b, 201);
    expect(b.dropped).toBe(1);
    expect(pool.bytes).toBe(650);
    // No longer held: only its size changes.
    pool.resize(a, 10);
    expect(pool.bytes).toBe(650);
  });

  it('removes and clears without telling the owners, and never counts an entry twice', () => {
    const pool = new ByteLru<Entry>('test', 1000);
    const [a, b] = fill(pool, 3, 100);
    expect(pool.admit(a)).toBe(true);
    expect(pool.bytes).toBe(300);
    expect(pool.remove(a)).toBe(true);
    expect(pool.remove(a)).toBe(false);
    expect(pool.bytes).toBe(200);
    pool.clear();
    expect(pool.bytes).toBe(0);
    expect(pool.entries).toBe(0);
    expect(a.dropped + b.dropped).toBe(0);
    pool.touch(b); // not held: stays out
    expect(pool.entries).toBe(0);
  });

  it('reports every live pool in cacheUsage()', () => {
    const pool = new ByteLru<Entry>('reported', 4096, 10);
    pool.admit(new Entry('a', 300));
    expect(cacheUsage()).toContainEqual({ name: 'reported', bytes: 300, entries: 1, maxBytes: 4096, maxEntries: 10 });
  });
});
