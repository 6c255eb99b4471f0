/**
 * The fuzzing campaign: `npm run fuzz -- --seed N [--requests 100000] [--db sqlite|mysql] [--concurrency 4]
 * [--only I] [--no-report]`.
 *
 * 1. builds the server when dist/main.js is missing;
 * 2. starts `node dist/main` on a fresh database (a temporary SQLite file, or the MariaDB database `cms_fuzz` at
 *    MYSQL_URL, default mysql://root@127.0.0.1:3306), with an administrator, and preloads heap-probe.js so that its
 *    heap can be read after a full garbage collection;
 * 3. makes an application password for the administrator (`node dist/cli.js app-password create`), reads the route
 *    table from the index, and makes the items the paths point at (seedSite);
 * 4. sends the requests of the seed (scripts/reliability/fuzz-requests.ts; uploads of the media corpus of
 *    scripts/reliability/fuzz-media.ts among them), as the administrator and anonymously,
 *    checking every answer (below 500, API errors, no SQL) and, every 1,000 requests, that the server answers and
 *    what its heap holds;
 * 5. writes the `fuzz` section of docs/reliability.md (with --no-report, prints it instead; not with --only, which
 *    sends request I of the seed and prints its answer), stops the server and removes the database.
 *
 * Exit code: 0 when no answer broke an invariant, 1 when one did or the server died, 2 on a harness failure.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
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
import {
  FuzzAnswer,
  FuzzRequest,
  FuzzRoute,
  KINDS,
  leakPatterns,
  reproduction,
  seedSite,
  send,
  streamRequests,
  violations,
} from './fuzz-requests';
import { writeSection } from './report';

const MAIN = path.join(ROOT, 'dist', 'main.js');
const PREFIX = 'cms_';
const MiB = 1024 * 1024;

interface Options {
  seed: number;
  requests: number;
  db: 'sqlite' | 'mysql';
  concurrency: number;
  only?: number;
  /** Print the report rather than write it into docs/reliability.md. */
  noReport?: boolean;
}

function parseArgs(argv: string[]): Options {
  const options: Options = {
    seed: Math.floor(Math.random() * 2 ** 31),
    requests: 10_000,
    db: 'sqlite',
    concurrency: 4,
  };
  for (let i = 0; i < argv.length; i++) {
    const [name, value] = [argv[i], argv[i + 1]];
    const int = () => {
      i++;
      if (!/^\d+$/.test(value ?? '')) throw new Error(`${name} takes a number`);
      return Number(value);
    };
    if (name === '--seed') options.seed = int();
    else if (name === '--requests') options.requests = int();
    else if (name === '--concurrency') options.concurrency = Math.max(1, int());
    else if (name === '--only') options.only = int();
    else if (name === '--no-report') options.noReport = true;
    else if (name === '--db') {
      i++;
      if (value !== 'sqlite' && value !== 'mysql') throw new Error('--db is sqlite or mysql');
      options.db = value;
    } else throw new Error(`unknown option ${name}`);
  }
  return options;
}

const mib = (n: number) => `${(n / MiB).toFixed(1)} MiB`;

/** What earlier runs found, fixed at its cause. */
const FIXED = [
  '`page` or `offset` beyond 2^53 (`?page=99999999999999999999`) on every collection answered 500: LIMIT/OFFSET got ' +
    'a float, which SQLite refuses ("datatype mismatch"). Now an empty page (`limitClause`, src/core/database/raw-query.ts; ' +
    'test/e2e/fuzz.e2e-spec.ts "what the fuzzer found", src/core/database/raw-query.spec.ts).',
  'A collection query of 1,100 parameters (`x[]=1&x[]=1…`) answered a `Link` header holding it twice, over the 16 KiB ' +
    'of headers Node\'s HTTP client reads ("Header overflow": no answer for the client). Links longer than 8 KiB are now ' +
    'left out (`LINK_HEADER_LIMIT`, src/core/rest/rest-resource.ts; test/e2e/fuzz.e2e-spec.ts).',
  'Uploads of malformed media answered 500 (a JPEG cut at 400 bytes, a PNG declaring 1×1,000,000 or with a ' +
    'corrupt IDAT, a 16383² WebP, EBML junk named `.webm`, an MP3 cut short, names over 255 bytes): errors of ' +
    'sharp, file-type and the file system went unhandled. Now 201 without sizes, or 400, decoding bounded to 50 ' +
    'MP and 10 s, names shortened to 255 bytes (src/resources/media; test/e2e/media-malformed.e2e-spec.ts, ' +
    'test/e2e/fuzz-media.e2e-spec.ts).',
  'Uploads of one file name at once raced for the name: all but one answered 500 (`EEXIST`). Now a name taken ' +
    'between its pick and the store makes the upload pick the next one ' +
    '(src/resources/media/attachment-files.ts; test/e2e/media-malformed.e2e-spec.ts).',
];

async function main(): Promise<number> {
  const options = parseArgs(process.argv.slice(2));
  const commit = sh('git', ['rev-parse', '--short', 'HEAD']);
  const date = new Date().toISOString().slice(0, 16).replace('T', ' ');
  if (!fs.existsSync(MAIN)) execFileSync('npx', ['nest', 'build'], { cwd: ROOT, stdio: 'inherit' });
  const database = await prepareDatabase(options.db, 'cms_fuzz');
  const adminPassword = `fuzz-${Math.random().toString(36).slice(2)}-admin`;
  const uploads = fs.mkdtempSync(path.join(os.tmpdir(), 'cms-fuzz-uploads-'));
  const env = {
    DATABASE_URL: database.url,
    CMS_TABLE_PREFIX: PREFIX,
    CMS_ADMIN_USER: 'admin',
    CMS_ADMIN_PASSWORD: adminPassword,
    CMS_UPLOAD_DIR: uploads,
    // Failed logins the fuzzer makes would soon block its own IP (429 for every credential check, the
    // administrator's too): no limit here.
    CMS_RATE_LIMIT_MAX: '1000000',
    CMS_REQUEST_LOG: 'off',
    LOG_LEVEL: 'error',
    NODE_ENV: 'production',
  };
  let server: Server | undefined;
  try {
    server = await startServer(env);
    const authorization = adminAuthorization(database.url, PREFIX);
    const index = (await (await fetch(`${server.base}/cms-json/`, { headers: { authorization } })).json()) as {
      routes: Record<string, { endpoints: FuzzRoute['endpoints'] }>;
    };
    const routes: FuzzRoute[] = Object.entries(index.routes).map(([route, r]) => ({ route, endpoints: r.endpoints }));
    const groups = await seedSite(server.base, authorization);
    const me = (await (
      await fetch(`${server.base}/cms-json/cms/v2/users/me`, { headers: { authorization } })
    ).json()) as { id: number };
    // Writes that would take the fuzzer's own access away (its user, its application passwords) are not sent as it.
    const protect = (method: string, p: string) => method !== 'GET' && new RegExp(`/users/(me|${me.id})(/|$)`).test(p);
    const ctx = { prefix: '/cms-json', groups, protect };

    if (options.only !== undefined) {
      const [req] = streamRequests(routes, ctx, options.seed, options.only + 1, options.only);
      const answer = await send(server.base, req, authorization);
      if (req.label) console.log(req.label);
      console.log(reproduction(server.base, req));
      console.log(answer.status, answer.body.slice(0, 2000));
      console.log(violations(req, answer, leakPatterns(PREFIX)));
      console.log(`server log:\n${server.output().slice(-4000)}`);
      return 0;
    }

    const patterns = leakPatterns(PREFIX);
    const byRoute = new Map<string, Record<string, number>>();
    const statuses = new Map<number, number>();
    /** The answers to the media corpus, by file (raw and multipart together) and status. */
    const byMedia = new Map<string, Map<number, number>>();
    /** The 5xx answers the API owes by contract (REFERENCE_5XX), by status and code. */
    const contract = new Map<string, number>();
    const findings: Array<{ i: number; req: FuzzRequest; problems: string[] }> = [];
    const heap: number[] = [];
    let liveness = 0;
    let died = '';
    const started = Date.now();
    const requests = streamRequests(routes, ctx, options.seed, options.requests);
    let next = 0;
    let done = 0;
    const one = async (): Promise<void> => {
      const it = requests.next();
      if (it.done) return void (next = Number.MAX_SAFE_INTEGER);
      const i = next++;
      const req = it.value;
      let answer: FuzzAnswer;
      try {
        answer = await send(server!.base, req, authorization);
      } catch (error) {
        if (server!.child.exitCode !== null || server!.child.signalCode !== null)
          died ||= `request #${i}: the server exited (${server!.child.exitCode ?? server!.child.signalCode})`;
        findings.push({ i, req, problems: [`no answer: ${(error as Error).message}`] });
        return;
      }
      const row = byRoute.get(`${req.method} ${req.route}`) ?? {};
      row[req.kind] = (row[req.kind] ?? 0) + 1;
      byRoute.set(`${req.method} ${req.route}`, row);
      statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
      if (req.kind === 'media' && req.label) {
        const file = req.label.replace(/ \((raw|multipart)\)$/, '');
        const row = byMedia.get(file) ?? new Map<number, number>();
        row.set(answer.status, (row.get(answer.status) ?? 0) + 1);
        byMedia.set(file, row);
      }
      const problems = violations(req, answer, patterns);
      if (problems.length) findings.push({ i, req, problems });
      else if (answer.status >= 500) {
        const code = `${answer.status} ${(JSON.parse(answer.body) as { code: string }).code}`;
        contract.set(code, (contract.get(code) ?? 0) + 1);
      }
      done++;
    };
    const round = (stop: number) =>
      Promise.all(
        Array.from({ length: options.concurrency }, async () => {
          while (next < stop && !died) await one();
        }),
      );
    const checkpoint = async () => {
      const live = await fetch(`${server!.base}/cms-json/`).then(
        (r) => r.status,
        () => 0,
      );
      if (live === 200) liveness++;
      else died ||= `the index answered ${live || 'nothing'} after ${done} requests`;
      if (!died) heap.push((await server!.heap()).heapUsed);
    };
    // The first 200 requests warm the server up (modules, statements, pools) before the first heap figure; then
    // rounds of 1,000 with a liveness check and a heap figure after each.
    await round(Math.min(200, options.requests));
    await checkpoint();
    while (next < options.requests && !died) {
      await round(Math.min(options.requests, next + 1000));
      if (server.child.exitCode !== null || server.child.signalCode !== null)
        died ||= `the server exited after ${done} requests`;
      await checkpoint();
      process.stdout.write(
        `\r${done} / ${options.requests} requests, ${findings.length} findings, heap ${mib(heap[heap.length - 1])}   `,
      );
    }
    process.stdout.write('\n');
    const seconds = (Date.now() - started) / 1000;

    // The report.
    const command = `npm run fuzz -- --seed ${options.seed} --requests ${options.requests} --db ${options.db} --concurrency ${options.concurrency}`;
    const fivexx = findings.filter((f) =>
      f.problems.some((p) => p.startsWith('status 5') || p.startsWith('no answer')),
    );
    const others = findings.filter((f) => !fivexx.includes(f));
    const [start, end, max] = [heap[0], heap[heap.length - 1], Math.max(...heap)];
    const lines: string[] = [];
    lines.push('## Fuzzing every route', '');
    lines.push(`- **Command:** \`${command}\``);
    lines.push(`- **Commit:** \`${commit}\`, ${date} UTC`);
    lines.push(`- **Database:** ${options.db === 'sqlite' ? 'SQLite (a file)' : `MariaDB ${await mysqlVersion()}`}`);
    lines.push(`- **Machine:** ${machine()}`);
    lines.push(
      `- **Requests:** ${done} answered of ${options.requests} in ${seconds.toFixed(0)} s (${(done / seconds).toFixed(0)}/s, ${options.concurrency} at a time), over ${byRoute.size} route methods, half as the administrator and half anonymously (media uploads as the administrator)`,
    );
    lines.push(
      `- **5xx or no answer:** ${fivexx.length}; **other broken invariants** (error shape, SQL or table names in an answer): ${others.length}`,
    );
    lines.push(
      `- **5xx the API owes by contract** (the reference's own, not counted above; see \`REFERENCE_5XX\` in scripts/reliability/fuzz-requests.ts): ${[...contract].map(([c, n]) => `${n} × \`${c}\``).join(', ') || 'none'}`,
    );
    lines.push(
      `- **Server alive:** answered the index at all ${liveness} checkpoints (every 1,000 requests)${died ? `; **died**: ${died}` : ''}`,
    );
    lines.push(
      `- **Heap** (\`heapUsed\` after a full GC in the server): start ${mib(start)}, end ${mib(end)}, max ${mib(max)}; bound: growth under 64 MiB (the caches' own bounds, 16 MiB of response cache and those of src/core/memory/cache-limits.ts, plus what the fuzzer's writes add) — ${max - start < 64 * MiB ? 'kept' : '**exceeded**'}`,
    );
    lines.push('');
    lines.push('Outcomes by status:', '', '| status | answers |', '|---|---|');
    for (const [status, count] of [...statuses].sort((a, b) => a[0] - b[0])) lines.push(`| ${status} | ${count} |`);
    lines.push('');
    if (byMedia.size) {
      lines.push(
        'Uploads of the media corpus (scripts/reliability/fuzz-media.ts), raw and multipart, by file:',
        '',
        '| file | answers by status |',
        '|---|---|',
      );
      for (const [file, row] of [...byMedia].sort((a, b) => a[0].localeCompare(b[0]))) {
        lines.push(
          `| ${file} | ${[...row]
            .sort((a, b) => a[0] - b[0])
            .map(([status, n]) => `${n} × ${status >= 500 ? `**${status}**` : status}`)
            .join(', ')} |`,
        );
      }
      lines.push('');
    }
    lines.push(
      'Requests by route and kind:',
      '',
      `| route | ${KINDS.join(' | ')} |`,
      `|---|${KINDS.map(() => '---:').join('|')}|`,
    );
    for (const [route, row] of [...byRoute].sort((a, b) => a[0].localeCompare(b[0])))
      lines.push(`| \`${route}\` | ${KINDS.map((k) => row[k] ?? 0).join(' | ')} |`);
    lines.push('');
    if (findings.length === 0)
      lines.push(
        `Findings: none. Any request of this run is sent again with \`npm run fuzz -- --seed ${options.seed} --only <number>\`.`,
      );
    else {
      lines.push(
        `Findings (seed ${options.seed}; \`npm run fuzz -- --seed ${options.seed} --only <number>\` sends one again):`,
        '',
      );
      for (const f of findings.slice(0, 30))
        lines.push(
          `- #${f.i} (${f.req.kind}${f.req.label ? `: ${f.req.label}` : ''}, ${f.req.admin ? 'administrator' : 'anonymous'}): ${f.problems.join('; ').slice(0, 300)}  \n  \`${reproduction('http://localhost:3000', f.req).slice(0, 600)}\``,
        );
      if (findings.length > 30) lines.push(`- … and ${findings.length - 30} more`);
    }
    lines.push(
      '',
      'Found by earlier runs and fixed in `src/` (each with its regression test):',
      '',
      ...FIXED.map((f) => `- ${f}`),
    );
    if (options.noReport) console.log(lines.join('\n'));
    else {
      writeSection('fuzz', lines.join('\n'));
      console.log(lines.slice(0, 10).join('\n'));
    }
    return fivexx.length || others.length || died ? 1 : 0;
  } finally {
    await stopServer(server);
    await database.drop();
    fs.rmSync(uploads, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : error);
    process.exit(2);
  },
);
