import type { MigrationInterface, QueryRunner } from 'typeorm';

/** A table's keys, by name: their columns in order. */
export type TableKeys = ReadonlyArray<[string, string[]]>;

/** Whether a migration runs on SQLite (else MySQL/MariaDB). */
export function isSqlite(queryRunner: QueryRunner): boolean {
  const { type } = queryRunner.connection.driver.options;
  return type === 'better-sqlite3' || type === 'sqlite';
}

/**
 * Adds the keys (name → columns) to a table (`table` without the prefix) where they are missing: on SQLite as
 * `<table>__<key>` indexes, on MySQL as keys of the table. Nothing else of the table is touched.
 */
export async function addMissingKeys(queryRunner: QueryRunner, table: string, keys: TableKeys): Promise<void> {
  const name = `${queryRunner.connection.options.entityPrefix ?? ''}${table}`;
  for (const [key, columns] of keys) {
    if (isSqlite(queryRunner)) {
      await queryRunner.query(
        `CREATE INDEX IF NOT EXISTS "${name}__${key}" ON "${name}" (${columns.map((c) => `"${c}"`).join(', ')})`,
      );
      continue;
    }
    const found = (await queryRunner.query(
      'SELECT 1 FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND INDEX_NAME = ? LIMIT 1',
      [name, key],
    )) as unknown[];
    if (!found.length)
      await queryRunner.query(
        `ALTER TABLE \`${name}\` ADD KEY \`${key}\` (${columns.map((c) => `\`${c}\``).join(', ')})`,
      );
  }
}

/** Drops keys {@link addMissingKeys} added. */
export async function dropKeys(queryRunner: QueryRunner, table: string, keys: TableKeys): Promise<void> {
  const name = `${queryRunner.connection.options.entityPrefix ?? ''}${table}`;
  for (const [key] of keys) {
    if (isSqlite(queryRunner)) await queryRunner.query(`DROP INDEX IF EXISTS "${name}__${key}"`);
    else await queryRunner.query(`ALTER TABLE \`${name}\` DROP KEY \`${key}\``);
  }
}

/**
 * A migration that only adds keys to one table (`table` without the prefix) where they are missing
 * ({@link addMissingKeys}); `down()` drops them.
 */
export abstract class KeysMigration implements MigrationInterface {
  abstract name: string;
  /** The table, without the prefix. */
  protected abstract readonly table: string;
  /** The keys it adds. */
  protected abstract readonly keys: TableKeys;

  async up(queryRunner: QueryRunner): Promise<void> {
    await addMissingKeys(queryRunner, this.table, this.keys);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await dropKeys(queryRunner, this.table, this.keys);
  }
}
