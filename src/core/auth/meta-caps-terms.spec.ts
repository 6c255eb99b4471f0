/** `mapMetaCap` for terms, categories and tags. */
import { A, AE, AEAuC, NOBODY, type Row } from './map-meta-cap.spec-helpers';
import { admin, author } from './map-meta-cap.spec-helpers';
import { describeMappings, describeRoleTable, type MappingRow } from './map-meta-cap.spec-helpers';

const TABLE: Row[] = [
  // Terms
  ['edit a category', 'edit_term', [3], AE],
  ['delete a category', 'delete_term', [3], AE],
  ['delete the default category', 'delete_term', [1], NOBODY],
  ['edit the default category', 'edit_term', [1], AE],
  ['assign a category', 'assign_term', [3], AEAuC],
  ['edit a tag', 'edit_term', [2], AE],
  ['assign a tag', 'assign_term', [2], AEAuC],
  ['edit a menu (nav_menu: edit_theme_options)', 'edit_term', [4], A],
  ['edit a term of an unregistered taxonomy', 'edit_term', [5], NOBODY],
  ['edit a term that does not exist', 'edit_term', [999], NOBODY],
  ['delete the default term of a custom taxonomy', 'delete_term', [6], NOBODY],
  ['edit a term of a custom taxonomy', 'edit_term', [6], AE],
  ['manage_post_tags', 'manage_post_tags', [], AE],
  ['edit_categories', 'edit_categories', [], AE],
  ['edit_post_tags', 'edit_post_tags', [], AE],
  ['delete_categories', 'delete_categories', [], AE],
  ['delete_post_tags', 'delete_post_tags', [], AE],
  ['manage_categories', 'manage_categories', [], AE],
  ['assign_categories', 'assign_categories', [], AEAuC],
  ['assign_post_tags', 'assign_post_tags', [], AEAuC],
];

describeRoleTable(TABLE);

const MAPPINGS: MappingRow[] = [
  ['category', author, 'edit_term', [3], ['manage_categories']],
  ['assign a tag', author, 'assign_term', [2], ['edit_posts']],
  ['default category', admin, 'delete_term', [1], ['do_not_allow']],
  ['manage_post_tags', author, 'manage_post_tags', [], ['manage_categories']],
];

describeMappings(MAPPINGS);
