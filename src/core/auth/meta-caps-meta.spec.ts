/** `mapMetaCap` for the meta of posts, comments, terms and users, and `isProtectedMeta`. */
import { mapMetaCap } from './map-meta-cap';
import { isProtectedMeta } from './meta-caps-meta';
import { AE, AEAu, NOBODY, type Row } from './map-meta-cap.spec-helpers';
import { author, SUBSCRIBER, USERS } from './map-meta-cap.spec-helpers';
import { describeMappings, describeRoleTable, memoryLookups, type MappingRow } from './map-meta-cap.spec-helpers';

const TABLE: Row[] = [
  // Post meta
  ['edit a public meta key of a published post', 'edit_post_meta', [11, 'color'], AEAu],
  [
    'add a public meta key to a contributor draft',
    'add_post_meta',
    [14, 'color'],
    ['administrator', 'editor', 'contributor'],
  ],
  ['delete a public meta key of the editor’s post', 'delete_post_meta', [12, 'color'], AE],
  ['edit a protected meta key', 'edit_post_meta', [11, '_secret'], NOBODY],
  ['edit meta of a post that does not exist', 'edit_post_meta', [999, 'color'], NOBODY],
  ['edit post meta without a key (the edit_post caps)', 'edit_post_meta', [11], AEAu],
  // Comment meta
  ['edit comment meta', 'edit_comment_meta', [100, 'rating'], AEAu],
  ['edit protected comment meta', 'edit_comment_meta', [100, '_rating'], NOBODY],
  // User meta
  ['edit user meta of oneself', 'edit_user_meta', [SUBSCRIBER, 'description'], ['administrator', 'subscriber']],
  ['edit user meta of a user that does not exist', 'edit_user_meta', [999, 'description'], NOBODY],
  // Term meta
  ['edit term meta', 'edit_term_meta', [3, 'color'], AE],
  ['edit protected term meta', 'edit_term_meta', [3, '_color'], NOBODY],
];

describeRoleTable(TABLE);

const MAPPINGS: MappingRow[] = [
  ['public meta key', author, 'edit_post_meta', [11, 'color'], ['edit_published_posts']],
  ['protected meta key', author, 'edit_post_meta', [11, '_edit_lock'], ['edit_published_posts', 'do_not_allow']],
];

describeMappings(MAPPINGS);

describe('mapMetaCap: lookups', () => {
  it('lets an auth callback allow a protected meta key or deny a public one', async () => {
    const { lookups } = memoryLookups({
      authMeta: (request) =>
        request.metaKey === '_allowed' ? true : request.metaKey === 'denied' ? false : request.allowed,
    });
    expect(await mapMetaCap('edit_post_meta', USERS.author, [11, '_allowed'], lookups)).toEqual([
      'edit_published_posts',
    ]);
    expect(await mapMetaCap('edit_post_meta', USERS.author, [11, 'denied'], lookups)).toEqual([
      'edit_published_posts',
      'do_not_allow',
    ]);
    expect(await mapMetaCap('edit_post_meta', USERS.author, [11, '_other'], lookups)).toContain('do_not_allow');
  });
});

describe('isProtectedMeta', () => {
  it.each([
    ['_edit_lock', true],
    ['color', false],
    ['', false],
    ['\u0000_hidden', true], // control characters are stripped first, as in WordPress
    [' _x', false],
  ])('%j → %s', (key, expected) => {
    expect(isProtectedMeta(key)).toBe(expected);
  });
});
