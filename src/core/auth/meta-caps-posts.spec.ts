/** `mapMetaCap` for posts: edit, delete, read and publish, pages, post types and attachments. */
import { mapMetaCap } from './map-meta-cap';
import { getPostStatus } from './meta-caps-posts';
import { A, AE, AEAu, AEAuC, LOGGED_IN, NOBODY, type Row } from './map-meta-cap.spec-helpers';
import { admin, author, AUTHOR, USERS, userWithRole } from './map-meta-cap.spec-helpers';
import {
  can,
  describeMappings,
  describeRoleTable,
  memoryLookups,
  post,
  POSTS,
  REGISTRY,
  type MappingRow,
} from './map-meta-cap.spec-helpers';

const TABLE: Row[] = [
  // Posts: edit
  ["edit the author's draft", 'edit_post', [10], AEAu],
  ["edit the author's published post", 'edit_post', [11], AEAu],
  ["edit the editor's published post", 'edit_post', [12], AE],
  ["edit the editor's private post", 'edit_post', [13], AE],
  ["edit the contributor's draft", 'edit_post', [14], ['administrator', 'editor', 'contributor']],
  ["edit the contributor's published post", 'edit_post', [15], AE],
  ["edit the author's pending post", 'edit_post', [16], AEAu],
  ["edit the author's scheduled post", 'edit_post', [19], AEAu],
  ["edit the author's trashed, was published", 'edit_post', [17], AEAu],
  ["edit the contributor's trashed, was published", 'edit_post', [34], AE],
  ["edit the contributor's trashed, was a draft", 'edit_post', [35], ['administrator', 'editor', 'contributor']],
  ['edit a revision of the author’s published post', 'edit_post', [22], AEAu],
  ['edit a revision of the editor’s private post', 'edit_post', [23], AE],
  ['edit an orphaned revision', 'edit_post', [31], NOBODY],
  ['edit a post of an unregistered type', 'edit_post', [27], AE],
  ['edit a post that does not exist', 'edit_post', [999], NOBODY],
  ['edit_post without a post', 'edit_post', [], NOBODY],
  ['edit_post with a numeric string id', 'edit_post', ['11'], AEAu],
  ['edit_post with a non-numeric id', 'edit_post', ['abc'], NOBODY],
  ["edit the editor's draft", 'edit_post', [33], AE],
  ["edit the author's attachment (inherit) of their draft", 'edit_post', [36], AEAu],
  ["edit the editor's attachment (inherit)", 'edit_post', [24], AE],
  // Pages
  ["edit the editor's published page", 'edit_page', [20], AE],
  ["edit the author's draft page (authors have no page caps)", 'edit_page', [21], AE],
  ['edit the privacy policy page (needs manage_options too)', 'edit_page', [30], A],
  ['delete the front page (manage_options)', 'delete_page', [29], A],
  ["delete the editor's published page", 'delete_page', [20], AE],
  // Posts: delete
  ["delete the author's draft", 'delete_post', [10], AEAu],
  ["delete the author's published post", 'delete_post', [11], AEAu],
  ["delete the contributor's draft", 'delete_post', [14], ['administrator', 'editor', 'contributor']],
  ["delete the contributor's published post", 'delete_post', [15], AE],
  ["delete the editor's private post", 'delete_post', [13], AE],
  ["delete the author's trashed, was published", 'delete_post', [17], AEAu],
  ["delete the contributor's trashed, was published", 'delete_post', [34], AE],
  ['delete a revision', 'delete_post', [22], NOBODY],
  ['delete a post that does not exist', 'delete_post', [999], NOBODY],
  // Posts: read
  ['read a published post', 'read_post', [11], LOGGED_IN],
  ['read a published page', 'read_page', [20], LOGGED_IN],
  ["read the editor's private post", 'read_post', [13], AE],
  ["read the author's draft", 'read_post', [10], AEAu],
  ["read the author's scheduled post (protected status)", 'read_post', [19], AEAu],
  ["read the editor's draft", 'read_post', [33], AE],
  ['read a revision of a published post', 'read_post', [22], LOGGED_IN],
  ['read a revision of a private post', 'read_post', [23], AE],
  ['read an attachment of a private post', 'read_post', [24], AE],
  ['read an unattached attachment', 'read_post', [25], LOGGED_IN],
  ['read an attachment of a trashed (was published) post', 'read_post', [26], LOGGED_IN],
  ["read an attachment of the author's draft", 'read_post', [36], AEAu],
  ['read a post that does not exist', 'read_post', [999], NOBODY],
  // Posts: publish
  ['publish a post', 'publish_post', [14], AEAu],
  ['publish a page', 'publish_post', [21], AE],
  ['publish a post that does not exist', 'publish_post', [999], NOBODY],
  // Custom post type with map_meta_cap: its caps (edit_books, ...) are held by no default role
  ['edit a book', 'edit_post', [32], NOBODY],
  ['edit_book (post type meta cap)', 'edit_book', [32], NOBODY],
  // Post type collection caps
  ['create posts (post type create_posts: edit_posts)', REGISTRY.postType('post')!.cap.create_posts, [], AEAuC],
  ['create pages (edit_pages)', REGISTRY.postType('page')!.cap.create_posts, [], AE],
  ['create attachments (upload_files)', REGISTRY.postType('attachment')!.cap.create_posts, [], AEAu],
  ['edit_others_posts', 'edit_others_posts', [], AE],
  ['read_private_posts', 'read_private_posts', [], AE],
];

describeRoleTable(TABLE);

const MAPPINGS: MappingRow[] = [
  ['own draft', author, 'edit_post', [10], ['edit_posts']],
  ['own published post', author, 'edit_post', [11], ['edit_published_posts']],
  ['own scheduled post', author, 'edit_post', [19], ['edit_published_posts']],
  ["others' published post", author, 'edit_post', [12], ['edit_others_posts', 'edit_published_posts']],
  ["others' private post", author, 'edit_post', [13], ['edit_others_posts', 'edit_private_posts']],
  ["others' draft", author, 'edit_post', [33], ['edit_others_posts']],
  ['own trashed post, was published', author, 'edit_post', [17], ['edit_published_posts']],
  ['own trashed post, was a draft', author, 'edit_post', [18], ['edit_posts']],
  ['own trashed post, was published (delete)', author, 'delete_post', [17], ['delete_published_posts']],
  ['own trashed post, was a draft (delete)', author, 'delete_post', [18], ['delete_posts']],
  ["others' published page", author, 'edit_page', [20], ['edit_others_pages', 'edit_published_pages']],
  ["others' private post (delete)", author, 'delete_post', [13], ['delete_others_posts', 'delete_private_posts']],
  ['the front page (delete)', admin, 'delete_post', [29], ['manage_options']],
  [
    'the privacy policy page',
    admin,
    'edit_post',
    [30],
    ['edit_others_pages', 'edit_published_pages', 'manage_options'],
  ],
  [
    'the privacy policy page (delete)',
    admin,
    'delete_post',
    [30],
    ['delete_others_pages', 'delete_published_pages', 'manage_options'],
  ],
  ['a revision maps to its parent', author, 'edit_post', [22], ['edit_published_posts']],
  ['a revision cannot be deleted', admin, 'delete_post', [22], ['do_not_allow']],
  ['unregistered post type', author, 'edit_post', [27], ['edit_others_posts']],
  ['missing post', author, 'edit_post', [999], ['do_not_allow']],
  ['published post (read)', author, 'read_post', [12], ['read']],
  ["others' private post (read)", author, 'read_post', [13], ['read_private_posts']],
  ['own draft (read)', author, 'read_post', [10], ['read']],
  ["others' draft (read → edit_post)", author, 'read_post', [33], ['edit_others_posts']],
  ['attachment of a private post (read)', author, 'read_post', [24], ['read_private_posts']],
  ['attachment of a private post (edit: its own status)', author, 'edit_post', [24], ['edit_others_posts']],
  ['publish a page', author, 'publish_post', [21], ['publish_pages']],
  ['custom type meta cap', author, 'edit_book', [32], ['edit_books']],
  ['custom type edit_post', author, 'edit_post', [32], ['edit_books']],
  ['custom type read_post of own draft', author, 'read_post', [32], ['read']],
  ['block caps', author, 'edit_others_blocks', [], ['edit_others_posts']],
];

describeMappings(MAPPINGS, () => {
  it('a user granted the custom type caps can edit books', async () => {
    const librarian = userWithRole(3, 'author', { edit_books: true, read: true });
    expect(await can(librarian, 'edit_post', 32)).toBe(true);
    expect(await can(librarian, 'edit_book', 32)).toBe(true);
  });
});

describe('mapMetaCap: lookups', () => {
  it('uses loaded rows as they are and resolves ids through the lookups', async () => {
    const { lookups, calls } = memoryLookups({
      // Nothing is stored under id 500: only the object can answer.
    });
    const row = post(500, AUTHOR, 'publish');
    expect(await mapMetaCap('edit_post', USERS.author, [row], lookups)).toEqual(['edit_published_posts']);
    expect(calls.post).toBe(1); // the lookup was handed the object (and returned it)
    expect(await mapMetaCap('edit_post', USERS.author, [500], lookups)).toEqual(['do_not_allow']);
  });

  it('reads the pre-trash status from post meta only for trashed posts', async () => {
    const { lookups, calls } = memoryLookups();
    await mapMetaCap('edit_post', USERS.author, [11], lookups);
    expect(calls.postMeta).toBe(0);
    await mapMetaCap('edit_post', USERS.author, [17], lookups);
    expect(calls.postMeta).toBe(1);
  });

  it('resolves attachment statuses like get_post_status()', async () => {
    const { lookups } = memoryLookups();
    expect(
      await getPostStatus(
        POSTS.find((p) => p.id === 24)!,
        lookups,
      ),
    ).toBe('private');
    expect(
      await getPostStatus(
        POSTS.find((p) => p.id === 25)!,
        lookups,
      ),
    ).toBe('publish');
    expect(
      await getPostStatus(
        POSTS.find((p) => p.id === 26)!,
        lookups,
      ),
    ).toBe('publish');
    expect(await getPostStatus(post(600, 1, 'draft', 'attachment'), lookups)).toBe('publish');
    expect(await getPostStatus(post(601, 1, 'private', 'attachment'), lookups)).toBe('private');
    expect(await getPostStatus(post(602, 1, 'inherit', 'attachment', 602), lookups)).toBe('publish');
    expect(await getPostStatus(post(603, 1, 'draft'), lookups)).toBe('draft');
  });
});
