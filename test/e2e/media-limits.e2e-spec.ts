import { once } from 'node:events';
import { closeSync, existsSync, mkdtempSync, openSync, readdirSync, rmSync, statSync, writeSync } from 'node:fs';
import { createReadStream } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { AddressInfo, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestApp, expectRestError, TestApp } from '../utils/test-app';

const API = '/cms-json/cms/v2';
const MB = 1024 * 1024;
/**
 * The most the resident memory of the process (server and the client streaming from disk) may grow while a 50 MB
 * upload is received and stored: less than the file, so it is never held whole. Measured: 28–34 MB, the garbage of
 * 64 KB chunks before the collector runs.
 */
const RSS_GROWTH_BOUND = 45 * MB;

/** A file of `size` bytes that is a PDF by its signature. */
function pdfFile(dir: string, size: number): string {
  const path = join(dir, `big-${size}.pdf`);
  const fd = openSync(path, 'w');
  const header = Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n', 'latin1');
  writeSync(fd, header);
  const block = Buffer.alloc(MB, 0x20);
  for (let written = header.length; written < size; written += block.length)
    writeSync(fd, block, 0, Math.min(block.length, size - written));
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
  async function streamUpload(
    path: string,
    name: string,
  ): Promise<{ status: number; body: Record<string, unknown>; peakGrowth: number }> {
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
      return {
        status: res.statusCode ?? 0,
        body: JSON.parse(text) as Record<string, unknown>,
        peakGrowth: peak - baseline,
      };
    } finally {
      clearInterval(sampler);
    }
  }

  it(`stores a 50 MB upload streamed to disk, the server growing less than ${RSS_GROWTH_BOUND / MB} MB`, async () => {
    const file = pdfFile(scratch, 50 * MB);
    const res = await streamUpload(file, 'big.pdf');
    expect(res.status).toBe(201);
    expect(statSync(file).size).toBe(50 * MB);
    expect(res.body).toMatchObject({
      mime_type: 'application/pdf',
      media_type: 'file',
      media_details: { filesize: 50 * MB },
    });
    const stored = join(uploads, String((res.body.source_url as string).split('/wp-content/uploads/')[1]));
    expect(statSync(stored).size).toBe(50 * MB);
    console.log(`50 MB upload: peak RSS growth ${(res.peakGrowth / MB).toFixed(1)} MB`);
    expect(res.peakGrowth).toBeLessThan(RSS_GROWTH_BOUND);
  });

  /**
   * Sends a request over a raw socket, its body in 1 MB chunks until the server answers (or `total` is sent), and
   * reads the answer; a write after the server closed is expected, not an error.
   */
  async function sendUntilAnswered(
    head: string[],
    chunks: (n: number) => Buffer | null,
  ): Promise<{ status: number; body: Record<string, unknown>; reset: boolean }> {
    const socket = connect(port, '127.0.0.1');
    await once(socket, 'connect');
    let data = '';
    let answered = false;
    socket.on('data', (chunk) => {
      data += chunk.toString('latin1');
      answered = true;
    });
    let reset = false;
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ECONNRESET' || error.code === 'EPIPE') reset = true;
    });
    socket.write(`${head.join('\r\n')}\r\n\r\n`);
    for (let n = 0; !answered && !socket.destroyed; n++) {
      const chunk = chunks(n);
      if (!chunk) break;
      if (!socket.write(chunk)) {
        await new Promise<void>((resolve) => {
          const done = () => {
            socket.off('drain', done).off('close', done).off('error', done);
            clearTimeout(timer);
            resolve();
          };
          const timer = setTimeout(done, 200);
          socket.once('drain', done).once('close', done).once('error', done);
        });
      }
    }
    // The whole answer (its declared length), or the server's close, within 5 s.
    const complete = () => {
      const end = data.indexOf('\r\n\r\n');
      const length = /\r\ncontent-length: *(\d+)/i.exec(data)?.[1];
      return end >= 0 && length !== undefined && Buffer.byteLength(data.slice(end + 4), 'latin1') >= Number(length);
    };
    for (let i = 0; i < 250 && !complete() && !socket.destroyed; i++) await new Promise((r) => setTimeout(r, 20));
    socket.destroy();
    const status = Number(/^HTTP\/1\.1 (\d+)/.exec(data)?.[1] ?? 0);
    const json = data.slice(data.indexOf('\r\n\r\n') + 4);
    const start = json.indexOf('{');
    return { status, body: JSON.parse(json.slice(start, json.lastIndexOf('}') + 1)) as Record<string, unknown>, reset };
  }

  it('refuses an upload over the limit with 413 rest_upload_too_large, before or while reading it, closes without a reset while the client still sends, and keeps no temporary file', async () => {
    const before = existsSync(join(tmpdir(), 'cms-api-uploads'))
      ? readdirSync(join(tmpdir(), 'cms-api-uploads')).length
      : 0;
    const block = Buffer.alloc(MB, 0x20);
    const auth = `Authorization: ${t.users.author.authorization}`;
    // Declared too large: refused before a byte is read.
    const declared = await sendUntilAnswered(
      [
        `POST ${API}/media HTTP/1.1`,
        'Host: example.org',
        auth,
        'Content-Type: application/pdf',
        'Content-Disposition: attachment; filename="too-big.pdf"',
        `Content-Length: ${61 * MB}`,
      ],
      (n) => (n < 61 ? block : null),
    );
    expect([declared.status, declared.body.code, declared.reset]).toEqual([413, 'rest_upload_too_large', false]);
    // Sent without a length: counted on the wire, raw and multipart.
    const chunked = (n: number, first: string) => {
      if (n > 70) return null;
      const payload = n === 0 ? Buffer.concat([Buffer.from(first, 'latin1'), block]) : block;
      return Buffer.concat([Buffer.from(`${payload.length.toString(16)}\r\n`), payload, Buffer.from('\r\n')]);
    };
    const raw = await sendUntilAnswered(
      [
        `POST ${API}/media HTTP/1.1`,
        'Host: example.org',
        auth,
        'Content-Type: application/pdf',
        'Content-Disposition: attachment; filename="too-big.pdf"',
        'Transfer-Encoding: chunked',
      ],
      (n) => chunked(n, '%PDF-1.4\n'),
    );
    expect([raw.status, raw.body.code, raw.reset]).toEqual([413, 'rest_upload_too_large', false]);
    const boundary = 'cmsboundary1234';
    const multipart = await sendUntilAnswered(
      [
        `POST ${API}/media HTTP/1.1`,
        'Host: example.org',
        auth,
        `Content-Type: multipart/form-data; boundary=${boundary}`,
        'Transfer-Encoding: chunked',
      ],
      (n) =>
        chunked(
          n,
          `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="too-big.pdf"\r\nContent-Type: application/pdf\r\n\r\n%PDF-1.4\n`,
        ),
    );
    expect([multipart.status, multipart.body.code, multipart.reset]).toEqual([413, 'rest_upload_too_large', false]);
    await new Promise((r) => setTimeout(r, 100));
    const after = existsSync(join(tmpdir(), 'cms-api-uploads'))
      ? readdirSync(join(tmpdir(), 'cms-api-uploads')).length
      : 0;
    expect(after).toBeLessThanOrEqual(before);
  });

  it('removes the temporary file of an answered upload, stored or refused', async () => {
    const dir = join(tmpdir(), 'cms-api-uploads');
    const before = existsSync(dir) ? readdirSync(dir).length : 0;
    await t.http
      .post(`${API}/media`)
      .set('Authorization', t.users.author.authorization)
      .set('Content-Type', 'text/csv')
      .set('Content-Disposition', 'attachment; filename="a.csv"')
      .send('a,b\n')
      .expect(201);
    expectRestError(
      await t.http
        .post(`${API}/media`)
        .set('Authorization', t.users.author.authorization)
        .set('Content-Type', 'image/png')
        .set('Content-Disposition', 'attachment; filename="fake.png"')
        .send('not a png'),
      'rest_upload_sideload_error',
      400,
    );
    await new Promise((r) => setTimeout(r, 100));
    expect(existsSync(dir) ? readdirSync(dir).length : 0).toBeLessThanOrEqual(before);
  });
});
