import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Keys for the comment queries WordPress's own keys do not cover, named `cms_*` so that they read as ours:
 * - `cms_post_approved_date_gmt` (comment_post_ID, comment_approved, comment_date_gmt): a post's approved comments,
 *   newest first — the `replies` of every post, and `comments?post=<id>` — without sorting a long thread;
 * - `cms_user_id` (user_id): the `author` and `author_exclude` filters and the flood check of logged-in users;
 * - `cms_comment_date` (comment_date): `after`, `before` and `orderby=date`;
 * - `cms_type_karma` (comment_type, comment_karma): `type`, `karma` and `orderby=type`.
 *
 * Only keys are added, when missing — on an existing WordPress database too (WordPress's upgrades leave extra keys
 * alone); no column, table or row changes. `down()` drops them.
 */
export class CommentQueryKeys1764028800000 implements MigrationInterface {
  name = 'CommentQueryKeys1764028800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await addMissingKeys(queryRunner, 'comments', COMMENT_KEYS);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await dropKeys(queryRunner, 'comments', COMMENT_KEYS);
  }
}

/** The keys, by name: their columns in order. */
export const COMMENT_KEYS: ReadonlyArray<[string, string[]]> = [
  ['cms_post_approved_date_gmt', ['comment_post_ID', 'comment_approved', 'comment_date_gmt']],
  ['cms_user_id', ['user_id']],
  ['cms_comment_date', ['comment_date']],
  ['cms_type_karma', ['comment_type', 'comment_karma']],
];

/** Whether a migration runs on SQLite (else MySQL/MariaDB). */
export function isSqlite(queryRunner: QueryRunner): boolean {
  const { type } = queryRunner.connection.driver.options;
  return type === 'better-sqlite3' || type === 'sqlite';
}

/**
 * Adds the keys (name → columns) to a table (`table` without the prefix) where they are missing: on SQLite as
 * `<table>__<key>` indexes, on MySQL as keys of the table. Nothing else of the table is touched.
 */
export async function addMissingKeys(
  queryRunner: QueryRunner,
  table: string,
  keys: ReadonlyArray<[string, string[]]>,
): Promise<void> {
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
export async function dropKeys(
  queryRunner: QueryRunner,
  table: string,
  keys: ReadonlyArray<[string, string[]]>,
): Promise<void> {
  const name = `${queryRunner.connection.options.entityPrefix ?? ''}${table}`;
  for (const [key] of keys) {
    if (isSqlite(queryRunner)) await queryRunner.query(`DROP INDEX IF EXISTS "${name}__${key}"`);
    else await queryRunner.query(`ALTER TABLE \`${name}\` DROP KEY \`${key}\``);
  }
}
