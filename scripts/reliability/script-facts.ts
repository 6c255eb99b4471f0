import { execSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import * as os from 'node:os';
import { join } from 'node:path';
import * as mysql from 'mysql2/promise';

/** Facts every section of the report starts with: commit, date, database, machine, the exact command. */
export function runFacts(db: string, command: string): string {
  let commit = 'unknown';
  try {
    commit = execSync('git rev-parse --short HEAD', { encoding: 'utf8' }).trim();
  } catch {
    // not a git checkout
  }
  const cpus = os.cpus();
  return [
    `- commit \`${commit}\`, ${new Date().toISOString().replace(/\.\d+Z$/, 'Z')}`,
    `- database: ${db}`,
    `- machine: ${cpus.length} × ${cpus[0]?.model.trim() ?? 'CPU'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, ${os.type()} ${os.release()}, Node ${process.version}`,
    `- command: \`${command}\``,
  ].join('\n');
}

/** Reads `--name value` options. */
export function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 && process.argv[at + 1] !== undefined ? process.argv[at + 1] : fallback;
}

/** A fresh database for a script: a SQLite file in a temporary directory, or a MySQL database (dropped first). */
export async function scriptDatabase(kind: string, name: string): Promise<{ url: string; dir: string; label: string; drop: () => Promise<void> }> {
  const dir = mkdtempSync(join(os.tmpdir(), `cms-${name}-`));
  if (kind === 'sqlite') return { url: `sqlite:${join(dir, 'cms.sqlite')}`, dir, label: 'SQLite (file, WAL)', drop: async () => undefined };
  if (kind !== 'mysql') throw new Error('--db must be sqlite or mysql');
  const server = new URL(process.env.MYSQL_URL ?? 'mysql://root@127.0.0.1:3306');
  const database = `cms_reliability_${name}`;
  const admin = () => mysql.createConnection({ host: server.hostname, port: Number(server.port || 3306), user: decodeURIComponent(server.username), password: decodeURIComponent(server.password) });
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
