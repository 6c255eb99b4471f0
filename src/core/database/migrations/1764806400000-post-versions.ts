import { MigrationInterface, QueryRunner } from 'typeorm';
import { POST_VERSIONS_TABLE } from '../version-stamps';
import { isSqlite } from '../migration-helpers';

/**
 * `{prefix}cms_post_versions`: the version of each post an edit in place wrote (see `VersionStamps.narrow`), next to
 * `{prefix}cms_versions`, which keeps one row per group. A table of ours, next to WordPress's, which it leaves alone.
 * `down()` drops it.
 */
export class PostVersions1764806400000 implements MigrationInterface {
  name = 'PostVersions1764806400000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const table = `${queryRunner.connection.options.entityPrefix ?? ''}${POST_VERSIONS_TABLE}`;
    if (isSqlite(queryRunner)) {
      await queryRunner.query(
        `CREATE TABLE IF NOT EXISTS "${table}" ("post_id" integer PRIMARY KEY NOT NULL, "version" bigint NOT NULL DEFAULT 0)`,
      );
      return;
    }
    await queryRunner.query(
      `CREATE TABLE IF NOT EXISTS \`${table}\` (\`post_id\` bigint(20) unsigned NOT NULL, \`version\` bigint(20) NOT NULL DEFAULT 0, PRIMARY KEY (\`post_id\`)) ENGINE=InnoDB DEFAULT CHARSET=ascii`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const table = `${queryRunner.connection.options.entityPrefix ?? ''}${POST_VERSIONS_TABLE}`;
    await queryRunner.query(
      isSqlite(queryRunner) ? `DROP TABLE IF EXISTS "${table}"` : `DROP TABLE IF EXISTS \`${table}\``,
    );
  }
}
