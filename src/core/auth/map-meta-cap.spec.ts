import { DEFAULT_ROLES } from '../database/site-install';
import { ContentRegistry } from '../registry/content-registry.service';
import { CurrentUser } from './current-user';
import {
  CommentLike,
  getPostStatus,
  isProtectedMeta,
  mapMetaCap,
  MetaCapLookups,
  PostLike,
  TermLike,
  userHasAllCaps,
} from './map-meta-cap';

// ---------------------------------------------------------------------------------------------------------------------
// Fixtures
// ---------------------------------------------------------------------------------------------------------------------

type Role = 'administrator' | 'editor' | 'author' | 'contributor' | 'subscriber' | 'anonymous';
const ROLES: Role[] = ['administrator', 'editor', 'author', 'contributor', 'subscriber', 'anonymous'];

/** A user holding exactly what `populate_roles()` gives the role (plus the role name, as WordPress does). */
function userWithRole(id: number, role: string, extra: Record<string, boolean> = {}): CurrentUser {
  const caps = { ...DEFAULT_ROLES[role].capabilities, [role]: true, ...extra };
  return new CurrentUser(id, role, [role], caps);
}

const USERS: Record<Role, CurrentUser> = {
  administrator: userWithRole(1, 'administrator'),
  editor: userWithRole(2, 'editor'),
  author: userWithRole(3, 'author'),
  contributor: userWithRole(4, 'contributor'),
  subscriber: userWithRole(5, 'subscriber'),
  anonymous: CurrentUser.anonymous(),
};
const [ADMIN, EDITOR, AUTHOR, CONTRIBUTOR, SUBSCRIBER] = [1, 2, 3, 4, 5];

const post = (id: number, author: number, status: string, type = 'post', parent = 0): PostLike => ({
  id,
  author,
  status,
  type,
  parent,
});

const POSTS: PostLike[] = [
  post(10, AUTHOR, 'draft'),
  post(11, AUTHOR, 'publish'),
  post(12, EDITOR, 'publish'),
  post(13, EDITOR, 'private'),
  post(14, CONTRIBUTOR, 'draft'),
  post(15, CONTRIBUTOR, 'publish'),
  post(16, AUTHOR, 'pending'),
  post(17, AUTHOR, 'trash'), // was published
  post(18, AUTHOR, 'trash'), // was a draft
  post(19, AUTHOR, 'future'),
  post(20, EDITOR, 'publish', 'page'),
  post(21, AUTHOR, 'draft', 'page'),
  post(22, AUTHOR, 'inherit', 'revision', 11),
  post(23, EDITOR, 'inherit', 'revision', 13),
  post(24, EDITOR, 'inherit', 'attachment', 13), // attached to a private post
  post(25, EDITOR, 'inherit', 'attachment', 0), // unattached
  post(26, EDITOR, 'inherit', 'attachment', 17), // attached to a trashed (was published) post
  post(27, AUTHOR, 'publish', 'ghost'), // unregistered post type
  post(29, EDITOR, 'publish', 'page'), // page_on_front
  post(30, EDITOR, 'publish', 'page'), // privacy policy page
  post(31, AUTHOR, 'inherit', 'revision', 999), // orphaned revision
  post(32, AUTHOR, 'draft', 'book'),
  post(33, EDITOR, 'draft'),
  post(34, CONTRIBUTOR, 'trash'), // was published
  post(35, CONTRIBUTOR, 'trash'), // was a draft
  post(36, AUTHOR, 'inherit', 'attachment', 10), // attached to the author's draft
];

const POST_META: Record<string, unknown> = {
  '17:_wp_trash_meta_status': 'publish',
  '18:_wp_trash_meta_status': 'draft',
  '34:_wp_trash_meta_status': 'publish',
  '35:_wp_trash_meta_status': 'draft',
};

const COMMENTS: CommentLike[] = [
  { id: 100, postId: 11, userId: SUBSCRIBER },
  { id: 101, postId: 999, userId: SUBSCRIBER }, // orphaned
];

const TERMS: TermLike[] = [
  { termId: 1, taxonomy: 'category' }, // default category
  { termId: 2, taxonomy: 'post_tag' },
  { termId: 3, taxonomy: 'category' },
  { termId: 4, taxonomy: 'nav_menu' },
  { termId: 5, taxonomy: 'ghost_tax' }, // unregistered taxonomy
  { termId: 6, taxonomy: 'genre' }, // custom taxonomy with default term
];

const OPTIONS: Record<string, unknown> = {
  default_category: '1',
  default_term_genre: 6,
  page_on_front: '29',
  page_for_posts: '0',
  wp_page_for_privacy_policy: '30',
  link_manager_enabled: '0',
};

function registry(): ContentRegistry {
  const reg = new ContentRegistry();
  reg.registerPostType('book', { public: true, capability_type: 'book', map_meta_cap: true });
  reg.registerTaxonomy('genre', ['book'], { default_term: 'Fiction' });
  reg.freeze();
  return reg;
}
const REGISTRY = registry();

/** In-memory lookups; `calls` counts every lookup by kind. */
function memoryLookups(overrides: Partial<MetaCapLookups> = {}) {
  const calls: Record<string, number> = { post: 0, comment: 0, user: 0, termTaxonomy: 0, option: 0, postMeta: 0 };
  const lookups: MetaCapLookups = {
    registry: REGISTRY,
    async post(ref) {
      calls.post++;
      return typeof ref === 'object' ? ref : (POSTS.find((p) => p.id === ref) ?? null);
    },
    async comment(ref) {
      calls.comment++;
      return typeof ref === 'object' ? ref : (COMMENTS.find((c) => c.id === ref) ?? null);
    },
    async user(ref) {
      calls.user++;
      const id = typeof ref === 'object' ? ref.id : ref;
      return id >= 1 && id <= 5 ? { id } : null;
    },
    async termTaxonomy(ref) {
      calls.termTaxonomy++;
      return typeof ref === 'object' ? ref : (TERMS.find((t) => t.termId === ref) ?? null);
    },
    async option(name) {
      calls.option++;
      return OPTIONS[name];
    },
    async postMeta(postId, key) {
      calls.postMeta++;
      return POST_META[`${postId}:${key}`] ?? '';
    },
    ...overrides,
  };
  return { lookups, calls };
}

async function can(user: CurrentUser, cap: string, ...args: unknown[]): Promise<boolean> {
  return userHasAllCaps(user, await mapMetaCap(cap, user, args, memoryLookups().lookups));
}

async function caps(user: CurrentUser, cap: string, ...args: unknown[]): Promise<string[]> {
  return mapMetaCap(cap, user, args, memoryLookups().lookups);
}

// ---------------------------------------------------------------------------------------------------------------------
// Role table: each row is [capability, args, the roles that have it]
// ---------------------------------------------------------------------------------------------------------------------

const A: Role[] = ['administrator'];
const AE: Role[] = ['administrator', 'editor'];
const AEAu: Role[] = ['administrator', 'editor', 'author'];
const AEAuC: Role[] = ['administrator', 'editor', 'author', 'contributor'];
const LOGGED_IN: Role[] = ['administrator', 'editor', 'author', 'contributor', 'subscriber'];
const NOBODY: Role[] = [];

type Row = [title: string, cap: string, args: unknown[], allowed: Role[]];

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
  // Comments
  ['edit a comment on the author’s published post', 'edit_comment', [100], AEAu],
  ['edit an orphaned comment (edit_posts)', 'edit_comment', [101], AEAuC],
  ['edit a comment that does not exist', 'edit_comment', [999], NOBODY],
  ['edit comment meta', 'edit_comment_meta', [100, 'rating'], AEAu],
  ['edit protected comment meta', 'edit_comment_meta', [100, '_rating'], NOBODY],
  ['moderate comments', 'moderate_comments', [], AE],
  // Users
  ['edit the subscriber (self-edit allowed)', 'edit_user', [SUBSCRIBER], ['administrator', 'subscriber']],
  ['edit the author (self-edit allowed)', 'edit_user', [AUTHOR], ['administrator', 'author']],
  ['edit_users', 'edit_users', [], A],
  ['edit user meta of oneself', 'edit_user_meta', [SUBSCRIBER, 'description'], ['administrator', 'subscriber']],
  ['edit user meta of a user that does not exist', 'edit_user_meta', [999, 'description'], NOBODY],
  ['delete a user', 'delete_user', [SUBSCRIBER], A],
  ['delete_users', 'delete_users', [], A],
  ['promote a user', 'promote_user', [SUBSCRIBER], A],
  ['promote_users', 'promote_users', [], A],
  ['add_users', 'add_users', [], A],
  ['remove the subscriber', 'remove_user', [SUBSCRIBER], A],
  ['list_users', 'list_users', [], A],
  ['create_users', 'create_users', [], A],
  ['application passwords of the subscriber', 'create_app_password', [SUBSCRIBER], ['administrator', 'subscriber']],
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
  ['edit term meta', 'edit_term_meta', [3, 'color'], AE],
  ['edit protected term meta', 'edit_term_meta', [3, '_color'], NOBODY],
  ['manage_post_tags', 'manage_post_tags', [], AE],
  ['edit_categories', 'edit_categories', [], AE],
  ['edit_post_tags', 'edit_post_tags', [], AE],
  ['delete_categories', 'delete_categories', [], AE],
  ['delete_post_tags', 'delete_post_tags', [], AE],
  ['manage_categories', 'manage_categories', [], AE],
  ['assign_categories', 'assign_categories', [], AEAuC],
  ['assign_post_tags', 'assign_post_tags', [], AEAuC],
  // Post type collection caps
  ['create posts (post type create_posts: edit_posts)', REGISTRY.postType('post')!.cap.create_posts, [], AEAuC],
  ['create pages (edit_pages)', REGISTRY.postType('page')!.cap.create_posts, [], AE],
  ['create attachments (upload_files)', REGISTRY.postType('attachment')!.cap.create_posts, [], AEAu],
  ['edit_others_posts', 'edit_others_posts', [], AE],
  ['read_private_posts', 'read_private_posts', [], AE],
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

describe('mapMetaCap: who can do what, per default role', () => {
  const cases = TABLE.flatMap(([title, cap, args, allowed]) =>
    ROLES.map((role) => [title, role, cap, args, allowed.includes(role)] as const),
  );
  it.each(cases)('%s — %s', async (_title, role, cap, args, expected) => {
    expect(await can(USERS[role], cap, ...args)).toBe(expected);
  });
});

// ---------------------------------------------------------------------------------------------------------------------
// Exact mappings
// ---------------------------------------------------------------------------------------------------------------------

describe('mapMetaCap: the primitive capabilities it maps to', () => {
  const author = USERS.author;
  const admin = USERS.administrator;
  const rows: Array<[title: string, user: CurrentUser, cap: string, args: unknown[], expected: string[]]> = [
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
    ['public meta key', author, 'edit_post_meta', [11, 'color'], ['edit_published_posts']],
    ['protected meta key', author, 'edit_post_meta', [11, '_edit_lock'], ['edit_published_posts', 'do_not_allow']],
    ['comment', author, 'edit_comment', [100], ['edit_published_posts']],
    ['orphaned comment', author, 'edit_comment', [101], ['edit_posts']],
    ['self edit', author, 'edit_user', [AUTHOR], []],
    ['edit another user', author, 'edit_user', [SUBSCRIBER], ['edit_users']],
    ['remove oneself without delete_users', author, 'remove_user', [AUTHOR], ['do_not_allow']],
    ['remove oneself with delete_users', admin, 'remove_user', [ADMIN], ['remove_users']],
    ['promote', author, 'promote_user', [SUBSCRIBER], ['promote_users']],
    ['category', author, 'edit_term', [3], ['manage_categories']],
    ['assign a tag', author, 'assign_term', [2], ['edit_posts']],
    ['default category', admin, 'delete_term', [1], ['do_not_allow']],
    ['manage_post_tags', author, 'manage_post_tags', [], ['manage_categories']],
    ['update_https', admin, 'update_https', [], ['manage_options', 'update_core']],
    ['block caps', author, 'edit_others_blocks', [], ['edit_others_posts']],
    ['primitive', author, 'upload_files', [], ['upload_files']],
  ];
  it.each(rows)('%s', async (_title, user, cap, args, expected) => {
    expect(await caps(user, cap, ...args)).toEqual(expected);
  });

  it('anonymous users map like anyone else and hold nothing', async () => {
    const anonymous = USERS.anonymous;
    expect(await caps(anonymous, 'read_post', 11)).toEqual(['read']);
    expect(await caps(anonymous, 'edit_user', 0)).toEqual(['edit_users']);
    expect(await can(anonymous, 'exist')).toBe(true);
  });

  it('a user granted the custom type caps can edit books', async () => {
    const librarian = userWithRole(3, 'author', { edit_books: true, read: true });
    expect(await can(librarian, 'edit_post', 32)).toBe(true);
    expect(await can(librarian, 'edit_book', 32)).toBe(true);
  });
});

// ---------------------------------------------------------------------------------------------------------------------
// Lookups
// ---------------------------------------------------------------------------------------------------------------------

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

  it('lets an override replace any mapping, including recursive ones', async () => {
    const { lookups } = memoryLookups({
      override: (cap) => (cap === 'edit_post' ? ['edit_anything'] : undefined),
    });
    expect(await mapMetaCap('edit_post', USERS.author, [11], lookups)).toEqual(['edit_anything']);
    // read_post of someone else's draft maps through edit_post.
    expect(await mapMetaCap('read_post', USERS.author, [33], lookups)).toEqual(['edit_anything']);
    expect(await mapMetaCap('read_post', USERS.author, [11], lookups)).toEqual(['read']);
  });

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
