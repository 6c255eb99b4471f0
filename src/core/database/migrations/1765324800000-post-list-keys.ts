import { KeysMigration, TableKeys } from '../migration-helpers';

/**
 * Keys that keep a page of posts on the index, however many posts there are, for the orders and filters front-ends
 * use besides the date (which WordPress's `type_status_date` serves): each gives the rows of one type and status in
 * that order, so a page reads its own entries and those it skips, never the whole type.
 * - `cms_type_status_modified` (post_type, post_status, post_modified, ID): `orderby=modified`;
 * - `cms_type_status_menu_order` (post_type, post_status, menu_order, ID): `orderby=menu_order` (pages);
 * - `cms_type_status_id` (post_type, post_status, ID): `orderby=id`;
 * - `cms_type_status_author_date` (post_type, post_status, post_author, post_date, ID): `author=` in date order.
 *
 * Only keys are added, when missing, named `cms_*` so that they read as ours; on an existing WordPress database too
 * (InnoDB adds a key without blocking writes; WordPress's upgrades leave extra keys alone). `down()` drops them.
 */
export class PostListKeys1765324800000 extends KeysMigration {
  name = 'PostListKeys1765324800000';
  protected readonly table = 'posts';
  protected readonly keys = POST_LIST_KEYS;
}

export const POST_LIST_KEYS: TableKeys = [
  ['cms_type_status_modified', ['post_type', 'post_status', 'post_modified', 'ID']],
  ['cms_type_status_menu_order', ['post_type', 'post_status', 'menu_order', 'ID']],
  ['cms_type_status_id', ['post_type', 'post_status', 'ID']],
  ['cms_type_status_author_date', ['post_type', 'post_status', 'post_author', 'post_date', 'ID']],
];
