/** WordPress 6.1's `register_taxonomy()` defaults: `WP_Taxonomy::set_props()` and labels. */
import {
  isset,
  phpEmpty,
  withoutUndefined,
  getCustomObjectLabels,
  DEFAULT_REST_NAMESPACE,
  EP_MASK,
} from './content-basics';
import type { DefaultLabelPairs, LabelMap } from './content-basics';
import { sanitizeTitleWithDashes } from '../formatting/sanitize-title';

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
