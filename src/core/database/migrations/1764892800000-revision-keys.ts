import { MigrationInterface, QueryRunner } from 'typeorm';
import { isSqlite } from './1764028800000-comment-query-keys';

/**
 * A key for a post's revisions, which WordPress's `post_parent` key alone serves by reading every child row:
 * `cms_parent_type_status_date` (post_parent, post_type, post_status, post_date) finds a post's latest revision (read on
 * every save, to tell whether the text changed) and counts its revisions (the `version-history` link of every post
 * answered) from the key alone, however many revisions the post has. On SQLite a row's columns after a long
 * `post_content` are read from its overflow pages, so without it a save of a post with 60 revisions took about
 * 0.9 ms in that one statement.
 *
 * Only the key is added, when missing, named `cms_*` so that it reads as ours; on an existing WordPress database
 * too (WordPress's upgrades leave extra keys alone). `down()` drops it.
 */
export class RevisionKeys1764892800000 implements MigrationInterface {
  name = 'RevisionKeys1764892800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const table = postsTable(queryRunner);
    const columns = REVISION_KEY_COLUMNS;
    if (isSqlite(queryRunner)) {
      await queryRunner.query(`CREATE INDEX IF NOT EXISTS "${table}__${REVISION_KEY}" ON "${table}" (${columns.map((c) => `"${c}"`).join(', ')})`);
      return;
    }
    const found = await queryRunner.query('SELECT 1 FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND INDEX_NAME = ? LIMIT 1', [table, REVISION_KEY]);
    if (!found.length) await queryRunner.query(`ALTER TABLE \`${table}\` ADD KEY \`${REVISION_KEY}\` (${columns.map((c) => `\`${c}\``).join(', ')})`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const table = postsTable(queryRunner);
    if (isSqlite(queryRunner)) await queryRunner.query(`DROP INDEX IF EXISTS "${table}__${REVISION_KEY}"`);
    else await queryRunner.query(`ALTER TABLE \`${table}\` DROP KEY \`${REVISION_KEY}\``);
  }
}

export const REVISION_KEY = 'cms_parent_type_status_date';
export const REVISION_KEY_COLUMNS = ['post_parent', 'post_type', 'post_status', 'post_date'];

function postsTable(queryRunner: QueryRunner): string {
  return `${queryRunner.connection.options.entityPrefix ?? ''}posts`;
}
