/**
 * Port of WordPress 6.1's `map_meta_cap()` (wp-includes/capabilities.php) for a single site: turns a capability
 * (meta or primitive) and its arguments into the primitive capabilities a user must hold, plus the
 * `WP_User::has_cap()` check that follows it ({@link userHasAllCaps}).
 *
 * Framework-free: every read goes through {@link MetaCapLookups}, whose methods take either an id or an
 * already-loaded row (so callers that hold rows cause no queries).
 *
 * Differences from WordPress, all deliberate:
 * - single site only: `is_multisite()` is false everywhere; `is_super_admin()` is the single-site rule
 *   ("holds `delete_users`"), which only matters for `remove_user` on oneself;
 * - the file editors (`edit_files`, `edit_plugins`, `edit_themes`) are always `do_not_allow`, as with
 *   `DISALLOW_FILE_EDIT`; `DISALLOW_UNFILTERED_HTML` and `ALLOW_UNFILTERED_UPLOADS` are not set;
 * - `edit_user` on oneself needs a logged-in user (WordPress also lets the anonymous user 0 "edit" user 0);
 * - there are no filters: the `map_meta_cap` filter is replaced by {@link MetaCapLookups.override} (consulted
 *   first, for every capability, including the ones mapped recursively) and the `auth_{type}_meta_{key}`
 *   filters by {@link MetaCapLookups.authMeta}; protected (`_`-prefixed) meta keys map to `do_not_allow`
 *   (WordPress requires the meta capability itself, which no role holds);
 * - no `_doing_it_wrong()` notices: a missing object argument simply maps to `do_not_allow`.
 */
import type { PostStatusObject, PostTypeObject, TaxonomyObject } from '../registry/content-types';

/** The capability nobody has. */
export const DO_NOT_ALLOW = 'do_not_allow';

/** A post row, as much of it as the mapping needs (a `PostEntity` fits). */
export interface PostLike {
  id: number;
  author: number | string;
  status: string;
  type: string;
  parent: number | string;
}

/** A comment row, as much of it as the mapping needs (a `CommentEntity` fits). */
export interface CommentLike {
  id: number;
  postId: number | string;
  userId?: number | string;
}

/** A user row (a `UserEntity` or a `CurrentUser` fits). */
export interface UserLike {
  id: number;
}

/** A term in its taxonomy (a `TermTaxonomyEntity` fits: `termId` is the term id, not the `term_taxonomy_id`). */
export interface TermLike {
  termId: number | string;
  taxonomy: string;
}

/** The user whose capabilities are mapped (a `CurrentUser` fits). */
export interface MetaCapUser {
  id: number;
  /** Primitive capability check (only used for the single-site `is_super_admin()`). */
  hasCap(cap: string): boolean;
}

/** What the mapping needs of the content registry (a `ContentRegistry` fits). */
export interface MetaCapRegistry {
  postType(name: string): PostTypeObject | undefined;
  status(name: string): PostStatusObject | undefined;
  taxonomy(name: string): TaxonomyObject | undefined;
  allPostTypes(): PostTypeObject[];
}

/** Arguments of {@link MetaCapLookups.authMeta}, like those of WordPress's `auth_{$object_type}_meta_{$meta_key}`. */
export interface MetaAuthRequest {
  /** `post`, `comment`, `term` or `user`. */
  objectType: 'post' | 'comment' | 'term' | 'user';
  /** Post type, taxonomy, `comment` or `user`. */
  objectSubtype: string;
  metaKey: string;
  objectId: number;
  userId: number;
  /** The capability checked (`edit_post_meta`, ...). */
  cap: string;
  /** The primitive capabilities mapped so far (those of `edit_{objectType}`). */
  caps: readonly string[];
  /** `false` for protected (`_`-prefixed) keys, `true` otherwise. */
  allowed: boolean;
}

/**
 * Data access of {@link mapMetaCap}. Each object method takes an id or an already-loaded object and resolves
 * to the object, or `null` when it does not exist; implementations should return given objects as they are.
 */
export interface MetaCapLookups {
  registry: MetaCapRegistry;
  post(ref: number | PostLike): Promise<PostLike | null>;
  comment(ref: number | CommentLike): Promise<CommentLike | null>;
  user(ref: number | UserLike): Promise<UserLike | null>;
  /** The term (by term id) and its taxonomy. */
  termTaxonomy(ref: number | TermLike): Promise<TermLike | null>;
  /** An option's (unserialized) value; `undefined` when it does not exist. */
  option(name: string): Promise<unknown>;
  /** The first value of a post meta key (unserialized); `undefined`/`''` when there is none. */
  postMeta(postId: number, key: string): Promise<unknown>;
  /**
   * Replaces the mapping of a capability (for extensions): consulted first for every capability mapped,
   * including those mapped recursively; `undefined` means "no override".
   */
  override?(
    cap: string,
    user: MetaCapUser,
    args: readonly unknown[],
  ): Promise<string[] | undefined> | string[] | undefined;
  /** Decides whether a meta key may be written (WordPress's `auth_*_meta_*` filters); resolves to `allowed` by default. */
  authMeta?(request: MetaAuthRequest): Promise<boolean> | boolean;
}

// ---------------------------------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------------------------------

/** PHP `isset($args[0])`. */
function isset(value: unknown): boolean {
  return value !== undefined && value !== null;
}

/** A positive integer id from a number or numeric string; `null` otherwise. */
function toId(value: unknown): number | null {
  if (typeof value === 'number') return Number.isInteger(value) && value > 0 ? value : null;
  if (typeof value === 'string' && /^\s*\d+\s*$/.test(value)) {
    const n = Number(value);
    return n > 0 ? n : null;
  }
  return null;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** An id or a loaded object, for the lookups; `null` when the argument is neither. */
function ref<T>(value: unknown, isRow: (v: Record<string, unknown>) => boolean): number | T | null {
  if (isObject(value)) return isRow(value) ? (value as T) : toId(value.id);
  return toId(value);
}

const isPostRow = (v: Record<string, unknown>) => 'type' in v && 'status' in v && 'author' in v && 'id' in v;
const isCommentRow = (v: Record<string, unknown>) => 'postId' in v && 'id' in v;
const isUserRow = (v: Record<string, unknown>) => 'id' in v;
const isTermRow = (v: Record<string, unknown>) => 'termId' in v && 'taxonomy' in v;

async function getPost(lookups: MetaCapLookups, value: unknown): Promise<PostLike | null> {
  const r = ref<PostLike>(value, isPostRow);
  return r === null ? null : lookups.post(r);
}

async function getComment(lookups: MetaCapLookups, value: unknown): Promise<CommentLike | null> {
  const r = ref<CommentLike>(value, isCommentRow);
  return r === null ? null : lookups.comment(r);
}

async function getUser(lookups: MetaCapLookups, value: unknown): Promise<UserLike | null> {
  const r = ref<UserLike>(value, isUserRow);
  return r === null ? null : lookups.user(r);
}

async function getTerm(lookups: MetaCapLookups, value: unknown): Promise<TermLike | null> {
  // A term object without `termId` (e.g. a `TermEntity`) carries the term id as `id`.
  const r = ref<TermLike>(value, isTermRow);
  return r === null ? null : lookups.termTaxonomy(r);
}

/** The id a user argument stands for (a user object or an id). */
function idOf(value: unknown): number | null {
  return isObject(value) ? toId(value.id) : toId(value);
}

/** PHP 8 loose `$option == $id` for a positive integer id. */
function looseEqualsId(option: unknown, id: number): boolean {
  if (typeof option === 'number') return option === id;
  if (typeof option === 'string') {
    const trimmed = option.trim();
    return trimmed !== '' && !Number.isNaN(Number(trimmed)) ? Number(trimmed) === id : option === String(id);
  }
  if (typeof option === 'boolean') return option === (id !== 0);
  return false;
}

/** PHP `(int)` of an option value. */
function phpInt(value: unknown): number {
  if (typeof value === 'number') return Math.trunc(value);
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'string') {
    const m = /^\s*[+-]?\d+/.exec(value);
    return m ? parseInt(m[0], 10) : 0;
  }
  return 0;
}

/** PHP truthiness of an option value. */
function phpTruthy(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0;
  return !(value === undefined || value === null || value === false || value === 0 || value === '' || value === '0');
}

/** Port of `is_protected_meta()` (without its filter). */
export function isProtectedMeta(metaKey: string): boolean {
  const sanitized = metaKey.replace(/[^\x20-\x7E\p{L}]/gu, '');
  return sanitized.length > 0 && sanitized[0] === '_';
}

/**
 * Port of `get_post_status()`: an attachment with status `inherit` takes its parent's status (the parent's
 * pre-trash status when the parent is trashed; `publish` when unattached); other attachments are `publish`
 * unless private, trashed or auto-drafts.
 */
export async function getPostStatus(post: PostLike, lookups: MetaCapLookups, depth = 0): Promise<string> {
  let status = post.status;
  if (post.type === 'attachment' && status === 'inherit') {
    const parentId = toId(post.parent);
    const parent = parentId === null || parentId === post.id || depth > 8 ? null : await lookups.post(parentId);
    if (!parent) {
      status = 'publish';
    } else if ((await getPostStatus(parent, lookups, depth + 1)) === 'trash') {
      const before = await lookups.postMeta(parent.id, '_wp_trash_meta_status');
      status = typeof before === 'string' && before !== '' ? before : 'publish';
    } else {
      status = await getPostStatus(parent, lookups, depth + 1);
    }
  } else if (post.type === 'attachment' && !['private', 'trash', 'auto-draft'].includes(status)) {
    status = 'publish';
  }
  return status;
}

/** `$post->post_author && $user_id == $post->post_author`. */
function isAuthor(post: PostLike, user: MetaCapUser): boolean {
  const author = Number(post.author);
  return author > 0 && author === user.id;
}

/** `$post_type->cap->$name`, or `do_not_allow` when the post type does not define it (PHP's `null`). */
function typeCap(postType: PostTypeObject, name: string): string {
  return postType.cap[name] ?? DO_NOT_ALLOW;
}

/**
 * The capabilities `edit_post` / `delete_post` need by ownership and status (shared by both, as in the reference):
 * the author needs `<verb>_posts`, or `<verb>_published_posts` once published (a trashed post counts with the
 * status it had before trash); others need `<verb>_others_posts` plus the published or private variant.
 */
async function ownershipCaps(
  verb: 'edit' | 'delete',
  post: PostLike,
  postType: PostTypeObject,
  user: MetaCapUser,
  lookups: MetaCapLookups,
): Promise<string[]> {
  if (isAuthor(post, user)) {
    let status = post.status;
    if (status === 'trash') status = String(await lookups.postMeta(post.id, '_wp_trash_meta_status'));
    return [typeCap(postType, PUBLISHED.includes(status) ? `${verb}_published_posts` : `${verb}_posts`)];
  }
  const caps = [typeCap(postType, `${verb}_others_posts`)];
  if (PUBLISHED.includes(post.status)) caps.push(typeCap(postType, `${verb}_published_posts`));
  else if (post.status === 'private') caps.push(typeCap(postType, `${verb}_private_posts`));
  return caps;
}

/** The privacy policy page also needs `manage_privacy_options`. */
async function privacyPageCaps(
  post: PostLike,
  lookups: MetaCapLookups,
  recurse: (cap: string, args: readonly unknown[]) => Promise<string[]>,
): Promise<string[]> {
  // A post not stored yet (id 0, e.g. checked before it is created) is never the privacy page.
  return post.id > 0 && phpInt(await lookups.option('wp_page_for_privacy_policy')) === post.id
    ? recurse('manage_privacy_options', [])
    : [];
}

const META_CAPS = new WeakMap<MetaCapRegistry, { types: number; map: Map<string, string> }>();

/** {@link buildPostTypeMetaCaps}, worked out again only when post types were added. */
function postTypeMetaCaps(registry: MetaCapRegistry): Map<string, string> {
  const types = registry.allPostTypes().length;
  const cached = META_CAPS.get(registry);
  if (cached && cached.types === types) return cached.map;
  const map = buildPostTypeMetaCaps(registry);
  META_CAPS.set(registry, { types, map });
  return map;
}

/** `$post_type_meta_caps`: the meta capabilities of post types registered with `map_meta_cap`. */
function buildPostTypeMetaCaps(registry: MetaCapRegistry): Map<string, string> {
  const map = new Map<string, string>();
  for (const type of registry.allPostTypes()) {
    if (!type.map_meta_cap) continue;
    for (const [core, custom] of Object.entries(type.cap)) {
      if (custom && (core === 'read_post' || core === 'delete_post' || core === 'edit_post')) map.set(custom, core);
    }
  }
  return map;
}

const BLOCK_CAPS = new Set([
  'edit_blocks',
  'edit_others_blocks',
  'publish_blocks',
  'read_private_blocks',
  'delete_blocks',
  'delete_private_blocks',
  'delete_published_blocks',
  'delete_others_blocks',
  'edit_private_blocks',
  'edit_published_blocks',
]);

const PUBLISHED = ['publish', 'future'];

// ---------------------------------------------------------------------------------------------------------------------
// map_meta_cap
// ---------------------------------------------------------------------------------------------------------------------

/**
 * The primitive capabilities `user` must hold for `cap` with `args` (WordPress 6.1's `map_meta_cap()`, single
 * site). `do_not_allow` in the result means "nobody"; `exist` is held by everyone (see {@link userHasAllCaps}).
 *
 * Object arguments (post, comment, user, term) may be ids or loaded rows.
 *
 * @example
 * await mapMetaCap('edit_post', user, [post], lookups); // ['edit_published_posts'] for the author of a published post
 */
export async function mapMetaCap(
  cap: string,
  user: MetaCapUser,
  args: readonly unknown[],
  lookups: MetaCapLookups,
): Promise<string[]> {
  return map(cap, user, args, lookups, 0);
}

async function map(
  cap: string,
  user: MetaCapUser,
  args: readonly unknown[],
  lookups: MetaCapLookups,
  depth: number,
): Promise<string[]> {
  if (depth > 16) return [DO_NOT_ALLOW];
  if (lookups.override) {
    const overridden = await lookups.override(cap, user, args);
    if (overridden) return [...overridden];
  }
  const recurse = (c: string, a: readonly unknown[]) => map(c, user, a, lookups, depth + 1);
  const { registry } = lookups;
  const caps: string[] = [];

  switch (cap) {
    case 'remove_user': {
      // is_super_admin() on a single site: the user holds delete_users.
      if (isset(args[0]) && user.id > 0 && idOf(args[0]) === user.id && !user.hasCap('delete_users')) {
        caps.push(DO_NOT_ALLOW);
      } else {
        caps.push('remove_users');
      }
      return caps;
    }
    case 'promote_user':
    case 'add_users':
      return ['promote_users'];

    case 'edit_user':
    case 'edit_users':
      // Users may edit themselves.
      if (cap === 'edit_user' && isset(args[0]) && user.id > 0 && idOf(args[0]) === user.id) return [];
      return ['edit_users'];

    case 'delete_post':
    case 'delete_page': {
      if (!isset(args[0])) return [DO_NOT_ALLOW];
      const post = await getPost(lookups, args[0]);
      if (!post) return [DO_NOT_ALLOW];
      if (post.type === 'revision') return [DO_NOT_ALLOW];
      if (
        looseEqualsId(await lookups.option('page_for_posts'), post.id) ||
        looseEqualsId(await lookups.option('page_on_front'), post.id)
      ) {
        return ['manage_options'];
      }
      const postType = registry.postType(post.type);
      if (!postType) return ['edit_others_posts'];
      if (!postType.map_meta_cap) return [typeCap(postType, cap)];

      return [
        ...(await ownershipCaps('delete', post, postType, user, lookups)),
        ...(await privacyPageCaps(post, lookups, recurse)),
      ];
    }

    case 'edit_post':
    case 'edit_page': {
      if (!isset(args[0])) return [DO_NOT_ALLOW];
      let post = await getPost(lookups, args[0]);
      if (!post) return [DO_NOT_ALLOW];
      if (post.type === 'revision') {
        post = await getPost(lookups, post.parent);
        if (!post) return [DO_NOT_ALLOW];
      }
      const postType = registry.postType(post.type);
      if (!postType) return ['edit_others_posts'];
      if (!postType.map_meta_cap) return [typeCap(postType, cap)];

      return [
        ...(await ownershipCaps('edit', post, postType, user, lookups)),
        ...(await privacyPageCaps(post, lookups, recurse)),
      ];
    }

    case 'read_post':
    case 'read_page': {
      if (!isset(args[0])) return [DO_NOT_ALLOW];
      let post = await getPost(lookups, args[0]);
      if (!post) return [DO_NOT_ALLOW];
      if (post.type === 'revision') {
        post = await getPost(lookups, post.parent);
        if (!post) return [DO_NOT_ALLOW];
      }
      const postType = registry.postType(post.type);
      if (!postType) return ['edit_others_posts'];
      if (!postType.map_meta_cap) return [typeCap(postType, cap)];

      const statusObject = registry.status(await getPostStatus(post, lookups));
      if (!statusObject) return ['edit_others_posts'];
      if (statusObject.public) return [typeCap(postType, 'read')];
      if (isAuthor(post, user)) return [typeCap(postType, 'read')];
      if (statusObject.private) return [typeCap(postType, 'read_private_posts')];
      return recurse('edit_post', [post]);
    }

    case 'publish_post': {
      if (!isset(args[0])) return [DO_NOT_ALLOW];
      const post = await getPost(lookups, args[0]);
      if (!post) return [DO_NOT_ALLOW];
      const postType = registry.postType(post.type);
      if (!postType) return ['edit_others_posts'];
      return [typeCap(postType, 'publish_posts')];
    }

    case 'edit_post_meta':
    case 'delete_post_meta':
    case 'add_post_meta':
    case 'edit_comment_meta':
    case 'delete_comment_meta':
    case 'add_comment_meta':
    case 'edit_term_meta':
    case 'delete_term_meta':
    case 'add_term_meta':
    case 'edit_user_meta':
    case 'delete_user_meta':
    case 'add_user_meta': {
      const objectType = cap.split('_')[1] as MetaAuthRequest['objectType'];
      if (!isset(args[0])) return [DO_NOT_ALLOW];

      // get_object_subtype(): the object must exist.
      let subtype = '';
      let object: unknown = null;
      let objectId: number | null = null;
      if (objectType === 'post') {
        const post = await getPost(lookups, args[0]);
        if (post) [subtype, object, objectId] = [post.type, post, post.id];
      } else if (objectType === 'comment') {
        const comment = await getComment(lookups, args[0]);
        if (comment) [subtype, object, objectId] = ['comment', comment, comment.id];
      } else if (objectType === 'term') {
        const term = await getTerm(lookups, args[0]);
        if (term) [subtype, object, objectId] = [term.taxonomy, term, Number(term.termId)];
      } else {
        const found = await getUser(lookups, args[0]);
        if (found) [subtype, object, objectId] = ['user', found, found.id];
      }
      if (!subtype || objectId === null) return [DO_NOT_ALLOW];

      const mapped = await recurse(`edit_${objectType}`, [object]);
      const metaKey = args[1];
      if (phpTruthy(metaKey)) {
        const key = String(metaKey);
        let allowed = !isProtectedMeta(key);
        if (lookups.authMeta) {
          allowed = await lookups.authMeta({
            objectType,
            objectSubtype: subtype,
            metaKey: key,
            objectId,
            userId: user.id,
            cap,
            caps: mapped,
            allowed,
          });
        }
        if (!allowed) mapped.push(DO_NOT_ALLOW);
      }
      return mapped;
    }

    case 'edit_comment': {
      if (!isset(args[0])) return [DO_NOT_ALLOW];
      const comment = await getComment(lookups, args[0]);
      if (!comment) return [DO_NOT_ALLOW];
      const post = await getPost(lookups, comment.postId);
      // An orphaned comment falls back to edit_posts.
      return post ? recurse('edit_post', [post]) : recurse('edit_posts', []);
    }

    case 'unfiltered_upload':
      // ALLOW_UNFILTERED_UPLOADS is not defined.
      return [DO_NOT_ALLOW];

    case 'edit_css':
    case 'unfiltered_html':
      // DISALLOW_UNFILTERED_HTML is not defined.
      return ['unfiltered_html'];

    case 'edit_files':
    case 'edit_plugins':
    case 'edit_themes':
      // As with DISALLOW_FILE_EDIT: the server's files are never edited through the API.
      return [DO_NOT_ALLOW];

    case 'update_plugins':
    case 'delete_plugins':
    case 'install_plugins':
    case 'upload_plugins':
    case 'update_themes':
    case 'delete_themes':
    case 'install_themes':
    case 'upload_themes':
    case 'update_core':
      if (cap === 'upload_themes') return ['install_themes'];
      if (cap === 'upload_plugins') return ['install_plugins'];
      return [cap];

    case 'install_languages':
    case 'update_languages':
      return ['install_languages'];

    case 'activate_plugins':
    case 'deactivate_plugins':
    case 'activate_plugin':
    case 'deactivate_plugin':
      return ['activate_plugins'];

    case 'resume_plugin':
      return ['resume_plugins'];
    case 'resume_theme':
      return ['resume_themes'];

    case 'delete_user':
    case 'delete_users':
      return ['delete_users'];

    case 'create_users':
      return [cap];

    case 'manage_links':
      return [phpTruthy(await lookups.option('link_manager_enabled')) ? cap : DO_NOT_ALLOW];

    case 'customize':
      return ['edit_theme_options'];

    case 'delete_site':
      return [DO_NOT_ALLOW];

    case 'edit_term':
    case 'delete_term':
    case 'assign_term': {
      if (!isset(args[0])) return [DO_NOT_ALLOW];
      const term = await getTerm(lookups, args[0]);
      if (!term) return [DO_NOT_ALLOW];
      const taxonomy = registry.taxonomy(term.taxonomy);
      if (!taxonomy) return [DO_NOT_ALLOW];
      const termId = Number(term.termId);
      if (
        cap === 'delete_term' &&
        (looseEqualsId(await lookups.option(`default_${term.taxonomy}`), termId) ||
          looseEqualsId(await lookups.option(`default_term_${term.taxonomy}`), termId))
      ) {
        return [DO_NOT_ALLOW];
      }
      const taxoCap = `${cap}s` as keyof TaxonomyObject['cap'];
      return recurse(taxonomy.cap[taxoCap], [termId]);
    }

    case 'manage_post_tags':
    case 'edit_categories':
    case 'edit_post_tags':
    case 'delete_categories':
    case 'delete_post_tags':
      return ['manage_categories'];

    case 'assign_categories':
    case 'assign_post_tags':
      return ['edit_posts'];

    case 'create_sites':
    case 'delete_sites':
    case 'manage_network':
    case 'manage_sites':
    case 'manage_network_users':
    case 'manage_network_plugins':
    case 'manage_network_themes':
    case 'manage_network_options':
    case 'upgrade_network':
      return [cap];

    case 'setup_network':
      return ['manage_options'];

    case 'update_php':
      return ['update_core'];

    case 'update_https':
      return ['manage_options', 'update_core'];

    case 'export_others_personal_data':
    case 'erase_others_personal_data':
    case 'manage_privacy_options':
      return ['manage_options'];

    case 'create_app_password':
    case 'list_app_passwords':
    case 'read_app_password':
    case 'edit_app_password':
    case 'delete_app_passwords':
    case 'delete_app_password':
      return recurse('edit_user', [args[0]]);

    default: {
      // Meta capabilities of post types registered with map_meta_cap (`edit_book` → `edit_post`).
      const core = postTypeMetaCaps(registry).get(cap);
      if (core) return recurse(core, args);
      if (BLOCK_CAPS.has(cap)) return [cap.replace('_blocks', '_posts')];
      return [cap];
    }
  }
}

/**
 * `WP_User::has_cap()` after the mapping: `true` when the user holds every capability of `caps`. Everyone has
 * `exist`, nobody has `do_not_allow`, and the grants of WordPress's default `user_has_cap` filters apply
 * (`install_languages` with `update_core`/`install_plugins`/`install_themes`, `resume_plugins` with
 * `activate_plugins`, `resume_themes` with `switch_themes`, `view_site_health_checks` with `install_plugins`).
 */
export function userHasAllCaps(user: Pick<MetaCapUser, 'hasCap'>, caps: readonly string[]): boolean {
  return caps.every((cap) => userHasPrimitiveCap(user, cap));
}

/** One primitive capability, as in {@link userHasAllCaps}. */
export function userHasPrimitiveCap(user: Pick<MetaCapUser, 'hasCap'>, cap: string): boolean {
  switch (cap) {
    case 'exist':
      return true;
    case DO_NOT_ALLOW:
      return false;
    case 'install_languages':
      return (
        user.hasCap(cap) ||
        user.hasCap('update_core') ||
        user.hasCap('install_plugins') ||
        user.hasCap('install_themes')
      );
    case 'resume_plugins':
      return user.hasCap(cap) || user.hasCap('activate_plugins');
    case 'resume_themes':
      return user.hasCap(cap) || user.hasCap('switch_themes');
    case 'view_site_health_checks':
      return user.hasCap(cap) || user.hasCap('install_plugins');
    default:
      return user.hasCap(cap);
  }
}
