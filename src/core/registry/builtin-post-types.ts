/** The post types of WordPress 6.1's `create_initial_post_types()` registered here (see builtin-content-types.ts). */
import { type PostTypeArgs } from './content-types';
import laterLabels from './later-post-type-labels.json';

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
      // The seed does not serve it: WordPress 5.9 exposed it (LATER_POST_TYPES).
      show_in_rest: false,
      rest_base: 'menu-items',
      rest_controller_class: 'WP_REST_Menu_Items_Controller',
    },
  ],
];

/**
 * The later types served with the seed's names too (new routes break nothing), registered there unlisted
 * (`unlisted`): `types` stays the seed's. Reusable blocks.
 */
export const EVERY_DIALECT_POST_TYPES: readonly string[] = ['wp_block'];

/** The capabilities of the types only `edit_theme_options` may write (templates, template parts, navigation). */
const THEME_OPTIONS_CAPS = {
  create_posts: 'edit_theme_options',
  delete_posts: 'edit_theme_options',
  delete_others_posts: 'edit_theme_options',
  delete_private_posts: 'edit_theme_options',
  delete_published_posts: 'edit_theme_options',
  edit_posts: 'edit_theme_options',
  edit_others_posts: 'edit_theme_options',
  edit_private_posts: 'edit_theme_options',
  edit_published_posts: 'edit_theme_options',
  publish_posts: 'edit_theme_options',
  read_private_posts: 'edit_theme_options',
};

/**
 * What WordPress added to its REST post types after the seed, in registration order: `[name, args]`, each with
 * `addedIn` (the WordPress version). A name of {@link BUILTIN_POST_TYPES} changes that type's arguments (its REST
 * exposure); any other is a type of its own, appended. Registered only where the wire dialect lists them
 * (`listsLaterContentTypes`). `restRoutes` says who serves a type: its own resource (`own`) or nobody (`none`: listed
 * by `types`, its routes not served); without it, the posts routes serve it.
 */
export const LATER_POST_TYPES: ReadonlyArray<readonly [string, PostTypeArgs]> = [
  ['nav_menu_item', { show_in_rest: true, addedIn: '5.9', restRoutes: 'own' }],
  [
    'wp_block',
    {
      labels: laterLabels.wp_block,
      public: false,
      _builtin: true,
      show_ui: true,
      show_in_menu: false,
      rewrite: false,
      show_in_rest: true,
      rest_base: 'blocks',
      rest_controller_class: 'WP_REST_Blocks_Controller',
      capability_type: 'block',
      capabilities: {
        // You need to be able to edit posts, in order to read blocks in their raw form.
        read: 'edit_posts',
        // You need to be able to publish posts, in order to create blocks.
        create_posts: 'publish_posts',
        edit_posts: 'edit_posts',
        edit_published_posts: 'edit_published_posts',
        delete_published_posts: 'delete_published_posts',
        edit_others_posts: 'edit_others_posts',
        delete_others_posts: 'delete_others_posts',
      },
      map_meta_cap: true,
      supports: ['title', 'editor', 'revisions'],
      addedIn: '5.0',
    },
  ],
  [
    'wp_template',
    {
      labels: laterLabels.wp_template,
      description: 'Templates to include in your theme.',
      public: false,
      _builtin: true,
      has_archive: false,
      show_ui: false,
      show_in_menu: false,
      show_in_rest: true,
      rewrite: false,
      rest_base: 'templates',
      rest_controller_class: 'WP_REST_Templates_Controller',
      capability_type: ['template', 'templates'],
      capabilities: { ...THEME_OPTIONS_CAPS, read: 'edit_theme_options' },
      map_meta_cap: true,
      supports: ['title', 'slug', 'excerpt', 'editor', 'revisions', 'author'],
      addedIn: '5.8',
      restRoutes: 'none',
    },
  ],
  [
    'wp_template_part',
    {
      labels: laterLabels.wp_template_part,
      description: 'Template parts to include in your templates.',
      public: false,
      _builtin: true,
      has_archive: false,
      show_ui: false,
      show_in_menu: false,
      show_in_rest: true,
      rewrite: false,
      rest_base: 'template-parts',
      rest_controller_class: 'WP_REST_Templates_Controller',
      map_meta_cap: true,
      capabilities: { ...THEME_OPTIONS_CAPS, read: 'edit_theme_options' },
      supports: ['title', 'slug', 'excerpt', 'editor', 'revisions', 'author'],
      addedIn: '5.9',
      restRoutes: 'none',
    },
  ],
  [
    'wp_navigation',
    {
      labels: laterLabels.wp_navigation,
      description: 'Navigation menus that can be inserted into your site.',
      public: false,
      _builtin: true,
      has_archive: false,
      show_ui: true,
      show_in_menu: false,
      show_in_admin_bar: false,
      show_in_rest: true,
      rewrite: false,
      map_meta_cap: true,
      capabilities: THEME_OPTIONS_CAPS,
      rest_base: 'navigation',
      rest_controller_class: 'WP_REST_Posts_Controller',
      supports: ['title', 'editor', 'revisions'],
      addedIn: '5.9',
      restRoutes: 'none',
    },
  ],
];
