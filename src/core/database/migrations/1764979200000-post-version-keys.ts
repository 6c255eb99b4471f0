import { POST_VERSIONS_TABLE } from '../version-stamps';
import { KeysMigration, TableKeys } from '../migration-helpers';

/**
 * A key on the posts' versions by version, `cms_version`: every read of the version stamps also reads the posts that
 * edits in place wrote since the last read (`version >= ?`), so that each process learns them once instead of each
 * cached answer reading the versions of the posts it shows. Without the key that read scans every post ever edited.
 * `down()` drops it.
 */
export class PostVersionKeys1764979200000 extends KeysMigration {
  name = 'PostVersionKeys1764979200000';
  protected readonly table = POST_VERSIONS_TABLE;
  protected readonly keys = POST_VERSION_KEYS;
}

export const POST_VERSION_KEYS: TableKeys = [['cms_version', ['version']]];
