/** `mapMetaCap` for users, comments and the site, its overrides, and `userHasAllCaps`. */
import { mapMetaCap, userHasAllCaps } from './map-meta-cap';
import { CommentLike } from './meta-cap-lookups';
import { A, AE, AEAu, AEAuC, LOGGED_IN, NOBODY, type Row } from './map-meta-cap.spec-helpers';
import { admin, ADMIN, author, AUTHOR, SUBSCRIBER, USERS, userWithRole } from './map-meta-cap.spec-helpers';
import {
  can,
  caps,
  describeMappings,
  describeRoleTable,
  memoryLookups,
  type MappingRow,
} from './map-meta-cap.spec-helpers';

const TABLE: Row[] = [
  // Comments
  ['edit a comment on the author’s published post', 'edit_comment', [100], AEAu],
  ['edit an orphaned comment (edit_posts)', 'edit_comment', [101], AEAuC],
  ['edit a comment that does not exist', 'edit_comment', [999], NOBODY],
  ['moderate comments', 'moderate_comments', [], AE],
  // Users
  ['edit the subscriber (self-edit allowed)', 'edit_user', [SUBSCRIBER], ['administrator', 'subscriber']],
  ['edit the author (self-edit allowed)', 'edit_user', [AUTHOR], ['administrator', 'author']],
  ['edit_users', 'edit_users', [], A],
  ['delete a user', 'delete_user', [SUBSCRIBER], A],
  ['delete_users', 'delete_users', [], A],
  ['promote a user', 'promote_user', [SUBSCRIBER], A],
  ['promote_users', 'promote_users', [], A],
  ['add_users', 'add_users', [], A],
  ['remove the subscriber', 'remove_user', [SUBSCRIBER], A],
  ['list_users', 'list_users', [], A],
  ['create_users', 'create_users', [], A],
  ['application passwords of the subscriber', 'create_app_password', [SUBSCRIBER], ['administrator', 'subscriber']],
  // Site
  ['upload_files', 'upload_files', [], AEAu],
  ['manage_options', 'manage_options', [], A],
  ['unfiltered_html', 'unfiltered_html', [], AE],
  ['edit_css', 'edit_css', [], AE],
  ['unfiltered_upload (ALLOW_UNFILTERED_UPLOADS not set)', 'unfiltered_upload', [], NOBODY],
  ['edit_files', 'edit_files', [], NOBODY],
  ['edit_plugins', 'edit_plugins', [], NOBODY],
  ['edit_themes', 'edit_themes', [], NOBODY],
  ['manage_links (link manager disabled)', 'manage_links', [], NOBODY],
  ['customize', 'customize', [], A],
  ['delete_site (single site)', 'delete_site', [], NOBODY],
  ['manage_privacy_options', 'manage_privacy_options', [], A],
  ['resume_plugins (granted with activate_plugins)', 'resume_plugin', [], A],
  ['install_languages (granted with update_core)', 'install_languages', [], A],
  ['read', 'read', [], LOGGED_IN],
  ['exist', 'exist', [], [...LOGGED_IN, 'anonymous']],
  ['do_not_allow', 'do_not_allow', [], NOBODY],
  ['an unknown capability', 'fly', [], NOBODY],
];

describeRoleTable(TABLE);

const MAPPINGS: MappingRow[] = [
  ['comment', author, 'edit_comment', [100], ['edit_published_posts']],
  ['orphaned comment', author, 'edit_comment', [101], ['edit_posts']],
  ['self edit', author, 'edit_user', [AUTHOR], []],
  ['edit another user', author, 'edit_user', [SUBSCRIBER], ['edit_users']],
  ['remove oneself without delete_users', author, 'remove_user', [AUTHOR], ['do_not_allow']],
  ['remove oneself with delete_users', admin, 'remove_user', [ADMIN], ['remove_users']],
  ['promote', author, 'promote_user', [SUBSCRIBER], ['promote_users']],
  ['update_https', admin, 'update_https', [], ['manage_options', 'update_core']],
  ['primitive', author, 'upload_files', [], ['upload_files']],
];

describeMappings(MAPPINGS, () => {
  it('anonymous users map like anyone else and hold nothing', async () => {
    const anonymous = USERS.anonymous;
    expect(await caps(anonymous, 'read_post', 11)).toEqual(['read']);
    expect(await caps(anonymous, 'edit_user', 0)).toEqual(['edit_users']);
    expect(await can(anonymous, 'exist')).toBe(true);
  });
});

describe('mapMetaCap: lookups', () => {
  it('takes objects for comments, users and terms', async () => {
    const { lookups } = memoryLookups();
    const comment: CommentLike = { id: 700, postId: 11, userId: 0 };
    expect(await mapMetaCap('edit_comment', USERS.author, [comment], lookups)).toEqual(['edit_published_posts']);
    expect(await mapMetaCap('edit_user', USERS.author, [{ id: AUTHOR }], lookups)).toEqual([]);
    expect(await mapMetaCap('delete_term', USERS.author, [{ termId: 700, taxonomy: 'post_tag' }], lookups)).toEqual([
      'manage_categories',
    ]);
    expect(await mapMetaCap('delete_term', USERS.author, [{ termId: 1, taxonomy: 'category' }], lookups)).toEqual([
      'do_not_allow',
    ]);
  });

  it('lets an override replace any mapping, including recursive ones', async () => {
    const { lookups } = memoryLookups({
      override: (cap) => (cap === 'edit_post' ? ['edit_anything'] : undefined),
    });
    expect(await mapMetaCap('edit_post', USERS.author, [11], lookups)).toEqual(['edit_anything']);
    // read_post of someone else's draft maps through edit_post.
    expect(await mapMetaCap('read_post', USERS.author, [33], lookups)).toEqual(['edit_anything']);
    expect(await mapMetaCap('read_post', USERS.author, [11], lookups)).toEqual(['read']);
  });
});

describe('userHasAllCaps', () => {
  it('needs every capability; exist is free; do_not_allow is never held', () => {
    const user = USERS.editor;
    expect(userHasAllCaps(user, ['edit_posts', 'edit_others_posts'])).toBe(true);
    expect(userHasAllCaps(user, ['edit_posts', 'manage_options'])).toBe(false);
    expect(userHasAllCaps(user, ['exist'])).toBe(true);
    expect(userHasAllCaps(userWithRole(1, 'administrator', { do_not_allow: true }), ['do_not_allow'])).toBe(false);
    expect(userHasAllCaps(user, [])).toBe(true);
  });
});
