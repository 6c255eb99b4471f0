import { EntityManager, EntityTarget, ObjectLiteral } from 'typeorm';
import { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';

/** Escapes `!`, `%` and `_` for a LIKE pattern used with `ESCAPE '!'` (one escape character both databases read alike). */
export function escapeLike(text: string): string {
  return text.replace(/[!%_]/g, (c) => `!${c}`);
}

/** `%text%` for a "contains" LIKE with `ESCAPE '!'`. */
export function containsPattern(text: string): string {
  return `%${escapeLike(text)}%`;
}

/**
 * An ORDER BY term putting rows in the order of `column`'s values in a list (the reference's `orderby=include`),
 * with one `?` per value; rows whose value is not listed come last.
 *
 * @example `ORDER BY ${orderByPosition('p.ID', 3)}` with params [7, 3, 9]
 */
export function orderByPosition(column: string, count: number): string {
  return `CASE ${Array.from({ length: count }, (_, i) => `WHEN ${column} = ? THEN ${i}`).join(' ')} ELSE ${count} END ASC`;
}

/** Whether a data source speaks to MySQL or MariaDB (else SQLite). */
export function isMySql(dataSource: { options: { type: string } }): boolean {
  return dataSource.options.type === 'mysql' || dataSource.options.type === 'mariadb';
}

/** A table or trigger name quoted for the data source's dialect (backticks on MySQL, double quotes on SQLite). */
export function quotedName(dataSource: { options: { type: string } }, name: string): string {
  return isMySql(dataSource) ? `\`${name}\`` : `"${name}"`;
}

/**
 * Updates the row of `entity` whose primary key is `id` with `values` (by property; `undefined` ones left out), as
 * one parameterized statement written from the entity's columns, without TypeORM's query building: a save writes its
 * post's row this way. Values other than strings, numbers and `null`, or columns with a transformer, go through
 * TypeORM's `update()`, which converts them.
 *
 * Answers whether the row now holds the values as given: always on SQLite (it stores what it is given); on MySQL
 * when the statement raised no warning (a value cut to its column, or a character the column's set cannot hold, is
 * stored changed with a warning under WordPress's `sql_mode`); `false` when TypeORM's `update()` wrote it.
 */
export async function updateRow<T extends ObjectLiteral>(
  em: EntityManager,
  entity: EntityTarget<T>,
  id: number,
  values: QueryDeepPartialEntity<T>,
): Promise<boolean> {
  const metadata = em.connection.getMetadata(entity);
  const [primary] = metadata.primaryColumns;
  const columns: string[] = [];
  const params: unknown[] = [];
  for (const [property, value] of Object.entries(values)) {
    if (value === undefined) continue;
    const column = metadata.findColumnWithPropertyName(property);
    if (!column || column.transformer || (value !== null && typeof value !== 'string' && typeof value !== 'number')) {
      await em.getRepository(entity).update(id, values);
      return false;
    }
    columns.push(`${em.connection.driver.escape(column.databaseName)} = ?`);
    params.push(value);
  }
  if (!columns.length) return true;
  const table = em.connection.driver.escape(metadata.tableName);
  const result = (await em.query(
    `UPDATE ${table} SET ${columns.join(', ')} WHERE ${em.connection.driver.escape(primary.databaseName)} = ?`,
    [...params, id],
  )) as unknown;
  if (!isMySql(em.connection)) return true;
  // mysql2's result header of the statement: the number of warnings it raised.
  return typeof result === 'object' && result !== null && (result as { warningStatus?: unknown }).warningStatus === 0;
}

/**
 * Inserts one row and gives its new id, without reading the row back (TypeORM's `insert()` reads the columns that
 * have a default again, one more statement, where the caller knows what it wrote).
 */
export async function insertRow<T extends ObjectLiteral>(
  em: EntityManager,
  entity: EntityTarget<T>,
  values: QueryDeepPartialEntity<T>,
): Promise<number> {
  const result = await em.createQueryBuilder().insert().into(entity).values(values).updateEntity(false).execute();
  // MySQL answers the statement's header (its insertId), SQLite the last rowid.
  const raw = result.raw as { insertId?: number | string } | number | bigint;
  return Number(typeof raw === 'object' && raw !== null ? raw.insertId : raw);
}
