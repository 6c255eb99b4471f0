import { ByteLru } from '../../core/memory/byte-lru';
import { RENDERED_HTML_CACHE } from '../../core/memory/cache-limits';
import { KeyedEntry } from '../../core/memory/keyed-entry';

/** Approximate bytes of a {@link RenderCache} entry besides its strings. */
export const RENDERED_ENTRY_BYTES = 128;

/** One rendered field kept by a {@link RenderCache}: the source it was rendered from, and its HTML. */
type Rendered = KeyedEntry<RenderCache, { source: string; html: string }>;

/**
 * Rendered HTML of post fields, by post and field. Rendering is a pure function of the source text (and the site's
 * formatting options), so an entry is reused while its source is unchanged. Entries (their source, HTML and key,
 * two bytes a character) are kept within a size in bytes and a number of entries, the least recently used evicted
 * first; a field larger than an eighth of the size is rendered on every read (see {@link RENDERED_HTML_CACHE}).
 */
export class RenderCache {
  private readonly entries = new Map<string, Rendered>();
  readonly pool: ByteLru<Rendered>;

  constructor(maxBytes: number, maxEntries: number) {
    this.pool = new ByteLru<Rendered>('rendered-html', maxBytes, maxEntries);
  }

  get(key: string, source: string, render: () => string): string {
    return this.peek(key, source) ?? this.keep(key, source, render());
  }

  /** The HTML kept for a key while its source is unchanged, or undefined. */
  peek(key: string, source: string): string | undefined {
    const hit = this.entries.get(key);
    if (hit === undefined || hit.value.source !== source) return undefined;
    this.pool.touch(hit);
    return hit.value.html;
  }

  /** Renders a key's HTML (a large text in a worker) and keeps it; callers {@link peek} first. */
  async render(key: string, source: string, render: () => Promise<string>): Promise<string> {
    return this.keep(key, source, await render());
  }

  /** Keeps a key's HTML rendered from `source` (replacing what it kept), and returns it. */
  keep(key: string, source: string, html: string): string {
    const hit = this.entries.get(key);
    if (hit !== undefined) {
      this.entries.delete(key);
      this.pool.remove(hit);
    }
    const entry: Rendered = new KeyedEntry(
      this,
      key,
      { source, html },
      RENDERED_ENTRY_BYTES + (key.length + source.length + html.length) * 2,
    );
    if (this.pool.admit(entry)) this.entries.set(key, entry);
    return html;
  }

  /** Forgets an entry the pool dropped. */
  forget(entry: Rendered): void {
    if (this.entries.get(entry.key) === entry) this.entries.delete(entry.key);
  }
}

/** The rendered HTML of posts' titles, contents and excerpts: one cache in the process. */
export const RENDERED = new RenderCache(RENDERED_HTML_CACHE.bytes, RENDERED_HTML_CACHE.entries);
