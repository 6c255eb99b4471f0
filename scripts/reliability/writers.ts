/**
 * Many concurrent writers: `npm run writers [-- --db both|sqlite|mysql --writers 200 --seconds 60 --workers 1,2 --seed X]`.
 *
 * The write load of chaos-lib.ts, without kills, from 200 writers at once for 60 s, titles and term names taken
 * from a small set so that unique slugs are contended for. Checks: no 5xx (a deadlock or a lock wait surfacing as a
 * 500, or SQLITE_BUSY as a 503), every acknowledged write kept, no duplicate slugs, counts equal to a recount.
 * Writes the `writers` section of docs/reliability.md (or only prints with `--no-report`).
 */
import { runOnEach } from './chaos';
import { option, reportRun } from './script-facts';

async function main(): Promise<void> {
  const db = option('db', 'both');
  const writers = Number(option('writers', '200'));
  const seconds = Number(option('seconds', '60'));
  const workers = option('workers', '1');
  const seed = Number(option('seed', String(Date.now() % 100000)));
  const command = `npm run writers -- --db ${db} --writers ${writers} --seconds ${seconds} --workers ${workers} --seed ${seed}`;
  console.log(command);
  const { tables, labels, bad } = await runOnEach(
    { name: 'writers', db, workers, kills: 0, seconds, writers, seed, contendedNames: true },
    (result) =>
      `\n| term names refused as duplicates (400 term_exists, expected) | ${result.stats.expected.term_exists ?? 0} |`,
  );
  reportRun('writers', {
    title: 'Concurrent writers',
    databases: labels,
    command,
    checks:
      `${writers} writers at once for ${seconds} s (the load of the durability run, no kills; titles and term names ` +
      'from a set of seven, so that unique slugs are contended for): no 5xx may surface (a MySQL deadlock or lock ' +
      'wait is retried in `writeTransaction`; SQLite writers wait for the lock without blocking the process, and a ' +
      '503 counts as a failure), every acknowledged write is kept, slugs stay unique, term counts and comment counts ' +
      'equal a recount.',
    parts: tables,
    bad,
  });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
