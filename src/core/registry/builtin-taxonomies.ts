/** The taxonomies of WordPress 6.1's `create_initial_taxonomies()` (see builtin-content-types.ts). */
import { EP_MASK, type TaxonomyArgs } from './content-types';

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
      // The seed does not serve it: WordPress 5.9 exposed it (LATER_TAXONOMIES).
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

/**
 * What WordPress changed of these taxonomies after the seed, as `[name, objectTypes, args]` (the args) merged into the registration's
 * (`addedIn`: the WordPress version): the REST exposure of `nav_menu`, served by a resource of its own. Applied only
 * where the wire dialect lists later types (`listsLaterContentTypes`).
 */
export const LATER_TAXONOMIES: ReadonlyArray<readonly [string, readonly string[], TaxonomyArgs]> = [
  ['nav_menu', ['nav_menu_item'], { show_in_rest: true, addedIn: '5.9', restRoutes: 'own' }],
];
