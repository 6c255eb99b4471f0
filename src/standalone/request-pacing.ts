import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';

/**
 * Runs a server's requests in slices of at most about `sliceMs` of work, the event loop turning between two slices
 * (see {@link paceRequests}). A request that arrives while the current slice has time left, and none waits, runs at
 * once; the others wait their turn, in the order they came, and run in later turns of the loop, as many a turn as
 * fill a slice (counted from the time the previous turn's took).
 */
export class RequestPacer {
  private readonly waiting: Array<[IncomingMessage, ServerResponse]> = [];
  /** When the current slice began (`now()`), or -1 when none has. */
  private sliceStart = -1;
  /** Waiting requests started in one turn. */
  private batch = 1;
  private batchStart = 0;
  private scheduled = false;

  constructor(
    private readonly sliceMs: number,
    private readonly serve: RequestListener,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Requests waiting for their turn. */
  get backlog(): number {
    return this.waiting.length;
  }

  /** Serves the request now if the slice has time left and no other waits; otherwise queues it. */
  admit(req: IncomingMessage, res: ServerResponse): void {
    const now = this.now();
    if (this.sliceStart < 0) {
      this.sliceStart = now;
      // Runs after this turn's I/O callbacks: the next ones begin a new slice.
      setImmediate(() => (this.sliceStart = -1));
    }
    if (!this.waiting.length && now - this.sliceStart < this.sliceMs) {
      this.serve(req, res);
      return;
    }
    this.waiting.push([req, res]);
    this.schedule();
  }

  /**
   * The next batch, and then its measure, in the next check phase of the loop: between the two, Node runs the
   * batch's promise callbacks, so the measure sees the time the batch took, not only its synchronous part.
   */
  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.runBatch());
    setImmediate(() => this.measureBatch());
  }

  private runBatch(): void {
    this.batchStart = this.now();
    for (let started = 0; started < this.batch && this.waiting.length;) {
      const [req, res] = this.waiting.shift() as [IncomingMessage, ServerResponse];
      // A client that went away while its request waited gets nothing: its request is not run.
      if (req.socket.destroyed) continue;
      this.serve(req, res);
      started++;
    }
  }

  private measureBatch(): void {
    this.scheduled = false;
    const took = Math.max(this.now() - this.batchStart, 0.01);
    this.batch = Math.max(1, Math.min(1024, Math.round(this.batch * Math.min(2, this.sliceMs / took))));
    if (this.waiting.length) this.schedule();
  }
}

/**
 * Paces the server's requests (see {@link RequestPacer}): at most about `sliceMs` milliseconds of request work run
 * between two turns of the event loop; `0` leaves the server as it is. Node (libuv) accepts one new connection a turn
 * of the loop, and a turn runs every request that arrived during the previous one: when answers are computed
 * synchronously (SQLite queries), a turn under a thousand keep-alive connections lasts a second, and a connection
 * waiting to be accepted waits for seconds. Slices keep the turns short, so new connections are accepted, and
 * timers and other I/O handled, while requests wait. Call it after the request listeners are in place (and
 * before `logRequests` of logging.ts, whose times then include the wait).
 */
export function paceRequests(server: Server, sliceMs: number): void {
  if (sliceMs <= 0) return;
  const listeners = server.listeners('request') as RequestListener[];
  const pacer = new RequestPacer(sliceMs, (req, res) => {
    for (const listener of listeners) listener(req, res);
  });
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => pacer.admit(req, res));
}
