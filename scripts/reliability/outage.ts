/**
 * The database going away: `npm run outage [-- --db sqlite|mysql --seconds 10 --timeout 3]`.
 *
 * Starts `node dist/main` with CMS_DB_TIMEOUT, takes the database away for `--seconds` (MariaDB: the network to
 * it goes silent, through a TCP proxy of the script's; SQLite: another process holds the write lock, see
 * outage-lib.ts), sends writes and reads meanwhile, brings it back, and measures: the answers, the longest wait for
 * one, the time until writes are served again, acknowledged writes lost. Runs both databases with `--db both`.
 * Writes the `outage` section of docs/reliability.md (or only prints with `--no-report`).
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { outageRun, OutageResult } from './outage-lib';
import { option, reportRun, scriptDatabase } from './script-facts';
import { freePort } from './server';

function table(label: string, what: string, r: OutageResult): string {
  const count = (kind: string) => {
    const answers = r.during.filter((a) => a.kind === kind);
    const by = new Map<string, number>();
    for (const a of answers) by.set(`${a.status} ${a.code}`.trim(), (by.get(`${a.status} ${a.code}`.trim()) ?? 0) + 1);
    return `${answers.length}: ${[...by].map(([k, n]) => `${n} × ${k}`).join(', ')}`;
  };
  const retry = [...new Set(r.during.filter((a) => a.status === 503).map((a) => a.retryAfter))].join(', ') || '—';
  return [
    `| ${label} | figure |`,
    '|---|---|',
    `| simulated | ${what} |`,
    `| CMS_DB_TIMEOUT | ${r.timeoutSeconds} s |`,
    `| writes while away | ${count('write')} |`,
    `| reads while away | ${count('read')} |`,
    `| Retry-After of the 503s | ${retry} |`,
    `| longest answer while away | ${Math.max(...r.during.map((a) => a.ms))} ms |`,
    `| first acknowledged write after it came back | ${r.recoveredMs} ms |`,
    `| **acknowledged writes lost** | **${r.lost}** |`,
  ].join('\n');
}

async function main(): Promise<void> {
  const db = option('db', 'both');
  const seconds = Number(option('seconds', '10'));
  const timeout = Number(option('timeout', '3'));
  const command = `npm run outage -- --db ${db} --seconds ${seconds} --timeout ${timeout}`;
  const parts: string[] = [];
  let bad = false;
  const labels: string[] = [];
  for (const kind of db === 'both' ? (['sqlite', 'mysql'] as const) : ([db] as Array<'sqlite' | 'mysql'>)) {
    const database = await scriptDatabase(kind, 'outage');
    try {
      const result = await outageRun({
        kind,
        databaseUrl: database.url,
        uploadDir: join(database.dir, 'uploads'),
        port: await freePort(),
        timeoutSeconds: timeout,
        outageSeconds: seconds,
      });
      const what =
        kind === 'mysql'
          ? `the network to MariaDB goes silent for ${seconds} s (a TCP proxy drops everything; new connections are accepted and never answered), then comes back`
          : `another process holds the SQLite write lock for ${seconds} s (BEGIN IMMEDIATE), then lets go`;
      const t = table(database.label, what, result);
      console.log(t);
      parts.push(t);
      labels.push(database.label);
      const writes503 = result.during
        .filter((a) => a.kind === 'write')
        .every((a) => a.status === 503 && a.code === 'rest_database_unavailable' && a.retryAfter);
      bad ||=
        !writes503 ||
        result.lost > 0 ||
        result.recoveredMs < 0 ||
        result.during.some((a) => a.ms > timeout * 2000 + 3000);
    } finally {
      await database.drop();
      rmSync(database.dir, { recursive: true, force: true });
    }
  }
  reportRun('outage', {
    title: 'The database going away',
    databases: labels,
    command,
    checks:
      'Requests that need the database answer `503 rest_database_unavailable` with `Retry-After` within ' +
      '`CMS_DB_TIMEOUT` (no request hangs), and the server serves again by itself once the database is back; ' +
      'the shared MariaDB server is never stopped.',
    parts,
    bad,
  });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
