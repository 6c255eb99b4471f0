import type { AddressInfo } from 'node:net';
import {
  FuzzRoute,
  KINDS,
  leakPatterns,
  reproduction,
  sampleRequests,
  seedSite,
  send,
  violations,
} from '../../scripts/reliability/fuzz-requests';
import { cacheUsage } from '../../src/core/memory/byte-lru';
import { RouteRegistry } from '../../src/core/rest/route-registry.service';
import { createTestApp, TEST_PREFIX, TestApp } from '../utils/test-app';
import { collector } from '../utils/heap';

const gc = collector();
function heapUsed(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

const MiB = 1024 * 1024;
/** The seed of the in-suite sample; `npm run fuzz -- --seed N` runs any other. */
const SEED = Number(process.env.FUZZ_SEED ?? 20);
const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 3000);
/**
 * Heap growth allowed over the run, after a full collection: what the caches may hold by their own bounds
 * (src/core/cache/cache-limits.ts) plus 24 MiB for everything the fuzzer's writes legitimately add (statements,
 * rate-limit entries, the bodies of posts it creates that the caches hold).
 */
const HEAP_SLACK = 24 * MiB;

/**
 * A seed-fixed sample of requests generated from every route's own argument schema — valid, boundary and hostile
 * values, wrong shapes, invalid UTF-8 and null bytes, SQL and HTML, bracket-key abuse, undeclared parameters, wrong
 * content types, malformed multipart — sent over HTTP as the administrator and anonymously. Every answer is below
 * 500, errors are `{code, message, data.status}`, no answer holds SQL or table names, the server answers afterwards
 * and the heap stays within its bound.
 */
describe(`fuzzing every route (seed ${SEED}, ${REQUESTS} requests)`, () => {
  let t: TestApp;
  let base: string;
  let admin: string;
  let routes: FuzzRoute[];
  let groups: Record<string, string[]>;

  beforeAll(async () => {
    // Failed logins the fuzzer makes would soon block its own IP (429 for every credential check): no limit here.
    t = await createTestApp('fuzz', { cms: { rateLimit: { max: 1_000_000, windowSeconds: 900 } } });
    await new Promise<void>((resolve) => t.app.getHttpServer().listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    admin = t.users.administrator.authorization;
    routes = t.app
      .get(RouteRegistry)
      .all()
      .map((r) => ({ route: r.route, endpoints: r.endpoints }));
    groups = await seedSite(base, admin);
  }, 60_000);
  afterAll(() => t?.close());

  it('generates requests for every route and method, of every kind', () => {
    const requests = sampleRequests(routes, { prefix: '/cms-json', groups }, SEED, REQUESTS);
    const seen = new Set(requests.map((r) => `${r.method} ${r.route}`));
    const all = routes.flatMap((r) => r.endpoints.flatMap((e) => e.methods.map((m) => `${m} ${r.route}`)));
    expect(all.filter((m) => !seen.has(m))).toEqual([]);
    expect(new Set(requests.map((r) => r.kind))).toEqual(new Set(KINDS));
    expect(new Set(requests.map((r) => r.admin))).toEqual(new Set([true, false]));
    // The same seed gives the same requests.
    expect(sampleRequests(routes, { prefix: '/cms-json', groups }, SEED, 50).map((r) => r.url)).toEqual(
      requests.slice(0, 50).map((r) => r.url),
    );
  });

  it('answers every request below 500, with API errors and no SQL, and keeps answering, the heap flat', async () => {
    const adminId = String(t.users.administrator.id);
    const protect = (method: string, path: string) =>
      method !== 'GET' && new RegExp(`/users/(me|${adminId})(/|$)`).test(path);
    const requests = sampleRequests(routes, { prefix: '/cms-json', groups, protect }, SEED, REQUESTS);
    const patterns = leakPatterns(TEST_PREFIX);
    const failures: string[] = [];
    const statuses: Record<number, number> = {};
    const heap: number[] = [];
    let start = 0;
    for (const [i, req] of requests.entries()) {
      if (i === 100) start = heapUsed(); // after the first requests: modules, statements and pools warmed up
      if (i > 100 && i % 250 === 0) heap.push(heapUsed());
      const answer = await send(base, req, admin);
      statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
      for (const v of violations(req, answer, patterns))
        failures.push(`#${i} ${req.kind} ${v}\n  ${reproduction(base, req)}`);
    }
    const end = heapUsed();
    const bound = cacheUsage().reduce((n, c) => n + c.maxBytes, 0) + HEAP_SLACK;
    expect(failures.slice(0, 20)).toEqual([]);
    // Still answering, and the requests reached handlers (not only 4xx from the edges).
    await expect(fetch(`${base}/cms-json/`).then((r) => r.status)).resolves.toBe(200);
    expect(
      Object.entries(statuses)
        .filter(([s]) => Number(s) < 300)
        .reduce((n, [, c]) => n + c, 0),
    ).toBeGreaterThan(REQUESTS / 10);
    expect({
      growth: Math.max(end, ...heap) - start <= bound,
      start,
      end,
      max: Math.max(end, ...heap),
      bound,
    }).toMatchObject({ growth: true });
  }, 240_000);

  describe('what the fuzzer found', () => {
    it.each(['page=99999999999999999999', 'offset=18446744073709552000'])(
      'answers an empty page to %s on every collection that takes it, as an administrator and anonymously (or a 401 where anonymous callers may not read it; was 500: a float in OFFSET)',
      async (query) => {
        // A collection without the argument (search has no offset, as WordPress's) ignores it.
        const arg = query.split('=')[0];
        const collections = routes.filter(
          (r) =>
            !r.route.includes('(?P<') &&
            r.endpoints.some((e) => e.methods.includes('GET') && 'page' in e.args && arg in e.args),
        );
        expect(collections.length).toBeGreaterThanOrEqual(7);
        for (const who of [admin, undefined]) {
          for (const { route } of collections) {
            const res = await fetch(`${base}/cms-json${route}?${query}`, {
              headers: who ? { authorization: who } : {},
            });
            const body = await res.json();
            // Collections anonymous callers may not read (menus, menu items) refuse them before any query.
            if (!who && res.status === 401)
              expect(body).toMatchObject({ code: expect.any(String), data: { status: 401 } });
            else expect({ route, status: res.status, body }).toEqual({ route, status: 200, body: [] });
          }
        }
      },
    );

    it('leaves the Link header out rather than answer headers no client reads, for a query of 1,100 parameters (was over 16 KiB)', async () => {
      const many = Array.from({ length: 1100 }, () => 'x[]=1').join('&');
      // At least two categories (Uncategorized and this one), one a page: page 2 has a prev link.
      await fetch(`${base}/cms-json/cms/v2/categories`, {
        method: 'POST',
        headers: { authorization: admin, 'content-type': 'application/json' },
        body: '{"name":"Linked"}',
      });
      const short = await fetch(`${base}/cms-json/cms/v2/categories?per_page=1&page=2&x[]=1`);
      expect(short.status).toBe(200);
      expect(Number(short.headers.get('x-cms-totalpages'))).toBeGreaterThanOrEqual(2);
      expect(short.headers.get('link')).toMatch(/rel="prev"/);
      const long = await fetch(`${base}/cms-json/cms/v2/categories?per_page=1&page=2&${many}`);
      expect(long.status).toBe(200);
      expect(long.headers.get('x-cms-totalpages')).toBe(short.headers.get('x-cms-totalpages'));
      expect(long.headers.get('link')).not.toMatch(/rel="(prev|next)"/);
      expect(await long.json()).toHaveLength(1);
    });
  });
});
