/** WordPress 6.1's `register_post_type()` defaults: `WP_Post_Type::set_props()`, labels, capabilities, supports. */
import { isset, phpEmpty, withoutUndefined, getCustomObjectLabels, EP_MASK, sanitizeKey } from './content-basics';
import type { DefaultLabelPairs, LabelMap, LabelSource } from './content-basics';
import defaultLabels from './default-labels.json';
import { restSettings, rewriteSettings, withControllerClass } from './registration-settings';
import type { RegistryMarks, RestArgs } from './registration-settings';
import { sanitizeTitleWithDashes } from '../formatting/sanitize-title';

/**
 * Default post type labels (`WP_Post_Type::get_default_labels()`), as `[non-hierarchical, hierarchical]`: data
 * (default-labels.json, each entry a pair).
 */
export const POST_TYPE_DEFAULT_LABELS: DefaultLabelPairs = defaultLabels.postType as unknown as DefaultLabelPairs;

/**
 * Capabilities of a post type, as built by `get_post_type_capabilities()`: the meta caps, the primitive caps,
 * `create_posts`, and (with `map_meta_cap`) the primitive caps used by `map_meta_cap()`.
 */
export interface PostTypeCapabilities {
  edit_post: string;
  read_post: string;
  delete_post: string;
  edit_posts: string;
  edit_others_posts: string;
  delete_posts: string;
  publish_posts: string;
  read_private_posts: string;
  create_posts: string;
  read?: string;
  delete_private_posts?: string;
  delete_published_posts?: string;
  delete_others_posts?: string;
  edit_private_posts?: string;
  edit_published_posts?: string;
  [capability: string]: string | undefined;
}

/** Post type rewrite settings (WordPress fills them in when pretty permalinks are on; we always do). */
export interface PostTypeRewrite {
  slug: string;
  with_front: boolean;
  pages: boolean;
  feeds: boolean;
  ep_mask: number;
}

/** Feature support value: `true`, or the list of arguments passed to `add_post_type_support()`. */
export type PostTypeSupportValue = true | unknown[];

/**
 * A registered post type, shaped like WordPress's `WP_Post_Type` (snake_case properties), with the registry's marks
 * (camelCase) when given.
 */
export interface PostTypeObject extends RegistryMarks {
  name: string;
  label: string;
  labels: LabelMap;
  description: string;
  public: boolean;
  hierarchical: boolean;
  exclude_from_search: boolean;
  publicly_queryable: boolean;
  show_ui: boolean;
  show_in_menu: boolean | string;
  show_in_nav_menus: boolean;
  show_in_admin_bar: boolean;
  menu_position: number | null;
  menu_icon: string | null;
  /** Singular capability base (the first entry when an array was given). */
  capability_type: string;
  map_meta_cap: boolean;
  cap: PostTypeCapabilities;
  /** Supported features, as `get_all_post_type_supports()` returns them. */
  supports: Record<string, PostTypeSupportValue>;
  taxonomies: string[];
  has_archive: boolean | string;
  rewrite: PostTypeRewrite | false;
  query_var: string | false;
  can_export: boolean;
  delete_with_user: boolean | null;
  show_in_rest: boolean;
  /** Effective REST base (defaults to the name). */
  rest_base: string;
  /** Effective REST namespace (defaults to {@link DEFAULT_REST_NAMESPACE}). */
  rest_namespace: string;
  rest_controller_class?: string;
  _builtin: boolean;
}

/**
 * `supports` argument: a list of feature names, where an entry may also be an object mapping a feature to its
 * arguments (WordPress's `'feature' => array( ... )` form; `true` means plain support), or `false` for no features.
 * An empty list or no value means the default `title` + `editor`.
 */
export type PostTypeSupportsArg = Array<string | Record<string, true | Record<string, unknown> | unknown[]>> | false;

/** Arguments accepted by {@link buildPostType}, like `register_post_type()`'s `$args`. */
export interface PostTypeArgs extends RestArgs {
  label?: string;
  labels?: Partial<LabelMap>;
  description?: string;
  public?: boolean;
  hierarchical?: boolean;
  exclude_from_search?: boolean | null;
  publicly_queryable?: boolean | null;
  show_ui?: boolean | null;
  show_in_menu?: boolean | string | null;
  show_in_nav_menus?: boolean | null;
  show_in_admin_bar?: boolean | null;
  menu_position?: number | null;
  menu_icon?: string | null;
  /** Capability base, or `[singular, plural]` bases. */
  capability_type?: string | readonly [string, string];
  /** Overrides of the generated capabilities. */
  capabilities?: Partial<Record<string, string>>;
  map_meta_cap?: boolean | null;
  supports?: PostTypeSupportsArg;
  taxonomies?: string[];
  has_archive?: boolean | string;
  rewrite?: boolean | Partial<PostTypeRewrite>;
  /** Rewrite endpoint mask used when `rewrite.ep_mask` is not given. */
  permalink_epmask?: number;
  query_var?: boolean | string;
  can_export?: boolean;
  delete_with_user?: boolean | null;
  _builtin?: boolean;
}

/**
 * Port of `get_post_type_capabilities()`: builds the capability map from the capability type,
 * `map_meta_cap` and explicit overrides (key order as WordPress's).
 */
export function getPostTypeCapabilities(
  capabilityType: string | readonly [string, string],
  mapMetaCap: boolean,
  overrides: Partial<Record<string, string>> = {},
): PostTypeCapabilities {
  const [singular, plural] =
    typeof capabilityType === 'string' ? [capabilityType, `${capabilityType}s`] : capabilityType;

  const caps: Record<string, string> = {
    edit_post: `edit_${singular}`,
    read_post: `read_${singular}`,
    delete_post: `delete_${singular}`,
    edit_posts: `edit_${plural}`,
    edit_others_posts: `edit_others_${plural}`,
    delete_posts: `delete_${plural}`,
    publish_posts: `publish_${plural}`,
    read_private_posts: `read_private_${plural}`,
  };
  if (mapMetaCap) {
    Object.assign(caps, {
      read: 'read',
      delete_private_posts: `delete_private_${plural}`,
      delete_published_posts: `delete_published_${plural}`,
      delete_others_posts: `delete_others_${plural}`,
      edit_private_posts: `edit_private_${plural}`,
      edit_published_posts: `edit_published_${plural}`,
    });
  }
  Object.assign(caps, withoutUndefined(overrides));
  if (!isset(caps.create_posts)) {
    caps.create_posts = caps.edit_posts;
  }
  return caps as PostTypeCapabilities;
}

/** Port of `get_post_type_labels()` (without the `post_type_labels_{$name}` filter). */
export function getPostTypeLabels(postType: LabelSource): LabelMap {
  return getCustomObjectLabels(postType, { ...POST_TYPE_DEFAULT_LABELS, menu_name: POST_TYPE_DEFAULT_LABELS.name });
}

/** Turns a `supports` argument into the feature map `add_post_type_support()` would have registered. */
function buildSupports(supports: PostTypeSupportsArg | undefined): Record<string, PostTypeSupportValue> {
  if (supports === false) {
    return {};
  }
  if (!supports || supports.length === 0) {
    return { title: true, editor: true };
  }
  const features: Record<string, PostTypeSupportValue> = {};
  for (const entry of supports) {
    if (typeof entry === 'string') {
      features[entry] = true;
      continue;
    }
    for (const [feature, args] of Object.entries(entry)) {
      // add_post_type_support( $type, $feature, $args ) stores the variadic list, i.e. array( $args ).
      features[feature] = args === true ? true : [args];
    }
  }
  return features;
}

/**
 * Builds a post type object from `register_post_type()`-style arguments, applying WordPress's defaults cascade
 * (`public` → `publicly_queryable`/`show_ui`/`show_in_nav_menus`/`exclude_from_search`, `show_ui` → `show_in_menu`
 * → `show_in_admin_bar`, `map_meta_cap` back-compat, capabilities, labels, supports, rewrite and query var).
 *
 * @throws RangeError when the sanitized name is empty or longer than 20 characters.
 */
export function buildPostType(name: string, args: PostTypeArgs = {}): PostTypeObject {
  const postType = sanitizeKey(name);
  if (postType.length === 0 || postType.length > 20) {
    throw new RangeError('Post type names must be between 1 and 20 characters in length.');
  }

  const isPublic = args.public ?? false;
  const hierarchical = args.hierarchical ?? false;
  const publiclyQueryable = args.publicly_queryable ?? isPublic;
  const showUi = args.show_ui ?? isPublic;
  const showInMenu = !isset(args.show_in_menu) || !showUi ? showUi : args.show_in_menu;
  const showInAdminBar = args.show_in_admin_bar ?? Boolean(showInMenu);
  const showInNavMenus = args.show_in_nav_menus ?? isPublic;
  const excludeFromSearch = args.exclude_from_search ?? !isPublic;

  const capabilityType = args.capability_type ?? 'post';
  const capabilities = withoutUndefined(args.capabilities);
  let mapMetaCap = args.map_meta_cap ?? null;
  // Back compat with quirky handling in version 3.0 (#14122).
  if (
    Object.keys(capabilities).length === 0 &&
    mapMetaCap === null &&
    (capabilityType === 'post' || capabilityType === 'page')
  ) {
    mapMetaCap = true;
  }
  mapMetaCap = mapMetaCap ?? false;
  const cap = getPostTypeCapabilities(capabilityType, mapMetaCap, capabilities);

  const hasArchive = args.has_archive ?? false;

  let queryVar: string | false;
  const queryVarArg = args.query_var ?? true;
  if (queryVarArg === false) {
    queryVar = false;
  } else {
    queryVar = queryVarArg === true ? postType : sanitizeTitleWithDashes(queryVarArg);
  }

  const rewrite = rewriteSettings<PostTypeRewrite>(args.rewrite, (given) => ({
    slug: phpEmpty(given.slug) ? postType : (given.slug as string),
    with_front: given.with_front ?? true,
    pages: given.pages ?? true,
    feeds: !isset(given.feeds) || !hasArchive ? Boolean(hasArchive) : given.feeds,
    ep_mask: given.ep_mask ?? args.permalink_epmask ?? EP_MASK.PERMALINK,
  }));

  const labels = getPostTypeLabels({ name: postType, label: args.label, labels: args.labels, hierarchical });

  const object: PostTypeObject = {
    name: postType,
    label: labels.name ?? '',
    labels,
    description: args.description ?? '',
    public: isPublic,
    hierarchical,
    exclude_from_search: excludeFromSearch,
    publicly_queryable: publiclyQueryable,
    show_ui: showUi,
    show_in_menu: showInMenu,
    show_in_nav_menus: showInNavMenus,
    show_in_admin_bar: showInAdminBar,
    menu_position: args.menu_position ?? null,
    menu_icon: args.menu_icon ?? null,
    capability_type: typeof capabilityType === 'string' ? capabilityType : capabilityType[0],
    map_meta_cap: mapMetaCap,
    cap,
    supports: buildSupports(args.supports),
    taxonomies: [...(args.taxonomies ?? [])],
    has_archive: hasArchive,
    rewrite,
    query_var: queryVar,
    can_export: args.can_export ?? true,
    delete_with_user: args.delete_with_user ?? null,
    ...restSettings(postType, args),
    _builtin: args._builtin ?? false,
  };
  return withControllerClass(object, args);
}

/** Port of `is_post_type_viewable()`: publicly queryable, or a built-in public type. */
export function isPostTypeViewable(
  postType: Pick<PostTypeObject, 'publicly_queryable' | '_builtin' | 'public'>,
): boolean {
  return postType.publicly_queryable || (postType._builtin && postType.public);
}
