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

export * from './content-basics';
export * from './post-types';
export * from './taxonomies';
export * from './post-statuses';
