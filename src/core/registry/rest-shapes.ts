/**
 * REST representations of post types, taxonomies and post statuses, as WordPress 6.1's
 * `WP_REST_Post_Types_Controller`, `WP_REST_Taxonomies_Controller` and `WP_REST_Post_Statuses_Controller`
 * prepare them (before context filtering, `_fields` filtering and links); their item schemas are built in
 * rest-item-schemas.ts.
 */
import {
  getObjectTaxonomies,
  isPostTypeViewable,
  type LabelMap,
  type PostStatusObject,
  type PostTypeCapabilities,
  type PostTypeObject,
  type PostTypeSupportValue,
  type TaxonomyCapabilities,
  type TaxonomyObject,
} from './content-types';

export {
  POST_STATUS_SCHEMA,
  POST_TYPE_SCHEMA,
  TAXONOMY_SCHEMA,
  type RestContext,
  type RestItemSchema,
} from './rest-item-schemas';

/** `/types` item data, keys in WordPress's order. */
export interface PostTypeRestData {
  capabilities: PostTypeCapabilities;
  description: string;
  hierarchical: boolean;
  has_archive: boolean | string;
  visibility: { show_in_nav_menus: boolean; show_ui: boolean };
  viewable: boolean;
  labels: LabelMap;
  name: string;
  slug: string;
  icon: string | null;
  supports: Record<string, PostTypeSupportValue>;
  taxonomies: string[];
  rest_base: string;
  rest_namespace: string;
}

/** `/taxonomies` item data, keys in WordPress's order. */
export interface TaxonomyRestData {
  name: string;
  slug: string;
  capabilities: TaxonomyCapabilities;
  description: string;
  labels: LabelMap;
  types: string[];
  show_cloud: boolean;
  hierarchical: boolean;
  rest_base: string;
  rest_namespace: string;
  visibility: {
    public: boolean;
    publicly_queryable: boolean;
    show_admin_column: boolean;
    show_in_nav_menus: boolean;
    show_in_quick_edit: boolean;
    show_ui: boolean;
  };
}

/** `/statuses` item data, keys in WordPress's order. */
export interface PostStatusRestData {
  name: string;
  private: boolean;
  protected: boolean;
  public: boolean;
  queryable: boolean;
  show_in_list: boolean;
  slug: string;
  date_floating: boolean;
}

/**
 * The names of the REST-enabled taxonomies attached to a post type, in registration order
 * (what the `/types` `taxonomies` field lists).
 */
export function restTaxonomyNamesForType(postTypeName: string, taxonomies: Iterable<TaxonomyObject>): string[] {
  return getObjectTaxonomies(postTypeName, taxonomies)
    .filter((taxonomy) => taxonomy.show_in_rest)
    .map((taxonomy) => taxonomy.name);
}

/**
 * The statuses `/statuses` lists (before permission checks): every non-internal status, then `trash`.
 */
export function restListedStatuses(statuses: Iterable<PostStatusObject>): PostStatusObject[] {
  const listed: PostStatusObject[] = [];
  let trash: PostStatusObject | undefined;
  for (const status of statuses) {
    if (status.name === 'trash') {
      trash = status;
    } else if (!status.internal) {
      listed.push(status);
    }
  }
  if (trash) {
    listed.push(trash);
  }
  return listed;
}

/**
 * Post type REST data, like `WP_REST_Post_Types_Controller::prepare_item_for_response()`.
 *
 * @param taxonomiesOfType REST-enabled taxonomy names attached to the type (see {@link restTaxonomyNamesForType}).
 */
export function postTypeToRest(pt: PostTypeObject, taxonomiesOfType: readonly string[]): PostTypeRestData {
  return {
    capabilities: { ...pt.cap },
    description: pt.description,
    hierarchical: pt.hierarchical,
    has_archive: pt.has_archive,
    visibility: {
      show_in_nav_menus: Boolean(pt.show_in_nav_menus),
      show_ui: Boolean(pt.show_ui),
    },
    viewable: isPostTypeViewable(pt),
    labels: { ...pt.labels },
    name: pt.label,
    slug: pt.name,
    icon: pt.menu_icon,
    supports: { ...pt.supports },
    taxonomies: [...taxonomiesOfType],
    rest_base: pt.rest_base || pt.name,
    rest_namespace: pt.rest_namespace,
  };
}

/** Taxonomy REST data, like `WP_REST_Taxonomies_Controller::prepare_item_for_response()`. */
export function taxonomyToRest(tax: TaxonomyObject): TaxonomyRestData {
  return {
    name: tax.label,
    slug: tax.name,
    capabilities: { ...tax.cap },
    description: tax.description,
    labels: { ...tax.labels },
    types: [...tax.object_type],
    show_cloud: tax.show_tagcloud,
    hierarchical: tax.hierarchical,
    rest_base: tax.rest_base || tax.name,
    rest_namespace: tax.rest_namespace,
    visibility: {
      public: Boolean(tax.public),
      publicly_queryable: Boolean(tax.publicly_queryable),
      show_admin_column: Boolean(tax.show_admin_column),
      show_in_nav_menus: Boolean(tax.show_in_nav_menus),
      show_in_quick_edit: Boolean(tax.show_in_quick_edit),
      show_ui: Boolean(tax.show_ui),
    },
  };
}

/** Post status REST data, like `WP_REST_Post_Statuses_Controller::prepare_item_for_response()`. */
export function statusToRest(st: PostStatusObject): PostStatusRestData {
  return {
    name: st.label,
    private: Boolean(st.private),
    protected: Boolean(st.protected),
    public: Boolean(st.public),
    queryable: Boolean(st.publicly_queryable),
    show_in_list: Boolean(st.show_in_admin_all_list),
    slug: st.name,
    date_floating: st.date_floating,
  };
}
