import { DataSource, EntityManager, EntityMetadata } from 'typeorm';
import { ByteLru, LruEntry } from '../memory/byte-lru';
import { MYSQL_PREPARED_STATEMENT_MAX_BYTES, SQLITE_STATEMENTS } from '../memory/cache-limits';
import { maybeUnserialize, textOf } from '../formatting/php-serialize';
import type { ShortCache } from './short-cache';
import { isMySql } from './query-helpers';
import { committedRead } from './sqlite-writing';
import { isConnectionLost } from './database-errors';
import { arrayToEntity, arrayToObject, hydrate, mappingOf } from './entity-rows';

export { hydrate } from './entity-rows';

/**
 * A WHERE clause built from parts with `?` placeholders (both SQLite and MySQL take them), for the hot read paths
 * that run as plain parameterised SQL instead of going through the query builder and entity hydration.
 *
 * @example
 * const w = new Where().add('p.post_type = ?', 'post').in('p.ID', [1, 2]);
 * await ds.query(`SELECT * FROM posts p WHERE ${w.sql}`, w.params);
 */
export class Where {
  private readonly parts: string[] = [];
  readonly params: unknown[] = [];

  /** Adds a condition (ANDed with the others) and its parameters. */
  add(condition: string, ...params: unknown[]): this {
    this.parts.push(condition);
    this.params.push(...params);
    return this;
  }

  /** `column IN (?, ...)`, or a condition that matches nothing for an empty list. */
  in(column: string, values: readonly unknown[], not = false): this {
    if (!values.length) return not ? this : this.add('1 = 0');
    return this.add(`${column} ${not ? 'NOT IN' : 'IN'} (${placeholders(values.length)})`, ...values);
  }

  get sql(): string {
    return this.parts.length ? this.parts.join(' AND ') : '1 = 1';
  }
}

/**
 * `LIMIT n OFFSET m` for a page of a collection: whole numbers from 0 to 2^53 - 1 (a larger number, say from
 * `page=99999999999999999999`, would be written as a float or in exponent form, which neither SQLite nor MySQL
 * takes there; no table has that many rows, so the page is empty either way).
 */
export function limitClause(limit: number, offset: number): string {
  const whole = (n: number) => (Number.isNaN(n) ? 0 : Math.min(Number.MAX_SAFE_INTEGER, Math.max(0, Math.trunc(n))));
  return `LIMIT ${whole(limit)} OFFSET ${whole(offset)}`;
}

/**
 * The number a `SELECT COUNT(*) AS n …` statement gives, counted once for the same statement and parameters within
 * the cache's moment (collection totals, see {@link ShortCache}).
 */
export function countWithin(
  cache: ShortCache<number>,
  db: DataSource,
  sql: string,
  params: unknown[],
): Promise<number> {
  return cache.get(countKey(sql, params), async () =>
    Number((await rawQuery<{ n: number | string }>(db, sql, params))[0]?.n ?? 0),
  );
}

/** The key of a count in its {@link ShortCache}. */
export function countKey(sql: string, params: unknown[]): string {
  return `${sql}\0${JSON.stringify(params)}`;
}

/** `?, ?, ?` for `n` values. */
export function placeholders(n: number): string {
  return new Array(n).fill('?').join(', ');
}

/**
 * Runs a SELECT on the data source, or inside a transaction, and returns its rows as entities (see {@link hydrate});
 * on the data source with SQLite the entities are built straight from the driver's rows, without objects in between.
 */
export async function rawEntities<T>(
  db: DataSource | EntityManager,
  metadata: EntityMetadata,
  sql: string,
  params: unknown[] = [],
): Promise<T[]> {
  const fast = db instanceof DataSource ? fastReader(db) : null;
  if (fast?.entities && db instanceof DataSource) {
    const writing = committedRead(db);
    if (writing) await writing;
    if (db.options.logging) db.logger.logQuery(sql, params);
    return fast.entities(sql, params, metadata) as T[];
  }
  return hydrate<T>(metadata, await rawQuery(db, sql, params));
}

/**
 * Runs parameterised SQL on the data source or inside a transaction. Reads on the data source go straight to the
 * driver — a cached prepared statement on SQLite, a server-side prepared statement (`execute`) on MySQL — skipping
 * TypeORM's per-query bookkeeping; they are still logged when query logging is on.
 */
export function rawQuery<R = Record<string, unknown>>(
  db: DataSource | EntityManager,
  sql: string,
  params: unknown[] = [],
): Promise<R[]> {
  if (db instanceof DataSource && /^\s*SELECT\b/i.test(sql)) {
    const fast = fastReader(db);
    if (fast) {
      if (db.options.logging) db.logger.logQuery(sql, params);
      return fast.rows(sql, params) as Promise<R[]>;
    }
  }
  return db.query<R[]>(sql, params);
}

interface Reader {
  rows(sql: string, params: unknown[]): Promise<unknown[]>;
  /** Entities built straight from the driver's rows, where that saves building row objects first. */
  entities?(sql: string, params: unknown[], metadata: EntityMetadata): unknown[];
}

const READERS = new WeakMap<DataSource, Reader | null>();

interface SqliteStatement {
  raw(toggle: boolean): SqliteStatement;
  pluck(toggle: boolean): SqliteStatement;
  get(...params: unknown[]): unknown;
  columns(): Array<{ name: string }>;
  all(...params: unknown[]): unknown[][];
}

interface SqliteDatabase {
  prepare(sql: string): SqliteStatement;
}

interface MysqlPool {
  execute(sql: string, params: unknown[], callback: (error: Error | null, rows: unknown) => void): void;
  query(sql: string, params: unknown[], callback: (error: Error | null, rows: unknown) => void): void;
}

/**
 * Approximate bytes a prepared SQLite statement keeps: its SQL as the cache's key (two bytes a character) and
 * SQLite's own memory, measured at about 4 KiB, plus its program (estimated at 8 bytes a character of SQL), plus
 * about 190 bytes a parameter.
 */
export function sqliteStatementBytes(sql: string, params: number): number {
  return 4096 + sql.length * 10 + params * 192;
}

/**
 * Approximate bytes mysql2 keeps for a server-side prepared statement on a connection: measured at about 3 KiB, the
 * SQL as its key, and about 200 bytes a parameter (their definitions).
 */
export function mysqlStatementBytes(sql: string, params: number): number {
  return 3072 + sql.length * 2 + params * 200;
}

/** A prepared SQLite statement kept for the next run of the same SQL. */
class HeldStatement<P> implements LruEntry {
  used = 0;

  constructor(
    readonly owner: Map<string, HeldStatement<P>>,
    readonly sql: string,
    readonly prepared: P,
    public size: number,
  ) {}

  evicted(): void {
    if (this.owner.get(this.sql) === this) this.owner.delete(this.sql);
  }
}

/** What {@link sqliteChanges} runs: the file's data version, and the changes made through this connection. */
export const SQLITE_CHANGE_STATEMENTS = ['PRAGMA data_version', 'SELECT total_changes()'] as const;

const CHANGE_PROBES = new WeakMap<object, () => string>();

/**
 * SQLite (better-sqlite3): a function answering, synchronously and without reading a table, a value that changes
 * whenever the database may have: `data_version` moves when another connection commits (another process on the
 * file), `total_changes()` whenever this connection writes. Two statements prepared once, about 2.8 µs together (the
 * same values read in one statement through `pragma_data_version()` took 4.4 µs). `null` on another driver. Reads
 * made while a write transaction of this process is under way see its changes: wait for {@link committedRead} first.
 */
export function sqliteChanges(db: DataSource): (() => string) | null {
  if (db.options.type !== 'better-sqlite3') return null;
  const connection = (db.driver as unknown as { databaseConnection?: SqliteDatabase }).databaseConnection;
  if (!connection) return null;
  let probe = CHANGE_PROBES.get(connection);
  if (!probe) {
    const [version, changes] = SQLITE_CHANGE_STATEMENTS.map((sql) => connection.prepare(sql).pluck(true));
    probe = () => {
      if (db.options.logging) for (const sql of SQLITE_CHANGE_STATEMENTS) db.logger.logQuery(sql, []);
      return `${String(version.get())}.${String(changes.get())}`;
    };
    CHANGE_PROBES.set(connection, probe);
  }
  return probe;
}

/** A reader going straight to the driver, or `null` when the driver is not one this knows. */
function fastReader(db: DataSource): Reader | null {
  if (READERS.has(db)) return READERS.get(db) ?? null;
  let reader: Reader | null = null;
  const driver = db.driver as unknown as { databaseConnection?: SqliteDatabase; pool?: MysqlPool };
  if (db.options.type === 'better-sqlite3' && driver.databaseConnection) {
    const connection = driver.databaseConnection;
    // Rows come as arrays and become objects here, through builders compiled per statement (see compileRowBuilder in
    // entity-rows.ts): better-sqlite3 builds row objects property by property in native code, at about twice the cost.
    interface Prepared {
      statement: SqliteStatement;
      columns: string[];
      toObject?: (row: unknown[]) => Record<string, unknown>;
      toEntity: Map<EntityMetadata, (row: unknown[]) => Record<string, unknown>>;
    }
    // Kept by SQL within SQLITE_STATEMENTS, the least recently used dropped first (SQLite finalizes a statement once
    // it is garbage); one too large for it is prepared for each run.
    const statements = new Map<string, HeldStatement<Prepared>>();
    const budget = new ByteLru<HeldStatement<Prepared>>(
      'sqlite-statements',
      SQLITE_STATEMENTS.bytes,
      SQLITE_STATEMENTS.entries,
    );
    const prepare = (sql: string, params: number) => {
      const held = statements.get(sql);
      if (held) {
        budget.touch(held);
        return held.prepared;
      }
      const statement = connection.prepare(sql).raw(true);
      const prepared: Prepared = { statement, columns: statement.columns().map((c) => c.name), toEntity: new Map() };
      const entry = new HeldStatement(statements, sql, prepared, sqliteStatementBytes(sql, params));
      if (budget.admit(entry)) statements.set(sql, entry);
      return prepared;
    };
    const all = (rows: unknown[][], build: (row: unknown[]) => Record<string, unknown>) => {
      const out = new Array<Record<string, unknown>>(rows.length);
      for (let i = 0; i < rows.length; i++) out[i] = build(rows[i]);
      return out;
    };
    reader = {
      rows: async (sql, params) => {
        const writing = committedRead(db);
        if (writing) await writing;
        const prepared = prepare(sql, params.length);
        const build = (prepared.toObject ??= arrayToObject(prepared.columns));
        return all(prepared.statement.all(...params), build);
      },
      entities: (sql, params, metadata) => {
        const prepared = prepare(sql, params.length);
        let build = prepared.toEntity.get(metadata);
        if (!build) {
          const byColumn = new Map(mappingOf(metadata).map((m) => [m.column, m]));
          build = arrayToEntity(
            metadata,
            prepared.columns.map((column) => byColumn.get(column) ?? null),
          );
          prepared.toEntity.set(metadata, build);
        }
        return all(prepared.statement.all(...params), build);
      },
    };
  } else if (isMySql(db) && driver.pool) {
    const pool = driver.pool;
    // mysql2 keeps each connection's prepared statements (`maxPreparedStatements` of them): a large one is sent as a
    // plain query instead, so that what it keeps stays within MYSQL_PREPARED_STATEMENT_MAX_BYTES a statement.
    const once = (sql: string, params: unknown[]) =>
      new Promise<unknown[]>((resolve, reject) => {
        const done = (error: Error | null, rows: unknown) => (error ? reject(error) : resolve(rows as unknown[]));
        if (mysqlStatementBytes(sql, params.length) <= MYSQL_PREPARED_STATEMENT_MAX_BYTES)
          pool.execute(sql, params, done);
        else pool.query(sql, params, done);
      });
    reader = {
      // A read whose connection was lost under it (a database node killed, a proxy failing over) is read once more
      // on a new connection: it changed nothing.
      rows: (sql, params) =>
        once(sql, params).catch((error: unknown) =>
          isConnectionLost(error) ? once(sql, params) : Promise.reject(error),
        ),
    };
  }
  READERS.set(db, reader);
  return reader;
}

/**
 * The given meta keys of many objects from a WordPress meta table (`postmeta`, `termmeta`, `usermeta`,
 * `commentmeta`), in one query: object id → key → unserialized values in stored order.
 *
 * @example await metaOfObjects(ds, PostMetaEntity, 'post_id', [1, 2], ['_thumbnail_id'])
 */
export async function metaOfObjects(
  db: DataSource,
  entity: new () => unknown,
  objectColumn: string,
  ids: readonly number[],
  keys: readonly string[],
): Promise<Map<number, Record<string, unknown[]>>> {
  const out = new Map<number, Record<string, unknown[]>>(ids.map((id) => [id, {}]));
  if (!ids.length || !keys.length) return out;
  const meta = db.getMetadata(entity);
  const idColumn = meta.primaryColumns[0].databaseName;
  const rows = await rawQuery<Record<string, unknown>>(
    db,
    `SELECT ${objectColumn} AS object_id, meta_key, meta_value FROM ${meta.tableName}
     WHERE ${objectColumn} IN (${placeholders(ids.length)}) AND meta_key IN (${placeholders(keys.length)}) ORDER BY ${idColumn} ASC`,
    [...ids, ...keys],
  );
  for (const row of rows) {
    const bucket = out.get(Number(row.object_id));
    if (bucket && row.meta_key !== null) (bucket[textOf(row.meta_key)] ??= []).push(maybeUnserialize(row.meta_value));
  }
  return out;
}
