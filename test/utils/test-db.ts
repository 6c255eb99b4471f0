import { DataSource } from 'typeorm';
import { buildDataSourceOptions } from '../../src/core/database/data-source-options';
import * as mysql from 'mysql2/promise';

/** Which database the tests run on: `process.env.DB` (`sqlite`, the default, or `mysql`). */
export function testDatabaseKind(): 'sqlite' | 'mysql' {
  const kind = process.env.DB ?? 'sqlite';
  if (kind !== 'sqlite' && kind !== 'mysql') throw new Error(`DB must be "sqlite" or "mysql", got "${kind}"`);
  return kind;
}

/** Server URL for MySQL tests (`MYSQL_URL`, default `mysql://root@127.0.0.1:3306`), without a database. */
function mysqlServerUrl(): URL {
  const url = new URL(process.env.MYSQL_URL ?? 'mysql://root@127.0.0.1:3306');
  url.pathname = '';
  return url;
}

/** Name of the MySQL database of a test: `cms_e2e_<name>` (non-word characters become `_`). */
export function testDatabaseName(name: string): string {
  return `cms_e2e_${name.replace(/\W/g, '_')}`;
}

async function withServer<T>(run: (connection: mysql.Connection) => Promise<T>): Promise<T> {
  const url = mysqlServerUrl();
  const connection = await mysql.createConnection({
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port ? Number(url.port) : 3306,
    user: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
  });
  try {
    return await run(connection);
  } finally {
    await connection.end();
  }
}

/**
 * A fresh, empty database for a test file, as a `DATABASE_URL`: `sqlite::memory:` when `DB` is unset or
 * `sqlite`; with `DB=mysql`, drops and creates `cms_e2e_<name>` (utf8mb4) and returns its URL.
 */
export async function testDatabaseUrl(name: string): Promise<string> {
  if (testDatabaseKind() === 'sqlite') return 'sqlite::memory:';
  const database = testDatabaseName(name);
  await withServer(async (connection) => {
    await connection.query(`DROP DATABASE IF EXISTS \`${database}\``);
    await connection.query(
      `CREATE DATABASE \`${database}\` DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_520_ci`,
    );
  });
  const url = mysqlServerUrl();
  url.pathname = `/${database}`;
  return url.toString();
}

/** Drops the database made by {@link testDatabaseUrl} (nothing to do on SQLite). */
export async function dropTestDatabase(name: string): Promise<void> {
  if (testDatabaseKind() === 'sqlite') return;
  await withServer((connection) => connection.query(`DROP DATABASE IF EXISTS \`${testDatabaseName(name)}\``));
}

/** Runs `work` with a data source of its own on a database (the CLI and start-up tests read what a process wrote). */
export async function withTestDataSource<T>(
  databaseUrl: string,
  tablePrefix: string,
  work: (ds: DataSource) => Promise<T>,
): Promise<T> {
  const ds = new DataSource(buildDataSourceOptions({ databaseUrl, tablePrefix }));
  await ds.initialize();
  try {
    return await work(ds);
  } finally {
    await ds.destroy();
  }
}
