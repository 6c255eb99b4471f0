import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo, connect, Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { paceRequests, RequestPacer } from './request-pacing';

/** A request as the pacer sees it: its number, and its connection (open unless `closed`). */
function fakeRequest(id: number, closed = false): [IncomingMessage, ServerResponse] {
  return [{ url: `/${id}`, socket: { destroyed: closed } } as unknown as IncomingMessage, {} as ServerResponse];
}

/** One turn of the event loop: resolves in the check phase after the pacer's own callbacks queued so far. */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** A pacer of 5 ms slices on a clock that only the requests move: each takes `ms` of it. */
function pacerOfRequestsTaking(ms: number): { pacer: RequestPacer; served: string[] } {
  let clock = 0;
  const served: string[] = [];
  const pacer = new RequestPacer(
    5,
    (req) => {
      served.push(req.url as string);
      clock += ms;
    },
    () => clock,
  );
  return { pacer, served };
}

describe('RequestPacer', () => {
  it('serves requests at once while the slice has time left', () => {
    const { pacer, served } = pacerOfRequestsTaking(1);
    for (let id = 0; id < 4; id++) pacer.admit(...fakeRequest(id));
    expect(served).toEqual(['/0', '/1', '/2', '/3']);
    expect(pacer.backlog).toBe(0);
  });

  it('queues the requests past the slice and serves them in arrival order, a slice a turn of the event loop', async () => {
    const { pacer, served } = pacerOfRequestsTaking(3);
    for (let id = 0; id < 12; id++) pacer.admit(...fakeRequest(id));
    // 0 and 1 fill the 5 ms slice (6 ms): the others wait.
    expect(served).toEqual(['/0', '/1']);
    expect(pacer.backlog).toBe(10);
    await nextTurn();
    expect(served.length).toBeLessThan(12);
    for (let turn = 0; turn < 12 && pacer.backlog; turn++) await nextTurn();
    expect(served).toEqual(Array.from({ length: 12 }, (_, id) => `/${id}`));
  });

  it('serves a request that arrives while others wait after them', async () => {
    const { pacer, served } = pacerOfRequestsTaking(6);
    pacer.admit(...fakeRequest(0));
    pacer.admit(...fakeRequest(1));
    await nextTurn();
    pacer.admit(...fakeRequest(2));
    for (let turn = 0; turn < 5 && pacer.backlog; turn++) await nextTurn();
    expect(served).toEqual(['/0', '/1', '/2']);
  });

  it('does not run a waiting request whose client has closed the connection', async () => {
    const { pacer, served } = pacerOfRequestsTaking(6);
    pacer.admit(...fakeRequest(0));
    pacer.admit(...fakeRequest(1, true));
    pacer.admit(...fakeRequest(2));
    for (let turn = 0; turn < 5 && pacer.backlog; turn++) await nextTurn();
    expect(served).toEqual(['/0', '/2']);
  });
});

/** Busy for `ms` milliseconds, as a request computed synchronously (a SQLite query) is. */
function busy(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !condition(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(condition()).toBe(true);
}

/**
 * `count` keep-alive connections, accepted by the server, each of which sends a request at once; then one more
 * connection. Resolves, once every request is answered, with the number of requests served when the server
 * accepted the last connection.
 */
async function servedWhenLateConnectionAccepted(server: Server, count: number): Promise<number> {
  let accepted = 0;
  let served = 0;
  let servedAtLateAccept = -1;
  server.on('request', (_req: IncomingMessage, res: ServerResponse) => res.on('finish', () => served++));
  server.on('connection', () => {
    if (++accepted === count + 1) servedAtLateAccept = served;
  });
  const { port } = server.address() as AddressInfo;
  const sockets: Socket[] = [];
  const answers: string[] = [];
  for (let i = 0; i < count; i++) {
    const socket = connect(port, '127.0.0.1');
    answers.push('');
    socket.on('data', (chunk) => (answers[i] += chunk.toString()));
    sockets.push(socket);
  }
  await until(() => accepted === count);
  await new Promise((r) => setTimeout(r, 20));
  for (const socket of sockets) socket.write('GET / HTTP/1.1\r\nHost: localhost\r\n\r\n');
  const late = connect(port, '127.0.0.1');
  sockets.push(late);
  await until(() => servedAtLateAccept >= 0 && answers.every((answer) => answer.endsWith('\r\n\r\nok')));
  expect(answers.every((answer) => answer.startsWith('HTTP/1.1 200 OK'))).toBe(true);
  for (const socket of sockets) socket.destroy();
  return servedAtLateAccept;
}

describe('paceRequests', () => {
  let server: Server;

  async function listening(sliceMs: number, workMs: number): Promise<Server> {
    server = createServer((_req, res) => {
      busy(workMs);
      res.end('ok');
    });
    paceRequests(server, sliceMs);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return server;
  }

  afterEach(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('leaves the request listeners as they are with a slice of 0', async () => {
    await listening(0, 0);
    const before = server.listeners('request');
    paceRequests(server, 0);
    expect(server.listeners('request')).toEqual(before);
  });

  it('accepts a connection that arrives while requests computed synchronously wait, before serving them all', async () => {
    // 20 requests of 20 ms arrive together: unpaced, the loop's turn runs all of them (400 ms) before it accepts.
    await listening(5, 20);
    expect(await servedWhenLateConnectionAccepted(server, 20)).toBeLessThanOrEqual(3);
  });
});
