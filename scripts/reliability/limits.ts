/**
 * `npm run limits [-- --db sqlite|mysql]`: runs the tests of every limit of the server (test/e2e/limits and the
 * limit tests of body-limits, media-limits and auth-limits) and writes the `limits` section of
 * docs/reliability.md: each limit, its configured value, what going past it answers, the tests that show it and
 * whether they passed. Fails when a test fails or is missing.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { writeSection } from './report';
import { commitOf, databaseVersion, machineFacts, option, ROOT } from './run-facts';

interface Limit {
  limit: string;
  value: string;
  answer: string;
  /** Tests that show it: the file (without `.e2e-spec.ts`) and a part of the test's full name. */
  tests: Array<[file: string, name: string]>;
}

const LIMITS: Limit[] = [
  {
    limit: 'Request head size',
    value: '`CMS_MAX_HEADER_SIZE` = 16 KiB',
    answer: '`431 rest_headers_too_large`, connection closed',
    tests: [['limits', 'answers a head over the limit with 431 rest_headers_too_large']],
  },
  {
    limit: 'Time to send the head (slowloris)',
    value: '`CMS_HEADERS_TIMEOUT` = 60 s',
    answer: '`408 rest_request_timeout`, connection closed',
    tests: [['limits', 'answers a head that is not finished in time with 408']],
  },
  {
    limit: 'Time to send the whole request',
    value: '`CMS_REQUEST_TIMEOUT` = 300 s',
    answer: '`408 rest_request_timeout`, connection closed',
    tests: [['limits', 'answers a body that is not finished in time with 408']],
  },
  {
    limit: 'Idle connections',
    value: '`CMS_KEEPALIVE_TIMEOUT` = 5 s (idle keep-alive); `CMS_HEADERS_TIMEOUT` (silent new connection)',
    answer: 'idle keep-alive connection closed; a connection that sends nothing gets `408`',
    tests: [['limits', 'answers a connection that sends nothing with 408']],
  },
  {
    limit: 'Requests that are not HTTP',
    value: "Node's HTTP parser",
    answer: '`400 rest_bad_request`, connection closed',
    tests: [['limits', 'answers requests that are not HTTP with 400 rest_bad_request']],
  },
  {
    limit: 'Body size',
    value: '`CMS_BODY_LIMIT` = 10 MiB',
    answer: '`413 rest_request_too_large` before the body is read',
    tests: [
      ['limits', 'answers a body over the limit with 413 rest_request_too_large'],
      ['body-limits', 'refuses a body whose declared length passes the limit before reading it'],
    ],
  },
  {
    limit: 'Multipart bodies on routes without files',
    value: 'routes with `acceptsFiles` only',
    answer: '`413 rest_multipart_not_accepted` before the body is read',
    tests: [
      ['body-limits', 'refuses a multipart body to a route that takes no files with 413'],
      ['body-limits', 'refuses multipart bodies to POST routes that take no files'],
    ],
  },
  {
    limit: 'Multipart parts, fields and files',
    value: '210 parts, 200 fields, 10 files',
    answer: '`413 rest_multipart_too_large`',
    tests: [['body-limits', 'refuses too many fields, files or parts with 413']],
  },
  {
    limit: 'Upload size',
    value: '`CMS_UPLOAD_LIMIT` = 64 MiB',
    answer: '`413 rest_upload_too_large`, before or while reading, no temporary file left',
    tests: [
      ['media-limits', 'refuses an upload over the limit with 413 rest_upload_too_large'],
      ['body-limits', 'stops reading a multipart body sent without a length once it passes the limit'],
    ],
  },
  {
    limit: '`per_page`',
    value: '100',
    answer: '`400 rest_invalid_param` (`data.params.per_page`)',
    tests: ['posts', 'pages', 'media', 'comments', 'categories', 'tags', 'users'].map(
      (route) => ['limits', `caps per_page of ${route} at 100`] as [string, string],
    ),
  },
  {
    limit: 'Failed logins',
    value: '`CMS_RATE_LIMIT_MAX` = 10 per account (50 per IP) in `CMS_RATE_LIMIT_WINDOW` = 900 s',
    answer: '`429 rest_too_many_attempts` with `Retry-After`',
    tests: [
      ['limits', 'answers the login after 3 failures with 429 rest_too_many_attempts and Retry-After'],
      ['auth-limits', 'keeps a blocked account blocked under its e-mail and in any letter case'],
      ['auth-limits', 'limits an IP to five times the per-account budget'],
    ],
  },
  {
    limit: 'Failed application passwords (HTTP Basic)',
    value: 'the same counters as logins',
    answer: '`429 rest_too_many_attempts` with `Retry-After`',
    tests: [
      ['limits', 'answers HTTP Basic (application passwords) after 3 failures with 429'],
      ['auth-limits', 'blocks HTTP Basic after failures there'],
      ['auth-limits', 'counts HTTP Basic failures and login failures against the same account'],
    ],
  },
];

interface JestReport {
  testResults: Array<{ name: string; assertionResults: Array<{ fullName: string; status: string }> }>;
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const db = option(args, 'db', 'DB', 'sqlite');
  if (db !== 'sqlite' && db !== 'mysql') throw new Error('--db must be sqlite or mysql');
  const mysqlUrl = option(args, 'mysql-url', 'MYSQL_URL', 'mysql://root@127.0.0.1:3306');
  const command = `npm run limits${args.length ? ` -- ${args.join(' ')}` : ''}`;
  const files = [...new Set(LIMITS.flatMap((l) => l.tests.map(([file]) => file)))];

  process.stderr.write('building (npx nest build)…\n');
  if (spawnSync('npx', ['nest', 'build'], { cwd: ROOT, stdio: 'inherit' }).status !== 0) return 1;
  const dir = mkdtempSync(join(tmpdir(), 'cms-limits-'));
  const output = join(dir, 'jest.json');
  const started = Date.now();
  const run = spawnSync(
    'npx',
    [
      'jest',
      '--config',
      'test/jest-e2e.config.js',
      '--runInBand',
      '--json',
      `--outputFile=${output}`,
      ...files.map((f) => `test/e2e/${f}.e2e-spec.ts`),
    ],
    { cwd: ROOT, stdio: 'inherit', env: { ...process.env, DB: db, MYSQL_URL: mysqlUrl } },
  );
  const seconds = Math.round((Date.now() - started) / 1000);
  let report: JestReport;
  try {
    report = JSON.parse(readFileSync(output, 'utf8')) as JestReport;
  } catch {
    process.stderr.write(`jest wrote no report (exit ${run.status})\n`);
    return 1;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  const results = report.testResults.flatMap((file) =>
    file.assertionResults.map((a) => ({
      file: basename(file.name).replace('.e2e-spec.ts', ''),
      name: a.fullName,
      status: a.status,
    })),
  );
  let missing = 0;
  let failed = 0;
  const rows = LIMITS.map((limit) => {
    const shown = limit.tests.map(([file, name]) => {
      const found = results.filter((r) => r.file === file && r.name.includes(name));
      if (!found.length) missing++;
      const ok = found.length > 0 && found.every((r) => r.status === 'passed');
      if (found.length && !ok) failed++;
      return `${ok ? '✓' : found.length ? '✗' : '? missing'} ${file}: “${found[0]?.name ?? name}”`;
    });
    return `| ${limit.limit} | ${limit.value} | ${limit.answer} | ${shown.join('<br>')} |`;
  });
  const version = await databaseVersion(db === 'sqlite' ? 'sqlite::memory:' : mysqlUrl);
  const allTests = results.length;
  const allFailed = results.filter((r) => r.status !== 'passed').length;
  const ok = !missing && !failed && run.status === 0;

  writeSection(
    'limits',
    `## Limits: what going past each one answers

${ok ? `**Every limit holds**: all ${allTests} tests of the limit files passed` : `**FAILED**: ${failed} limit test(s) failed, ${missing} missing; ${allFailed} of ${allTests} tests of the limit files did not pass`}
(${files.map((f) => `test/e2e/${f}.e2e-spec.ts`).join(', ')}; ${seconds} s). Values are the standalone server's defaults; the tests set small
ones (e.g. a 1 s head timeout, a 4 KiB head) and check the answer past them, over HTTP against \`node dist/main\` or the Nest app.

| limit | configured value (default) | past it | tests |
|---|---|---|---|
${rows.join('\n')}

- Command: \`${command}\`
- Commit: ${commitOf()}; date: ${new Date().toISOString()}
- Database: ${version}
- Machine: ${machineFacts()}`,
  );
  process.stderr.write(`wrote the limits section of docs/reliability.md${ok ? '' : ' (FAILED)'}\n`);
  return ok ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: Error) => {
    process.stderr.write(`limits failed: ${error.stack ?? error.message}\n`);
    process.exit(1);
  },
);
