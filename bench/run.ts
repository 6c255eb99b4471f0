/**
 * The benchmark harness: `npm run bench [-- options]`. See bench/README.md.
 *
 * 1. builds the server when dist/main.js is missing;
 * 2. seeds a fresh database (SQLite temp file or MySQL `cms_bench`) through SQL (bench/seed.ts);
 * 3. starts `node dist/main` (NODE_ENV=production) on a free port against it;
 * 4. starts a bare Node `http` server answering a fixed JSON body of the size of the real list response (the bound);
 * 5. runs autocannon on each scenario (2 s warm-up, then the measured run);
 * 6. prints a table and writes bench/results/<date>-<db>.json;
 * 7. stops the servers and removes the database.
 *
 * Exit code: 0 when the run completed (whatever the figures, non-2xx answers and unserved routes included),
 * 1 when the harness failed (build, seeding, a server that does not start or dies), 130 on Ctrl-C.
 */
import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import type { BenchDb, PreparedDatabase, SeedResult } from './seed';

const ROOT = path.resolve(__dirname, '..');
const RESULTS_DIR = path.join(__dirname, 'results');

// ---------------------------------------------------------------------------------------------------------------------
// autocannon (no published types: the part used here)
// ---------------------------------------------------------------------------------------------------------------------

interface Histogram { average: number; mean: number; stddev: number; min: number; max: number; p50: number; p90: number; p97_5: number; p99: number }
interface AutocannonResult {
  requests: Histogram & { total: number; sent: number };
  latency: Histogram & { totalCount: number };
  throughput: Histogram & { total: number };
  errors: number;
  timeouts: number;
  non2xx: number;
  resets: number;
  mismatches: number;
  statusCodeStats: Record<string, { count: number }>;
  duration: number;
  '2xx': number;
}
interface AutocannonRequest { method?: string; path?: string; headers?: Record<string, string>; body?: string; setupRequest?: (request: AutocannonRequest) => AutocannonRequest }
interface AutocannonOptions {
  url: string;
  connections: number;
  duration: number;
  timeout: number;
  pipelining?: number;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  requests?: AutocannonRequest[];
}
interface AutocannonInstance { stop(): void }
type Autocannon = (options: AutocannonOptions, callback: (error: Error | null, result: AutocannonResult) => void) => AutocannonInstance;

// eslint-disable-next-line @typescript-eslint/no-require-imports
const autocannon = require('autocannon') as Autocannon;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const AUTOCANNON_VERSION = (require('autocannon/package.json') as { version: string }).version;

// ---------------------------------------------------------------------------------------------------------------------
// Options
// ---------------------------------------------------------------------------------------------------------------------

interface BenchOptions {
  db: BenchDb;
  posts: number;
  connections: number;
  duration: number;
  warmup: number;
  only: RegExp | null;
  mysqlUrl: string;
  prefix: string;
  workers: number;
  keep: boolean;
  build: boolean;
}

const USAGE = `Usage: npm run bench -- [options]

  --db sqlite|mysql     database (default sqlite; env BENCH_DB)
  --posts N             posts to seed (default 10000; env BENCH_POSTS)
  --connections N       concurrent connections (default 32; env BENCH_CONNECTIONS)
  --duration S          measured seconds per scenario (default 10; env BENCH_DURATION)
  --warmup S            warm-up seconds per scenario (default 2; env BENCH_WARMUP)
  --only REGEX          run only the scenarios whose name matches (the bound always runs; env BENCH_ONLY)
  --mysql-url URL       MySQL server (default mysql://root@127.0.0.1:3306; env MYSQL_URL); database cms_bench
  --prefix P            table prefix (default cms_; env CMS_TABLE_PREFIX)
  --workers N           server processes (CMS_WORKERS; default 0 = one per CPU; env BENCH_WORKERS)
  --keep                keep the seeded database afterwards (and print where it is)
  --build               build the server (npx nest build) even when dist/main.js exists
  --help                this text
`;

function parseOptions(argv: string[]): BenchOptions {
  const flags = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith('--')) throw new UsageError(`unexpected argument ${arg}\n\n${USAGE}`);
    const eq = arg.indexOf('=');
    if (eq > 0) flags.set(arg.slice(2, eq), arg.slice(eq + 1));
    else if (['keep', 'help', 'build'].includes(arg.slice(2))) flags.set(arg.slice(2), 'true');
    else {
      if (i + 1 >= argv.length) throw new UsageError(`${arg} needs a value\n\n${USAGE}`);
      flags.set(arg.slice(2), argv[++i]);
    }
  }
  if (flags.has('help')) {
    process.stdout.write(USAGE);
    process.exit(0);
  }
  const known = ['db', 'posts', 'connections', 'duration', 'warmup', 'only', 'mysql-url', 'prefix', 'keep', 'build', 'workers'];
  for (const name of flags.keys()) if (!known.includes(name)) throw new UsageError(`unknown option --${name}\n\n${USAGE}`);
  const value = (name: string, env: string, fallback: string) => flags.get(name) ?? process.env[env] ?? fallback;
  const positiveNumber = (name: string, env: string, fallback: string, integer: boolean) => {
    const text = value(name, env, fallback);
    const n = Number(text);
    if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) {
      throw new UsageError(`--${name} must be a positive ${integer ? 'integer' : 'number'} (got ${text})`);
    }
    return n;
  };
  const db = value('db', 'BENCH_DB', 'sqlite');
  if (db !== 'sqlite' && db !== 'mysql') throw new UsageError(`--db must be sqlite or mysql (got ${db})`);
  const only = value('only', 'BENCH_ONLY', '');
  let onlyRegex: RegExp | null = null;
  try {
    onlyRegex = only ? new RegExp(only, 'i') : null;
  } catch (error) {
    throw new UsageError(`--only: invalid regular expression: ${(error as Error).message}`);
  }
  const warmupText = value('warmup', 'BENCH_WARMUP', '2');
  const warmup = Number(warmupText);
  if (!Number.isFinite(warmup) || warmup < 0) throw new UsageError(`--warmup must be a number of seconds ≥ 0 (got ${warmupText})`);
  const workersText = value('workers', 'BENCH_WORKERS', '0');
  const workers = Number(workersText);
  if (!Number.isInteger(workers) || workers < 0 || workers > 64) throw new UsageError(`--workers must be an integer from 0 to 64 (got ${workersText})`);
  const prefix = value('prefix', 'CMS_TABLE_PREFIX', 'cms_');
  if (!/^\w{0,32}$/.test(prefix)) throw new UsageError(`--prefix may contain only letters, digits and _ (got ${prefix})`);
  return {
    db,
    posts: positiveNumber('posts', 'BENCH_POSTS', '10000', true),
    connections: positiveNumber('connections', 'BENCH_CONNECTIONS', '32', true),
    duration: positiveNumber('duration', 'BENCH_DURATION', '10', false),
    warmup,
    only: onlyRegex,
    mysqlUrl: value('mysql-url', 'MYSQL_URL', 'mysql://root@127.0.0.1:3306'),
    prefix,
    workers,
    keep: flags.has('keep') || process.env.BENCH_KEEP === '1',
    build: flags.has('build') || process.env.BENCH_BUILD === '1',
  };
}

// ---------------------------------------------------------------------------------------------------------------------
// Processes and clean-up
// ---------------------------------------------------------------------------------------------------------------------

const log = (message: string) => process.stderr.write(`${message}\n`);

interface State {
  tempDir: string | null;
  database: PreparedDatabase | null;
  server: ChildProcess | null;
  bare: ChildProcess | null;
  cannon: AutocannonInstance | null;
  interrupted: boolean;
  keep: boolean;
  seeding: boolean;
}
const state: State = { tempDir: null, database: null, server: null, bare: null, cannon: null, interrupted: false, keep: false, seeding: false };

function alive(child: ChildProcess | null): child is ChildProcess {
  return !!child && child.exitCode === null && child.signalCode === null;
}

/** SIGTERM, then SIGKILL after `graceMs`. */
async function stopChild(child: ChildProcess | null, graceMs = 5000): Promise<void> {
  if (!alive(child)) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => {
    if (alive(child)) child.kill('SIGKILL');
  }, graceMs);
  await exited;
  clearTimeout(timer);
}

let cleanupPromise: Promise<void> | null = null;

/** Stops everything this run started and removes its database and temp files (once). */
function cleanup(): Promise<void> {
  cleanupPromise ??= (async () => {
    state.cannon?.stop();
    await Promise.all([stopChild(state.server), stopChild(state.bare)]);
    if (state.seeding) {
      const { abortSeeding } = await import('./seed');
      await abortSeeding();
    }
    if (state.database) {
      if (state.keep) log(`kept the database: ${state.database.where}`);
      else await withTimeout(state.database.drop(), 15_000, 'dropping the database').catch((error) => log(`could not remove the database: ${(error as Error).message}`));
    }
    if (state.tempDir && !state.keep) fs.rmSync(state.tempDir, { recursive: true, force: true });
  })();
  return cleanupPromise;
}

// Children must not outlive the harness, whatever happens.
process.on('exit', () => {
  for (const child of [state.server, state.bare]) if (alive(child)) child.kill('SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    if (state.interrupted) {
      log('second interrupt: exiting now');
      process.exit(130);
    }
    state.interrupted = true;
    log(`\n${signal}: stopping and cleaning up (press Ctrl-C again to exit at once)…`);
    void cleanup().finally(() => process.exit(130));
  });
}

class Interrupted extends Error {}
/** A bad option: reported without a stack trace. */
class UsageError extends Error {}
function checkInterrupted(): void {
  if (state.interrupted) throw new Interrupted('interrupted');
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: no answer after ${ms / 1000} s`)), ms);
    }),
  ]);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function tail(file: string, lines = 30): string {
  try {
    return fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

// ---------------------------------------------------------------------------------------------------------------------
// HTTP
// ---------------------------------------------------------------------------------------------------------------------

interface Probe {
  status: number;
  /** `code` of a JSON error body. */
  code: string | null;
  bytes: number;
}

async function probe(url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Probe> {
  const response = await fetch(url, { ...init, signal: AbortSignal.timeout(15_000) });
  const body = Buffer.from(await response.arrayBuffer());
  let code: string | null = null;
  if (response.status >= 400) {
    try {
      code = (JSON.parse(body.toString('utf8')) as { code?: string }).code ?? null;
    } catch {
      code = null;
    }
  }
  return { status: response.status, code, bytes: body.length };
}

async function waitForServer(url: string, child: ChildProcess, logFile: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    checkInterrupted();
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`the server exited (code ${child.exitCode ?? child.signalCode}) before answering. Log:\n${tail(logFile)}`);
    }
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
      await response.arrayBuffer();
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`the server did not answer ${url} within ${timeoutMs / 1000} s. Log:\n${tail(logFile)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** A bare Node `http` server answering a fixed JSON body of `bytes` bytes: the upper bound. */
const BARE_SERVER = `
const http = require('node:http');
const size = Number(process.env.BENCH_BODY_BYTES) || 2;
const empty = JSON.stringify({ data: '' });
const body = Buffer.from(JSON.stringify({ data: 'x'.repeat(Math.max(0, size - empty.length)) }));
const server = http.createServer((req, res) => {
  req.resume();
  res.writeHead(200, { 'Content-Type': 'application/json; charset=UTF-8', 'Content-Length': body.length });
  res.end(body);
});
server.keepAliveTimeout = 65000;
server.listen(0, '127.0.0.1', () => process.stdout.write('PORT ' + server.address().port + ' BYTES ' + body.length + '\\n'));
process.on('SIGTERM', () => process.exit(0));
process.on('SIGINT', () => process.exit(0));
`;

function startBareServer(bytes: number): Promise<{ child: ChildProcess; port: number; bytes: number }> {
  const child = spawn(process.execPath, ['-e', BARE_SERVER], {
    env: { ...process.env, BENCH_BODY_BYTES: String(bytes) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  state.bare = child;
  return withTimeout(
    new Promise((resolve, reject) => {
      let out = '';
      child.stdout?.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const match = /PORT (\d+) BYTES (\d+)/.exec(out);
        if (match) resolve({ child, port: Number(match[1]), bytes: Number(match[2]) });
      });
      child.once('exit', (code) => reject(new Error(`the bare Node server exited (code ${code})`)));
      child.once('error', reject);
    }),
    10_000,
    'starting the bare Node server',
  );
}

// ---------------------------------------------------------------------------------------------------------------------
// Scenarios
// ---------------------------------------------------------------------------------------------------------------------

interface Scenario {
  name: string;
  /** What it measures (README and JSON). */
  description: string;
  method: 'GET' | 'POST';
  /** Path on the server (the bound: any path). */
  path: string;
  bound?: boolean;
  headers?: Record<string, string>;
  /** A new body for each request (POST). */
  body?: () => string;
}

function scenarios(seed: SeedResult): Scenario[] {
  const api = '/cms-json/cms/v2';
  const basic = Buffer.from(`${seed.admin.login}:${seed.admin.applicationPassword}`).toString('base64');
  let created = 0;
  return [
    { name: 'bare node (bound)', description: 'bare Node http server, fixed JSON body of the posts?per_page=10 size', method: 'GET', path: '/', bound: true },
    { name: 'index', description: 'GET /cms-json/: the API index (routes and their schemas)', method: 'GET', path: '/cms-json/' },
    { name: 'users?per_page=10', description: 'anonymous list of users who have published posts', method: 'GET', path: `${api}/users?per_page=10` },
    { name: 'types', description: 'post types (registry only, no database)', method: 'GET', path: `${api}/types` },
    { name: 'posts?per_page=10', description: 'the front page: 10 latest published posts', method: 'GET', path: `${api}/posts?per_page=10` },
    { name: 'posts?per_page=100', description: '100 latest published posts', method: 'GET', path: `${api}/posts?per_page=100` },
    { name: 'posts?_embed', description: '10 posts with authors, terms, featured media and replies embedded', method: 'GET', path: `${api}/posts?_embed` },
    { name: 'posts/<id>', description: `one published post (ID ${seed.samplePostId})`, method: 'GET', path: `${api}/posts/${seed.samplePostId}` },
    { name: 'comments?per_page=10', description: 'the 10 latest approved comments, site-wide', method: 'GET', path: `${api}/comments?per_page=10` },
    { name: 'media?per_page=10', description: 'the 10 latest media items, with their sizes', method: 'GET', path: `${api}/media?per_page=10` },
    { name: 'comments?post=<id>', description: `approved comments of a post with a few (post ${seed.sampleCommentsPostId})`, method: 'GET', path: `${api}/comments?post=${seed.sampleCommentsPostId}` },
    { name: 'comments?post=<busy id>', description: `approved comments of a post with hundreds (post ${seed.busyCommentsPostId}; first page of 10)`, method: 'GET', path: `${api}/comments?post=${seed.busyCommentsPostId}` },
    { name: 'posts?search=<word>', description: `search "${seed.searchWord}" in titles, excerpts and contents`, method: 'GET', path: `${api}/posts?search=${encodeURIComponent(seed.searchWord)}` },
    { name: 'posts?categories=<id>', description: `posts of the most used category (term ${seed.sampleCategoryId})`, method: 'GET', path: `${api}/posts?categories=${seed.sampleCategoryId}` },
    {
      name: 'POST posts (auth)',
      description: 'create a published post, Basic auth with an application password',
      method: 'POST',
      path: `${api}/posts`,
      headers: { authorization: `Basic ${basic}`, 'content-type': 'application/json' },
      body: () => {
        created++;
        return JSON.stringify({
          title: `Benchmark post ${created} ${Date.now().toString(36)}`,
          content: `<!-- wp:paragraph -->\n<p>Written by the benchmark, request ${created}.</p>\n<!-- /wp:paragraph -->`,
          status: 'publish',
        });
      },
    },
  ];
}

interface ScenarioResult {
  name: string;
  description: string;
  method: string;
  path: string;
  served: boolean;
  /** Why it did not run, when it did not. */
  skipped?: string;
  probe?: Probe;
  requestsPerSec?: number;
  requestsPerSecStddev?: number;
  totalRequests?: number;
  latencyMs?: { p50: number; p90: number; p99: number; mean: number; max: number };
  non2xx?: number;
  statusCodes?: Record<string, number>;
  errors?: number;
  timeouts?: number;
  bytesPerSec?: number;
  /** requests/s ÷ bound requests/s, in %. */
  ratioToBound?: number | null;
}

function runCannon(options: AutocannonOptions): Promise<AutocannonResult> {
  checkInterrupted();
  return new Promise((resolve, reject) => {
    const guard = setTimeout(() => instance.stop(), (options.duration + 30) * 1000);
    const instance = autocannon(options, (error, result) => {
      clearTimeout(guard);
      state.cannon = null;
      if (state.interrupted) reject(new Interrupted('interrupted'));
      else if (error) reject(error);
      else resolve(result);
    });
    state.cannon = instance;
  });
}

async function runScenario(scenario: Scenario, baseUrl: string, options: BenchOptions): Promise<ScenarioResult> {
  const result: ScenarioResult = { name: scenario.name, description: scenario.description, method: scenario.method, path: scenario.path, served: true };
  const url = baseUrl + scenario.path;
  if (!scenario.bound) {
    try {
      result.probe = await probe(url, { method: scenario.method, headers: scenario.headers, body: scenario.body?.() });
    } catch (error) {
      return { ...result, served: false, skipped: `probe failed: ${(error as Error).message}` };
    }
    if (result.probe.status === 404 && result.probe.code === 'rest_no_route') {
      return { ...result, served: false, skipped: 'not served (404 rest_no_route)' };
    }
  }
  const cannonOptions: AutocannonOptions = {
    url,
    connections: options.connections,
    duration: options.duration,
    timeout: 10,
    pipelining: 1,
    method: scenario.method,
    headers: scenario.headers,
  };
  if (scenario.body) {
    const makeBody = scenario.body;
    cannonOptions.requests = [{ method: scenario.method, setupRequest: (request) => ({ ...request, body: makeBody() }) }];
  }
  if (options.warmup > 0) await runCannon({ ...cannonOptions, duration: options.warmup });
  const measured = await runCannon(cannonOptions);
  const statusCodes = Object.fromEntries(Object.entries(measured.statusCodeStats ?? {}).map(([code, { count }]) => [code, count]));
  return {
    ...result,
    requestsPerSec: measured.requests.average,
    requestsPerSecStddev: measured.requests.stddev,
    totalRequests: measured.requests.total,
    latencyMs: { p50: measured.latency.p50, p90: measured.latency.p90, p99: measured.latency.p99, mean: measured.latency.mean, max: measured.latency.max },
    non2xx: measured.non2xx,
    statusCodes,
    errors: measured.errors,
    timeouts: measured.timeouts,
    bytesPerSec: measured.throughput.average,
  };
}

// ---------------------------------------------------------------------------------------------------------------------
// Report
// ---------------------------------------------------------------------------------------------------------------------

const TARGETS = [
  { scenario: 'posts?per_page=10', minRatio: 20 },
  { scenario: 'posts?_embed', minRatio: 10 },
] as const;
const P99_TARGET_MS = 50;

interface TargetCheck { target: string; result: 'pass' | 'fail' | 'not measured'; value?: string }

function checkTargets(results: ScenarioResult[], connections: number): TargetCheck[] {
  const checks: TargetCheck[] = [];
  for (const { scenario, minRatio } of TARGETS) {
    const r = results.find((x) => x.name === scenario);
    const ratio = r?.ratioToBound;
    checks.push(
      ratio === undefined || ratio === null
        ? { target: `${scenario} ≥ ${minRatio}% of the bound`, result: 'not measured' }
        : { target: `${scenario} ≥ ${minRatio}% of the bound`, result: ratio >= minRatio ? 'pass' : 'fail', value: `${ratio.toFixed(1)}%` },
    );
  }
  for (const r of results) {
    if (r.name === 'bare node (bound)' || !r.latencyMs) continue;
    checks.push({
      target: `${r.name} p99 < ${P99_TARGET_MS} ms at ${connections} connections`,
      result: r.latencyMs.p99 < P99_TARGET_MS ? 'pass' : 'fail',
      value: `${r.latencyMs.p99} ms`,
    });
  }
  return checks;
}

function printTable(results: ScenarioResult[]): void {
  const header = ['scenario', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'errors', '% of bound'];
  const rows: string[][] = results.map((r) => {
    if (!r.served || r.requestsPerSec === undefined) return [r.name, r.skipped ?? 'not run'];
    return [
      r.name,
      r.requestsPerSec.toFixed(0),
      String(r.latencyMs?.p50 ?? ''),
      String(r.latencyMs?.p99 ?? ''),
      String(r.non2xx ?? 0),
      String((r.errors ?? 0)),
      r.ratioToBound === null || r.ratioToBound === undefined ? '—' : `${r.ratioToBound.toFixed(1)}%`,
    ];
  });
  const widths = header.map((h, i) =>
    Math.max(h.length, ...rows.filter((row) => i === 0 || row.length > 2).map((row) => (row[i] ?? '').length)),
  );
  const line = (cells: string[]) =>
    cells.length === 2
      ? `${cells[0].padEnd(widths[0])}  ${cells[1]}`
      : cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ');
  process.stdout.write(`\n${line(header)}\n${widths.map((w) => '-'.repeat(w)).join('  ')}\n`);
  for (const row of rows) process.stdout.write(`${line(row)}\n`);
}

async function databaseVersion(db: BenchDb, mysqlUrl: string): Promise<string> {
  try {
    if (db === 'sqlite') {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const Database = require('better-sqlite3') as new (file: string) => { prepare(sql: string): { get(): unknown }; close(): void };
      const memory = new Database(':memory:');
      const row = memory.prepare('SELECT sqlite_version() AS v').get() as { v: string };
      memory.close();
      return `SQLite ${row.v} (better-sqlite3)`;
    }
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const mysql = require('mysql2/promise') as typeof import('mysql2/promise');
    const url = new URL(mysqlUrl.replace(/^mariadb:/i, 'mysql:'));
    const connection = await mysql.createConnection({
      host: url.hostname || '127.0.0.1',
      port: url.port ? Number(url.port) : 3306,
      user: decodeURIComponent(url.username || 'root'),
      password: decodeURIComponent(url.password),
      connectTimeout: 5000,
    });
    const [rows] = await connection.query('SELECT VERSION() AS v');
    await connection.end();
    return String((rows as { v: string }[])[0].v);
  } catch (error) {
    return `unknown (${(error as Error).message})`;
  }
}

function gitCommit(): string | null {
  const head = spawnSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, encoding: 'utf8' });
  if (head.status !== 0) return null;
  const dirty = spawnSync('git', ['status', '--porcelain', '--', 'src'], { cwd: ROOT, encoding: 'utf8' });
  return head.stdout.trim() + (dirty.stdout.trim() ? ' (src modified)' : '');
}

// ---------------------------------------------------------------------------------------------------------------------
// Main
// ---------------------------------------------------------------------------------------------------------------------

async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2));
  state.keep = options.keep;
  const startedAt = new Date();

  // 1. Build.
  if (options.build || !fs.existsSync(path.join(ROOT, 'dist', 'main.js'))) {
    log(options.build ? 'building (npx nest build)…' : 'dist/main.js is missing: building (npx nest build)…');
    const build = spawnSync('npx', ['nest', 'build'], { cwd: ROOT, stdio: 'inherit', timeout: 600_000 });
    if (build.status !== 0) throw new Error(`npx nest build failed (${build.error?.message ?? `exit ${build.status ?? build.signal}`})`);
  }
  checkInterrupted();

  // 2. Seed.
  const { prepareDatabase, seedDatabase } = await import('./seed');
  state.tempDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cms-bench-'));
  log(`seeding ${options.posts} posts on ${options.db}…`);
  state.database = await prepareDatabase(options.db, {
    mysqlUrl: options.mysqlUrl,
    sqliteFile: options.db === 'sqlite' ? path.join(state.tempDir, 'bench.sqlite') : undefined,
  });
  checkInterrupted();
  state.seeding = true;
  const seed = await seedDatabase({
    databaseUrl: state.database.databaseUrl,
    tablePrefix: options.prefix,
    posts: options.posts,
    log: (message) => log(`  ${message}`),
  });
  state.seeding = false;
  checkInterrupted();
  const c = seed.counts;
  log(
    `seeded in ${(seed.ms / 1000).toFixed(2)} s (schema ${(seed.schemaMs / 1000).toFixed(2)} s): ${c.posts} posts ` +
      `(${Object.entries(c.postsByStatus).map(([s, n]) => `${n} ${s}`).join(', ')}), ${c.attachments} attachments, ` +
      `${c.users} users, ${c.categories} categories, ${c.tags} tags, ${c.termRelationships} term relationships, ` +
      `${c.comments} comments (${Object.entries(c.commentsByStatus).map(([s, n]) => `${n} '${s}'`).join(', ')}; ` +
      `${c.postsWithManyComments} posts with 200–400), ${c.postmeta} postmeta`,
  );

  // 3. The server.
  const port = await freePort();
  const logFile = path.join(state.tempDir, 'server.log');
  const logFd = fs.openSync(logFile, 'a');
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ['CMS_ADMIN_USER', 'CMS_ADMIN_PASSWORD', 'CMS_ADMIN_EMAIL', 'CMS_BASE_URL']) delete env[name];
  Object.assign(env, {
    NODE_ENV: 'production',
    PORT: String(port),
    DATABASE_URL: state.database.databaseUrl,
    CMS_TABLE_PREFIX: options.prefix,
    CMS_UPLOAD_DIR: path.join(state.tempDir, 'uploads'),
    CMS_WORKERS: String(options.workers),
  });
  const server = spawn(process.execPath, [path.join(ROOT, 'dist', 'main.js')], { cwd: ROOT, env, stdio: ['ignore', logFd, logFd] });
  fs.closeSync(logFd);
  state.server = server;
  const baseUrl = `http://127.0.0.1:${port}`;
  const t0 = Date.now();
  await waitForServer(`${baseUrl}/cms-json/`, server, logFile, 60_000);
  log(`server up on ${baseUrl} in ${Date.now() - t0} ms (pid ${server.pid}, ${options.workers || os.availableParallelism()} worker(s), log ${logFile})`);

  // 4. The bound: a bare Node server answering a body of the posts?per_page=10 size (or the index's).
  const list = await probe(`${baseUrl}/cms-json/cms/v2/posts?per_page=10`);
  const sizeSource = list.status === 200 ? 'posts?per_page=10' : 'index (posts?per_page=10 not served)';
  const sizeBytes = list.status === 200 ? list.bytes : (await probe(`${baseUrl}/cms-json/`)).bytes;
  const bare = await startBareServer(sizeBytes);
  log(`bare Node bound on 127.0.0.1:${bare.port}, ${bare.bytes}-byte body (size of ${sizeSource})`);

  // 5. Scenarios.
  const all = scenarios(seed);
  const selected = all.filter((s) => s.bound || !options.only || options.only.test(s.name));
  const results: ScenarioResult[] = [];
  log(`running ${selected.length} scenarios: ${options.warmup} s warm-up + ${options.duration} s each, ${options.connections} connections`);
  let serverDied = false;
  for (const scenario of selected) {
    checkInterrupted();
    if (!alive(server)) {
      serverDied = true;
      results.push({ name: scenario.name, description: scenario.description, method: scenario.method, path: scenario.path, served: false, skipped: 'server exited' });
      continue;
    }
    log(`  ${scenario.name}…`);
    const base = scenario.bound ? `http://127.0.0.1:${bare.port}` : baseUrl;
    const result = await runScenario(scenario, base, options);
    results.push(result);
    if (result.requestsPerSec !== undefined) {
      const codes = Object.entries(result.statusCodes ?? {}).map(([code, n]) => `${code}×${n}`).join(' ');
      log(`    ${result.requestsPerSec.toFixed(0)} req/s, p50 ${result.latencyMs?.p50} ms, p99 ${result.latencyMs?.p99} ms [${codes}]`);
    } else {
      log(`    ${result.skipped}`);
    }
  }
  if (!alive(server)) serverDied = true;
  const bound = results.find((r) => r.name === 'bare node (bound)')?.requestsPerSec;
  for (const r of results) {
    if (r.requestsPerSec !== undefined) r.ratioToBound = bound ? (r.requestsPerSec / bound) * 100 : null;
  }

  // 6. Report.
  printTable(results);
  const targets = checkTargets(results, options.connections);
  process.stdout.write('\ntargets:\n');
  for (const t of targets) process.stdout.write(`  ${t.result.padEnd(12)} ${t.target}${t.value ? ` (${t.value})` : ''}\n`);
  const withErrors = results.filter((r) => (r.non2xx ?? 0) > 0 || (r.errors ?? 0) > 0);
  for (const r of withErrors) {
    const codes = Object.entries(r.statusCodes ?? {}).filter(([code]) => !code.startsWith('2')).map(([code, n]) => `${code}×${n}`).join(', ');
    process.stdout.write(`note: ${r.name}: ${r.non2xx} non-2xx${codes ? ` (${codes})` : ''}, ${r.errors} errors, ${r.timeouts} timeouts\n`);
  }

  const cpus = os.cpus();
  const report = {
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    options: {
      db: options.db,
      posts: options.posts,
      connections: options.connections,
      durationSeconds: options.duration,
      warmupSeconds: options.warmup,
      only: options.only?.source ?? null,
      tablePrefix: options.prefix,
      workers: options.workers === 0 ? os.availableParallelism() : options.workers,
    },
    machine: {
      cpus: cpus.length,
      cpuModel: cpus[0]?.model ?? null,
      cpuSpeedMHz: cpus[0]?.speed ?? null,
      totalMemoryBytes: os.totalmem(),
      platform: os.platform(),
      release: os.release(),
      arch: os.arch(),
      node: process.version,
      autocannon: AUTOCANNON_VERSION,
      database: await databaseVersion(options.db, options.mysqlUrl),
      loadAverage: os.loadavg(),
    },
    gitCommit: gitCommit(),
    seed: {
      ms: seed.ms, schemaMs: seed.schemaMs, counts: seed.counts, samplePostId: seed.samplePostId,
      sampleCommentsPostId: seed.sampleCommentsPostId, busyCommentsPostId: seed.busyCommentsPostId,
      sampleCategoryId: seed.sampleCategoryId, searchWord: seed.searchWord, searchWordPosts: seed.searchWordPosts,
    },
    bound: { bodyBytes: bare.bytes, sizeSource, requestsPerSec: bound ?? null },
    scenarios: results,
    targets,
    serverExited: serverDied ? { code: server.exitCode, signal: server.signalCode, logTail: tail(logFile) } : null,
  };
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  const stamp = startedAt.toISOString().replace(/\.\d+Z$/, 'Z').replace(/:/g, '-');
  const file = path.join(RESULTS_DIR, `${stamp}-${options.db}.json`);
  fs.writeFileSync(file, JSON.stringify(report, null, 2) + '\n');
  process.stdout.write(`\nresults: ${path.relative(process.cwd(), file)}\n`);

  if (serverDied) {
    log(`the server exited during the run (code ${server.exitCode ?? server.signalCode}). Log:\n${tail(logFile)}`);
    return 1;
  }
  return 0;
}

main()
  .then(
    async (code) => {
      await cleanup();
      process.exit(code);
    },
    async (error) => {
      if (state.interrupted || error instanceof Interrupted) return; // the signal handler cleans up and exits
      log(error instanceof UsageError ? `bench: ${error.message}` : `bench failed: ${(error as Error).stack ?? error}`);
      await cleanup();
      process.exit(1);
    },
  );
