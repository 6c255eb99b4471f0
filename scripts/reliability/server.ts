import { once } from 'node:events';
/** The server process and database the reliability scripts run against (fuzz.ts, sqlmap.ts). */
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as mysql from 'mysql2/promise';

export const ROOT = path.resolve(__dirname, '..', '..');
const MAIN = path.join(ROOT, 'dist', 'main.js');
const CLI = path.join(ROOT, 'dist', 'cli.js');

export async function freePort(): Promise<number> {
  const net = await import('node:net');
  return new Promise((resolve, reject) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

/** Stops a server started by {@link startServer} (SIGTERM, waiting for its exit), if it still runs. */
export async function stopServer(server: Server | undefined): Promise<void> {
  if (!server || server.child.exitCode !== null) return;
  server.child.kill('SIGTERM');
  await once(server.child, 'exit');
}

/** A fresh database: a temporary SQLite file, or the database `name` on MariaDB. */
export async function prepareDatabase(
  db: 'sqlite' | 'mysql',
  name: string,
): Promise<{ url: string; drop: () => Promise<void> }> {
  if (db === 'sqlite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), `cms-${name}-`));
    return {
      url: `sqlite:${path.join(dir, 'cms.sqlite')}`,
      drop: async () => fs.rmSync(dir, { recursive: true, force: true }),
    };
  }
  const server = mysqlServer();
  const connect = () =>
    mysql.createConnection({
      host: server.hostname,
      port: Number(server.port || 3306),
      user: decodeURIComponent(server.username),
      password: decodeURIComponent(server.password),
    });
  const c = await connect();
  await c.query(`DROP DATABASE IF EXISTS \`${name}\``);
  await c.query(`CREATE DATABASE \`${name}\` DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_520_ci`);
  await c.end();
  const url = new URL(server.toString());
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const d = await connect();
      await d.query(`DROP DATABASE IF EXISTS \`${name}\``);
      await d.end();
    },
  };
}

export interface Server {
  child: ChildProcess;
  base: string;
  output: () => string;
  heap: () => Promise<{ heapUsed: number; rss: number }>;
}

export async function startServer(env: Record<string, string>): Promise<Server> {
  const port = await freePort();
  let output = '';
  const child = spawn(process.execPath, ['--expose-gc', '-r', path.join(__dirname, 'heap-probe.js'), MAIN], {
    env: { PATH: process.env.PATH ?? '', ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  child.stdout?.on('data', (d) => (output = (output + String(d)).slice(-20_000)));
  child.stderr?.on('data', (d) => (output = (output + String(d)).slice(-20_000)));
  const server: Server = {
    child,
    base: `http://127.0.0.1:${port}`,
    output: () => output,
    heap: () =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no heap figure within 30 s')), 30_000);
        child.once('message', (m: { heapUsed: number; rss: number }) => {
          clearTimeout(timer);
          resolve(m);
        });
        child.send({ type: 'heap' });
      }),
  };
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`server exited: ${output}`);
    try {
      if ((await fetch(`${server.base}/health/ready`)).ok) return server;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`server did not start: ${output}`);
}

export function sh(cmd: string, args: string[]): string {
  try {
    return execFileSync(cmd, args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return '';
  }
}

export function machine(): string {
  const cpus = os.cpus();
  return `${cpus.length} × ${cpus[0]?.model ?? 'CPU'}, ${Math.round(os.totalmem() / 1024 ** 3)} GiB RAM, ${os.type()} ${os.release()}, Node ${process.version}`;
}

function mysqlServer(): URL {
  return new URL(process.env.MYSQL_URL ?? 'mysql://root@127.0.0.1:3306');
}

/** The version the MariaDB/MySQL server at MYSQL_URL reports. */
export async function mysqlVersion(): Promise<string> {
  const server = mysqlServer();
  const c = await mysql.createConnection({
    host: server.hostname,
    port: Number(server.port || 3306),
    user: decodeURIComponent(server.username),
    password: decodeURIComponent(server.password),
  });
  const [rows] = await c.query('SELECT VERSION() AS v');
  await c.end();
  return String((rows as Array<{ v: string }>)[0].v);
}

/** An application password for the user `admin` made with the command line; answers the Basic `Authorization`. */
export function adminAuthorization(databaseUrl: string, prefix: string): string {
  const password = execFileSync(process.execPath, [CLI, 'app-password', 'create', 'admin', 'reliability'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', DATABASE_URL: databaseUrl, CMS_TABLE_PREFIX: prefix, LOG_LEVEL: 'error' },
    encoding: 'utf8',
  }).trim();
  return `Basic ${Buffer.from(`admin:${password}`).toString('base64')}`;
}
