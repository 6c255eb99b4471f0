import { ByteLru } from '../../core/memory/byte-lru';
import { POST_EXTRAS_CACHE } from '../../core/memory/cache-limits';
import { KeyedEntry } from '../../core/memory/keyed-entry';
import { ExtrasWanted, PostExtras } from './post-extras';

/** The kind of extras asked for, as a key. */
export function wantedKey(wanted: ExtrasWanted): string {
  return `${wanted.formats ? 1 : 0}${wanted.taxonomies.join(',')}`;
}

/** A post's extras kept by {@link ExtrasMemo}. */
type HeldExtras = KeyedEntry<ExtrasMemo, PostExtras>;

/**
 * Posts' extras (see {@link extrasColumns}) read by earlier requests, kept while the version stamps of posts, terms
 * and users do not move (see VersionStamps.validate), and for each post until an edit in place writes it (see
 * VersionStamps.onPostsWritten), within {@link POST_EXTRAS_CACHE}: the subqueries that compute them are most of what a
 * page of posts costs the database. Without stamps nothing is kept. Kept values are frozen: every request shares
 * them.
 */
export class ExtrasMemo {
  validated = false;
  /** Moves with every clear or drop: extras read before one are not kept. */
  generation = 0;
  private readonly held = new Map<string, HeldExtras>();
  /** The kinds of extras kept (see wantedKey): a few. */
  private readonly kinds = new Set<string>();
  private readonly pool = new ByteLru<HeldExtras>('post-extras', POST_EXTRAS_CACHE.bytes);

  get(kind: string, id: number): PostExtras | undefined {
    const entry = this.held.get(`${kind}:${id}`);
    if (!entry) return undefined;
    this.pool.touch(entry);
    return entry.value;
  }

  /** Keeps extras read since `generation` (unless a clear came in between); answers them frozen. */
  keep(kind: string, id: number, extras: PostExtras, generation: number): PostExtras {
    for (const ids of Object.values(extras.terms)) Object.freeze(ids);
    Object.freeze(extras.terms);
    Object.freeze(extras);
    if (generation !== this.generation) return extras;
    const key = `${kind}:${id}`;
    this.kinds.add(kind);
    let terms = 0;
    for (const ids of Object.values(extras.terms)) terms += ids.length;
    const entry: HeldExtras = new KeyedEntry(this, key, extras, 320 + key.length * 2 + terms * 8);
    const old = this.held.get(key);
    if (old) this.pool.remove(old);
    if (this.pool.admit(entry)) this.held.set(key, entry);
    return extras;
  }

  forget(entry: HeldExtras): void {
    if (this.held.get(entry.key) === entry) this.held.delete(entry.key);
  }

  clear(): void {
    this.generation++;
    this.held.clear();
    this.pool.clear();
  }

  /** Forgets the extras of `postIds` (written since they were read). */
  dropPosts(postIds: readonly number[]): void {
    this.generation++;
    for (const kind of this.kinds) {
      for (const id of postIds) {
        const entry = this.held.get(`${kind}:${id}`);
        if (!entry) continue;
        this.held.delete(entry.key);
        this.pool.remove(entry);
      }
    }
  }
}
