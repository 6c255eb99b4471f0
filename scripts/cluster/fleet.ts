/**
 * The fleet on one machine (`npm run cluster -- up | check | down`): a 3-node MariaDB Galera cluster, HAProxy (a
 * writer port, a reader port, an HTTP front over the API nodes), Redis, an S3 API (s3rver) and three cms-api nodes,
 * all on loopback, their files under `.cluster/`. This file holds the layout and the start and stop of each part.
 */
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export const ROOT = resolve(__dirname, '..', '..');
export const DIR = join(ROOT, '.cluster');
export const LOGS = join(DIR, 'logs');
export const STATE_FILE = join(DIR, 'state.json');
export const ENV_FILE = join(DIR, 'env');

export const DB_NODES = [1, 2, 3].map((n) => ({
  n,
  name: `db${n}`,
  port: 3310 + n,
  galera: 4570 + n,
  ist: 4580 + n,
  sst: 4590 + n,
  agent: 9200 + n,
  dir: join(DIR, `db${n}`),
  socket: join(DIR, `db${n}`, 'mysqld.sock'),
}));
export const API_NODES = [1, 2, 3].map((n) => ({ n, port: 3100 + n, url: `http://127.0.0.1:${3100 + n}` }));
export const PORTS = { writer: 3320, reader: 3321, http: 8095, redis: 6390, s3: 9300 };
export const BUCKET = 'media';
const DB_USER = 'cms';
const GALERA =
  ['/usr/lib/galera/libgalera_smm.so', '/usr/lib/libgalera_smm.so'].find((p) => existsSync(p)) ??
  '/usr/lib/galera/libgalera_smm.so';

/** What `up` started, for `down` and `check`. */
export interface FleetState {
  pids: Record<string, number>;
  env: Record<string, string>;
  started: string;
}

export function readState(): FleetState | null {
  return existsSync(STATE_FILE) ? (JSON.parse(readFileSync(STATE_FILE, 'utf8')) as FleetState) : null;
}

export function writeState(state: FleetState): void {
  writeFileSync(STATE_FILE, JSON.stringify(state, null, 2));
}

export function alive(pid: number | undefined): boolean {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export function log(message: string): void {
  process.stdout.write(`[cluster ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}

/** Starts a process detached from this one, its output in a log file; answers its pid. */
export function daemon(name: string, command: string, args: string[], env: Record<string, string> = {}): ChildProcess {
  const out = openSync(join(LOGS, `${name}.log`), 'a');
  const child = spawn(command, args, { detached: true, stdio: ['ignore', out, out], env: { ...process.env, ...env } });
  child.unref();
  return child;
}

export async function waitFor(what: string, ms: number, test: () => Promise<boolean> | boolean): Promise<void> {
  const started = Date.now();
  for (;;) {
    try {
      if (await test()) return;
    } catch {
      // not yet
    }
    if (Date.now() - started > ms) throw new Error(`${what}: not within ${Math.round(ms / 1000)} s (see ${LOGS})`);
    await sleep(250);
  }
}

/** Runs SQL on a database node through its socket as root; answers the output (tab-separated, no headers). */
export function sql(node: (typeof DB_NODES)[number], statement: string): string {
  return execFileSync('mariadb', ['--socket', node.socket, '-uroot', '-N', '-B', '-e', statement], {
    encoding: 'utf8',
    timeout: 15_000,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

export function wsrep(node: (typeof DB_NODES)[number]): Record<string, string> {
  const rows = sql(
    node,
    "SHOW GLOBAL STATUS WHERE Variable_name IN ('wsrep_local_state_comment', 'wsrep_cluster_size', 'wsrep_cluster_status', 'wsrep_ready')",
  );
  return Object.fromEntries(
    rows
      .trim()
      .split('\n')
      .map((line) => line.split('\t') as [string, string]),
  );
}

function nodeConfig(node: (typeof DB_NODES)[number]): string {
  const members = DB_NODES.map((m) => `127.0.0.1:${m.galera}`).join(',');
  return `[mysqld]
datadir=${node.dir}/data
socket=${node.socket}
pid-file=${node.dir}/mysqld.pid
log-error=${join(LOGS, `${node.name}.err`)}
port=${node.port}
bind-address=127.0.0.1
skip-name-resolve
performance_schema=OFF
character-set-server=utf8mb4
collation-server=utf8mb4_unicode_520_ci
innodb_buffer_pool_size=96M
innodb_log_file_size=32M
innodb_flush_log_at_trx_commit=2
max_connections=300
binlog_format=ROW
# The stamp triggers are installed by an account without SUPER while binary logging is on.
log_bin_trust_function_creators=1
default_storage_engine=InnoDB
innodb_autoinc_lock_mode=2
wsrep_on=ON
wsrep_provider=${GALERA}
wsrep_cluster_name=cms-fleet
wsrep_cluster_address=gcomm://${members}
wsrep_node_name=${node.name}
wsrep_node_address=127.0.0.1:${node.galera}
wsrep_sst_method=rsync
wsrep_sst_receive_address=127.0.0.1:${node.sst}
wsrep_provider_options="gmcast.listen_addr=tcp://127.0.0.1:${node.galera};ist.recv_addr=127.0.0.1:${node.ist};gcache.size=64M;evs.suspect_timeout=PT3S;evs.inactive_timeout=PT6S;pc.wait_prim_timeout=PT10S"
`;
}

/** Starts one Galera node (the first of a new cluster with `bootstrap`). */
export function startDbNode(node: (typeof DB_NODES)[number], bootstrap: boolean): number {
  const args = [`--defaults-file=${join(node.dir, 'my.cnf')}`, '--user=mysql'];
  if (bootstrap) args.push('--wsrep-new-cluster');
  return daemon(node.name, '/usr/sbin/mariadbd', args).pid!;
}

export async function waitSynced(node: (typeof DB_NODES)[number], size: number, ms = 120_000): Promise<void> {
  await waitFor(`${node.name} synced in a cluster of ${size}`, ms, () => {
    const status = wsrep(node);
    return (
      status.wsrep_local_state_comment === 'Synced' &&
      Number(status.wsrep_cluster_size) >= size &&
      status.wsrep_cluster_status === 'Primary'
    );
  });
}

export async function upDatabase(pids: Record<string, number>): Promise<void> {
  for (const node of DB_NODES) {
    mkdirSync(join(node.dir, 'data'), { recursive: true });
    writeFileSync(join(node.dir, 'my.cnf'), nodeConfig(node));
  }
  // The first node's data directory is made here; the others receive theirs by state transfer (rsync).
  execFileSync(
    'mariadb-install-db',
    [
      `--defaults-file=${join(DB_NODES[0].dir, 'my.cnf')}`,
      '--user=mysql',
      '--auth-root-authentication-method=socket',
      '--skip-test-db',
    ],
    { stdio: 'ignore' },
  );
  for (const node of DB_NODES) chownTree(node.dir);
  pids.db1 = startDbNode(DB_NODES[0], true);
  await waitSynced(DB_NODES[0], 1);
  const password = 'cms-fleet-db';
  sql(
    DB_NODES[0],
    `CREATE DATABASE cms CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_520_ci; CREATE USER '${DB_USER}'@'127.0.0.1' IDENTIFIED BY '${password}'; GRANT ALL ON cms.* TO '${DB_USER}'@'127.0.0.1';`,
  );
  for (const node of DB_NODES.slice(1)) {
    pids[node.name] = startDbNode(node, false);
    await waitSynced(node, node.n);
  }
}

function chownTree(dir: string): void {
  execFileSync('chown', ['-R', 'mysql:mysql', dir]);
  // mariadbd (as mysql) must reach its files: the directories above it are root's, readable by all.
  chownSync(
    dir,
    Number(execFileSync('id', ['-u', 'mysql'], { encoding: 'utf8' }).trim()),
    Number(execFileSync('id', ['-g', 'mysql'], { encoding: 'utf8' }).trim()),
  );
}

export function haproxyConfig(): string {
  const dbServer = (node: (typeof DB_NODES)[number], backup: boolean) =>
    `  server ${node.name} 127.0.0.1:${node.port} check port ${node.agent} inter 500 fall 2 rise 2 on-marked-down shutdown-sessions${backup ? ' backup' : ''}`;
  return `global
  maxconn 4000
  pidfile ${join(DIR, 'haproxy.pid')}

defaults
  timeout connect 2s
  timeout client 120s
  timeout server 120s
  retries 3
  option redispatch

# The writer: one node takes the writes, the others stand by (single-writer Galera).
listen writer
  bind 127.0.0.1:${PORTS.writer}
  mode tcp
  option httpchk GET /
  http-check expect status 200
${DB_NODES.map((node, i) => dbServer(node, i > 0)).join('\n')}

# The readers: every synced node.
listen reader
  bind 127.0.0.1:${PORTS.reader}
  mode tcp
  balance roundrobin
  option httpchk GET /
  http-check expect status 200
${DB_NODES.map((node) => dbServer(node, false)).join('\n')}

# The API: every node ready (/health/ready); an idempotent request that met a dead node is sent to another.
listen api
  bind 127.0.0.1:${PORTS.http}
  mode http
  balance roundrobin
  option httpchk GET /health/ready
  http-check expect status 200
  retry-on conn-failure empty-response response-timeout
  http-request disable-l7-retry unless METH_GET || METH_HEAD
${API_NODES.map((node) => `  server api${node.n} 127.0.0.1:${node.port} check inter 1s fall 3 rise 1`).join('\n')}
`;
}

/** The environment of every API node. */
export function apiEnvironment(): Record<string, string> {
  const db = (port: number) => `mysql://${DB_USER}:cms-fleet-db@127.0.0.1:${port}/cms`;
  return {
    NODE_ENV: 'production',
    DATABASE_URL: db(PORTS.writer),
    DATABASE_REPLICA_URLS: db(PORTS.reader),
    CMS_REDIS_URL: `redis://127.0.0.1:${PORTS.redis}`,
    CMS_S3_BUCKET: BUCKET,
    CMS_S3_ENDPOINT: `http://127.0.0.1:${PORTS.s3}`,
    CMS_S3_REGION: 'us-east-1',
    CMS_S3_FORCE_PATH_STYLE: 'true',
    AWS_ACCESS_KEY_ID: 'S3RVER',
    AWS_SECRET_ACCESS_KEY: 'S3RVER',
    CMS_UPLOADS_URL: `http://127.0.0.1:${PORTS.s3}/${BUCKET}`,
    CMS_AUTH_SECRET: randomBytes(36).toString('base64'),
    CMS_ADMIN_USER: 'admin',
    CMS_ADMIN_PASSWORD: `fleet-${randomBytes(9).toString('base64url')}`,
    CMS_BASE_URL: `http://127.0.0.1:${PORTS.http}`,
    CMS_WORKERS: '1',
    // WordPress (here: SQL on any database node) may write the same tables: the caches stay exact through them.
    CMS_STAMP_TRIGGERS: 'install',
    CMS_REQUEST_LOG: 'off',
    CMS_DB_TIMEOUT: '5',
    LOG_LEVEL: 'warn',
  };
}

export function startApiNode(node: (typeof API_NODES)[number], env: Record<string, string>): number {
  return daemon(`api${node.n}`, process.execPath, ['--max-semi-space-size=16', join(DIR, 'build', 'main.js')], {
    ...env,
    PORT: String(node.port),
  }).pid!;
}

export async function waitReady(url: string, ms = 90_000): Promise<void> {
  await waitFor(`${url}/health/ready`, ms, async () => (await fetch(`${url}/health/ready`)).status === 200);
}

/** Stops a process: SIGTERM, then SIGKILL after `ms`. */
export async function stop(pid: number | undefined, ms = 15_000): Promise<void> {
  if (!alive(pid)) return;
  process.kill(pid!, 'SIGTERM');
  const started = Date.now();
  while (alive(pid) && Date.now() - started < ms) await sleep(100);
  if (alive(pid)) process.kill(pid!, 'SIGKILL');
}

export function cleanData(): void {
  for (const node of DB_NODES) rmSync(node.dir, { recursive: true, force: true });
  for (const name of ['s3', 'build', 'state.json', 'env', 'haproxy.cfg', 'haproxy.pid', 'check.json'])
    rmSync(join(DIR, name), { recursive: true, force: true });
}
