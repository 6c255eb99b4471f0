import { once } from 'node:events';
import { closeSync, existsSync, mkdtempSync, openSync, readdirSync, rmSync, statSync, writeSync } from 'node:fs';
import { createReadStream } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestApp, expectRestError, TestApp } from '../utils/test-app';

const API = '/cms-json/cms/v2';
const MB = 1024 * 1024;
/**
 * The most the resident memory of the process (server and the client streaming from disk) may grow while a 50 MB
 * upload is received and stored: less than the file, so it is never held whole. Measured: 28–30 MB, the garbage of
 * 64 KB chunks before the collector runs.
 */
const RSS_GROWTH_BOUND = 40 * MB;

/** A file of `size` bytes that is a PDF by its signature. */
function pdfFile(dir: string, size: number): string {
  const path = join(dir, `big-${size}.pdf`);
  const fd = openSync(path, 'w');
  const header = Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n', 'latin1');
  writeSync(fd, header);
  const block = Buffer.alloc(MB, 0x20);
  for (let written = header.length; written < size; written += block.length) writeSync(fd, block, 0, Math.min(block.length, size - written));
  closeSync(fd);
  return path;
}

describe('media: upload limits and memory', () => {
  let t: TestApp;
  let uploads: string;
  let scratch: string;
  let port: number;

  beforeAll(async () => {
    uploads = mkdtempSync(join(tmpdir(), 'cms-uploads-'));
    scratch = mkdtempSync(join(tmpdir(), 'cms-scratch-'));
    t = await createTestApp('media_limits', { cms: { uploadDir: uploads, uploadLimit: 60 * MB, bodyLimit: MB } });
    await t.app.listen(0, '127.0.0.1');
    port = (t.app.getHttpServer().address() as AddressInfo).port;
  });
  afterAll(async () => {
    await t.close();
    rmSync(uploads, { recursive: true, force: true });
    rmSync(scratch, { recursive: true, force: true });
  });

  /** Streams a file as a raw upload, sampling the process's resident memory meanwhile. */
  async function streamUpload(path: string, name: string): Promise<{ status: number; body: Record<string, unknown>; peakGrowth: number }> {
    const baseline = process.memoryUsage().rss;
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
    try {
      const req = httpRequest({
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: `${API}/media`,
        headers: {
          Authorization: t.users.author.authorization,
          'Content-Type': 'application/pdf',
          'Content-Disposition': `attachment; filename="${name}"`,
          'Content-Length': String(statSync(path).size),
        },
      });
      createReadStream(path).pipe(req);
      const [res] = (await once(req, 'response')) as [import('node:http').IncomingMessage];
      let text = '';
      for await (const chunk of res) text += String(chunk);
      peak = Math.max(peak, process.memoryUsage().rss);
      return { status: res.statusCode ?? 0, body: JSON.parse(text) as Record<string, unknown>, peakGrowth: peak - baseline };
    } finally {
      clearInterval(sampler);
    }
  }

  it(`stores a 50 MB upload streamed to disk, the server growing less than ${RSS_GROWTH_BOUND / MB} MB`, async () => {
    const file = pdfFile(scratch, 50 * MB);
    const res = await streamUpload(file, 'big.pdf');
    expect(res.status).toBe(201);
    expect(statSync(file).size).toBe(50 * MB);
    expect(res.body).toMatchObject({ mime_type: 'application/pdf', media_type: 'file', media_details: { filesize: 50 * MB } });
    const stored = join(uploads, String((res.body.source_url as string).split('/wp-content/uploads/')[1]));
    expect(statSync(stored).size).toBe(50 * MB);
    console.log(`50 MB upload: peak RSS growth ${(res.peakGrowth / MB).toFixed(1)} MB`);
    expect(res.peakGrowth).toBeLessThan(RSS_GROWTH_BOUND);
  });

  it('refuses an upload over the limit with 413 rest_upload_too_large, before or while reading it, and keeps no temporary file', async () => {
    const before = existsSync(join(tmpdir(), 'cms-api-uploads')) ? readdirSync(join(tmpdir(), 'cms-api-uploads')).length : 0;
    const file = pdfFile(scratch, 61 * MB);
    const declared = await streamUpload(file, 'too-big.pdf');
    expect([declared.status, declared.body.code]).toEqual([413, 'rest_upload_too_large']);
    const multipart = await t.http.post(`${API}/media`).set('Authorization', t.users.author.authorization).attach('file', file, 'too-big.pdf');
    expectRestError(multipart, 'rest_upload_too_large', 413);
    await new Promise((r) => setTimeout(r, 100));
    const after = existsSync(join(tmpdir(), 'cms-api-uploads')) ? readdirSync(join(tmpdir(), 'cms-api-uploads')).length : 0;
    expect(after).toBeLessThanOrEqual(before);
  });

  it('removes the temporary file of an answered upload, stored or refused', async () => {
    const dir = join(tmpdir(), 'cms-api-uploads');
    const before = existsSync(dir) ? readdirSync(dir).length : 0;
    await t.http.post(`${API}/media`).set('Authorization', t.users.author.authorization).set('Content-Type', 'text/csv').set('Content-Disposition', 'attachment; filename="a.csv"').send('a,b\n').expect(201);
    expectRestError(
      await t.http.post(`${API}/media`).set('Authorization', t.users.author.authorization).set('Content-Type', 'image/png').set('Content-Disposition', 'attachment; filename="fake.png"').send('not a png'),
      'rest_upload_type_mismatch',
      400,
    );
    await new Promise((r) => setTimeout(r, 100));
    expect(existsSync(dir) ? readdirSync(dir).length : 0).toBeLessThanOrEqual(before);
  });
});
