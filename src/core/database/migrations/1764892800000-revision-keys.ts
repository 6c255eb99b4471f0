import { KeysMigration, TableKeys } from '../migration-helpers';

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
export class RevisionKeys1764892800000 extends KeysMigration {
  name = 'RevisionKeys1764892800000';
  protected readonly table = 'posts';
  protected readonly keys: TableKeys = [[REVISION_KEY, REVISION_KEY_COLUMNS]];
}

export const REVISION_KEY = 'cms_parent_type_status_date';
export const REVISION_KEY_COLUMNS = ['post_parent', 'post_type', 'post_status', 'post_date'];
