import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as os from 'node:os';
import { join } from 'node:path';

/** The repository root. */
export const ROOT = join(__dirname, '..', '..');

/** The short commit measured, with `+ uncommitted changes` when `src/` differs from it. */
export function commitOf(): string {
  const commit =
    spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).stdout.trim() || 'unknown';
  const dirty = spawnSync('git', ['status', '--porcelain', '--', 'src'], { cwd: ROOT, encoding: 'utf8' }).stdout.trim();
  return dirty ? `${commit} + uncommitted changes in src/` : commit;
}

/** CPU, memory, system and Node of this machine, in one line. */
export function machineFacts(): string {
  const cpus = os.cpus();
  return [
    `${cpus.length} × ${cpus[0]?.model.trim() ?? 'unknown CPU'}`,
    `${(os.totalmem() / 1024 ** 3).toFixed(1)} GiB RAM`,
    `${os.type()} ${os.release()}`,
    `Node ${process.version}`,
  ].join(', ');
}

/** A number of `/proc/sys/...` (undefined where there is none). */
export function kernelSetting(path: string): string | undefined {
  try {
    return readFileSync(join('/proc/sys', path), 'utf8').trim().replace(/\s+/g, ' ');
  } catch {
    return undefined;
  }
}

/** The open-file limit of this process (soft, hard), from /proc/self/limits. */
export function openFileLimit(): { soft: number; hard: number } | undefined {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max open files'));
    const [soft, hard] = (line ?? '').replace('Max open files', '').trim().split(/\s+/);
    const number = (v: string) => (v === 'unlimited' ? Infinity : Number(v));
    return { soft: number(soft), hard: number(hard) };
  } catch {
    return undefined;
  }
}

/** The version of the database server or library behind `databaseUrl`. */
export async function databaseVersion(databaseUrl: string): Promise<string> {
  if (databaseUrl.startsWith('sqlite:')) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const Database = require('better-sqlite3') as new (file: string) => {
      prepare(sql: string): { get(): unknown };
      close(): void;
    };
    const db = new Database(':memory:');
    try {
      return `SQLite ${(db.prepare('select sqlite_version() as v').get() as { v: string }).v}`;
    } finally {
      db.close();
    }
  }
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const mysql = require('mysql2/promise') as typeof import('mysql2/promise');
  const url = new URL(databaseUrl.replace(/^mariadb:/i, 'mysql:'));
  const connection = await mysql.createConnection({
    host: url.hostname,
    port: Number(url.port || 3306),
    user: decodeURIComponent(url.username || 'root'),
    password: decodeURIComponent(url.password),
  });
  try {
    const [rows] = await connection.query('SELECT VERSION() AS v');
    const version = (rows as Array<{ v: string }>)[0].v;
    return /mariadb/i.test(version) ? `MariaDB ${version}` : `MySQL ${version}`;
  } finally {
    await connection.end();
  }
}

/** `--name value`, `--name=value`, or the environment variable, or the default. */
export function option(args: string[], name: string, env: string, fallback: string): string {
  const at = args.findIndex((a) => a === `--${name}` || a.startsWith(`--${name}=`));
  if (at >= 0) return args[at].includes('=') ? args[at].slice(args[at].indexOf('=') + 1) : (args[at + 1] ?? '');
  return process.env[env] ?? fallback;
}
