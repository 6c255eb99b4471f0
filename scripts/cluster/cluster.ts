/**
 * `npm run cluster -- up | check | down`: a fleet of cms-api on one machine (see fleet.ts for the layout).
 *
 * - `up` starts a 3-node MariaDB Galera cluster (rsync state transfer, nodes run as the mysql user), HAProxy (writer
 *   port ${PORTS.writer}, reader port, HTTP front), Redis, s3rver and three API nodes built from this tree, and writes
 *   `.cluster/env` (LB_URL, NODE_URLS, DATABASE_URL, DATABASE_REPLICA_URLS, CMS_REDIS_URL, the S3 settings,
 *   ADMIN_USER, ADMIN_PASSWORD).
 * - `check` runs the fleet's checks (check.ts) and prints a table of figures (also `.cluster/check.json`).
 * - `down` stops exactly what `up` started and removes the data (the logs stay in `.cluster/logs`).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runChecks } from './check';
import {
  alive,
  API_NODES,
  apiEnvironment,
  BUCKET,
  cleanData,
  daemon,
  DB_NODES,
  DIR,
  ENV_FILE,
  FleetState,
  haproxyConfig,
  log,
  LOGS,
  PORTS,
  readState,
  ROOT,
  startApiNode,
  stop,
  upDatabase,
  waitFor,
  waitReady,
  writeState,
} from './fleet';

async function up(): Promise<void> {
  const started = Date.now();
  const previous = readState();
  if (previous && Object.values(previous.pids).some(alive))
    throw new Error('A fleet is already up: run `npm run cluster -- down` first');
  cleanData();
  mkdirSync(LOGS, { recursive: true });
  const pids: Record<string, number> = {};
  const env = apiEnvironment();
  const state: FleetState = { pids, env, started: new Date().toISOString() };
  // Written as each part starts: a failure half-way leaves what `down` needs.
  const save = () => writeState(state);
  save();
  try {
    log('building the API (tsc) into .cluster/build');
    const build = Date.now();
    execFileSync(
      process.execPath,
      [
        join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'),
        '-p',
        join(ROOT, 'tsconfig.build.json'),
        '--outDir',
        join(DIR, 'build'),
        '--declaration',
        'false',
        '--sourceMap',
        'false',
      ],
      { stdio: 'inherit' },
    );
    log(`built in ${((Date.now() - build) / 1000).toFixed(1)} s`);

    log('starting Redis and s3rver');
    pids.redis = daemon('redis', '/usr/bin/redis-server', [
      '--port',
      String(PORTS.redis),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
    ]).pid!;
    mkdirSync(join(DIR, 's3'), { recursive: true });
    pids.s3 = daemon('s3rver', process.execPath, [
      join(__dirname, 's3.js'),
      String(PORTS.s3),
      join(DIR, 's3'),
      BUCKET,
    ]).pid!;
    save();

    log('starting the Galera cluster (3 nodes)');
    await upDatabase(pids);
    save();
    pids.agent = daemon('agent', process.execPath, [
      join(__dirname, 'agent.js'),
      ...DB_NODES.map((node) => `${node.agent}:${node.socket}`),
    ]).pid!;
    writeFileSync(join(DIR, 'haproxy.cfg'), haproxyConfig());
    daemon('haproxy', '/usr/sbin/haproxy', ['-f', join(DIR, 'haproxy.cfg'), '-D']);
    await waitFor('haproxy', 10_000, () => Number(readFileSync(join(DIR, 'haproxy.pid'), 'utf8')) > 0);
    pids.haproxy = Number(readFileSync(join(DIR, 'haproxy.pid'), 'utf8').trim().split('\n')[0]);
    save();

    log('starting 3 API nodes (they migrate under the lock row: one runs, the others wait)');
    for (const node of API_NODES) pids[`api${node.n}`] = startApiNode(node, env);
    save();
    for (const node of API_NODES) await waitReady(node.url);
    await waitReady(`http://127.0.0.1:${PORTS.http}`, 20_000);

    const out: Record<string, string> = {
      LB_URL: `http://127.0.0.1:${PORTS.http}`,
      NODE_URLS: API_NODES.map((node) => node.url).join(','),
      DATABASE_URL: env.DATABASE_URL,
      DATABASE_REPLICA_URLS: env.DATABASE_REPLICA_URLS,
      CMS_REDIS_URL: env.CMS_REDIS_URL,
      CMS_S3_BUCKET: env.CMS_S3_BUCKET,
      CMS_S3_ENDPOINT: env.CMS_S3_ENDPOINT,
      CMS_S3_REGION: env.CMS_S3_REGION,
      CMS_S3_FORCE_PATH_STYLE: env.CMS_S3_FORCE_PATH_STYLE,
      AWS_ACCESS_KEY_ID: env.AWS_ACCESS_KEY_ID,
      AWS_SECRET_ACCESS_KEY: env.AWS_SECRET_ACCESS_KEY,
      CMS_UPLOADS_URL: env.CMS_UPLOADS_URL,
      ADMIN_USER: env.CMS_ADMIN_USER,
      ADMIN_PASSWORD: env.CMS_ADMIN_PASSWORD,
    };
    writeFileSync(
      ENV_FILE,
      `${Object.entries(out)
        .map(([k, v]) => `${k}=${v}`)
        .join('\n')}\n`,
    );
    log(
      `up in ${((Date.now() - started) / 1000).toFixed(1)} s: ${out.LB_URL} (nodes ${out.NODE_URLS}); settings in .cluster/env`,
    );
  } catch (error) {
    save();
    log(`up failed: ${(error as Error).message}; run \`npm run cluster -- down\` to stop what started`);
    throw error;
  }
}

async function down(): Promise<void> {
  const started = Date.now();
  const state = readState();
  if (!state) {
    log('nothing is up');
    return;
  }
  const { pids } = state;
  // The API first (it finishes its requests), then what it uses, the database last (its first node last).
  await Promise.all(API_NODES.map((node) => stop(pids[`api${node.n}`])));
  await Promise.all([stop(pids.haproxy), stop(pids.agent), stop(pids.redis), stop(pids.s3)]);
  for (const node of [...DB_NODES].reverse()) await stop(pids[node.name], 60_000);
  // Processes restarted by `check` (a killed node brought back) are in the state too.
  const left = Object.entries(pids).filter(([, pid]) => alive(pid));
  for (const [, pid] of left) process.kill(pid, 'SIGKILL');
  cleanData();
  log(
    `down in ${((Date.now() - started) / 1000).toFixed(1)} s${left.length ? ` (killed ${left.map(([name]) => name).join(', ')})` : ''}; logs kept in .cluster/logs`,
  );
}

async function main(): Promise<void> {
  const command = process.argv[2];
  if (command === 'up') await up();
  else if (command === 'down') await down();
  else if (command === 'check') process.exitCode = (await runChecks()) ? 0 : 1;
  else {
    process.stderr.write('usage: npm run cluster -- up | check | down\n');
    process.exitCode = 2;
  }
}

main().catch((error: Error) => {
  process.stderr.write(`${error.stack ?? error.message}\n`);
  process.exitCode = 1;
});
