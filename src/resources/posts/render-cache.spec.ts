import { cacheUsage } from '../../core/memory/byte-lru';
import { RENDERED_HTML_CACHE } from '../../core/memory/cache-limits';
import { RENDERED_ENTRY_BYTES, RenderCache } from './render-cache';

describe('RenderCache (rendered HTML of post fields)', () => {
  /** The bytes an entry is counted for: its key, source and HTML, two bytes a character. */
  const sizeOf = (key: string, source: string, html: string) =>
    RENDERED_ENTRY_BYTES + (key.length + source.length + html.length) * 2;
  const render = (source: string) => () => `<p>${source}</p>`;

  it('renders a source once while it is unchanged, and again when it changes', () => {
    const cache = new RenderCache(1_000_000, 100);
    const calls = jest.fn(render('a'));
    expect(cache.get('1:c', 'a', calls)).toBe('<p>a</p>');
    expect(cache.get('1:c', 'a', calls)).toBe('<p>a</p>');
    expect(calls).toHaveBeenCalledTimes(1);
    expect(cache.get('1:c', 'b', render('b'))).toBe('<p>b</p>');
    expect(cache.pool.entries).toBe(1);
    expect(cache.pool.bytes).toBe(sizeOf('1:c', 'b', '<p>b</p>'));
  });

  it('keeps the most recently used entries within its size in bytes', () => {
    const source = 'x'.repeat(100);
    const one = sizeOf('10:c', source, `<p>${source}</p>`);
    const cache = new RenderCache(10 * one, 1000);
    for (let id = 10; id < 20; id++) cache.get(`${id}:c`, source, render(source));
    expect(cache.pool.bytes).toBe(10 * one);
    cache.get('10:c', source, () => 'not rendered again');
    cache.get('20:c', source, render(source));
    expect(cache.pool.bytes).toBe(10 * one);
    // 11 was the least recently used: rendered again; 10 was used since.
    expect(cache.get('11:c', source, () => 'again')).toBe('again');
    expect(cache.get('10:c', source, () => 'again')).toBe(`<p>${source}</p>`);
  });

  it('keeps its entry count cap', () => {
    const cache = new RenderCache(1_000_000, 3);
    for (let id = 0; id < 5; id++) cache.get(`${id}:t`, 't', render('t'));
    expect(cache.pool.entries).toBe(3);
    expect(cache.get('0:t', 't', () => 'again')).toBe('again');
  });

  it('renders a field larger than an eighth of its size on every read, keeping nothing of it', () => {
    const cache = new RenderCache(80_000, 100);
    cache.get('1:c', 'small', render('small'));
    const large = 'y'.repeat(3000); // (3000 + 3007) × 2 bytes: more than 10,000
    const calls = jest.fn(render(large));
    cache.get('2:c', large, calls);
    cache.get('2:c', large, calls);
    expect(calls).toHaveBeenCalledTimes(2);
    expect(cache.pool.entries).toBe(1);
    expect(cache.pool.bytes).toBe(sizeOf('1:c', 'small', '<p>small</p>'));
  });

  it('is bounded by RENDERED_HTML_CACHE in the process', () => {
    expect(cacheUsage()).toContainEqual(
      expect.objectContaining({
        name: 'rendered-html',
        maxBytes: RENDERED_HTML_CACHE.bytes,
        maxEntries: RENDERED_HTML_CACHE.entries,
      }),
    );
  });
});
