/**
 * REST representations of post types, taxonomies and post statuses, as WordPress 6.1's
 * `WP_REST_Post_Types_Controller`, `WP_REST_Taxonomies_Controller` and `WP_REST_Post_Statuses_Controller`
 * prepare them (before context filtering, `_fields` filtering and links), plus their item schemas.
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

/** REST request context. */
export type RestContext = 'view' | 'edit' | 'embed';

/** A JSON-schema property as WordPress REST schemas declare them. */
export interface RestSchemaProperty {
  description?: string;
  type: string | string[];
  context?: RestContext[];
  readonly?: boolean;
  items?: RestSchemaProperty;
  properties?: Record<string, RestSchemaProperty>;
}

/** A WordPress REST item schema (the `schema` of an OPTIONS response). */
export interface RestItemSchema {
  $schema: string;
  title: string;
  type: 'object';
  properties: Record<string, RestSchemaProperty>;
}

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

/** Recursively freezes a plain JSON value. */
function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const child of Object.values(value)) {
      deepFreeze(child);
    }
    Object.freeze(value);
  }
  return value;
}

const JSON_SCHEMA_DRAFT_04 = 'http://json-schema.org/draft-04/schema#';

/** Item schema of `/types` (frozen; clone before extending), exactly as WordPress 6.1 returns it. */
export const POST_TYPE_SCHEMA: RestItemSchema = deepFreeze<RestItemSchema>({
  $schema: JSON_SCHEMA_DRAFT_04,
  title: 'type',
  type: 'object',
  properties: {
    capabilities: {
      description: 'All capabilities used by the post type.',
      type: 'object',
      context: ['edit'],
      readonly: true,
    },
    description: {
      description: 'A human-readable description of the post type.',
      type: 'string',
      context: ['view', 'edit'],
      readonly: true,
    },
    hierarchical: {
      description: 'Whether or not the post type should have children.',
      type: 'boolean',
      context: ['view', 'edit'],
      readonly: true,
    },
    viewable: {
      description: 'Whether or not the post type can be viewed.',
      type: 'boolean',
      context: ['edit'],
      readonly: true,
    },
    labels: {
      description: 'Human-readable labels for the post type for various contexts.',
      type: 'object',
      context: ['edit'],
      readonly: true,
    },
    name: {
      description: 'The title for the post type.',
      type: 'string',
      context: ['view', 'edit', 'embed'],
      readonly: true,
    },
    slug: {
      description: 'An alphanumeric identifier for the post type.',
      type: 'string',
      context: ['view', 'edit', 'embed'],
      readonly: true,
    },
    supports: {
      description: 'All features, supported by the post type.',
      type: 'object',
      context: ['edit'],
      readonly: true,
    },
    has_archive: {
      description:
        'If the value is a string, the value will be used as the archive slug. If the value is false the post type has no archive.',
      type: ['string', 'boolean'],
      context: ['view', 'edit'],
      readonly: true,
    },
    taxonomies: {
      description: 'Taxonomies associated with post type.',
      type: 'array',
      items: { type: 'string' },
      context: ['view', 'edit'],
      readonly: true,
    },
    rest_base: {
      description: 'REST base route for the post type.',
      type: 'string',
      context: ['view', 'edit', 'embed'],
      readonly: true,
    },
    rest_namespace: {
      description: "REST route's namespace for the post type.",
      type: 'string',
      context: ['view', 'edit', 'embed'],
      readonly: true,
    },
    visibility: {
      description: 'The visibility settings for the post type.',
      type: 'object',
      context: ['edit'],
      readonly: true,
      properties: {
        show_ui: {
          description: 'Whether to generate a default UI for managing this post type.',
          type: 'boolean',
        },
        show_in_nav_menus: {
          description: 'Whether to make the post type available for selection in navigation menus.',
          type: 'boolean',
        },
      },
    },
    icon: {
      description: 'The icon for the post type.',
      type: ['string', 'null'],
      context: ['view', 'edit', 'embed'],
      readonly: true,
    },
  },
});

/** Item schema of `/taxonomies` (frozen; clone before extending), exactly as WordPress 6.1 returns it. */
export const TAXONOMY_SCHEMA: RestItemSchema = deepFreeze<RestItemSchema>({
  $schema: JSON_SCHEMA_DRAFT_04,
  title: 'taxonomy',
  type: 'object',
  properties: {
    capabilities: {
      description: 'All capabilities used by the taxonomy.',
      type: 'object',
      context: ['edit'],
      readonly: true,
    },
    description: {
      description: 'A human-readable description of the taxonomy.',
      type: 'string',
      context: ['view', 'edit'],
      readonly: true,
    },
    hierarchical: {
      description: 'Whether or not the taxonomy should have children.',
      type: 'boolean',
      context: ['view', 'edit'],
      readonly: true,
    },
    labels: {
      description: 'Human-readable labels for the taxonomy for various contexts.',
      type: 'object',
      context: ['edit'],
      readonly: true,
    },
    name: {
      description: 'The title for the taxonomy.',
      type: 'string',
      context: ['view', 'edit', 'embed'],
      readonly: true,
    },
    slug: {
      description: 'An alphanumeric identifier for the taxonomy.',
      type: 'string',
      context: ['view', 'edit', 'embed'],
      readonly: true,
    },
    show_cloud: {
      description: 'Whether or not the term cloud should be displayed.',
      type: 'boolean',
      context: ['edit'],
      readonly: true,
    },
    types: {
      description: 'Types associated with the taxonomy.',
      type: 'array',
      items: { type: 'string' },
      context: ['view', 'edit'],
      readonly: true,
    },
    rest_base: {
      description: 'REST base route for the taxonomy.',
      type: 'string',
      context: ['view', 'edit', 'embed'],
      readonly: true,
    },
    rest_namespace: {
      description: 'REST namespace route for the taxonomy.',
      type: 'string',
      context: ['view', 'edit', 'embed'],
      readonly: true,
    },
    visibility: {
      description: 'The visibility settings for the taxonomy.',
      type: 'object',
      context: ['edit'],
      readonly: true,
      properties: {
        public: {
          description:
            'Whether a taxonomy is intended for use publicly either via the admin interface or by front-end users.',
          type: 'boolean',
        },
        publicly_queryable: {
          description: 'Whether the taxonomy is publicly queryable.',
          type: 'boolean',
        },
        show_ui: {
          description: 'Whether to generate a default UI for managing this taxonomy.',
          type: 'boolean',
        },
        show_admin_column: {
          description: 'Whether to allow automatic creation of taxonomy columns on associated post-types table.',
          type: 'boolean',
        },
        show_in_nav_menus: {
          description: 'Whether to make the taxonomy available for selection in navigation menus.',
          type: 'boolean',
        },
        show_in_quick_edit: {
          description: 'Whether to show the taxonomy in the quick/bulk edit panel.',
          type: 'boolean',
        },
      },
    },
  },
});

/** Item schema of `/statuses` (frozen; clone before extending), exactly as WordPress 6.1 returns it. */
export const POST_STATUS_SCHEMA: RestItemSchema = deepFreeze<RestItemSchema>({
  $schema: JSON_SCHEMA_DRAFT_04,
  title: 'status',
  type: 'object',
  properties: {
    name: {
      description: 'The title for the status.',
      type: 'string',
      context: ['embed', 'view', 'edit'],
      readonly: true,
    },
    private: {
      description: 'Whether posts with this status should be private.',
      type: 'boolean',
      context: ['edit'],
      readonly: true,
    },
    protected: {
      description: 'Whether posts with this status should be protected.',
      type: 'boolean',
      context: ['edit'],
      readonly: true,
    },
    public: {
      description: 'Whether posts of this status should be shown in the front end of the site.',
      type: 'boolean',
      context: ['view', 'edit'],
      readonly: true,
    },
    queryable: {
      description: 'Whether posts with this status should be publicly-queryable.',
      type: 'boolean',
      context: ['view', 'edit'],
      readonly: true,
    },
    show_in_list: {
      description: 'Whether to include posts in the edit listing for their post type.',
      type: 'boolean',
      context: ['edit'],
      readonly: true,
    },
    slug: {
      description: 'An alphanumeric identifier for the status.',
      type: 'string',
      context: ['embed', 'view', 'edit'],
      readonly: true,
    },
    date_floating: {
      description: 'Whether posts of this status may have floating published dates.',
      type: 'boolean',
      context: ['view', 'edit'],
      readonly: true,
    },
  },
});
