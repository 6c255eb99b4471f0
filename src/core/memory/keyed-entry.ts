import type { LruEntry } from './byte-lru';

/** A cache that keeps {@link KeyedEntry}s under their keys: told to forget one its pool evicted. */
export interface EntryOwner {
  forget(entry: KeyedEntry<EntryOwner, unknown>): void;
}

/**
 * An entry of a cache that keeps its entries under their keys (usually in a `Map`) and their use order in a
 * {@link ByteLru}: its value, its approximate size, and when the pool evicts it, its owner forgets it.
 */
export class KeyedEntry<O extends EntryOwner, V> implements LruEntry {
  used = 0;

  constructor(
    readonly owner: O,
    readonly key: string,
    readonly value: V,
    public size: number,
  ) {}

  evicted(): void {
    this.owner.forget(this);
  }
}
