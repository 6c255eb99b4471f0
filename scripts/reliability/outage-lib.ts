/**
 * The database going away, for `npm run outage` and test/e2e/database-outage.e2e-spec.ts.
 *
 * - MariaDB/MySQL: the server talks to the database through a {@link TcpProxy} of ours, which is cut (the network
 *   goes silent: open connections get no answer, new ones are accepted and never answered, as with a dead host or
 *   a dropped route) and restored; the shared database server itself is never stopped.
 * - SQLite: another process takes the database's write lock and keeps it ({@link SqliteLockHolder}), as a stuck
 *   process, a backup tool or a `sqlite3` shell in a transaction does; the file stays readable (WAL), so reads go on.
 */
import * as net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { Client, startCmsServer } from './chaos-lib';

/** A TCP proxy to one target that can be cut (silently: a black hole) and restored. */
export class TcpProxy {
  private server?: net.Server;
  private down = false;
  /** Client sockets open now, with their upstream when forwarded. */
  private readonly sockets = new Set<{ client: net.Socket; upstream?: net.Socket }>();

  constructor(
    private readonly host: string,
    private readonly port: number,
  ) {}

  /** Listens on a free port of 127.0.0.1; returns it. */
  async listen(): Promise<number> {
    this.server = net.createServer((client) => this.accept(client));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return (this.server.address() as net.AddressInfo).port;
  }

  private accept(client: net.Socket): void {
    const pair: { client: net.Socket; upstream?: net.Socket } = { client };
    this.sockets.add(pair);
    client.on('error', () => undefined);
    client.on('close', () => {
      pair.upstream?.destroy();
      this.sockets.delete(pair);
    });
    if (this.down) {
      // Accepted, never answered: the client waits for the server's greeting until its own timeout.
      client.on('data', () => undefined);
      return;
    }
    const upstream = net.connect(this.port, this.host);
    pair.upstream = upstream;
    upstream.on('error', () => client.destroy());
    upstream.on('close', () => {
      if (!this.down) client.destroy();
    });
    client.pipe(upstream);
    upstream.pipe(client);
  }

  /** The database goes silent: what is sent is dropped, nothing comes back, new connections hang. */
  cut(): void {
    this.down = true;
    for (const pair of this.sockets) {
      pair.client.unpipe();
      pair.upstream?.unpipe();
      pair.client.on('data', () => undefined);
      pair.upstream?.destroy();
    }
  }

  /** The network comes back: the silent connections are reset (as a peer that rebooted does), new ones go through. */
  restore(): void {
    this.down = false;
    for (const pair of [...this.sockets]) if (!pair.upstream || pair.upstream.destroyed) pair.client.destroy();
  }

  async close(): Promise<void> {
    for (const pair of this.sockets) {
      pair.client.destroy();
      pair.upstream?.destroy();
    }
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

/** Another process's connection holding the SQLite database's write lock. */
export class SqliteLockHolder {
  private db?: Database.Database;

  constructor(private readonly file: string) {}

  take(): void {
    this.db = new Database(this.file);
    this.db.exec('BEGIN IMMEDIATE');
  }

  release(): void {
    if (this.db?.inTransaction) this.db.exec('ROLLBACK');
    this.db?.close();
    this.db = undefined;
  }
}

export interface OutageAnswer {
  kind: 'write' | 'read';
  status: number;
  code: string;
  retryAfter: string | null;
  ms: number;
}

export interface OutageResult {
  /** The answers while the database was away. */
  during: OutageAnswer[];
  /** Milliseconds from the database's return to the first acknowledged write. */
  recoveredMs: number;
  /** Writes acknowledged before and after the outage that are not found afterwards. */
  lost: number;
  /** The timeout the server ran with, in seconds. */
  timeoutSeconds: number;
}

export interface OutageOptions {
  kind: 'sqlite' | 'mysql';
  /** `DATABASE_URL` of the database (for MySQL, the proxy is put in front of its host and port). */
  databaseUrl: string;
  uploadDir: string;
  port: number;
  /** CMS_DB_TIMEOUT, in seconds. */
  timeoutSeconds: number;
  /** How long the database stays away, in seconds. */
  outageSeconds: number;
}

/** Starts a server, takes the database away for a while, records the answers, brings it back, checks. */
export async function outageRun(options: OutageOptions): Promise<OutageResult> {
  let proxy: TcpProxy | undefined;
  let lock: SqliteLockHolder | undefined;
  let databaseUrl = options.databaseUrl;
  if (options.kind === 'mysql') {
    const url = new URL(options.databaseUrl);
    proxy = new TcpProxy(url.hostname, Number(url.port || 3306));
    url.hostname = '127.0.0.1';
    url.port = String(await proxy.listen());
    databaseUrl = url.toString();
  } else {
    lock = new SqliteLockHolder(options.databaseUrl.slice('sqlite:'.length));
  }
  const server = await startCmsServer({
    databaseUrl,
    uploadDir: options.uploadDir,
    port: options.port,
    env: { CMS_DB_TIMEOUT: String(options.timeoutSeconds) },
  });
  try {
    const client = new Client(server.base);
    await client.login();
    const acknowledged: number[] = [];
    const write = async (title: string) => {
      const a = await client.send(
        'POST',
        '/posts',
        { title, status: 'publish' },
        {},
        (options.timeoutSeconds + 30) * 1000,
      );
      if (a.status === 201) acknowledged.push(a.json.id);
      return a;
    };
    const before = await write('Before the outage');
    if (before.status !== 201) throw new Error(`no write before the outage: ${before.status}`);

    proxy?.cut();
    lock?.take();
    const during: OutageAnswer[] = [];
    const started = Date.now();
    for (let i = 0; Date.now() - started < options.outageSeconds * 1000; i++) {
      const kind = i % 2 ? 'read' : 'write';
      const t0 = Date.now();
      const a =
        kind === 'write'
          ? await write(`During the outage ${i}`)
          : await client.send(
              'GET',
              `/posts/${before.json.id}?context=edit`,
              undefined,
              {},
              (options.timeoutSeconds + 30) * 1000,
            );
      during.push({
        kind,
        status: a.status,
        code: String(a.json?.code ?? ''),
        retryAfter: a.headers.get('retry-after'),
        ms: Date.now() - t0,
      });
    }
    proxy?.restore();
    lock?.release();

    const back = Date.now();
    let recoveredMs = -1;
    for (let i = 0; i < 600; i++) {
      if ((await write('After the outage')).status === 201) {
        recoveredMs = Date.now() - back;
        break;
      }
      await sleep(100);
    }
    let lost = 0;
    for (const id of acknowledged) if ((await client.send('GET', `/posts/${id}?context=edit`)).status !== 200) lost++;
    return { during, recoveredMs, lost, timeoutSeconds: options.timeoutSeconds };
  } finally {
    proxy?.restore();
    lock?.release();
    await server.stop();
    await proxy?.close();
  }
}
