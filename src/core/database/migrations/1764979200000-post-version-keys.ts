import { MigrationInterface, QueryRunner } from 'typeorm';
import { POST_VERSIONS_TABLE } from '../version-stamps';
import { addMissingKeys, dropKeys } from './1764028800000-comment-query-keys';

/**
 * A key on the posts' versions by version, `cms_version`: every read of the version stamps also reads the posts that
 * edits in place wrote since the last read (`version >= ?`), so that each process learns them once instead of each
 * cached answer reading the versions of the posts it shows. Without the key that read scans every post ever edited.
 * `down()` drops it.
 */
export class PostVersionKeys1764979200000 implements MigrationInterface {
  name = 'PostVersionKeys1764979200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await addMissingKeys(queryRunner, POST_VERSIONS_TABLE, POST_VERSION_KEYS);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await dropKeys(queryRunner, POST_VERSIONS_TABLE, POST_VERSION_KEYS);
  }
}

export const POST_VERSION_KEYS: ReadonlyArray<[string, string[]]> = [['cms_version', ['version']]];
