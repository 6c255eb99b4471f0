/**
 * `npm run matrix [-- --db sqlite,mysql]`: runs the permission matrix (test/e2e/permission-matrix.e2e-spec.ts) on
 * each database and writes the `matrix` section of docs/reliability.md with its figures: cells checked, callers ×
 * routes × methods × contexts, mismatches, unexpected successes, 5xx answers and leaks found.
 *
 * MariaDB is reached at `MYSQL_URL` (default `mysql://root@127.0.0.1:3306`), as by the tests.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { PERMISSION_MATRIX, CALLERS } from '../../test/fixtures/permission-matrix';
import { writeSection } from './report';

interface Summary {
  cells: number;
  routes: number;
  combinations: number;
  rows: number;
  mismatches: string;
  leaks: string;
  unexpectedSuccesses: number;
  serverErrors: number;
}

const ROOT = join(__dirname, '..', '..');
const argv = process.argv.slice(2);
const dbArg = argv.indexOf('--db');
const databases = (dbArg >= 0 ? argv[dbArg + 1] : 'sqlite,mysql').split(',').map((d) => d.trim()) as Array<
  'sqlite' | 'mysql'
>;
const command = `npm run matrix${argv.length ? ` -- ${argv.join(' ')}` : ''}`;

function git(...args: string[]): string {
  return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
}

function mariadbVersion(): string {
  try {
    const url = new URL(process.env.MYSQL_URL ?? 'mysql://root@127.0.0.1:3306');
    const out = execFileSync(
      'mysql',
      [
        '-h',
        url.hostname,
        '-P',
        url.port || '3306',
        '-u',
        decodeURIComponent(url.username) || 'root',
        '-N',
        '-e',
        'SELECT VERSION()',
      ],
      {
        encoding: 'utf8',
        env: { ...process.env, MYSQL_PWD: decodeURIComponent(url.password) },
      },
    );
    return out.trim();
  } catch {
    return 'unknown version';
  }
}

function run(db: 'sqlite' | 'mysql'): { summary: Summary | null; passed: boolean; seconds: number } {
  const dir = mkdtempSync(join(os.tmpdir(), 'cms-matrix-'));
  const report = join(dir, 'matrix.json');
  const started = Date.now();
  const result = spawnSync(
    'npx',
    ['jest', '--config', 'test/jest-e2e.config.js', '--runInBand', 'test/e2e/permission-matrix.e2e-spec.ts'],
    {
      cwd: ROOT,
      stdio: 'inherit',
      env: { ...process.env, DB: db, CMS_MATRIX_REPORT: report },
    },
  );
  const seconds = (Date.now() - started) / 1000;
  let summary: Summary | null = null;
  try {
    summary = JSON.parse(readFileSync(report, 'utf8')) as Summary;
  } catch {
    summary = null;
  }
  rmSync(dir, { recursive: true, force: true });
  return { summary, passed: result.status === 0, seconds };
}

function main(): void {
  const results = databases.map((db) => ({ db, ...run(db) }));
  const cpus = os.cpus();
  const name = (db: string) => (db === 'sqlite' ? 'SQLite (in memory, better-sqlite3)' : `MariaDB ${mariadbVersion()}`);
  const rows = results.map(({ db, summary, passed, seconds }) =>
    summary
      ? `| ${name(db)} | ${summary.cells} | ${CALLERS.length} callers × ${summary.combinations} route × method × context (${summary.routes} routes) | ${summary.mismatches ? summary.mismatches.split('\n').length : 0} | ${summary.unexpectedSuccesses} | ${summary.serverErrors} | ${summary.leaks ? summary.leaks.split('\n').length : 0} | ${passed ? 'pass' : 'FAIL'} | ${seconds.toFixed(0)} s |`
      : `| ${name(db)} | — | — | — | — | — | — | FAIL (no figures) | ${seconds.toFixed(0)} s |`,
  );
  const details = results
    .filter((r) => r.summary && (r.summary.mismatches || r.summary.leaks))
    .map(
      (r) =>
        `Failures on ${name(r.db)}:\n\n\`\`\`\n${[r.summary!.mismatches, r.summary!.leaks].filter(Boolean).join('\n')}\n\`\`\``,
    );
  const markdown = [
    '## Permission matrix',
    '',
    `Every route, method and context of the route table, asked by ${CALLERS.length} callers (${CALLERS.join(', ')}) against fixtures`,
    `(posts of each status by different authors, a password-protected post, pages, media, comments of each status,`,
    `terms, users, revisions, application passwords), compared with the expected table of`,
    `\`test/fixtures/permission-matrix.ts\` (${PERMISSION_MATRIX.length} rows, derived from the reference's permission checks and`,
    '`map_meta_cap`); every answer is scanned for private fields (`raw`, `email`, `password`, `capabilities`,',
    "`extra_capabilities`, `author_email`, `author_ip`), password hashes and the protected post's text.",
    '',
    '| database | cells checked | registry covered | mismatches | unexpected 2xx | 5xx | leaks | result | time |',
    '|---|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
    ...details,
    ...(details.length ? [''] : []),
    `Commit \`${git('rev-parse', '--short', 'HEAD')}\`, ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC; ${os.platform()} ${os.release()} ${os.arch()},`,
    `${cpus.length} × ${cpus[0]?.model ?? 'CPU'}, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB, Node ${process.version}. Command: \`${command}\``,
    '(in the suite: `npm test` runs the same file on SQLite, and CI on MariaDB too).',
  ].join('\n');
  writeSection('matrix', markdown);
  process.stdout.write(`${markdown}\n`);
  if (results.some((r) => !r.passed)) process.exitCode = 1;
}

main();
