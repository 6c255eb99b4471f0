import { MigrationInterface, QueryRunner } from 'typeorm';
import { STAMP_GROUPS, VERSIONS_TABLE } from '../version-stamps';
import { isSqlite } from '../migration-helpers';

/**
 * `{prefix}cms_versions`: one row per object group (posts, terms, comments, users, options) and its version, which
 * every write through the API moves in the same transaction (see `VersionStamps`). A table of ours, next to
 * WordPress's, which it leaves alone. `down()` drops it.
 */
export class VersionStamps1764633600000 implements MigrationInterface {
  name = 'VersionStamps1764633600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const table = `${queryRunner.connection.options.entityPrefix ?? ''}${VERSIONS_TABLE}`;
    if (isSqlite(queryRunner)) {
      await queryRunner.query(
        `CREATE TABLE IF NOT EXISTS "${table}" ("name" varchar(32) PRIMARY KEY NOT NULL, "version" bigint NOT NULL DEFAULT 0)`,
      );
      for (const group of STAMP_GROUPS)
        await queryRunner.query(`INSERT OR IGNORE INTO "${table}" ("name", "version") VALUES (?, 0)`, [group]);
      return;
    }
    await queryRunner.query(
      `CREATE TABLE IF NOT EXISTS \`${table}\` (\`name\` varchar(32) NOT NULL, \`version\` bigint(20) NOT NULL DEFAULT 0, PRIMARY KEY (\`name\`)) ENGINE=InnoDB DEFAULT CHARSET=ascii`,
    );
    for (const group of STAMP_GROUPS)
      await queryRunner.query(`INSERT IGNORE INTO \`${table}\` (\`name\`, \`version\`) VALUES (?, 0)`, [group]);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const table = `${queryRunner.connection.options.entityPrefix ?? ''}${VERSIONS_TABLE}`;
    await queryRunner.query(
      isSqlite(queryRunner) ? `DROP TABLE IF EXISTS "${table}"` : `DROP TABLE IF EXISTS \`${table}\``,
    );
  }
}
