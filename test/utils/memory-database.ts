import { DataSource, ObjectType } from 'typeorm';

/**
 * An in-memory SQLite DataSource for unit specs, with one entity's table made by `createTable` (SQL of that table
 * only, `{table}` standing for its prefixed name). Returns the DataSource and the table name; destroy it after.
 */
export async function memoryDatabase(
  entity: ObjectType<unknown>,
  createTable: string,
): Promise<{ ds: DataSource; table: string }> {
  const ds = new DataSource({ type: 'better-sqlite3', database: ':memory:', entities: [entity] });
  await ds.initialize();
  const table = ds.getMetadata(entity).tableName;
  await ds.query(createTable.replace('{table}', table));
  return { ds, table };
}

/** The `options` table as WordPress's schema has it, for {@link memoryDatabase}. */
export const OPTIONS_TABLE_SQL =
  'CREATE TABLE {table} (option_id INTEGER PRIMARY KEY AUTOINCREMENT, option_name TEXT NOT NULL UNIQUE, option_value TEXT NOT NULL, autoload TEXT NOT NULL)';
