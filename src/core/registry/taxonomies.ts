/** WordPress 6.1's `register_taxonomy()` defaults: `WP_Taxonomy::set_props()` and labels. */
import { isset, phpEmpty, withoutUndefined, getCustomObjectLabels, EP_MASK } from './content-basics';
import type { DefaultLabelPairs, LabelMap, LabelSource } from './content-basics';
import defaultLabels from './default-labels.json';
import { restSettings, rewriteSettings, withControllerClass } from './registration-settings';
import type { RegistryMarks, RestArgs } from './registration-settings';
import { sanitizeTitleWithDashes } from '../formatting/sanitize-title';

/**
 * Default taxonomy labels (`WP_Taxonomy::get_default_labels()`), as `[non-hierarchical, hierarchical]`: data
 * (default-labels.json, each entry a pair).
 */
export const TAXONOMY_DEFAULT_LABELS: DefaultLabelPairs = defaultLabels.taxonomy as unknown as DefaultLabelPairs;

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

/**
 * A registered taxonomy, shaped like WordPress's `WP_Taxonomy` (snake_case properties), with the registry's marks
 * (camelCase) when given.
 */
export interface TaxonomyObject extends RegistryMarks {
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
export interface TaxonomyArgs extends RestArgs {
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
  sort?: boolean | null;
  default_term?: string | Partial<TaxonomyDefaultTerm> | null;
  _builtin?: boolean;
}

/** Port of `get_taxonomy_labels()` (without the legacy `helps`/`no_tagcloud` args and the labels filter). */
export function getTaxonomyLabels(taxonomy: LabelSource): LabelMap {
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

  const rewrite = rewriteSettings<TaxonomyRewrite>(args.rewrite, (given) => ({
    with_front: given.with_front ?? true,
    hierarchical: given.hierarchical ?? false,
    ep_mask: given.ep_mask ?? EP_MASK.NONE,
    slug: phpEmpty(given.slug) ? sanitizeTitleWithDashes(name) : (given.slug as string),
  }));

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
    ...restSettings(name, args),
    sort: args.sort ?? null,
    default_term: defaultTerm,
    _builtin: args._builtin ?? false,
  };
  return withControllerClass(object, args);
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
