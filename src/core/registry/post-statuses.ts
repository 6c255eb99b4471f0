/** WordPress 6.1's `register_post_status()` defaults. */
import { isset, sanitizeKey } from './content-basics';

/** Singular/plural count label (`_n_noop()` result; `%s` is the count). */
export interface PostStatusLabelCount {
  singular: string;
  plural: string;
}

/** A registered post status, shaped like the object `register_post_status()` stores. */
export interface PostStatusObject {
  name: string;
  label: string;
  label_count: PostStatusLabelCount;
  exclude_from_search: boolean;
  _builtin: boolean;
  public: boolean;
  internal: boolean;
  protected: boolean;
  private: boolean;
  publicly_queryable: boolean;
  show_in_admin_status_list: boolean;
  show_in_admin_all_list: boolean;
  date_floating: boolean;
  /** The WordPress version that added it, for those added after the seed (see `RestArgs.addedIn`). */
  addedIn?: string;
}

/** Arguments accepted by {@link buildPostStatus}, like `register_post_status()`'s `$args`. */
export interface PostStatusArgs {
  label?: string;
  label_count?: PostStatusLabelCount;
  exclude_from_search?: boolean | null;
  _builtin?: boolean;
  public?: boolean | null;
  internal?: boolean | null;
  protected?: boolean | null;
  private?: boolean | null;
  publicly_queryable?: boolean | null;
  show_in_admin_status_list?: boolean | null;
  show_in_admin_all_list?: boolean | null;
  date_floating?: boolean | null;
  /** The WordPress version that added it, for those added after the seed (see `RestArgs.addedIn`). */
  addedIn?: string;
}

/**
 * Builds a post status object with `register_post_status()`'s defaults: a status with none of
 * public/internal/protected/private set is internal; `publicly_queryable` follows `public`;
 * `exclude_from_search` follows `internal`; the admin list flags are `!internal`; the label defaults to the name.
 */
export function buildPostStatus(name: string, args: PostStatusArgs = {}): PostStatusObject {
  const status = sanitizeKey(name);

  let internal = args.internal ?? null;
  if (!isset(args.public) && internal === null && !isset(args.protected) && !isset(args.private)) {
    internal = true;
  }
  const isPublic = args.public ?? false;
  const isPrivate = args.private ?? false;
  const isProtected = args.protected ?? false;
  const isInternal = internal ?? false;
  const label = args.label ?? status;

  const object: PostStatusObject = {
    name: status,
    label,
    label_count: args.label_count ? { ...args.label_count } : { singular: label, plural: label },
    exclude_from_search: args.exclude_from_search ?? isInternal,
    _builtin: args._builtin ?? false,
    public: isPublic,
    internal: isInternal,
    protected: isProtected,
    private: isPrivate,
    publicly_queryable: args.publicly_queryable ?? isPublic,
    show_in_admin_status_list: args.show_in_admin_status_list ?? !isInternal,
    show_in_admin_all_list: args.show_in_admin_all_list ?? !isInternal,
    date_floating: args.date_floating ?? false,
  };
  if (args.addedIn) object.addedIn = args.addedIn;
  return object;
}

/** Port of `is_post_status_viewable()`: not internal/protected, and publicly queryable (or built-in public). */
export function isPostStatusViewable(
  status: Pick<PostStatusObject, 'internal' | 'protected' | 'publicly_queryable' | '_builtin' | 'public'>,
): boolean {
  if (status.internal || status.protected) {
    return false;
  }
  return status.publicly_queryable || (status._builtin && status.public);
}
