/**
 * Content registry definitions: post types, taxonomies and post statuses.
 *
 * Framework-free port of WordPress 6.1's `register_post_type()` / `WP_Post_Type::set_props()`,
 * `register_taxonomy()` / `WP_Taxonomy::set_props()` and `register_post_status()` defaults logic,
 * including `get_post_type_labels()`, `get_taxonomy_labels()`, `_get_custom_object_labels()` and
 * `get_post_type_capabilities()`. The builders are pure: they never touch a global registry.
 *
 * Known simplifications (see each builder): no filters/hooks, rewrite rules are always filled in as
 * if pretty permalinks were enabled, and the legacy taxonomy `helps`/`no_tagcloud` args are not supported.
 */

import { sanitizeTitleWithDashes } from '../formatting/sanitize-title';

/** Labels of a post type or taxonomy; `null` means "no label" as in WordPress. */
export type LabelMap = Record<string, string | null>;

/** The REST namespace used when an object does not set `rest_namespace` (WordPress uses `wp/v2`). */
export const DEFAULT_REST_NAMESPACE = 'cms/v2';

/** WordPress rewrite endpoint masks (`EP_*` constants) used by the registry defaults. */
export const EP_MASK = {
  NONE: 0,
  PERMALINK: 1,
  ATTACHMENT: 2,
  DATE: 4,
  YEAR: 8,
  MONTH: 16,
  DAY: 32,
  ROOT: 64,
  COMMENTS: 128,
  SEARCH: 256,
  CATEGORIES: 512,
  TAGS: 1024,
  AUTHORS: 2048,
  PAGES: 4096,
  ALL_ARCHIVES: 3868,
  ALL: 8191,
} as const;

// ---------------------------------------------------------------------------------------------------------------------
// PHP semantics helpers
// ---------------------------------------------------------------------------------------------------------------------

/** PHP `isset()` on a value: not undefined and not null. */
function isset<T>(value: T | null | undefined): value is T {
  return value !== undefined && value !== null;
}

/** PHP `empty()` on a scalar/array value. */
function phpEmpty(value: unknown): boolean {
  if (value === undefined || value === null || value === false || value === 0 || value === '' || value === '0') {
    return true;
  }
  if (Array.isArray(value)) {
    return value.length === 0;
  }
  return false;
}

/** Copies an object without the keys whose value is `undefined` (PHP arrays have no such thing). */
function withoutUndefined<T>(record: Partial<Record<string, T>> | undefined): Record<string, T> {
  const out: Record<string, T> = {};
  if (!record) {
    return out;
  }
  for (const [key, value] of Object.entries(record)) {
    if (value !== undefined) {
      out[key] = value;
    }
  }
  return out;
}

/** Port of WordPress `sanitize_key()`: lowercase, keep only `[a-z0-9_-]`. */
export function sanitizeKey(key: string): string {
  return key.toLowerCase().replace(/[^a-z0-9_-]/g, '');
}

/** Default labels table: each entry is `[non-hierarchical, hierarchical]`. */
type DefaultLabelPairs = Readonly<Record<string, readonly [string | null, string | null]>>;

/** Port of `_get_custom_object_labels()`: derives name-based labels and merges the (non-)hierarchical defaults. */
function getCustomObjectLabels(
  object: { name: string; label?: string | null; labels?: Partial<LabelMap>; hierarchical: boolean },
  defaultPairs: DefaultLabelPairs,
): LabelMap {
  // JS objects keep insertion order for string keys exactly like PHP arrays, so the key order matches WordPress.
  const labels: LabelMap = {};
  for (const [key, value] of Object.entries(object.labels ?? {})) {
    if (value !== undefined) {
      labels[key] = value;
    }
  }

  if (isset(object.label) && phpEmpty(labels.name)) {
    labels.name = object.label;
  }
  if (!isset(labels.singular_name) && isset(labels.name)) {
    labels.singular_name = labels.name;
  }
  if (!isset(labels.name_admin_bar)) {
    labels.name_admin_bar = isset(labels.singular_name) ? labels.singular_name : object.name;
  }
  if (!isset(labels.menu_name) && isset(labels.name)) {
    labels.menu_name = labels.name;
  }
  if (!isset(labels.all_items) && isset(labels.menu_name)) {
    labels.all_items = labels.menu_name;
  }
  if (!isset(labels.archives) && isset(labels.all_items)) {
    labels.archives = labels.all_items;
  }

  const merged: LabelMap = {};
  for (const [key, pair] of Object.entries(defaultPairs)) {
    merged[key] = object.hierarchical ? pair[1] : pair[0];
  }
  return Object.assign(merged, labels);
}

// ---------------------------------------------------------------------------------------------------------------------
// Post types
// ---------------------------------------------------------------------------------------------------------------------

/** Default post type labels (`WP_Post_Type::get_default_labels()`), as `[non-hierarchical, hierarchical]`. */
export const POST_TYPE_DEFAULT_LABELS: DefaultLabelPairs = {
  name: ['Posts', 'Pages'],
  singular_name: ['Post', 'Page'],
  add_new: ['Add New', 'Add New'],
  add_new_item: ['Add New Post', 'Add New Page'],
  edit_item: ['Edit Post', 'Edit Page'],
  new_item: ['New Post', 'New Page'],
  view_item: ['View Post', 'View Page'],
  view_items: ['View Posts', 'View Pages'],
  search_items: ['Search Posts', 'Search Pages'],
  not_found: ['No posts found.', 'No pages found.'],
  not_found_in_trash: ['No posts found in Trash.', 'No pages found in Trash.'],
  parent_item_colon: [null, 'Parent Page:'],
  all_items: ['All Posts', 'All Pages'],
  archives: ['Post Archives', 'Page Archives'],
  attributes: ['Post Attributes', 'Page Attributes'],
  insert_into_item: ['Insert into post', 'Insert into page'],
  uploaded_to_this_item: ['Uploaded to this post', 'Uploaded to this page'],
  featured_image: ['Featured image', 'Featured image'],
  set_featured_image: ['Set featured image', 'Set featured image'],
  remove_featured_image: ['Remove featured image', 'Remove featured image'],
  use_featured_image: ['Use as featured image', 'Use as featured image'],
  filter_items_list: ['Filter posts list', 'Filter pages list'],
  filter_by_date: ['Filter by date', 'Filter by date'],
  items_list_navigation: ['Posts list navigation', 'Pages list navigation'],
  items_list: ['Posts list', 'Pages list'],
  item_published: ['Post published.', 'Page published.'],
  item_published_privately: ['Post published privately.', 'Page published privately.'],
  item_reverted_to_draft: ['Post reverted to draft.', 'Page reverted to draft.'],
  item_scheduled: ['Post scheduled.', 'Page scheduled.'],
  item_updated: ['Post updated.', 'Page updated.'],
  item_link: ['Post Link', 'Page Link'],
  item_link_description: ['A link to a post.', 'A link to a page.'],
};

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

/** A registered post type, shaped like WordPress's `WP_Post_Type` (snake_case properties). */
export interface PostTypeObject {
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
export interface PostTypeArgs {
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
  show_in_rest?: boolean;
  rest_base?: string | false;
  rest_namespace?: string | false;
  rest_controller_class?: string | false;
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
export function getPostTypeLabels(postType: {
  name: string;
  label?: string | null;
  labels?: Partial<LabelMap>;
  hierarchical: boolean;
}): LabelMap {
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

  let rewrite: PostTypeRewrite | false = false;
  const rewriteArg = args.rewrite ?? true;
  if (rewriteArg !== false) {
    const given: Partial<PostTypeRewrite> = rewriteArg === true ? {} : rewriteArg;
    rewrite = {
      slug: phpEmpty(given.slug) ? postType : (given.slug as string),
      with_front: given.with_front ?? true,
      pages: given.pages ?? true,
      feeds: !isset(given.feeds) || !hasArchive ? Boolean(hasArchive) : given.feeds,
      ep_mask: given.ep_mask ?? args.permalink_epmask ?? EP_MASK.PERMALINK,
    };
  }

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
    show_in_rest: args.show_in_rest ?? false,
    rest_base: args.rest_base || postType,
    rest_namespace: args.rest_namespace || DEFAULT_REST_NAMESPACE,
    _builtin: args._builtin ?? false,
  };
  if (args.rest_controller_class) {
    object.rest_controller_class = args.rest_controller_class;
  }
  return object;
}

/** Port of `is_post_type_viewable()`: publicly queryable, or a built-in public type. */
export function isPostTypeViewable(
  postType: Pick<PostTypeObject, 'publicly_queryable' | '_builtin' | 'public'>,
): boolean {
  return postType.publicly_queryable || (postType._builtin && postType.public);
}

// ---------------------------------------------------------------------------------------------------------------------
// Taxonomies
// ---------------------------------------------------------------------------------------------------------------------

/** Default taxonomy labels (`WP_Taxonomy::get_default_labels()`), as `[non-hierarchical, hierarchical]`. */
export const TAXONOMY_DEFAULT_LABELS: DefaultLabelPairs = (() => {
  const nameField = 'The name is how it appears on your site.';
  const slugField =
    'The &#8220;slug&#8221; is the URL-friendly version of the name. It is usually all lowercase and contains only letters, numbers, and hyphens.';
  const parentField =
    'Assign a parent term to create a hierarchy. The term Jazz, for example, would be the parent of Bebop and Big Band.';
  const descField = 'The description is not prominent by default; however, some themes may show it.';
  const pairs: Record<string, readonly [string | null, string | null]> = {
    name: ['Tags', 'Categories'],
    singular_name: ['Tag', 'Category'],
    search_items: ['Search Tags', 'Search Categories'],
    popular_items: ['Popular Tags', null],
    all_items: ['All Tags', 'All Categories'],
    parent_item: [null, 'Parent Category'],
    parent_item_colon: [null, 'Parent Category:'],
    name_field_description: [nameField, nameField],
    slug_field_description: [slugField, slugField],
    parent_field_description: [null, parentField],
    desc_field_description: [descField, descField],
    edit_item: ['Edit Tag', 'Edit Category'],
    view_item: ['View Tag', 'View Category'],
    update_item: ['Update Tag', 'Update Category'],
    add_new_item: ['Add New Tag', 'Add New Category'],
    new_item_name: ['New Tag Name', 'New Category Name'],
    separate_items_with_commas: ['Separate tags with commas', null],
    add_or_remove_items: ['Add or remove tags', null],
    choose_from_most_used: ['Choose from the most used tags', null],
    not_found: ['No tags found.', 'No categories found.'],
    no_terms: ['No tags', 'No categories'],
    filter_by_item: [null, 'Filter by category'],
    items_list_navigation: ['Tags list navigation', 'Categories list navigation'],
    items_list: ['Tags list', 'Categories list'],
    most_used: ['Most Used', 'Most Used'],
    back_to_items: ['&larr; Go to Tags', '&larr; Go to Categories'],
    item_link: ['Tag Link', 'Category Link'],
    item_link_description: ['A link to a tag.', 'A link to a category.'],
  };
  return pairs;
})();

/** Taxonomy term capabilities (`WP_Taxonomy::$cap`). */
export interface TaxonomyCapabilities {
  manage_terms: string;
  edit_terms: string;
  delete_terms: string;
  assign_terms: string;
}

/** Taxonomy rewrite settings (filled in as if pretty permalinks were on). */
export interface TaxonomyRewrite {
  with_front: boolean;
  hierarchical: boolean;
  ep_mask: number;
  slug: string;
}

/** Default term of a taxonomy, as `WP_Taxonomy::$default_term`. */
export interface TaxonomyDefaultTerm {
  name: string;
  slug: string;
  description: string;
}

/** A registered taxonomy, shaped like WordPress's `WP_Taxonomy` (snake_case properties). */
export interface TaxonomyObject {
  name: string;
  label: string;
  labels: LabelMap;
  description: string;
  public: boolean;
  publicly_queryable: boolean;
  hierarchical: boolean;
  show_ui: boolean;
  show_in_menu: boolean | string;
  show_in_nav_menus: boolean;
  show_tagcloud: boolean;
  show_in_quick_edit: boolean;
  show_admin_column: boolean;
  cap: TaxonomyCapabilities;
  object_type: string[];
  rewrite: TaxonomyRewrite | false;
  query_var: string | false;
  show_in_rest: boolean;
  /** Effective REST base (defaults to the name). */
  rest_base: string;
  /** Effective REST namespace (defaults to {@link DEFAULT_REST_NAMESPACE}). */
  rest_namespace: string;
  rest_controller_class?: string;
  /** Whether terms keep the order they were added to objects in (`null` = not set). */
  sort: boolean | null;
  default_term: TaxonomyDefaultTerm | null;
  _builtin: boolean;
}

/** Arguments accepted by {@link buildTaxonomy}, like `register_taxonomy()`'s `$args`. */
export interface TaxonomyArgs {
  label?: string;
  labels?: Partial<LabelMap>;
  description?: string;
  public?: boolean;
  publicly_queryable?: boolean | null;
  hierarchical?: boolean;
  show_ui?: boolean | null;
  show_in_menu?: boolean | string | null;
  show_in_nav_menus?: boolean | null;
  show_tagcloud?: boolean | null;
  show_in_quick_edit?: boolean | null;
  show_admin_column?: boolean;
  capabilities?: Partial<TaxonomyCapabilities>;
  rewrite?: boolean | Partial<TaxonomyRewrite>;
  query_var?: boolean | string;
  show_in_rest?: boolean;
  rest_base?: string | false;
  rest_namespace?: string | false;
  rest_controller_class?: string | false;
  sort?: boolean | null;
  default_term?: string | Partial<TaxonomyDefaultTerm> | null;
  _builtin?: boolean;
}

/** Port of `get_taxonomy_labels()` (without the legacy `helps`/`no_tagcloud` args and the labels filter). */
export function getTaxonomyLabels(taxonomy: {
  name: string;
  label?: string | null;
  labels?: Partial<LabelMap>;
  hierarchical: boolean;
}): LabelMap {
  return getCustomObjectLabels(taxonomy, { ...TAXONOMY_DEFAULT_LABELS, menu_name: TAXONOMY_DEFAULT_LABELS.name });
}

/**
 * Builds a taxonomy object from `register_taxonomy()`-style arguments, applying WordPress's defaults cascade
 * (`public` → `publicly_queryable`/`show_ui`/`show_in_nav_menus`, `show_ui` → `show_in_menu`/`show_tagcloud`/
 * `show_in_quick_edit`, query var, rewrite, capabilities and labels). Query vars follow the front-end (non-admin)
 * rule: forced to `false` when the taxonomy is not publicly queryable.
 *
 * @throws RangeError when the name is empty or longer than 32 characters.
 */
export function buildTaxonomy(
  name: string,
  objectTypes: readonly string[] | string,
  args: TaxonomyArgs = {},
): TaxonomyObject {
  if (name.length === 0 || name.length > 32) {
    throw new RangeError('Taxonomy names must be between 1 and 32 characters in length.');
  }

  const isPublic = args.public ?? true;
  const hierarchical = args.hierarchical ?? false;
  const publiclyQueryable = args.publicly_queryable ?? isPublic;

  let queryVar: string | false = false;
  const queryVarArg = args.query_var ?? name;
  if (queryVarArg !== false && publiclyQueryable !== false) {
    queryVar = queryVarArg === true ? name : sanitizeTitleWithDashes(queryVarArg);
  }

  let rewrite: TaxonomyRewrite | false = false;
  const rewriteArg = args.rewrite ?? true;
  if (rewriteArg !== false) {
    const given: Partial<TaxonomyRewrite> = rewriteArg === true ? {} : rewriteArg;
    rewrite = {
      with_front: given.with_front ?? true,
      hierarchical: given.hierarchical ?? false,
      ep_mask: given.ep_mask ?? EP_MASK.NONE,
      slug: phpEmpty(given.slug) ? sanitizeTitleWithDashes(name) : (given.slug as string),
    };
  }

  const showUi = args.show_ui ?? isPublic;
  const showInMenu = !isset(args.show_in_menu) || !showUi ? showUi : args.show_in_menu;
  const showInNavMenus = args.show_in_nav_menus ?? isPublic;
  const showTagcloud = args.show_tagcloud ?? showUi;
  const showInQuickEdit = args.show_in_quick_edit ?? showUi;

  const cap: TaxonomyCapabilities = {
    manage_terms: 'manage_categories',
    edit_terms: 'manage_categories',
    delete_terms: 'manage_categories',
    assign_terms: 'edit_posts',
    ...withoutUndefined(args.capabilities),
  };

  let defaultTerm: TaxonomyDefaultTerm | null = null;
  if (args.default_term && !phpEmpty(args.default_term)) {
    const given = typeof args.default_term === 'string' ? { name: args.default_term } : args.default_term;
    defaultTerm = { name: given.name ?? '', slug: given.slug ?? '', description: given.description ?? '' };
  }

  const labels = getTaxonomyLabels({ name, label: args.label, labels: args.labels, hierarchical });

  const object: TaxonomyObject = {
    name,
    label: labels.name ?? '',
    labels,
    description: args.description ?? '',
    public: isPublic,
    publicly_queryable: publiclyQueryable,
    hierarchical,
    show_ui: showUi,
    show_in_menu: showInMenu,
    show_in_nav_menus: showInNavMenus,
    show_tagcloud: showTagcloud,
    show_in_quick_edit: showInQuickEdit,
    show_admin_column: args.show_admin_column ?? false,
    cap,
    object_type: [...new Set(typeof objectTypes === 'string' ? [objectTypes] : objectTypes)],
    rewrite,
    query_var: queryVar,
    show_in_rest: args.show_in_rest ?? false,
    rest_base: args.rest_base || name,
    rest_namespace: args.rest_namespace || DEFAULT_REST_NAMESPACE,
    sort: args.sort ?? null,
    default_term: defaultTerm,
    _builtin: args._builtin ?? false,
  };
  if (args.rest_controller_class) {
    object.rest_controller_class = args.rest_controller_class;
  }
  return object;
}

/**
 * Port of `register_taxonomy_for_object_type()` without the global registry: returns a copy of the taxonomy with
 * the object type appended to `object_type` (unchanged copy when already attached).
 */
export function registerTaxonomyForObjectType(taxonomy: TaxonomyObject, objectType: string): TaxonomyObject {
  const objectTypes = taxonomy.object_type.includes(objectType)
    ? [...taxonomy.object_type]
    : [...taxonomy.object_type, objectType];
  return { ...taxonomy, object_type: objectTypes };
}

/**
 * Port of `get_object_taxonomies()` for a post type name: the taxonomies attached to it, in registration order.
 */
export function getObjectTaxonomies(objectType: string, taxonomies: Iterable<TaxonomyObject>): TaxonomyObject[] {
  const found: TaxonomyObject[] = [];
  for (const taxonomy of taxonomies) {
    if (taxonomy.object_type.includes(objectType)) {
      found.push(taxonomy);
    }
  }
  return found;
}

// ---------------------------------------------------------------------------------------------------------------------
// Post statuses
// ---------------------------------------------------------------------------------------------------------------------

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

  return {
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
