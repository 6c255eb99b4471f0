import { MigrationInterface, QueryRunner } from 'typeorm';
import { addMissingKeys, dropKeys } from './1764028800000-comment-query-keys';

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
    await addMissingKeys(queryRunner, 'posts', [[REVISION_KEY, REVISION_KEY_COLUMNS]]);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await dropKeys(queryRunner, 'posts', [[REVISION_KEY, REVISION_KEY_COLUMNS]]);
  }
}

export const REVISION_KEY = 'cms_parent_type_status_date';
export const REVISION_KEY_COLUMNS = ['post_parent', 'post_type', 'post_status', 'post_date'];
