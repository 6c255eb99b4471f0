/**
 * `npm run load [-- --db sqlite|mysql --connections 1000 --seconds 60]`: many concurrent keep-alive connections on
 * `posts?per_page=10` against the built standalone server (`node dist/main`, one worker per CPU) on a seeded site
 * (bench/seed.ts), with the response cache on and then off. A run passes when no request fails: no socket error,
 * no timeout, no answer other than 200. It checks first what the connections need (open files, the listen
 * backlog), and writes the `load` section of docs/reliability.md.
 */
import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { prepareDatabase, seedDatabase, type BenchDb, type PreparedDatabase } from '../../bench/seed';
import { writeSection } from './report';
import { commitOf, databaseVersion, kernelSetting, machineFacts, openFileLimit, option, ROOT } from './run-facts';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const autocannon = require('autocannon') as (
  options: Record<string, unknown>,
  done: (error: Error | null, result: CannonResult) => void,
) => { stop(): void };
// eslint-disable-next-line @typescript-eslint/no-require-imports
const AUTOCANNON_VERSION = (require('autocannon/package.json') as { version: string }).version;

interface CannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number; max: number; mean: number };
  errors: number;
  timeouts: number;
  non2xx: number;
  resets: number;
  statusCodeStats?: Record<string, { count: number }>;
}

type CacheMode = 'on' | 'off';

interface Measured {
  cache: CacheMode;
  requests: number;
  perSecond: number;
  p50: number;
  p99: number;
  max: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  statusCodes: Record<string, number>;
  /** Most sockets the server's processes held open at once during the run. */
  serverSockets: number;
  /** Most connections waiting in the kernel's accept queue at once (established, not yet accepted by the server). */
  acceptQueue: number;
}

const PATH = '/cms-json/cms/v2/posts?per_page=10';
const WARMUP_CONNECTIONS = 50;

function log(message: string): void {
  process.stderr.write(`${message}\n`);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** The process and its children (the cluster's workers). */
function processTree(pid: number): number[] {
  const children = spawnSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' })
    .stdout.split('\n')
    .filter(Boolean)
    .map(Number);
  return [pid, ...children];
}

/** Connections waiting in the accept queue of the port (`ss`: Recv-Q of the listening socket). */
function acceptQueueOf(port: number): number {
  const line =
    spawnSync('ss', ['-ltnH', `sport = :${port}`], { encoding: 'utf8' })
      .stdout.trim()
      .split('\n')[0] ?? '';
  return Number(line.split(/\s+/)[1]) || 0;
}

/** Sockets open in these processes. */
function socketsOf(pids: number[]): number {
  let count = 0;
  for (const pid of pids) {
    try {
      for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
        try {
          if (fs.readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith('socket:')) count++;
        } catch {
          /* closed meanwhile */
        }
      }
    } catch {
      /* process gone */
    }
  }
  return count;
}

async function startServer(
  databaseUrl: string,
  cache: CacheMode,
  dir: string,
  workers: number,
): Promise<{ child: ChildProcess; base: string; logFile: string }> {
  const port = await freePort();
  const logFile = path.join(dir, `server-cache-${cache}.log`);
  const fd = fs.openSync(logFile, 'a');
  const env = {
    PATH: process.env.PATH ?? '',
    NODE_ENV: 'production',
    PORT: String(port),
    DATABASE_URL: databaseUrl,
    CMS_WORKERS: String(workers),
    CMS_RESPONSE_CACHE: cache,
    CMS_REQUEST_LOG: 'off',
    CMS_UPLOAD_DIR: path.join(dir, 'uploads'),
    // Each worker accepts its own connections: with Node's default the primary hands 1,000 arriving connections to
    // busy workers one at a time (docs/reliability-suite.md, "Load and limits").
    NODE_CLUSTER_SCHED_POLICY: process.env.NODE_CLUSTER_SCHED_POLICY ?? 'none',
    // The server's default unless set (`0`: no pacing, to compare).
    ...(process.env.CMS_EVENT_LOOP_SLICE ? { CMS_EVENT_LOOP_SLICE: process.env.CMS_EVENT_LOOP_SLICE } : {}),
  };
  const child = spawn(process.execPath, [path.join(ROOT, 'dist', 'main.js')], {
    cwd: ROOT,
    env,
    stdio: ['ignore', fd, fd],
  });
  fs.closeSync(fd);
  const base = `http://127.0.0.1:${port}`;
  const processes = workers || os.availableParallelism();
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null)
      throw new Error(`the server exited:\n${fs.readFileSync(logFile, 'utf8').slice(-3000)}`);
    const started = fs
      .readFileSync(logFile, 'utf8')
      .split('\n')
      .filter((line) => line.includes('Nest application successfully started')).length;
    if (started >= processes) {
      const res = await fetch(base + PATH).catch(() => undefined);
      if (res?.status === 200) return { child, base, logFile };
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`the server did not start in 60 s:\n${fs.readFileSync(logFile, 'utf8').slice(-3000)}`);
}

async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  await exited;
  clearTimeout(timer);
}

function cannon(url: string, connections: number, seconds: number): Promise<CannonResult> {
  return new Promise((resolve, reject) => {
    autocannon({ url, connections, duration: seconds, timeout: 10, pipelining: 1 }, (error, result) =>
      error ? reject(error) : resolve(result),
    );
  });
}

async function measure(
  base: string,
  child: ChildProcess,
  cache: CacheMode,
  connections: number,
  seconds: number,
  warmup: number,
): Promise<Measured> {
  // The warm-up heats the server (JIT, caches) through a few connections, then lets it finish their requests: the
  // measured connections all open against a server at rest, as the measurement's own.
  if (warmup > 0) {
    await cannon(base + PATH, WARMUP_CONNECTIONS, warmup);
    await new Promise((r) => setTimeout(r, 2000));
  }
  const pids = processTree(child.pid as number);
  const port = Number(new URL(base).port);
  let serverSockets = 0;
  let acceptQueue = 0;
  const sampler = setInterval(() => {
    serverSockets = Math.max(serverSockets, socketsOf(pids));
    acceptQueue = Math.max(acceptQueue, acceptQueueOf(port));
  }, 1000);
  try {
    const result = await cannon(base + PATH, connections, seconds);
    const statusCodes = Object.fromEntries(
      Object.entries(result.statusCodeStats ?? {}).map(([code, { count }]) => [code, count]),
    );
    return {
      cache,
      requests: result.requests.total,
      perSecond: result.requests.average,
      p50: result.latency.p50,
      p99: result.latency.p99,
      max: result.latency.max,
      errors: result.errors,
      timeouts: result.timeouts,
      non2xx: Object.entries(statusCodes).reduce((n, [code, count]) => n + (code === '200' ? 0 : count), 0),
      statusCodes,
      serverSockets,
      acceptQueue,
    };
  } finally {
    clearInterval(sampler);
  }
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const db = option(args, 'db', 'LOAD_DB', 'sqlite') as BenchDb;
  if (db !== 'sqlite' && db !== 'mysql') throw new Error('--db must be sqlite or mysql');
  const connections = Number(option(args, 'connections', 'LOAD_CONNECTIONS', '1000'));
  const seconds = Number(option(args, 'seconds', 'LOAD_SECONDS', '60'));
  const warmup = Number(option(args, 'warmup', 'LOAD_WARMUP', '5'));
  const posts = Number(option(args, 'posts', 'LOAD_POSTS', '10000'));
  const workers = Number(option(args, 'workers', 'LOAD_WORKERS', '0'));
  const mysqlUrl = option(args, 'mysql-url', 'MYSQL_URL', 'mysql://root@127.0.0.1:3306');
  for (const [name, value] of Object.entries({ connections, seconds, posts })) {
    if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} must be a positive integer`);
  }
  if (!Number.isInteger(warmup) || warmup < 0) throw new Error('--warmup must be an integer of at least 0');
  if (!Number.isInteger(workers) || workers < 0 || workers > 64)
    throw new Error('--workers must be an integer between 0 and 64');
  const command = `npm run load${args.length ? ` -- ${args.join(' ')}` : ''}`;
  const slice = process.env.CMS_EVENT_LOOP_SLICE || '5';

  // What 1,000 connections need: an open file each in the client (this process) and in the server, a listen
  // backlog that takes a burst of connections, and ephemeral ports.
  const files = openFileLimit();
  const need = connections + 256;
  if (files && files.soft < need) {
    log(
      `the open-file limit is ${files.soft} (hard ${files.hard}): ${connections} connections need at least ${need}; raise it (ulimit -n ${need}) and rerun`,
    );
    return 1;
  }
  const somaxconn = kernelSetting('net/core/somaxconn');
  const synBacklog = kernelSetting('net/ipv4/tcp_max_syn_backlog');
  const ports = kernelSetting('net/ipv4/ip_local_port_range');

  if (!fs.existsSync(path.join(ROOT, 'dist', 'main.js'))) {
    log('building (npx nest build)…');
    if (spawnSync('npx', ['nest', 'build'], { cwd: ROOT, stdio: 'inherit' }).status !== 0) return 1;
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cms-load-'));
  let prepared: PreparedDatabase | undefined;
  const results: Measured[] = [];
  let version = '';
  try {
    prepared = await prepareDatabase(db, {
      mysqlUrl,
      sqliteFile: db === 'sqlite' ? path.join(dir, 'load.sqlite') : undefined,
      mysqlDatabase: 'cms_load',
    });
    log(`seeding ${posts} posts into ${prepared.where}…`);
    const seeded = await seedDatabase({ databaseUrl: prepared.databaseUrl, posts });
    log(
      `seeded in ${(seeded.ms / 1000).toFixed(1)} s: ${seeded.counts.posts} posts, ${seeded.counts.comments} comments`,
    );
    version = await databaseVersion(prepared.databaseUrl);
    for (const cache of ['on', 'off'] as const) {
      const server = await startServer(prepared.databaseUrl, cache, dir, workers);
      try {
        log(
          `cache ${cache}: ${WARMUP_CONNECTIONS} connections for ${warmup} s (warm-up), then ${connections} for ${seconds} s on ${PATH}…`,
        );
        const result = await measure(server.base, server.child, cache, connections, seconds, warmup);
        results.push(result);
        log(
          `cache ${cache}: ${result.requests} requests, ${result.perSecond.toFixed(0)} req/s, p50 ${result.p50} ms, p99 ${result.p99} ms, ` +
            `errors ${result.errors}, timeouts ${result.timeouts}, non-200 ${result.non2xx}, server sockets ${result.serverSockets}, accept queue ${result.acceptQueue}`,
        );
      } finally {
        await stopServer(server.child);
      }
    }
  } finally {
    await prepared?.drop().catch((error: Error) => log(`could not remove the database: ${error.message}`));
    fs.rmSync(dir, { recursive: true, force: true });
  }

  const failed = results.filter((r) => r.errors || r.timeouts || r.non2xx);
  const row = (r: Measured) =>
    `| ${r.cache} | ${r.requests.toLocaleString('en-US')} | ${Math.round(r.perSecond).toLocaleString('en-US')} | ${r.p50} | ${r.p99} | ${r.max} | ${r.errors} | ${r.timeouts} | ${r.non2xx} | ${r.serverSockets} | ${r.acceptQueue} |`;
  // One section a database: a run on one leaves the other's figures as they are.
  writeSection(
    db === 'mysql' ? 'load-mysql' : 'load',
    `## Load: ${connections.toLocaleString('en-US')} keep-alive connections for ${seconds} s (${db === 'mysql' ? 'MariaDB' : 'SQLite'})

${failed.length ? `**FAILED**: requests failed with the response cache ${failed.map((r) => r.cache).join(' and ')}.` : `**No request failed**: no socket error, no timeout, no answer other than 200, with the response cache on and off.`}

\`GET ${PATH}\` on a seeded site (bench/seed.ts: ${posts.toLocaleString('en-US')} posts), ${connections.toLocaleString('en-US')} concurrent keep-alive
connections (autocannon ${AUTOCANNON_VERSION}, in the same machine, 10 s timeout, no pipelining) for ${seconds} s after a ${warmup} s warm-up (${WARMUP_CONNECTIONS} connections),
against the built standalone server (\`node dist/main\`, \`NODE_ENV=production\`, \`CMS_WORKERS=${workers}\`: ${workers || os.availableParallelism()} worker(s), \`NODE_CLUSTER_SCHED_POLICY=${process.env.NODE_CLUSTER_SCHED_POLICY ?? 'none'}\`, request log off).

| response cache | requests | req/s | p50 ms | p99 ms | max ms | socket errors | timeouts | non-200 | server sockets (most) | accept queue (most) |
|---|---|---|---|---|---|---|---|---|---|---|
${results.map(row).join('\n')}

What the connections need, checked before the run: open files ${files ? `${files.soft} (hard ${files.hard})` : 'unknown'} for ${need} needed per process;
listen backlog 4096 (the server's; \`net.core.somaxconn\` ${somaxconn ?? 'unknown'}, \`tcp_max_syn_backlog\` ${synBacklog ?? 'unknown'});
ephemeral ports ${ports ?? 'unknown'}; \`server.maxConnections\` unlimited (Node's default); keep-alive timeout 5 s,
head timeout 60 s, request timeout 300 s (the defaults of \`CMS_KEEPALIVE_TIMEOUT\`, \`CMS_HEADERS_TIMEOUT\`, \`CMS_REQUEST_TIMEOUT\`);
${slice === '0' ? 'requests not paced (`CMS_EVENT_LOOP_SLICE=0`)' : `requests paced in slices of ${slice} ms of work between two turns of the event loop (\`CMS_EVENT_LOOP_SLICE\`${process.env.CMS_EVENT_LOOP_SLICE ? '' : ', its default'})`}.

- Command: \`${command}\`
- Commit: ${commitOf()}; date: ${new Date().toISOString()}
- Database: ${version} (${db === 'sqlite' ? 'a file in a temporary directory' : 'database cms_load, dropped afterwards'})
- Machine: ${machineFacts()}; the load generator shares the CPUs with the server`,
  );
  log(`wrote the load section of docs/reliability.md${failed.length ? ' (FAILED)' : ''}`);
  return failed.length ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: Error) => {
    log(`load failed: ${error.stack ?? error.message}`);
    process.exit(1);
  },
);
