import { MigrationInterface, QueryRunner } from 'typeorm';
import { isSqlite } from '../migration-helpers';

/** The table's name without the prefix (see `UploadJournal` in the media module). */
const TABLE = 'cms_upload_journal';

/**
 * `{prefix}cms_upload_journal`: the files of uploads and deletions whose attachment row is being written, so that
 * any node can settle what a crashed process left (see `UploadJournal`). Keyed by age, which settling looks up.
 * `down()` drops it.
 */
export class UploadJournal1765238400000 implements MigrationInterface {
  name = 'UploadJournal1765238400000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const table = `${queryRunner.connection.options.entityPrefix ?? ''}${TABLE}`;
    if (isSqlite(queryRunner)) {
      await queryRunner.query(
        `CREATE TABLE IF NOT EXISTS "${table}" ("id" integer PRIMARY KEY AUTOINCREMENT NOT NULL, "main" varchar(1024) NOT NULL, "files" text NOT NULL, "owner" varchar(191) NOT NULL, "created_at" bigint NOT NULL)`,
      );
      await queryRunner.query(`CREATE INDEX IF NOT EXISTS "${table}__created_at" ON "${table}" ("created_at")`);
      return;
    }
    await queryRunner.query(
      `CREATE TABLE IF NOT EXISTS \`${table}\` (\`id\` bigint(20) unsigned NOT NULL AUTO_INCREMENT, \`main\` varchar(1024) NOT NULL, \`files\` longtext NOT NULL, \`owner\` varchar(191) NOT NULL, \`created_at\` bigint(20) NOT NULL, PRIMARY KEY (\`id\`), KEY \`created_at\` (\`created_at\`)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_520_ci`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const table = `${queryRunner.connection.options.entityPrefix ?? ''}${TABLE}`;
    await queryRunner.query(
      isSqlite(queryRunner) ? `DROP TABLE IF EXISTS "${table}"` : `DROP TABLE IF EXISTS \`${table}\``,
    );
  }
}
