import { createServer, Server } from 'node:http';
import { AddressInfo, connect } from 'node:net';
import { Duplex } from 'node:stream';
import { answeredRequestMethod, applyServerLimits } from './server-limits';

const LIMITS = { requestTimeoutMs: 2000, headersTimeoutMs: 1000, keepAliveTimeoutMs: 1000, maxHeaderSize: 1024 };

/** A server under the limits whose requests to `/pending` are never answered; the others get `ok`. */
async function serverUnderLimits(): Promise<{ server: Server; port: number }> {
  const server = createServer((req, res) => {
    if (req.url !== '/pending') res.end('ok');
  });
  applyServerLimits(server, LIMITS);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

/** Sends the bytes in one write and returns all the server sent until it closed the connection. */
function exchange(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
    socket.on('connect', () => socket.write(bytes));
  });
}

const socketWith = (pending?: { method: string }) =>
  ({ _httpMessage: pending ? { req: pending } : undefined }) as unknown as Duplex;

describe('answeredRequestMethod', () => {
  it('reads the method of the last request line in the bytes parsed, not further', () => {
    const packet = Buffer.from(`GET / HTTP/1.1\r\nHost: a\r\n\r\nHEAD /x?${'a'.repeat(50)}`);
    expect(answeredRequestMethod({ rawPacket: packet, bytesParsed: packet.length - 5 }, socketWith())).toBe('HEAD');
    expect(answeredRequestMethod({ rawPacket: packet, bytesParsed: 10 }, socketWith())).toBe('GET');
    expect(answeredRequestMethod({ rawPacket: Buffer.from('\r\nHEAD * HTTP/1.1\r\n') }, socketWith())).toBe('HEAD');
    expect(
      answeredRequestMethod({ rawPacket: Buffer.from('HEAD http://example.org/ HTTP/1.1\r\n') }, socketWith()),
    ).toBe('HEAD');
  });

  it('takes neither a header line nor a method that is not one for a request line', () => {
    expect(
      answeredRequestMethod({ rawPacket: Buffer.from('Not a header\r\nHost: a\r\n') }, socketWith()),
    ).toBeUndefined();
    expect(answeredRequestMethod({ rawPacket: Buffer.from('x'.repeat(100)) }, socketWith())).toBeUndefined();
    expect(answeredRequestMethod({ rawPacket: Buffer.from('head / HTTP/1.1\r\n') }, socketWith())).toBe('head');
  });

  it('is the method of the oldest request not answered yet when there is one, whatever the bytes', () => {
    expect(
      answeredRequestMethod({ rawPacket: Buffer.from('GET / HTTP/1.1\r\n') }, socketWith({ method: 'HEAD' })),
    ).toBe('HEAD');
    expect(answeredRequestMethod({}, socketWith({ method: 'HEAD' }))).toBe('HEAD');
  });

  it('is unknown without bytes or a request pending', () => {
    expect(answeredRequestMethod({}, socketWith())).toBeUndefined();
  });
});

describe('applyServerLimits: answers to refused requests', () => {
  let server: Server;
  let port: number;

  beforeAll(async () => ({ server, port } = await serverUnderLimits()));
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it('answers HEAD over the head limit with 431 and its Content-Length, without a body; GET with the JSON error', async () => {
    const head = await exchange(port, `HEAD /?x=${'a'.repeat(2048)} HTTP/1.1\r\nHost: a\r\n\r\n`);
    const get = await exchange(port, `GET /?x=${'a'.repeat(2048)} HTTP/1.1\r\nHost: a\r\n\r\n`);
    const body = get.slice(get.indexOf('\r\n\r\n') + 4);
    expect(JSON.parse(body)).toEqual({
      code: 'rest_headers_too_large',
      message: 'The request headers are too large.',
      data: { status: 431 },
    });
    expect(head).toBe(get.slice(0, get.length - body.length));
    expect(head).toMatch(/^HTTP\/1\.1 431 [^\r]*\r\n[\s\S]*Content-Length: 102\r\n[\s\S]*\r\n\r\n$/);
  });

  it('answers a HEAD request that is not valid HTTP with 400 and no body', async () => {
    const answer = await exchange(port, 'HEAD / HTTP/1.1\r\nHost: a\r\nNot a header\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n[\s\S]*\r\n\r\n$/);
  });

  it('answers a refused request pipelined behind a HEAD not answered yet as the HEAD (the client reads it for that)', async () => {
    const answer = await exchange(
      port,
      `HEAD /pending HTTP/1.1\r\nHost: a\r\n\r\nGET /?x=${'a'.repeat(2048)} HTTP/1.1\r\nHost: a\r\n\r\n`,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 431 [^\r]*\r\n[\s\S]*\r\n\r\n$/);
  });

  it('answers a HEAD request whose body does not come in time with 408 and no body', async () => {
    const answer = await exchange(port, 'HEAD /pending HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\nab');
    expect(answer).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n[\s\S]*\r\n\r\n$/);
  }, 10_000);
});
