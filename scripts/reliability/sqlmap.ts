/**
 * sqlmap against every query parameter of the collection routes: `npm run sqlmap [-- --db sqlite|mysql|both]
 * [--level 3] [--risk 2] [--route-timeout 900]`.
 *
 * 1. installs Debian's sqlmap when it is missing (`apt-get install -y sqlmap`);
 * 2. for each database (SQLite file, then MariaDB `cms_sqlmap` at MYSQL_URL): builds the server when dist/main.js is
 *    missing, starts it with an administrator, makes an application password and items (posts with a revision, a
 *    page, terms, a comment, a media file, a user; scripts/reliability/fuzz-requests.ts seedSite);
 * 3. reads the collection routes and their query arguments from the index, and runs sqlmap once per route, batch
 *    mode, authenticated as the administrator on every request (whose answers the response cache never keeps), every argument in the
 *    URL with a value the route accepts, the database's dialect forced, each run bounded in time;
 * 4. writes the `sqlmap` section of docs/reliability.md: parameters tested per route, verdict, sqlmap's version and
 *    the options used.
 *
 * Exit code: 0 when sqlmap found no injectable parameter, 1 when it found one (or a run was inconclusive), 2 on a
 * harness failure.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FuzzArg, FuzzRoute, seedSite } from './fuzz-requests';
import { writeSection } from './report';
import {
  adminAuthorization,
  machine,
  mysqlVersion,
  prepareDatabase,
  ROOT,
  Server,
  sh,
  startServer,
  stopServer,
} from './server';

const PREFIX = 'cms_';
const MAIN = path.join(ROOT, 'dist', 'main.js');

interface Options {
  dbs: Array<'sqlite' | 'mysql'>;
  level: number;
  risk: number;
  routeTimeout: number;
}

function parseArgs(argv: string[]): Options {
  const options: Options = { dbs: ['sqlite', 'mysql'], level: 3, risk: 2, routeTimeout: 900 };
  for (let i = 0; i < argv.length; i += 2) {
    const [name, value] = [argv[i], argv[i + 1] ?? ''];
    if (name === '--db') {
      if (!['sqlite', 'mysql', 'both'].includes(value)) throw new Error('--db is sqlite, mysql or both');
      options.dbs = value === 'both' ? ['sqlite', 'mysql'] : [value as 'sqlite' | 'mysql'];
    } else if (name === '--level' && /^[1-5]$/.test(value)) options.level = Number(value);
    else if (name === '--risk' && /^[1-3]$/.test(value)) options.risk = Number(value);
    else if (name === '--route-timeout' && /^\d+$/.test(value)) options.routeTimeout = Number(value);
    else throw new Error(`unknown option or value: ${name} ${value}`);
  }
  return options;
}

/** A value the argument accepts, written as a query value; undefined for objects (bracket parameters). */
function validQueryValue(name: string, arg: FuzzArg, groups: Record<string, string[]>): string | undefined {
  const type = Array.isArray(arg.type) ? arg.type[0] : (arg.type ?? 'string');
  if (type === 'object') return undefined;
  const item = type === 'array' ? (arg.items ?? { type: 'string' }) : arg;
  const itemType = Array.isArray(item.type) ? item.type[0] : (item.type ?? 'string');
  if (item.enum?.length) return String(item.enum.includes('publish') ? 'publish' : item.enum[0]);
  if (itemType === 'integer' || itemType === 'number') {
    if (['post', 'parent', 'author', 'include', 'exclude'].includes(name)) return groups.parent[0];
    return String(Math.max(1, typeof item.minimum === 'number' ? item.minimum : 1));
  }
  if (itemType === 'boolean') return 'false';
  if (item.format === 'date-time') return '2001-01-01T00:00:00';
  if (item.format === 'email') return 'fuzz@example.org';
  if (item.format === 'uri') return 'http://example.org/';
  return 'fuzz';
}

interface RouteResult {
  route: string;
  parameters: string[];
  tested: string[];
  injectable: string[];
  heuristics: string[];
  verdict: string;
  seconds: number;
  requests: number;
  serverErrors?: number;
}

function ensureSqlmap(): string {
  if (spawnSync('sqlmap', ['--version'], { encoding: 'utf8' }).status !== 0) {
    console.log('Installing sqlmap (apt-get install -y sqlmap)…');
    execFileSync('apt-get', ['install', '-y', 'sqlmap'], {
      stdio: 'inherit',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  }
  const out = spawnSync('sqlmap', ['--version'], { encoding: 'utf8' });
  return (out.stdout.split('\n').find((l) => /^\d/.test(l.trim())) ?? out.stdout).trim();
}

/** The options every sqlmap run gets (the URL, credentials, dialect and output directory are added per run). */
function sqlmapOptions(options: Options): string[] {
  return [
    '--batch',
    `--level=${options.level}`,
    `--risk=${options.risk}`,
    '--technique=BEUSTQ',
    '--time-sec=2',
    '--timeout=15',
    '--retries=1',
    '--threads=4',
    '--flush-session',
    '--disable-coloring',
    '--skip-waf',
  ];
}

async function runSqlmap(
  url: string,
  args: string[],
  timeoutSeconds: number,
): Promise<{ output: string; timedOut: boolean; seconds: number }> {
  const started = Date.now();
  const child = spawn('sqlmap', ['-u', url, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d) => (output += String(d)));
  child.stderr.on('data', (d) => (output += String(d)));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGTERM');
  }, timeoutSeconds * 1000);
  await once(child, 'exit');
  clearTimeout(timer);
  return { output, timedOut, seconds: (Date.now() - started) / 1000 };
}

/** Reads what sqlmap concluded for each parameter from its output. */
function verdictOf(
  route: string,
  parameters: string[],
  run: { output: string; timedOut: boolean; seconds: number },
  requests: number,
): RouteResult {
  const names = (re: RegExp) => [...new Set([...run.output.matchAll(re)].map((m) => m[1]))];
  const notInjectable = names(/GET parameter '([^']+)' does not seem to be injectable/g);
  const injectable = names(/Parameter: ([^\s]+) \(GET\)/g);
  const heuristics = names(/heuristic \(basic\) test shows that GET parameter '([^']+)' might be injectable/g);
  const allClean = /all tested parameters do not appear to be injectable/.test(run.output);
  const verdict = injectable.length
    ? `**injectable: ${injectable.join(', ')}**`
    : run.timedOut
      ? `inconclusive: stopped after ${run.seconds.toFixed(0)} s`
      : allClean && notInjectable.length === parameters.length
        ? 'no injectable parameter'
        : `inconclusive: ${
            run.output
              .split('\n')
              .filter((l) => /CRITICAL|ERROR/.test(l))
              .slice(-1)[0]
              ?.trim() ?? 'no verdict'
          }`;
  return { route, parameters, tested: notInjectable, injectable, heuristics, verdict, seconds: run.seconds, requests };
}

async function campaign(
  db: 'sqlite' | 'mysql',
  options: Options,
): Promise<{ results: RouteResult[]; database: string }> {
  const database = await prepareDatabase(db, 'cms_sqlmap');
  const uploads = fs.mkdtempSync(path.join(os.tmpdir(), 'cms-sqlmap-uploads-'));
  let server: Server | undefined;
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'cms-sqlmap-out-'));
  try {
    server = await startServer({
      DATABASE_URL: database.url,
      CMS_TABLE_PREFIX: PREFIX,
      CMS_ADMIN_USER: 'admin',
      CMS_ADMIN_PASSWORD: `sqlmap-${Math.random().toString(36).slice(2)}`,
      CMS_UPLOAD_DIR: uploads,
      CMS_REQUEST_LOG: 'off',
      LOG_LEVEL: 'error',
      NODE_ENV: 'production',
    });
    const authorization = adminAuthorization(database.url, PREFIX);
    const groups = await seedSite(server.base, authorization);
    const index = (await (await fetch(`${server.base}/cms-json/`, { headers: { authorization } })).json()) as {
      routes: Record<string, { endpoints: FuzzRoute['endpoints'] }>;
    };
    const results: RouteResult[] = [];
    const collections = Object.entries(index.routes).filter(
      ([route, r]) =>
        route.startsWith('/cms/v2/') &&
        !route.includes('(?P<') &&
        r.endpoints.some((e) => e.methods.includes('GET') && Object.keys(e.args ?? {}).some((a) => a !== 'context')),
    );
    for (const [route, r] of collections) {
      const endpoint = r.endpoints.find((e) => e.methods.includes('GET'))!;
      const pairs = Object.entries(endpoint.args ?? {})
        .map(([name, arg]) => [name, validQueryValue(name, arg, groups)] as const)
        .filter((p): p is readonly [string, string] => p[1] !== undefined);
      const url = `${server.base}/cms-json${route}?${pairs.map(([n, v]) => `${encodeURIComponent(n)}=${encodeURIComponent(v)}`).join('&')}`;
      const traffic = path.join(out, `${route.replace(/\W+/g, '_')}.traffic`);
      const args = [
        ...sqlmapOptions(options),
        `--dbms=${db === 'sqlite' ? 'SQLite' : 'MySQL'}`,
        `--headers=Authorization: ${authorization}`,
        `--output-dir=${out}`,
        '-t',
        traffic,
      ];
      process.stdout.write(`${db} ${route}: ${pairs.length} parameters… `);
      const run = await runSqlmap(url, args, options.routeTimeout);
      const log = fs.existsSync(traffic) ? fs.readFileSync(traffic, 'utf8') : '';
      const requests = (log.match(/^HTTP request \[#\d+\]/gm) ?? []).length;
      const result = verdictOf(
        route,
        pairs.map(([n]) => n),
        run,
        requests,
      );
      // The answers to sqlmap's payloads are checked as the fuzzer's are: no 5xx.
      result.serverErrors = (log.match(/^HTTP response \[#\d+\] \(5\d\d /gm) ?? []).length;
      if (result.serverErrors) result.verdict += `; **${result.serverErrors} answers 5xx**`;
      console.log(`${result.verdict} (${run.seconds.toFixed(0)} s)`);
      if (!result.verdict.startsWith('no injectable'))
        fs.writeFileSync(path.join(os.tmpdir(), `sqlmap-${db}-${route.replace(/\W+/g, '_')}.log`), run.output);
      results.push(result);
      if (server.child.exitCode !== null) throw new Error(`the server exited during ${route}: ${server.output()}`);
    }
    return { results, database: db === 'sqlite' ? 'SQLite (a file)' : `MariaDB ${await mysqlVersion()}` };
  } finally {
    await stopServer(server);
    await database.drop();
    fs.rmSync(uploads, { recursive: true, force: true });
    fs.rmSync(out, { recursive: true, force: true });
  }
}

async function main(): Promise<number> {
  const options = parseArgs(process.argv.slice(2));
  const version = ensureSqlmap();
  if (!fs.existsSync(MAIN)) execFileSync('npx', ['nest', 'build'], { cwd: ROOT, stdio: 'inherit' });
  const started = new Date();
  const commit = sh('git', ['rev-parse', '--short', 'HEAD']);
  const runs: Array<{ db: string; database: string; results: RouteResult[] }> = [];
  for (const db of options.dbs) runs.push({ db, ...(await campaign(db, options)) });

  const all = runs.flatMap((r) => r.results);
  const clean = all.every((r) => r.verdict === 'no injectable parameter');
  // (a 5xx among sqlmap's answers is appended to the verdict, so it fails the run too)
  const command = `npm run sqlmap -- --db ${options.dbs.length === 2 ? 'both' : options.dbs[0]} --level ${options.level} --risk ${options.risk} --route-timeout ${options.routeTimeout}`;
  const lines = [
    '## sqlmap against every query parameter of the collection routes',
    '',
    `- **Command:** \`${command}\``,
    `- **Commit:** \`${commit}\`, ${started.toISOString().slice(0, 16).replace('T', ' ')} UTC`,
    `- **Machine:** ${machine()}`,
    `- **sqlmap:** ${version} (Debian package), run once per route: \`sqlmap -u '<route>?<every argument>=<a value it accepts>' ${sqlmapOptions(options).join(' ')} --dbms=<SQLite|MySQL> --headers='Authorization: Basic <admin:application password>'\``,
    `- **Verdict:** ${clean ? 'no injectable parameter' : '**see below**'} — ${all.reduce((n, r) => n + r.tested.length + r.injectable.length, 0)} parameter tests over ${all.length} routes on ${runs.length} database(s), ${all.reduce((n, r) => n + r.requests, 0)} requests`,
    '- Object arguments (bracket parameters such as `filter[…]`) are not given to sqlmap; the fuzzer sends those.',
    '',
  ];
  for (const run of runs) {
    lines.push(
      `${run.database}:`,
      '',
      '| route | parameters tested | verdict | heuristic hints | requests | 5xx | seconds |',
      '|---|---|---|---|---:|---:|---:|',
    );
    for (const r of run.results) {
      lines.push(
        `| \`${r.route}\` | ${r.tested.length + r.injectable.length} of ${r.parameters.length}: ${r.parameters.map((p) => `\`${p}\``).join(', ')} | ${r.verdict} | ${r.heuristics.join(', ') || '—'} | ${r.requests} | ${r.serverErrors ?? 0} | ${r.seconds.toFixed(0)} |`,
      );
    }
    lines.push('');
  }
  writeSection('sqlmap', lines.join('\n'));
  console.log(lines.slice(0, 8).join('\n'));
  return clean ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : error);
    process.exit(2);
  },
);
