import { request as httpRequest } from 'node:http';
import { connect, Socket } from 'node:net';
import { dropTestDatabase } from '../utils/test-db';
import { assertBuilt, serverDatabase, StandaloneServer, startServer, stopServer } from '../utils/standalone-server';

/**
 * No answer to HEAD has a body (RFC 9110 §9.3.2), errors included, and above all those written before the API's
 * routing: what Node refuses itself (431, 400, 408, answered on the socket by the standalone server), and what the
 * API refuses before a route runs (413, invalid JSON, 404 outside the API or without a route, 401, 400 on the
 * parameters). Each is checked over a socket of its own, as the bytes arrive: nothing follows the head, and where the
 * connection stays open a GET after it on the same connection gets its whole answer.
 */

const LIMITS = {
  CMS_HEADERS_TIMEOUT: '1',
  CMS_REQUEST_TIMEOUT: '2',
  CMS_MAX_HEADER_SIZE: '4kb',
  CMS_BODY_LIMIT: '64kb',
};
const HOST = 'Host: example.org\r\n';
const FOLLOW_UP = `GET /cms-json/cms/v2/types/post HTTP/1.1\r\n${HOST}\r\n`;

interface Head {
  status: number;
  headers: Record<string, string>;
}

/** A connection whose bytes are read as they arrive. */
class RawConnection {
  private received = Buffer.alloc(0);
  private closed = false;
  private waiters: Array<() => void> = [];
  private readonly socket: Socket;

  constructor(port: number) {
    this.socket = connect(port, '127.0.0.1');
    this.socket.on('data', (chunk: Buffer) => {
      this.received = Buffer.concat([this.received, chunk]);
      this.wake();
    });
    this.socket.on('error', () => undefined);
    this.socket.on('close', () => {
      this.closed = true;
      this.wake();
    });
  }

  send(bytes: string): void {
    this.socket.write(bytes);
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Waits until `ready` holds of the bytes received, the connection closes, or `ms` pass. */
  async until(ready: (received: Buffer) => boolean, ms: number): Promise<void> {
    const deadline = Date.now() + ms;
    while (!ready(this.received) && !this.closed && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, deadline - Date.now());
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** The bytes received and not yet taken, taken. */
  take(): Buffer {
    const out = this.received;
    this.received = Buffer.alloc(0);
    return out;
  }

  destroy(): void {
    this.socket.destroy();
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}

function parseHead(bytes: Buffer): { head: Head; rest: Buffer } {
  const end = bytes.indexOf('\r\n\r\n');
  if (end < 0) throw new Error(`no answer head in ${JSON.stringify(bytes.toString('latin1').slice(0, 200))}`);
  const [statusLine, ...lines] = bytes.toString('latin1', 0, end).split('\r\n');
  const headers = Object.fromEntries(
    lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
  );
  return { head: { status: Number(statusLine.split(' ')[1]), headers }, rest: bytes.subarray(end + 4) };
}

const hasHead = (bytes: Buffer) => bytes.includes('\r\n\r\n');

interface HeadOutcome {
  status: number;
  /** Bytes that came after the head of the answer to HEAD (none expected). */
  afterHead: string;
  /** Whether the server closed the connection after the answer. */
  closed: boolean;
  /** The GET sent after it on the same connection, when that stayed open: its status and whether its body was whole. */
  followUp?: { status: number; wholeBody: boolean; extra: string };
}

/**
 * Sends `pieces` (a HEAD request), reads the answer's head and whatever follows it for `quietMs`; when the
 * connection stays open, sends a GET and reads its whole answer.
 */
async function headExchange(
  port: number,
  pieces: string[],
  options: { waitMs?: number; quietMs?: number } = {},
): Promise<HeadOutcome> {
  const { waitMs = 10_000, quietMs = 300 } = options;
  const connection = new RawConnection(port);
  try {
    for (const piece of pieces) connection.send(piece);
    await connection.until(hasHead, waitMs);
    // Bytes of a body would be written with the head; a moment lets any of them arrive.
    await connection.until(() => false, quietMs);
    const { head, rest } = parseHead(connection.take());
    const outcome: HeadOutcome = {
      status: head.status,
      afterHead: rest.toString('latin1'),
      closed: connection.isClosed,
    };
    if (connection.isClosed || head.headers.connection === 'close') {
      await connection.until(() => false, 3000);
      return { ...outcome, closed: connection.isClosed };
    }
    connection.send(FOLLOW_UP);
    const whole = (bytes: Buffer) => {
      if (!hasHead(bytes)) return false;
      const { head: answer, rest: body } = parseHead(bytes);
      return body.length >= Number(answer.headers['content-length'] ?? Infinity);
    };
    await connection.until(whole, waitMs);
    await connection.until(() => false, quietMs);
    const { head: answer, rest: body } = parseHead(connection.take());
    const length = Number(answer.headers['content-length']);
    return {
      ...outcome,
      followUp: {
        status: answer.status,
        wholeBody: body.length >= length,
        extra: body.subarray(length).toString('latin1'),
      },
    };
  } finally {
    connection.destroy();
  }
}

/** A HEAD request through Node's own client: its status, or the error the client met reading the answer. */
function nodeClientHead(port: number, path: string, headers: Record<string, string> = {}): Promise<number | string> {
  return new Promise((resolve) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, method: 'HEAD', headers }, (res) => {
      res.resume();
      res.on('end', () => setTimeout(() => resolve(res.statusCode ?? 0), 200));
    });
    req.on('error', (error) => resolve(error.message));
    req.end();
  });
}

describe('answers to HEAD have no body (standalone server)', () => {
  let server: StandaloneServer;
  let cleanup: () => void = () => undefined;

  beforeAll(async () => {
    assertBuilt();
    const database = await serverDatabase('head_answers');
    cleanup = database.cleanup;
    server = await startServer({ DATABASE_URL: database.url, CMS_REQUEST_LOG: 'off', ...LIMITS });
  });
  afterAll(async () => {
    await stopServer(server);
    cleanup();
    await dropTestDatabase('head_answers');
  });

  describe('what Node refuses before the API (answered on the socket), closing the connection', () => {
    const cases: Array<[string, number, string[]]> = [
      [
        'a request line over the head limit',
        431,
        [`HEAD /cms-json/cms/v2/types?x=${'a'.repeat(17 * 1024)} HTTP/1.1\r\n${HOST}\r\n`],
      ],
      [
        'a header over the head limit',
        431,
        [`HEAD /cms-json/cms/v2/types HTTP/1.1\r\n${HOST}X-Filler: ${'a'.repeat(5 * 1024)}\r\n\r\n`],
      ],
      ['a header line without a colon', 400, [`HEAD /cms-json/cms/v2/types HTTP/1.1\r\n${HOST}Not a header\r\n\r\n`]],
      ['an unknown HTTP version', 400, [`HEAD /cms-json/cms/v2/types HTTP/9.9\r\n${HOST}\r\n`]],
      [
        'both Content-Length and chunked',
        400,
        [
          `HEAD /cms-json/cms/v2/types HTTP/1.1\r\n${HOST}Transfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n0\r\n\r\n`,
        ],
      ],
      [
        'a body that does not come in time',
        408,
        [
          `HEAD /cms-json/cms/v2/types HTTP/1.1\r\n${HOST}Content-Type: application/json\r\nContent-Length: 10\r\n\r\n{"`,
        ],
      ],
    ];

    it.each(cases)('%s: %d, the head without a body', async (_name, status, pieces) => {
      const outcome = await headExchange(server.port, pieces);
      expect({ status: outcome.status, afterHead: outcome.afterHead, closed: outcome.closed }).toEqual({
        status,
        afterHead: '',
        closed: true,
      });
    });

    it('keeps the JSON error, and its Content-Length, for the same requests made with GET', async () => {
      const connection = new RawConnection(server.port);
      connection.send(`GET /cms-json/cms/v2/types?x=${'a'.repeat(17 * 1024)} HTTP/1.1\r\n${HOST}\r\n`);
      await connection.until(() => false, 3000);
      const { head, rest } = parseHead(connection.take());
      expect({
        status: head.status,
        length: Number(head.headers['content-length']),
        code: (JSON.parse(rest.toString()) as { code: string }).code,
      }).toEqual({
        status: 431,
        length: rest.length,
        code: 'rest_headers_too_large',
      });
      const headAnswer = await headExchange(server.port, [
        `HEAD /cms-json/cms/v2/types?x=${'a'.repeat(17 * 1024)} HTTP/1.1\r\n${HOST}\r\n`,
      ]);
      expect(headAnswer.afterHead).toBe('');
    });

    it("lets Node's HTTP client read a 431 to HEAD (no 'Data after Connection: close')", async () => {
      expect(await nodeClientHead(server.port, `/cms-json/cms/v2/types?x=${'a'.repeat(17 * 1024)}`)).toBe(431);
      expect(await nodeClientHead(server.port, '/cms-json/cms/v2/types', { 'X-Filler': 'a'.repeat(5 * 1024) })).toBe(
        431,
      );
    });
  });

  describe("what the API refuses before a route runs (written through Node's response)", () => {
    const closing: Array<[string, number, string[]]> = [
      [
        'a declared body over the body limit',
        413,
        [
          `HEAD /cms-json/cms/v2/types HTTP/1.1\r\n${HOST}Content-Type: application/json\r\nContent-Length: 1048576\r\n\r\n`,
        ],
      ],
      [
        'a multipart body on a route that takes no files',
        413,
        [
          `HEAD /cms-json/cms/v2/posts HTTP/1.1\r\n${HOST}Content-Type: multipart/form-data; boundary=x\r\nContent-Length: 4\r\n\r\n--x-`,
        ],
      ],
    ];
    it.each(closing)('%s: %d, the head without a body, then the connection closed', async (_name, status, pieces) => {
      const outcome = await headExchange(server.port, pieces);
      expect({ status: outcome.status, afterHead: outcome.afterHead, closed: outcome.closed }).toEqual({
        status,
        afterHead: '',
        closed: true,
      });
    });

    const open: Array<[string, number, string[]]> = [
      [
        'a body that is not JSON',
        400,
        [
          `HEAD /cms-json/cms/v2/posts HTTP/1.1\r\n${HOST}Content-Type: application/json\r\nContent-Length: 5\r\n\r\n{bad}`,
        ],
      ],
      ['a path outside the API', 404, [`HEAD /no-such-page HTTP/1.1\r\n${HOST}\r\n`]],
      ['an upload that does not exist', 404, [`HEAD /wp-content/uploads/none.png HTTP/1.1\r\n${HOST}\r\n`]],
      ['an API path without a route', 404, [`HEAD /cms-json/cms/v2/no-such-route HTTP/1.1\r\n${HOST}\r\n`]],
      ['a ?rest_route= without a route', 404, [`HEAD /?rest_route=/cms/v2/no-such-route HTTP/1.1\r\n${HOST}\r\n`]],
      [
        'a method override to one the route lacks',
        404,
        [`HEAD /cms-json/cms/v2/types HTTP/1.1\r\n${HOST}X-HTTP-Method-Override: DELETE\r\n\r\n`],
      ],
      ['an invalid parameter', 400, [`HEAD /cms-json/cms/v2/posts?per_page=1000 HTTP/1.1\r\n${HOST}\r\n`]],
      [
        'credentials that do not match',
        401,
        [
          `HEAD /cms-json/cms/v2/users/me HTTP/1.1\r\n${HOST}Authorization: Basic ${Buffer.from('nobody:wrong').toString('base64')}\r\n\r\n`,
        ],
      ],
      ['a docs file that does not exist', 404, [`HEAD /cms-json/docs/no-such-file.js HTTP/1.1\r\n${HOST}\r\n`]],
    ];
    it.each(open)(
      '%s: %d, the head without a body; a GET after it on the connection is read whole',
      async (_name, status, pieces) => {
        const outcome = await headExchange(server.port, pieces);
        expect(outcome).toEqual({
          status,
          afterHead: '',
          closed: false,
          followUp: { status: 200, wholeBody: true, extra: '' },
        });
      },
    );
  });
});
