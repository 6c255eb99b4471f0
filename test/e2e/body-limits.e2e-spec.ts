import type { Server } from 'node:http';
import { AddressInfo, connect } from 'node:net';
import { LibraryExtensionModule } from '../fixtures/extensions/library.extension';
import { createTestApp, expectRestError, TestApp } from '../utils/test-app';

const LIMIT = 64 * 1024;

/**
 * Request bodies are bounded: a declared length over the limit is refused before the body is read; multipart bodies
 * are read only by routes that take files, after authentication, within limits of size, parts, fields and files.
 */
describe('body limits', () => {
  let t: TestApp;
  let port: number;

  beforeAll(async () => {
    t = await createTestApp('body_limits', {
      cms: { bodyLimit: LIMIT, uploadLimit: LIMIT },
      extensions: [LibraryExtensionModule],
    });
    const server = t.app.getHttpServer() as Server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => t.close());

  /**
   * Sends the request head and a first piece of a much longer body, then waits for an answer without sending the
   * rest: a server that reads the whole body before answering never answers.
   */
  function answerBeforeBody(
    head: string[],
    firstPiece: string,
  ): Promise<{ status: number; body: { code?: string }; closed: boolean }> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1');
      let data = '';
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new Error(`no answer before the body was sent; got: ${data.slice(0, 200)}`));
      }, 4000);
      socket.on('data', (chunk) => (data += chunk.toString('latin1')));
      const done = (closed: boolean) => {
        clearTimeout(timer);
        const [headPart, ...rest] = data.split('\r\n\r\n');
        const status = Number(/^HTTP\/1\.1 (\d+)/.exec(headPart)?.[1]);
        let body: { code?: string } = {};
        try {
          body = JSON.parse(rest.join('\r\n\r\n'));
        } catch {
          /* no body */
        }
        resolve({ status, body, closed });
      };
      socket.on('close', () => done(true));
      socket.on('error', () => undefined);
      socket.write([...head, '', firstPiece].join('\r\n'));
    });
  }

  const boundary = 'xBOUNDARYx';
  const part = (name: string, value: string) =>
    `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
  const filePart = (name: string, filename: string, size: number) =>
    `--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="${filename}"\r\nContent-Type: text/plain\r\n\r\n${'a'.repeat(size)}\r\n`;
  const end = `--${boundary}--\r\n`;

  it('refuses a multipart body to a route that takes no files with 413, before reading it, and closes the connection', async () => {
    const within = await answerBeforeBody(
      [
        'GET /cms-json/cms/v2/types HTTP/1.1',
        'Host: example.org',
        `Content-Type: multipart/form-data; boundary=${boundary}`,
        `Content-Length: ${LIMIT - 100}`,
      ],
      part('a', 'b'),
    );
    expect(within).toEqual({
      status: 413,
      body: expect.objectContaining({ code: 'rest_multipart_not_accepted' }),
      closed: true,
    });
    // 180 MB declared, to an anonymous caller: refused as soon as the head is read.
    const huge = await answerBeforeBody(
      [
        'POST /cms-json/cms/v2/types HTTP/1.1',
        'Host: example.org',
        `Content-Type: multipart/form-data; boundary=${boundary}`,
        'Content-Length: 188743680',
      ],
      part('a', 'b'),
    );
    expect(huge).toEqual({
      status: 413,
      body: expect.objectContaining({ code: 'rest_request_too_large' }),
      closed: true,
    });
  });

  it('refuses multipart bodies to POST routes that take no files, even small ones', async () => {
    const res = await t.http
      .post('/cms-json/cms/v2/posts')
      .set('Authorization', t.users.editor.authorization)
      .field('title', 'x');
    expectRestError(res, 'rest_multipart_not_accepted', 413);
    const unknownRoute = await t.http.post('/cms-json/cms/v2/nothing-here').field('title', 'x');
    expectRestError(unknownRoute, 'rest_multipart_not_accepted', 413);
  });

  it('authenticates before reading a multipart body: bad credentials are answered before the body is sent', async () => {
    const res = await answerBeforeBody(
      [
        'POST /cms-json/library/v1/echo HTTP/1.1',
        'Host: example.org',
        `Authorization: Basic ${Buffer.from(`${t.users.editor.login}:wrong-password`).toString('base64')}`,
        `Content-Type: multipart/form-data; boundary=${boundary}`,
        `Content-Length: ${LIMIT - 10}`,
      ],
      part('somerequired', 'x'),
    );
    expect(res.status).toBe(401);
    expect(res.closed).toBe(true);
  });

  it('refuses a body whose declared length passes the limit before reading it, whatever its type', async () => {
    for (const type of [
      'application/json',
      `multipart/form-data; boundary=${boundary}`,
      'application/x-www-form-urlencoded',
    ]) {
      const res = await answerBeforeBody(
        [
          'POST /cms-json/library/v1/echo HTTP/1.1',
          'Host: example.org',
          `Content-Type: ${type}`,
          `Content-Length: ${LIMIT * 100}`,
        ],
        '{"somerequired":',
      );
      // The echo route takes files: a multipart body there is an upload, refused by the upload limit.
      const code = type.startsWith('multipart/') ? 'rest_upload_too_large' : 'rest_request_too_large';
      expect({ type, status: res.status, code: res.body.code }).toEqual({ type, status: 413, code });
    }
  });

  it('reads multipart bodies on routes that take files, within the limits', async () => {
    const res = await t.http
      .post('/cms-json/library/v1/echo')
      .field('somerequired', 'multi')
      .attach('file', Buffer.from('hello'), 'hello.txt')
      .expect(200);
    expect(res.body.files).toEqual([{ field: 'file', name: 'hello.txt', size: 5, type: 'text/plain' }]);
  });

  it('stops reading a multipart body sent without a length once it passes the limit', async () => {
    const res = await t.http
      .post('/cms-json/library/v1/echo')
      .field('somerequired', 'multi')
      .attach('file', Buffer.alloc(LIMIT + 1024, 'a'), 'big.txt');
    expectRestError(res, 'rest_upload_too_large', 413);
    // Chunked (no Content-Length): counted on the wire.
    const chunked = await answerBeforeBody(
      [
        'POST /cms-json/library/v1/echo HTTP/1.1',
        'Host: example.org',
        `Content-Type: multipart/form-data; boundary=${boundary}`,
        'Transfer-Encoding: chunked',
      ],
      (() => {
        const body = part('somerequired', 'x') + filePart('file', 'f.txt', LIMIT + 10);
        return `${body.length.toString(16)}\r\n${body}\r\n`;
      })(),
    );
    expect(chunked.status).toBe(413);
    expect(chunked.body.code).toBe('rest_upload_too_large');
  });

  it('refuses too many fields, files or parts with 413', async () => {
    const fields = Array.from({ length: 250 }, (_, i) => part(`f${i}`, 'v')).join('');
    const manyFields = await t.http
      .post('/cms-json/library/v1/echo')
      .set('Content-Type', `multipart/form-data; boundary=${boundary}`)
      .send(part('somerequired', 'x') + fields + end);
    expectRestError(manyFields, 'rest_multipart_too_large', 413);

    const files = Array.from({ length: 12 }, (_, i) => filePart(`file${i}`, `f${i}.txt`, 10)).join('');
    const manyFiles = await t.http
      .post('/cms-json/library/v1/echo')
      .set('Content-Type', `multipart/form-data; boundary=${boundary}`)
      .send(part('somerequired', 'x') + files + end);
    expectRestError(manyFiles, 'rest_multipart_too_large', 413);

    // The server still answers afterwards.
    await t.http.get('/cms-json/cms/v2/types').expect(200);
  });
});
