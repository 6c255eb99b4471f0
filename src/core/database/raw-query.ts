import { DataSource, EntityManager, EntityMetadata } from 'typeorm';
import { maybeUnserialize } from './php-serialize';
import type { ShortCache } from './short-cache';

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

/** `LIMIT n OFFSET m` for a page of a collection (whole, non-negative numbers only). */
export function limitClause(limit: number, offset: number): string {
  return `LIMIT ${Math.max(0, Math.trunc(limit))} OFFSET ${Math.max(0, Math.trunc(offset))}`;
}

/**
 * The number a `SELECT COUNT(*) AS n …` statement gives, counted once for the same statement and parameters within
 * the cache's moment (collection totals, see {@link ShortCache}).
 */
export function countWithin(cache: ShortCache<number>, db: DataSource, sql: string, params: unknown[]): Promise<number> {
  return cache.get(`${sql}\0${JSON.stringify(params)}`, async () => Number((await rawQuery<{ n: number | string }>(db, sql, params))[0]?.n ?? 0));
}

/** `?, ?, ?` for `n` values. */
export function placeholders(n: number): string {
  return new Array(n).fill('?').join(', ');
}

/** How a column of a row becomes an entity property. */
interface ColumnMapping {
  column: string;
  property: string;
  numeric: boolean;
}

const MAPPINGS = new WeakMap<EntityMetadata, ColumnMapping[]>();

function mappingOf(metadata: EntityMetadata): ColumnMapping[] {
  let mapping = MAPPINGS.get(metadata);
  if (!mapping) {
    mapping = metadata.columns.map((c) => ({
      column: c.databaseName,
      property: c.propertyName,
      numeric: ['bigint', 'int', 'integer', 'tinyint', 'smallint', Number].includes(c.type as string),
    }));
    MAPPINGS.set(metadata, mapping);
  }
  return mapping;
}

function newEntity(metadata: EntityMetadata): Record<string, unknown> {
  return Object.create(metadata.target instanceof Function ? metadata.target.prototype : Object.prototype) as Record<string, unknown>;
}

/**
 * Turns raw rows into entities through the entity's column mapping (database column → property), converting numeric
 * columns the drivers return as strings (MySQL BIGINT) to numbers.
 */
export function hydrate<T>(metadata: EntityMetadata, rows: Array<Record<string, unknown>>): T[] {
  const columns = mappingOf(metadata);
  return rows.map((row) => {
    const entity = newEntity(metadata);
    for (const { column, property, numeric } of columns) {
      if (!(column in row)) continue;
      const value = row[column];
      entity[property] = numeric && value !== null && value !== undefined ? Number(value) : value;
    }
    return entity as T;
  });
}

/**
 * Runs a SELECT on the data source and returns its rows as entities (see {@link hydrate}); on SQLite the entities
 * are built straight from the driver's rows, without objects in between.
 */
export async function rawEntities<T>(db: DataSource, metadata: EntityMetadata, sql: string, params: unknown[] = []): Promise<T[]> {
  const fast = fastReader(db);
  if (fast?.entities) {
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
export function rawQuery<R = Record<string, unknown>>(db: DataSource | EntityManager, sql: string, params: unknown[] = []): Promise<R[]> {
  if (db instanceof DataSource && /^\s*SELECT\b/i.test(sql)) {
    const fast = fastReader(db);
    if (fast) {
      if (db.options.logging) db.logger.logQuery(sql, params);
      return fast.rows(sql, params) as Promise<R[]>;
    }
  }
  return db.query(sql, params) as Promise<R[]>;
}

interface Reader {
  rows(sql: string, params: unknown[]): Promise<unknown[]>;
  /** Entities built straight from the driver's rows, where that saves building row objects first. */
  entities?(sql: string, params: unknown[], metadata: EntityMetadata): unknown[];
}

const READERS = new WeakMap<DataSource, Reader | null>();

interface SqliteStatement {
  raw(toggle: boolean): SqliteStatement;
  columns(): Array<{ name: string }>;
  all(...params: unknown[]): unknown[][];
}

interface SqliteDatabase {
  prepare(sql: string): SqliteStatement;
}

interface MysqlPool {
  execute(sql: string, params: unknown[], callback: (error: Error | null, rows: unknown) => void): void;
}

/** A reader going straight to the driver, or `null` when the driver is not one this knows. */
function fastReader(db: DataSource): Reader | null {
  if (READERS.has(db)) return READERS.get(db) ?? null;
  let reader: Reader | null = null;
  const driver = db.driver as unknown as { databaseConnection?: SqliteDatabase; pool?: MysqlPool };
  if (db.options.type === 'better-sqlite3' && driver.databaseConnection) {
    const connection = driver.databaseConnection;
    // Rows come as arrays and become objects here: better-sqlite3 builds row objects property by property in
    // native code, at about twice the cost.
    const statements = new Map<string, { statement: SqliteStatement; columns: string[]; plans: Map<EntityMetadata, Array<ColumnMapping | null>> }>();
    const prepare = (sql: string) => {
      let prepared = statements.get(sql);
      if (!prepared) {
        if (statements.size > 500) statements.clear();
        const statement = connection.prepare(sql).raw(true);
        prepared = { statement, columns: statement.columns().map((c) => c.name), plans: new Map() };
        statements.set(sql, prepared);
      }
      return prepared;
    };
    reader = {
      rows: async (sql, params) => {
        const { statement, columns } = prepare(sql);
        const rows = statement.all(...params);
        const out = new Array<Record<string, unknown>>(rows.length);
        for (let i = 0; i < rows.length; i++) {
          const row = rows[i];
          const object: Record<string, unknown> = {};
          for (let c = 0; c < columns.length; c++) object[columns[c]] = row[c];
          out[i] = object;
        }
        return out;
      },
      entities: (sql, params, metadata) => {
        const prepared = prepare(sql);
        let plan = prepared.plans.get(metadata);
        if (!plan) {
          const byColumn = new Map(mappingOf(metadata).map((m) => [m.column, m]));
          plan = prepared.columns.map((column) => byColumn.get(column) ?? null);
          prepared.plans.set(metadata, plan);
        }
        const rows = prepared.statement.all(...params);
        const out = new Array<Record<string, unknown>>(rows.length);
        for (let i = 0; i < rows.length; i++) {
          const row = rows[i];
          const entity = newEntity(metadata);
          for (let c = 0; c < plan.length; c++) {
            const mapping = plan[c];
            if (!mapping) continue;
            const value = row[c];
            entity[mapping.property] = mapping.numeric && value !== null && value !== undefined ? Number(value) : value;
          }
          out[i] = entity;
        }
        return out;
      },
    };
  } else if ((db.options.type === 'mysql' || db.options.type === 'mariadb') && driver.pool) {
    const pool = driver.pool;
    reader = {
      rows: (sql, params) =>
        new Promise((resolve, reject) => pool.execute(sql, params, (error, rows) => (error ? reject(error) : resolve(rows as unknown[])))),
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
    if (bucket && row.meta_key !== null) (bucket[String(row.meta_key)] ??= []).push(maybeUnserialize(row.meta_value));
  }
  return out;
}
