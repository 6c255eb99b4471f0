import { cacheUsage } from '../../src/core/memory/byte-lru';
import { PREPARED_JSON_CACHE, RENDERED_HTML_CACHE } from '../../src/core/memory/cache-limits';
import { createPost } from '../factories/post.factory';
import { createTestApp, TestApp } from '../utils/test-app';
import { collector } from '../utils/heap';

const gc = collector();

/** The memory the process's JavaScript values hold after a full collection: the heap, and buffers outside it. */
function retained(): number {
  gc();
  gc();
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return heapUsed + arrayBuffers;
}

const MiB = 1024 * 1024;
const POSTS = 50;
/** Characters of each post's content: a million, in a two-byte string (an em dash in every paragraph). */
const CONTENT_CHARS = 1_000_000;

/**
 * Reading many large posts leaves no more memory held than the caches' bounds (see `src/core/cache/cache-limits.ts`):
 * each cache reports its bytes within its own bound, and the heap after a full collection has not grown by more than
 * the sum of the bounds — where the rendered HTML of every post used to be kept, whatever its size.
 */
describe('memory held after reading large posts', () => {
  let t: TestApp;
  let small: number;
  const ids: number[] = [];
  let baseline = 0;
  const paragraph = (i: number) =>
    `<!-- wp:paragraph -->\n<p>Paragraph ${i} — the quick brown fox jumps over the lazy dog, "again" and again.</p>\n<!-- /wp:paragraph -->\n\n`;
  let body = '';

  const api = '/cms-json/cms/v2/posts';
  const admin = () => t.users.administrator.authorization;
  const usage = () => cacheUsage();
  const held = () => usage().reduce((n, c) => n + c.bytes, 0);
  /** The documented bound: what every live cache may hold together. */
  const bound = () => usage().reduce((n, c) => n + c.maxBytes, 0);

  beforeAll(async () => {
    t = await createTestApp('memory_bounds');
    small = (await createPost(t.dataSource, { author: t.users.author.id, title: 'Small', content: 'Small text' })).id;
    for (let i = 0; body.length < CONTENT_CHARS; i++) body += paragraph(i);
    // Everything served once before the baseline: modules, statements, the caches' own structures.
    await t.http.get(`${api}/${small}`).expect(200);
    await t.http.get(`${api}/${small}?context=edit`).set('Authorization', admin()).expect(200);
    await t.http.get(`${api}?include=${small}`).expect(200);
    t.queries.statements.length = 0;
    baseline = retained();
  }, 120_000);
  afterAll(() => t.close());

  it('stores the large posts', async () => {
    for (let i = 0; i < POSTS; i++) {
      const status = i % 5 === 0 ? 'draft' : 'publish';
      // The excerpt is set: rendering the content is what each read costs.
      const post = await createPost(t.dataSource, {
        author: t.users.author.id,
        status,
        title: `Large ${i}`,
        excerpt: `Excerpt ${i}`,
        content: `Post ${i}. ${body}`,
      });
      ids.push(post.id);
    }
    expect(ids).toHaveLength(POSTS);
  }, 120_000);

  it('serves each one alone, in view and edit context', async () => {
    for (const [i, id] of ids.entries()) {
      if (i % 5 !== 0) {
        const view = await t.http.get(`${api}/${id}`).expect(200);
        expect(view.body.content.rendered.length).toBeGreaterThan(CONTENT_CHARS / 2);
        expect(view.body.content.raw).toBeUndefined();
      }
      const edit = await t.http.get(`${api}/${id}?context=edit`).set('Authorization', admin()).expect(200);
      expect(edit.body.content.raw).toBe(`Post ${i}. ${body}`);
    }
  }, 300_000);

  it('serves them in collections', async () => {
    for (let page = 0; page < POSTS / 10; page++) {
      const include = ids.slice(page * 10, page * 10 + 10);
      const res = await t.http
        .get(`${api}?include=${include.join(',')}&orderby=include&status=publish,draft&per_page=10`)
        .set('Authorization', admin())
        .expect(200);
      expect(res.body.map((p: { id: number }) => p.id)).toEqual(include);
      expect(res.body[1].content.rendered.length).toBeGreaterThan(CONTENT_CHARS / 2);
    }
    // A long list of ids (a statement too large to keep prepared on either database).
    const many = Array.from({ length: 300 }, (_, i) => ids[0] + i);
    const res = await t.http.get(`${api}?include=${many.join(',')}&per_page=100&_fields=id`).expect(200);
    expect(res.body.length).toBe(ids.length - POSTS / 5);
  }, 300_000);

  it('keeps each cache within its bound in bytes, and none of the large posts', () => {
    const caches = usage();
    for (const cache of caches) {
      expect({ name: cache.name, within: cache.bytes <= cache.maxBytes && cache.entries <= cache.maxEntries }).toEqual({
        name: cache.name,
        within: true,
      });
    }
    const named = (name: string) => caches.filter((c) => c.name === name);
    expect(named('rendered-html').map((c) => c.maxBytes)).toEqual([RENDERED_HTML_CACHE.bytes]);
    expect(named('prepared-json').map((c) => c.maxBytes)).toEqual([PREPARED_JSON_CACHE.bytes]);
    // A large post is more than an eighth of either cache: rendered and prepared on every read, never kept.
    expect(named('rendered-html')[0].bytes).toBeLessThan(MiB);
    expect(named('prepared-json')[0].bytes).toBeLessThan(MiB);
    expect(held()).toBeLessThanOrEqual(bound());
  });

  it('holds no more memory after a full collection than the caches may hold', () => {
    t.queries.statements.length = 0;
    const growth = retained() - baseline;
    // The bound is the sum of the caches' bounds (some 70 MiB); the posts read were about 100 MiB of text as
    // stored, twice that as rendered HTML and JSON.
    expect(bound()).toBeLessThan(100 * MiB);
    expect({ growthMiB: Math.round(growth / MiB), below: growth < bound() }).toEqual({
      growthMiB: expect.any(Number),
      below: true,
    });
  });

  it('still reuses what it may keep', async () => {
    const rendered = () => usage().find((c) => c.name === 'rendered-html')!.entries;
    const before = rendered();
    const one = await t.http.get(`${api}/${small}`).expect(200);
    const two = await t.http.get(`${api}/${small}`).expect(200);
    expect(two.text).toBe(one.text);
    expect(rendered()).toBeGreaterThanOrEqual(Math.max(before, 1));
    expect(usage().find((c) => c.name === 'prepared-json')!.entries).toBeGreaterThan(0);
  });
});
