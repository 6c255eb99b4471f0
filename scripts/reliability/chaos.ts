/**
 * Durability under kill -9: `npm run chaos [-- --db both|sqlite|mysql --kills N --seconds S --writers W --workers 1,2 --seed X]`.
 *
 * Runs the write load of chaos-lib.ts against the built server (`node dist/main`, SQLite in WAL mode or MariaDB),
 * SIGKILLs it at random moments, restarts it, and checks after every restart and at the end that every acknowledged
 * write is there as acknowledged, and that nothing is half-written. Writes the `chaos` section of
 * docs/reliability.md (or only prints with `--no-report`). Exit code 1 when a write was lost or something is
 * half-written, or a 5xx other than 503 was answered.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { chaosRun, ChaosRunOptions, ChaosRunResult } from './chaos-lib';
import { option, reportRun, scriptDatabase } from './script-facts';
import { freePort } from './server';

export function resultTable(label: string, r: ChaosRunResult): string {
  const problems = Object.entries(r.database.problems);
  const serverErrors = Object.values(r.stats.serverErrors).reduce((a, b) => a + b, 0);
  const unexpected = Object.values(r.stats.unexpected).reduce((a, b) => a + b, 0);
  return [
    `| ${label} | figure |`,
    '|---|---|',
    `| load ran, measured (restarts included) | ${r.loadSeconds.toFixed(1)} s |`,
    `| writes sent | ${r.stats.tried} |`,
    `| acknowledged (2xx) | ${r.stats.acknowledged} |`,
    `| no answer (killed in flight, or server down) | ${r.stats.unanswered} |`,
    `| 503 answers | ${r.stats.unavailable} |`,
    `| other 5xx answers | ${serverErrors}${serverErrors ? ` (${JSON.stringify(r.stats.serverErrors)})` : ''} |`,
    `| unexpected 4xx answers | ${unexpected}${unexpected ? ` (${JSON.stringify(r.stats.unexpected)})` : ''} |`,
    `| SIGKILLs / restarts | ${r.kills} / ${r.restarts} |`,
    `| objects read back (acknowledged) / left unchecked (a write on them unanswered) | ${r.ledger.checked} / ${r.ledger.uncertain} |`,
    `| **acknowledged writes lost** (after the restarts / at the end) | **${r.lostAfterRestarts} / ${r.ledger.lost.length}** |`,
    `| **half-written state** (posts without terms, orphans, counts off a recount, duplicate slugs, files vs rows) | **${problems.length ? problems.map(([k, n]) => `${k}: ${n}`).join('; ') : 0}** |`,
    `| rows at the end: posts / terms / comments; files in the upload dir | ${r.database.posts} / ${r.database.terms} / ${r.database.comments}; ${r.database.files} |`,
  ].join('\n');
}

export function failed(r: ChaosRunResult): boolean {
  return (
    r.stats.unavailable > 0 ||
    r.lostAfterRestarts > 0 ||
    r.ledger.lost.length > 0 ||
    Object.keys(r.database.problems).length > 0 ||
    Object.keys(r.stats.serverErrors).length > 0 ||
    Object.keys(r.stats.unexpected).length > 0
  );
}

/**
 * Runs the load on each database of `db` (`both`, `sqlite`, `mysql`) with each worker count of `workers` (`1,2`), a
 * fresh database each time: the tables of the runs (with what `extra` adds to each), the databases' labels, and
 * whether any run failed.
 */
export async function runOnEach(
  options: Omit<ChaosRunOptions, 'databaseUrl' | 'uploadDir' | 'port' | 'workers'> & {
    name: string;
    db: string;
    workers: string;
  },
  extra: (result: ChaosRunResult) => string,
): Promise<{ tables: string[]; labels: string[]; bad: boolean }> {
  const { name, db, workers, ...load } = options;
  const tables: string[] = [];
  const labels: string[] = [];
  let bad = false;
  for (const kind of db === 'both' ? ['sqlite', 'mysql'] : [db]) {
    for (const processes of workers.split(',').map(Number)) {
      const database = await scriptDatabase(kind, name);
      try {
        console.log(`${database.label}, CMS_WORKERS=${processes}`);
        // A port free now (the system's pick), kept across the restarts.
        const port = await freePort();
        const result = await chaosRun({
          ...load,
          databaseUrl: database.url,
          uploadDir: join(database.dir, 'uploads'),
          port,
          workers: processes,
        });
        const table = resultTable(
          `${database.label}, CMS_WORKERS=${processes}, ${load.writers} writers, ${load.seconds} s`,
          result,
        );
        console.log(table);
        for (const line of [...result.ledger.lost, ...result.database.examples].slice(0, 20)) console.log(`  ${line}`);
        tables.push(`${table}${extra(result)}`);
        if (!labels.includes(database.label)) labels.push(database.label);
        bad ||= failed(result);
      } finally {
        await database.drop();
        rmSync(database.dir, { recursive: true, force: true });
      }
    }
  }
  return { tables, labels, bad };
}

async function main(): Promise<void> {
  const db = option('db', 'both');
  const kills = Number(option('kills', '20'));
  const seconds = Number(option('seconds', '120'));
  const writers = Number(option('writers', '8'));
  const workers = option('workers', '1');
  const seed = Number(option('seed', String(Date.now() % 100000)));
  const command = `npm run chaos -- --db ${db} --kills ${kills} --seconds ${seconds} --writers ${writers} --workers ${workers} --seed ${seed}`;
  console.log(command);
  const { tables, labels, bad } = await runOnEach(
    { name: 'chaos', db, workers, kills, seconds, writers, seed, log: (l) => console.log(l) },
    (result) => {
      const examples = result.database.examples;
      return examples.length
        ? `\n\nExamples: ${examples
            .slice(0, 6)
            .map((e) => `\`${e}\``)
            .join(', ')}`
        : '';
    },
  );
  reportRun('chaos', {
    title: 'Durability under kill -9',
    databases: labels,
    command,
    checks:
      'A write load (authenticated creates, updates, trashes and deletes of posts with categories and tags, of terms, ' +
      'comments with status changes, and media: small PNGs) runs against `node dist/main`; the server is killed with ' +
      'SIGKILL at random moments and restarted. Every 2xx answer goes into a client-side ledger; after each restart ' +
      'and at the end every acknowledged object is read back and compared, and the database and upload directory are ' +
      'searched for half-written state. With `CMS_WORKERS=2` two processes write one database (on SQLite, one file): ' +
      'a 503 (SQLITE_BUSY reaching a client) counts as a failure there too.',
    parts: tables,
    bad,
  });
}

if (require.main === module) {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
