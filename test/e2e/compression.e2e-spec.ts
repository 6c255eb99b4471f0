import { request as httpRequest, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { Test } from '@nestjs/testing';
import { TypeOrmModule } from '@nestjs/typeorm';
import { INestApplication } from '@nestjs/common';
import { CmsModule } from '../../src/cms.module';
import { buildDataSourceOptions } from '../../src/core/database/data-source-options';
import { createPost } from '../factories/post.factory';
import { createTestApp, TEST_BASE_URL, TEST_PREFIX, TestApp } from '../utils/test-app';
import { dropTestDatabase, testDatabaseUrl } from '../utils/test-db';

/**
 * gzip / brotli compression of API answers (`compression` option; the standalone server's CMS_COMPRESSION): the
 * coding the client accepts, above the threshold only, `Vary: Accept-Encoding`, an ETag per coding and 304s with
 * any of them, HEAD and 304 without a body; off by default for embedding hosts.
 */

const API = '/cms-json/cms/v2';

interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** A request over a real socket, the body as the server sent it (no client-side decoding). */
function raw(server: Server, method: string, path: string, headers: Record<string, string> = {}): Promise<RawAnswer> {
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

function decode(answer: RawAnswer): unknown {
  const coding = answer.headers['content-encoding'];
  const body =
    coding === 'gzip' ? gunzipSync(answer.body) : coding === 'br' ? brotliDecompressSync(answer.body) : answer.body;
  return JSON.parse(body.toString('utf8'));
}

async function listen(app: INestApplication): Promise<Server> {
  const server = app.getHttpServer() as Server;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

describe('compression of API answers', () => {
  let t: TestApp;
  let server: Server;

  beforeAll(async () => {
    t = await createTestApp('compression', { cms: { compression: { threshold: 1024 } } });
    for (let i = 0; i < 30; i++)
      await createPost(t.dataSource, {
        title: `Compressed post ${i}`,
        content: `<p>${'Some words to compress. '.repeat(20)}</p>`,
      });
    server = await listen(t.app);
  });
  afterAll(async () => {
    await t.close();
  });

  it('answers gzip and br, as the client accepts, with bodies that decode to the identity JSON', async () => {
    const identity = await raw(server, 'GET', `${API}/posts?per_page=30`);
    const gzip = await raw(server, 'GET', `${API}/posts?per_page=30`, { 'Accept-Encoding': 'gzip' });
    const br = await raw(server, 'GET', `${API}/posts?per_page=30`, { 'Accept-Encoding': 'gzip, deflate, br' });
    expect([identity.status, gzip.status, br.status]).toEqual([200, 200, 200]);
    expect(identity.headers['content-encoding']).toBeUndefined();
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(br.headers['content-encoding']).toBe('br');
    const json = decode(identity) as Array<{ title: { rendered: string } }>;
    expect(json).toHaveLength(30);
    expect(decode(gzip)).toEqual(json);
    expect(decode(br)).toEqual(json);
    // Smaller, and the length is that of the compressed body.
    expect(gzip.body.length).toBeLessThan(identity.body.length / 3);
    expect(Number(gzip.headers['content-length'])).toBe(gzip.body.length);
    expect(Number(br.headers['content-length'])).toBe(br.body.length);
    for (const answer of [identity, gzip, br]) expect(answer.headers.vary).toBe('Accept-Encoding');
    // The totals and links are those of the identity answer.
    expect(br.headers['x-cms-total']).toBe(identity.headers['x-cms-total']);
  });

  it('follows q-values: gzip preferred, br refused, identity only, or neither acceptable', async () => {
    const path = `${API}/posts?per_page=20`;
    expect(
      (await raw(server, 'GET', path, { 'Accept-Encoding': 'br;q=0.5, gzip;q=1' })).headers['content-encoding'],
    ).toBe('gzip');
    expect((await raw(server, 'GET', path, { 'Accept-Encoding': 'br;q=0, gzip' })).headers['content-encoding']).toBe(
      'gzip',
    );
    expect((await raw(server, 'GET', path, { 'Accept-Encoding': '*' })).headers['content-encoding']).toBe('br');
    for (const header of ['identity', 'gzip;q=0, br;q=0', '']) {
      const answer = await raw(server, 'GET', path, header ? { 'Accept-Encoding': header } : {});
      expect(answer.headers['content-encoding']).toBeUndefined();
      expect(Array.isArray(decode(answer))).toBe(true);
    }
  });

  it('leaves answers below the threshold uncompressed, still saying they vary', async () => {
    const small = await raw(server, 'GET', `${API}/posts?per_page=1&_fields=id`, { 'Accept-Encoding': 'gzip, br' });
    expect(small.status).toBe(200);
    expect(small.body.length).toBeLessThan(1024);
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(small.headers.vary).toBe('Accept-Encoding');
    expect(decode(small)).toEqual([{ id: expect.any(Number) }]);
  });

  it('gives each coding its own ETag and answers 304 to If-None-Match with any of them, without a body', async () => {
    // Cached anonymous answers (the ETag from the cache key) and built ones (an editor's: the body's SHA-1).
    for (const headers of [{}, { Authorization: t.users.editor.authorization }] as Array<Record<string, string>>) {
      const path = `${API}/posts?per_page=25`;
      const identity = await raw(server, 'GET', path, headers);
      const gzip = await raw(server, 'GET', path, { ...headers, 'Accept-Encoding': 'gzip' });
      const br = await raw(server, 'GET', path, { ...headers, 'Accept-Encoding': 'br' });
      const tag = identity.headers.etag as string;
      expect(tag).toMatch(/^"[\w-]+"$/);
      expect(gzip.headers.etag).toBe(`${tag.slice(0, -1)}-gzip"`);
      expect(br.headers.etag).toBe(`${tag.slice(0, -1)}-br"`);
      for (const held of [tag, gzip.headers.etag as string, br.headers.etag as string]) {
        for (const accept of ['gzip', 'br', 'identity']) {
          const again = await raw(server, 'GET', path, {
            ...headers,
            'Accept-Encoding': accept,
            'If-None-Match': held,
          });
          expect({ held, accept, status: again.status, length: again.body.length }).toEqual({
            held,
            accept,
            status: 304,
            length: 0,
          });
          expect(again.headers['content-encoding']).toBeUndefined();
          expect(again.headers.vary).toBe('Accept-Encoding');
        }
      }
      // A tag of another answer still gets the whole body.
      const other = await raw(server, 'GET', path, {
        ...headers,
        'Accept-Encoding': 'gzip',
        'If-None-Match': '"another-gzip"',
      });
      expect(other.status).toBe(200);
      expect(decode(other)).toEqual(decode(identity));
    }
  });

  it('answers HEAD without a body, and serves the cached answer compressed again from memory', async () => {
    const path = `${API}/posts?per_page=28`;
    const head = await raw(server, 'HEAD', path, { 'Accept-Encoding': 'gzip, br' });
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect(head.headers.vary).toBe('Accept-Encoding');
    const first = await raw(server, 'GET', path, { 'Accept-Encoding': 'br' });
    // The second comes from the response cache with its compressed body kept: no statement beyond the stamps.
    let second!: RawAnswer;
    expect(
      await t.queries.during(async () => (second = await raw(server, 'GET', path, { 'Accept-Encoding': 'br' }))),
    ).toBe(0);
    expect(second.body.equals(first.body)).toBe(true);
    expect(second.headers.etag).toBe(first.headers.etag);
  });

  it('accepts a write whose If-Match names a compressed representation', async () => {
    const post = await createPost(t.dataSource, { title: 'Matched', content: 'x'.repeat(3000) });
    const auth = { Authorization: t.users.editor.authorization };
    const read = await raw(server, 'GET', `${API}/posts/${post.id}?context=edit`, {
      ...auth,
      'Accept-Encoding': 'gzip',
    });
    expect(read.headers['content-encoding']).toBe('gzip');
    const updated = await t.http
      .post(`${API}/posts/${post.id}`)
      .set('Authorization', t.users.editor.authorization)
      .set('If-Match', read.headers.etag as string)
      .send({ title: 'Matched again' });
    expect(updated.status).toBe(200);
  });
});

describe('compression off (the default of CmsModule), and the API behind a host app', () => {
  it('does not compress nor vary by default', async () => {
    const t = await createTestApp('compression_off');
    try {
      for (let i = 0; i < 10; i++)
        await createPost(t.dataSource, { title: `Plain ${i}`, content: 'words '.repeat(200) });
      const server = await listen(t.app);
      const answer = await raw(server, 'GET', `${API}/posts`, { 'Accept-Encoding': 'gzip, br' });
      expect(answer.status).toBe(200);
      expect(answer.body.length).toBeGreaterThan(1024);
      expect(answer.headers['content-encoding']).toBeUndefined();
      expect(answer.headers.vary).toBeUndefined();
    } finally {
      await t.close();
    }
  });

  it("compresses through the API's Nest route (Express's path) as through the fast path", async () => {
    const databaseUrl = await testDatabaseUrl('compression_host');
    const moduleRef = await Test.createTestingModule({
      imports: [
        TypeOrmModule.forRoot(buildDataSourceOptions({ databaseUrl, tablePrefix: TEST_PREFIX })),
        CmsModule.forRoot({ baseUrl: TEST_BASE_URL, compression: true }),
      ],
    }).compile();
    const app = moduleRef.createNestApplication({ logger: ['error', 'warn'] });
    await app.init();
    try {
      const server = await listen(app);
      const identity = await raw(server, 'GET', `${API}/types`);
      const gzip = await raw(server, 'GET', `${API}/types`, { 'Accept-Encoding': 'gzip', 'X-Probe': '1' });
      expect(identity.body.length).toBeGreaterThan(1024);
      expect(gzip.headers['content-encoding']).toBe('gzip');
      expect(decode(gzip)).toEqual(decode(identity));
      expect(gzip.headers.vary).toBe('Accept-Encoding');
    } finally {
      await app.close();
      await dropTestDatabase('compression_host');
    }
  });
});
