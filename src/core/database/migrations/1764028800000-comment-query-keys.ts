import { KeysMigration, TableKeys } from '../migration-helpers';

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
export class CommentQueryKeys1764028800000 extends KeysMigration {
  name = 'CommentQueryKeys1764028800000';
  protected readonly table = 'comments';
  protected readonly keys = COMMENT_KEYS;
}

/** The keys, by name: their columns in order. */
export const COMMENT_KEYS: TableKeys = [
  ['cms_post_approved_date_gmt', ['comment_post_ID', 'comment_approved', 'comment_date_gmt']],
  ['cms_user_id', ['user_id']],
  ['cms_comment_date', ['comment_date']],
  ['cms_type_karma', ['comment_type', 'comment_karma']],
];
