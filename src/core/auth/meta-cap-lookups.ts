/**
 * What `mapMetaCap()` works with: the objects it maps capabilities for, the data access it reads them through
 * ({@link MetaCapLookups}), one capability being mapped ({@link MetaCapCall}), and the readers of its arguments,
 * which take ids or already-loaded rows as PHP would.
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

/** One capability being mapped: what the mapping of each kind of object gets. */
export interface MetaCapCall {
  cap: string;
  user: MetaCapUser;
  args: readonly unknown[];
  lookups: MetaCapLookups;
  /** Maps another capability for the same user (WordPress's recursive `map_meta_cap()` calls). */
  recurse: (cap: string, args: readonly unknown[]) => Promise<string[]>;
}

// ---------------------------------------------------------------------------------------------------------------------
// Reading the arguments
// ---------------------------------------------------------------------------------------------------------------------

/** PHP `isset($args[0])`. */
export function isset(value: unknown): boolean {
  return value !== undefined && value !== null;
}

/** A positive integer id from a number or numeric string; `null` otherwise. */
export function toId(value: unknown): number | null {
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

export async function getPost(lookups: MetaCapLookups, value: unknown): Promise<PostLike | null> {
  const r = ref<PostLike>(value, isPostRow);
  return r === null ? null : lookups.post(r);
}

export async function getComment(lookups: MetaCapLookups, value: unknown): Promise<CommentLike | null> {
  const r = ref<CommentLike>(value, isCommentRow);
  return r === null ? null : lookups.comment(r);
}

export async function getUser(lookups: MetaCapLookups, value: unknown): Promise<UserLike | null> {
  const r = ref<UserLike>(value, isUserRow);
  return r === null ? null : lookups.user(r);
}

export async function getTerm(lookups: MetaCapLookups, value: unknown): Promise<TermLike | null> {
  // A term object without `termId` (e.g. a `TermEntity`) carries the term id as `id`.
  const r = ref<TermLike>(value, isTermRow);
  return r === null ? null : lookups.termTaxonomy(r);
}

/** The id a user argument stands for (a user object or an id). */
export function idOf(value: unknown): number | null {
  return isObject(value) ? toId(value.id) : toId(value);
}

/** PHP 8 loose `$option == $id` for a positive integer id. */
export function looseEqualsId(option: unknown, id: number): boolean {
  if (typeof option === 'number') return option === id;
  if (typeof option === 'string') {
    const trimmed = option.trim();
    return trimmed !== '' && !Number.isNaN(Number(trimmed)) ? Number(trimmed) === id : option === String(id);
  }
  if (typeof option === 'boolean') return option === (id !== 0);
  return false;
}

/** PHP `(int)` of an option value. */
export function phpInt(value: unknown): number {
  if (typeof value === 'number') return Math.trunc(value);
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'string') {
    const m = /^\s*[+-]?\d+/.exec(value);
    return m ? parseInt(m[0], 10) : 0;
  }
  return 0;
}

/** PHP truthiness of an option value. */
export function phpTruthy(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0;
  return !(value === undefined || value === null || value === false || value === 0 || value === '' || value === '0');
}
