import { mkdtempSync } from 'node:fs';
import * as os from 'node:os';
import { join } from 'node:path';
import * as mysql from 'mysql2/promise';
import { Section, writeSection } from './report';
import { commitOf, machineFacts } from './run-facts';

/** Facts every section of the report starts with: commit, date, database, machine, the exact command. */
export function runFacts(db: string, command: string): string {
  return [
    `- commit \`${commitOf()}\`, ${new Date().toISOString().replace(/\.\d+Z$/, 'Z')}`,
    `- database: ${db}`,
    `- machine: ${machineFacts()}`,
    `- command: \`${command}\``,
  ].join('\n');
}

/**
 * Ends a script's run: writes its section of the report (unless `--no-report`) — the title, the run's facts, what
 * it checks, its tables and its result — and exits with 1 when it failed.
 */
export function reportRun(
  section: Section,
  run: { title: string; databases: string[]; command: string; checks: string; parts: string[]; bad: boolean },
): void {
  if (!process.argv.includes('--no-report')) {
    writeSection(
      section,
      `## ${run.title}\n\n${runFacts(run.databases.join('; '), run.command)}\n\n${run.checks}\n\n${run.parts.join('\n\n')}\n\nResult: **${run.bad ? 'FAILED' : 'passed'}**.`,
    );
  }
  process.exitCode = run.bad ? 1 : 0;
}

/** Reads `--name value` options. */
export function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 && process.argv[at + 1] !== undefined ? process.argv[at + 1] : fallback;
}

/** A fresh database for a script: a SQLite file in a temporary directory, or a MySQL database (dropped first). */
export async function scriptDatabase(
  kind: string,
  name: string,
): Promise<{ url: string; dir: string; label: string; drop: () => Promise<void> }> {
  const dir = mkdtempSync(join(os.tmpdir(), `cms-${name}-`));
  if (kind === 'sqlite')
    return { url: `sqlite:${join(dir, 'cms.sqlite')}`, dir, label: 'SQLite (file, WAL)', drop: async () => undefined };
  if (kind !== 'mysql') throw new Error('--db must be sqlite or mysql');
  const server = new URL(process.env.MYSQL_URL ?? 'mysql://root@127.0.0.1:3306');
  const database = `cms_reliability_${name}`;
  const admin = () =>
    mysql.createConnection({
      host: server.hostname,
      port: Number(server.port || 3306),
      user: decodeURIComponent(server.username),
      password: decodeURIComponent(server.password),
    });
  const c = await admin();
  const [[version]] = (await c.query('SELECT VERSION() AS v')) as any;
  await c.query(`DROP DATABASE IF EXISTS \`${database}\``);
  await c.query(`CREATE DATABASE \`${database}\` DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_520_ci`);
  await c.end();
  server.pathname = `/${database}`;
  return {
    url: server.toString(),
    dir,
    label: `MariaDB/MySQL ${version.v}`,
    drop: async () => {
      const d = await admin();
      await d.query(`DROP DATABASE IF EXISTS \`${database}\``);
      await d.end();
    },
  };
}
