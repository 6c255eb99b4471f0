/**
 * Shared set-up of the `mapMetaCap` specs (`map-meta-cap.spec.ts`, `meta-caps-*.spec.ts`): the default roles' users,
 * posts, comments, terms and options in memory, the lookups over them, and the runners of the two tables every topic
 * has: who can do what, per default role, and the primitive capabilities a capability maps to.
 */
import { DEFAULT_ROLES } from '../database/site-install';
import { ContentRegistry } from '../registry/content-registry.service';
import { CurrentUser } from './current-user';
import { mapMetaCap, userHasAllCaps } from './map-meta-cap';
import { CommentLike, MetaCapLookups, PostLike, TermLike } from './meta-cap-lookups';

// ---------------------------------------------------------------------------------------------------------------------
// Fixtures
// ---------------------------------------------------------------------------------------------------------------------

export type Role = 'administrator' | 'editor' | 'author' | 'contributor' | 'subscriber' | 'anonymous';
export const ROLES: Role[] = ['administrator', 'editor', 'author', 'contributor', 'subscriber', 'anonymous'];

/** A user holding exactly what `populate_roles()` gives the role (plus the role name, as WordPress does). */
export function userWithRole(id: number, role: string, extra: Record<string, boolean> = {}): CurrentUser {
  const caps = { ...DEFAULT_ROLES[role].capabilities, [role]: true, ...extra };
  return new CurrentUser(id, role, [role], caps);
}

export const USERS: Record<Role, CurrentUser> = {
  administrator: userWithRole(1, 'administrator'),
  editor: userWithRole(2, 'editor'),
  author: userWithRole(3, 'author'),
  contributor: userWithRole(4, 'contributor'),
  subscriber: userWithRole(5, 'subscriber'),
  anonymous: CurrentUser.anonymous(),
};
export const [ADMIN, EDITOR, AUTHOR, CONTRIBUTOR, SUBSCRIBER] = [1, 2, 3, 4, 5];

export const post = (id: number, author: number, status: string, type = 'post', parent = 0): PostLike => ({
  id,
  author,
  status,
  type,
  parent,
});

export const POSTS: PostLike[] = [
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

export const POST_META: Record<string, unknown> = {
  '17:_wp_trash_meta_status': 'publish',
  '18:_wp_trash_meta_status': 'draft',
  '34:_wp_trash_meta_status': 'publish',
  '35:_wp_trash_meta_status': 'draft',
};

export const COMMENTS: CommentLike[] = [
  { id: 100, postId: 11, userId: SUBSCRIBER },
  { id: 101, postId: 999, userId: SUBSCRIBER }, // orphaned
];

export const TERMS: TermLike[] = [
  { termId: 1, taxonomy: 'category' }, // default category
  { termId: 2, taxonomy: 'post_tag' },
  { termId: 3, taxonomy: 'category' },
  { termId: 4, taxonomy: 'nav_menu' },
  { termId: 5, taxonomy: 'ghost_tax' }, // unregistered taxonomy
  { termId: 6, taxonomy: 'genre' }, // custom taxonomy with default term
];

export const OPTIONS: Record<string, unknown> = {
  default_category: '1',
  default_term_genre: 6,
  page_on_front: '29',
  page_for_posts: '0',
  wp_page_for_privacy_policy: '30',
  link_manager_enabled: '0',
};

export function registry(): ContentRegistry {
  const reg = new ContentRegistry();
  reg.registerPostType('book', { public: true, capability_type: 'book', map_meta_cap: true });
  reg.registerTaxonomy('genre', ['book'], { default_term: 'Fiction' });
  reg.freeze();
  return reg;
}
export const REGISTRY = registry();

/** In-memory lookups; `calls` counts every lookup by kind. */
export function memoryLookups(overrides: Partial<MetaCapLookups> = {}) {
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

export async function can(user: CurrentUser, cap: string, ...args: unknown[]): Promise<boolean> {
  return userHasAllCaps(user, await mapMetaCap(cap, user, args, memoryLookups().lookups));
}

export async function caps(user: CurrentUser, cap: string, ...args: unknown[]): Promise<string[]> {
  return mapMetaCap(cap, user, args, memoryLookups().lookups);
}

// ---------------------------------------------------------------------------------------------------------------------
// Role table: each row is [capability, args, the roles that have it]
// ---------------------------------------------------------------------------------------------------------------------

export const A: Role[] = ['administrator'];
export const AE: Role[] = ['administrator', 'editor'];
export const AEAu: Role[] = ['administrator', 'editor', 'author'];
export const AEAuC: Role[] = ['administrator', 'editor', 'author', 'contributor'];
export const LOGGED_IN: Role[] = ['administrator', 'editor', 'author', 'contributor', 'subscriber'];
export const NOBODY: Role[] = [];

export type Row = [title: string, cap: string, args: unknown[], allowed: Role[]];

/** The role table's tests: each row's answer for each default role. */
export function describeRoleTable(table: Row[]): void {
  describe('mapMetaCap: who can do what, per default role', () => {
    const cases = table.flatMap(([title, cap, args, allowed]) =>
      ROLES.map((role) => [title, role, cap, args, allowed.includes(role)] as const),
    );
    it.each(cases)('%s — %s', async (_title, role, cap, args, expected) => {
      expect(await can(USERS[role], cap, ...args)).toBe(expected);
    });
  });
}

/** The users of the exact mappings. */
export const { author, administrator: admin } = USERS;

/** An exact mapping: [title, user, capability, args, the primitive capabilities]. */
export type MappingRow = [title: string, user: CurrentUser, cap: string, args: unknown[], expected: string[]];

/** The exact mappings' tests, and the topic's further tests of them (`more`). */
export function describeMappings(rows: MappingRow[], more?: () => void): void {
  describe('mapMetaCap: the primitive capabilities it maps to', () => {
    it.each(rows)('%s', async (_title, user, cap, args, expected) => {
      expect(await caps(user, cap, ...args)).toEqual(expected);
    });
    more?.();
  });
}
