/**
 * Built-in content registrations, ported from WordPress 6.1's `create_initial_post_types()` and
 * `create_initial_taxonomies()`.
 *
 * Differences from WordPress: the block-editor/internal post types (wp_block, wp_template, wp_template_part,
 * wp_global_styles, wp_navigation, custom_css, customize_changeset, oembed_cache, user_request), the wp_theme and
 * wp_template_part_area taxonomies and the request-* statuses are not registered, and only post, page, attachment,
 * category and post_tag are exposed over REST (WordPress also exposes nav_menu_item and nav_menu; their REST
 * bases are kept here so they can be switched on later).
 */
import {
  buildPostStatus,
  buildPostType,
  buildTaxonomy,
  EP_MASK,
  registerTaxonomyForObjectType,
  type PostStatusArgs,
  type PostStatusObject,
  type PostTypeArgs,
  type PostTypeObject,
  type TaxonomyArgs,
  type TaxonomyObject,
} from './content-types';

/** Built-in post types, in WordPress's registration order: `[name, args]`. */
export const BUILTIN_POST_TYPES: ReadonlyArray<readonly [string, PostTypeArgs]> = [
  [
    'post',
    {
      labels: { name_admin_bar: 'Post' },
      public: true,
      _builtin: true,
      capability_type: 'post',
      map_meta_cap: true,
      menu_position: 5,
      menu_icon: 'dashicons-admin-post',
      hierarchical: false,
      rewrite: false,
      query_var: false,
      delete_with_user: true,
      supports: [
        'title',
        'editor',
        'author',
        'thumbnail',
        'excerpt',
        'trackbacks',
        'custom-fields',
        'comments',
        'revisions',
        'post-formats',
      ],
      show_in_rest: true,
      rest_base: 'posts',
      rest_controller_class: 'WP_REST_Posts_Controller',
    },
  ],
  [
    'page',
    {
      labels: { name_admin_bar: 'Page' },
      public: true,
      publicly_queryable: false,
      _builtin: true,
      capability_type: 'page',
      map_meta_cap: true,
      menu_position: 20,
      menu_icon: 'dashicons-admin-page',
      hierarchical: true,
      rewrite: false,
      query_var: false,
      delete_with_user: true,
      supports: ['title', 'editor', 'author', 'thumbnail', 'page-attributes', 'custom-fields', 'comments', 'revisions'],
      show_in_rest: true,
      rest_base: 'pages',
      rest_controller_class: 'WP_REST_Posts_Controller',
    },
  ],
  [
    'attachment',
    {
      labels: {
        name: 'Media',
        name_admin_bar: 'Media',
        add_new: 'Add New',
        edit_item: 'Edit Media',
        view_item: 'View Attachment Page',
        attributes: 'Attachment Attributes',
      },
      public: true,
      show_ui: true,
      _builtin: true,
      capability_type: 'post',
      capabilities: { create_posts: 'upload_files' },
      map_meta_cap: true,
      menu_icon: 'dashicons-admin-media',
      hierarchical: false,
      rewrite: false,
      query_var: false,
      show_in_nav_menus: false,
      delete_with_user: true,
      supports: ['title', 'author', 'comments'],
      show_in_rest: true,
      rest_base: 'media',
      rest_controller_class: 'WP_REST_Attachments_Controller',
    },
  ],
  [
    'revision',
    {
      labels: { name: 'Revisions', singular_name: 'Revision' },
      public: false,
      _builtin: true,
      capability_type: 'post',
      map_meta_cap: true,
      hierarchical: false,
      rewrite: false,
      query_var: false,
      can_export: false,
      delete_with_user: true,
      supports: ['author'],
    },
  ],
  [
    'nav_menu_item',
    {
      labels: { name: 'Navigation Menu Items', singular_name: 'Navigation Menu Item' },
      public: false,
      _builtin: true,
      hierarchical: false,
      rewrite: false,
      delete_with_user: false,
      query_var: false,
      map_meta_cap: true,
      capability_type: ['edit_theme_options', 'edit_theme_options'],
      capabilities: {
        edit_post: 'edit_post',
        read_post: 'read_post',
        delete_post: 'delete_post',
        edit_posts: 'edit_theme_options',
        edit_others_posts: 'edit_theme_options',
        delete_posts: 'edit_theme_options',
        publish_posts: 'edit_theme_options',
        read_private_posts: 'edit_theme_options',
        read: 'read',
        delete_private_posts: 'edit_theme_options',
        delete_published_posts: 'edit_theme_options',
        delete_others_posts: 'edit_theme_options',
        edit_private_posts: 'edit_theme_options',
        edit_published_posts: 'edit_theme_options',
      },
      // WordPress 6.1 exposes it at wp/v2/menu-items; not served by this API (yet).
      show_in_rest: false,
      rest_base: 'menu-items',
      rest_controller_class: 'WP_REST_Menu_Items_Controller',
    },
  ],
];

/** Built-in taxonomies, in WordPress's registration order: `[name, objectTypes, args]`. */
export const BUILTIN_TAXONOMIES: ReadonlyArray<readonly [string, readonly string[], TaxonomyArgs]> = [
  [
    'category',
    ['post'],
    {
      hierarchical: true,
      query_var: 'category_name',
      // Rewrite as registered on `init` with the default (empty) category base.
      rewrite: { hierarchical: true, slug: 'category', with_front: true, ep_mask: EP_MASK.CATEGORIES },
      public: true,
      show_ui: true,
      show_admin_column: true,
      _builtin: true,
      capabilities: {
        manage_terms: 'manage_categories',
        edit_terms: 'edit_categories',
        delete_terms: 'delete_categories',
        assign_terms: 'assign_categories',
      },
      show_in_rest: true,
      rest_base: 'categories',
      rest_controller_class: 'WP_REST_Terms_Controller',
    },
  ],
  [
    'post_tag',
    ['post'],
    {
      hierarchical: false,
      query_var: 'tag',
      // Rewrite as registered on `init` with the default (empty) tag base.
      rewrite: { hierarchical: false, slug: 'tag', with_front: true, ep_mask: EP_MASK.TAGS },
      public: true,
      show_ui: true,
      show_admin_column: true,
      _builtin: true,
      capabilities: {
        manage_terms: 'manage_post_tags',
        edit_terms: 'edit_post_tags',
        delete_terms: 'delete_post_tags',
        assign_terms: 'assign_post_tags',
      },
      show_in_rest: true,
      rest_base: 'tags',
      rest_controller_class: 'WP_REST_Terms_Controller',
    },
  ],
  [
    'nav_menu',
    ['nav_menu_item'],
    {
      public: false,
      hierarchical: false,
      labels: { name: 'Navigation Menus', singular_name: 'Navigation Menu' },
      query_var: false,
      rewrite: false,
      show_ui: false,
      _builtin: true,
      show_in_nav_menus: false,
      capabilities: {
        manage_terms: 'edit_theme_options',
        edit_terms: 'edit_theme_options',
        delete_terms: 'edit_theme_options',
        assign_terms: 'edit_theme_options',
      },
      // WordPress 6.1 exposes it at wp/v2/menus; not served by this API (yet).
      show_in_rest: false,
      rest_base: 'menus',
      rest_controller_class: 'WP_REST_Menus_Controller',
    },
  ],
  [
    'link_category',
    ['link'],
    {
      hierarchical: false,
      labels: {
        name: 'Link Categories',
        singular_name: 'Link Category',
        search_items: 'Search Link Categories',
        popular_items: null,
        all_items: 'All Link Categories',
        edit_item: 'Edit Link Category',
        update_item: 'Update Link Category',
        add_new_item: 'Add New Link Category',
        new_item_name: 'New Link Category Name',
        separate_items_with_commas: null,
        add_or_remove_items: null,
        choose_from_most_used: null,
        back_to_items: '&larr; Go to Link Categories',
      },
      capabilities: {
        manage_terms: 'manage_links',
        edit_terms: 'manage_links',
        delete_terms: 'manage_links',
        assign_terms: 'manage_links',
      },
      query_var: false,
      rewrite: false,
      public: false,
      show_ui: true,
      _builtin: true,
    },
  ],
  [
    'post_format',
    ['post'],
    {
      public: true,
      hierarchical: false,
      labels: { name: 'Formats', singular_name: 'Format' },
      query_var: true,
      // `post_format_rewrite_base` default.
      rewrite: { slug: 'type' },
      show_ui: false,
      _builtin: true,
      // WordPress uses current_theme_supports( 'post-formats' ); there are no themes here.
      show_in_nav_menus: false,
    },
  ],
];

/** Built-in post statuses, in WordPress's registration order: `[name, args]` (request-* statuses omitted). */
export const BUILTIN_POST_STATUSES: ReadonlyArray<readonly [string, PostStatusArgs]> = [
  [
    'publish',
    {
      label: 'Published',
      public: true,
      _builtin: true,
      label_count: {
        singular: 'Published <span class="count">(%s)</span>',
        plural: 'Published <span class="count">(%s)</span>',
      },
    },
  ],
  [
    'future',
    {
      label: 'Scheduled',
      protected: true,
      _builtin: true,
      label_count: {
        singular: 'Scheduled <span class="count">(%s)</span>',
        plural: 'Scheduled <span class="count">(%s)</span>',
      },
    },
  ],
  [
    'draft',
    {
      label: 'Draft',
      protected: true,
      _builtin: true,
      label_count: {
        singular: 'Draft <span class="count">(%s)</span>',
        plural: 'Drafts <span class="count">(%s)</span>',
      },
      date_floating: true,
    },
  ],
  [
    'pending',
    {
      label: 'Pending',
      protected: true,
      _builtin: true,
      label_count: {
        singular: 'Pending <span class="count">(%s)</span>',
        plural: 'Pending <span class="count">(%s)</span>',
      },
      date_floating: true,
    },
  ],
  [
    'private',
    {
      label: 'Private',
      private: true,
      _builtin: true,
      label_count: {
        singular: 'Private <span class="count">(%s)</span>',
        plural: 'Private <span class="count">(%s)</span>',
      },
    },
  ],
  [
    'trash',
    {
      label: 'Trash',
      internal: true,
      _builtin: true,
      label_count: {
        singular: 'Trash <span class="count">(%s)</span>',
        plural: 'Trash <span class="count">(%s)</span>',
      },
      show_in_admin_status_list: true,
    },
  ],
  [
    'auto-draft',
    {
      label: 'auto-draft',
      internal: true,
      _builtin: true,
      date_floating: true,
    },
  ],
  [
    'inherit',
    {
      label: 'inherit',
      internal: true,
      _builtin: true,
      exclude_from_search: false,
    },
  ],
];

/** The built-in post types, taxonomies and statuses, built and keyed by name (registration order kept). */
export interface BuiltinRegistry {
  postTypes: Map<string, PostTypeObject>;
  taxonomies: Map<string, TaxonomyObject>;
  statuses: Map<string, PostStatusObject>;
}

/**
 * Builds {@link BUILTIN_POST_TYPES}, {@link BUILTIN_TAXONOMIES} and {@link BUILTIN_POST_STATUSES}, attaching each
 * post type's `taxonomies` to the matching taxonomy like `register_post_type()` does.
 */
export function buildBuiltinRegistry(): BuiltinRegistry {
  const taxonomies = new Map<string, TaxonomyObject>();
  for (const [name, objectTypes, args] of BUILTIN_TAXONOMIES) {
    taxonomies.set(name, buildTaxonomy(name, objectTypes, args));
  }
  const postTypes = new Map<string, PostTypeObject>();
  for (const [name, args] of BUILTIN_POST_TYPES) {
    const postType = buildPostType(name, args);
    postTypes.set(postType.name, postType);
    for (const taxonomyName of postType.taxonomies) {
      const taxonomy = taxonomies.get(taxonomyName);
      if (taxonomy) {
        taxonomies.set(taxonomyName, registerTaxonomyForObjectType(taxonomy, postType.name));
      }
    }
  }
  const statuses = new Map<string, PostStatusObject>();
  for (const [name, args] of BUILTIN_POST_STATUSES) {
    const status = buildPostStatus(name, args);
    statuses.set(status.name, status);
  }
  return { postTypes, taxonomies, statuses };
}
