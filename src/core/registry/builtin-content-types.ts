/**
 * Built-in content registrations, ported from WordPress 6.1's `create_initial_post_types()` and
 * `create_initial_taxonomies()`.
 *
 * Differences from WordPress: the block-editor/internal post types (wp_block, wp_template, wp_template_part,
 * wp_global_styles, wp_navigation, custom_css, customize_changeset, oembed_cache, user_request), the wp_theme and
 * wp_template_part_area taxonomies and the request-* statuses are not registered, and only post, page, attachment,
 * category and post_tag are exposed over REST (WordPress also exposes nav_menu_item and nav_menu; their REST
 * bases are kept here so they can be switched on later).
 *
 * The registrations are data (builtin-post-types.ts, builtin-taxonomies.ts, builtin-post-statuses.ts); this module
 * builds them.
 */
import {
  buildPostStatus,
  buildPostType,
  buildTaxonomy,
  registerTaxonomyForObjectType,
  type PostStatusObject,
  type PostTypeObject,
  type TaxonomyObject,
} from './content-types';
import { BUILTIN_POST_STATUSES } from './builtin-post-statuses';
import { BUILTIN_POST_TYPES } from './builtin-post-types';
import { BUILTIN_TAXONOMIES } from './builtin-taxonomies';

export { BUILTIN_POST_STATUSES } from './builtin-post-statuses';
export { BUILTIN_POST_TYPES } from './builtin-post-types';
export { BUILTIN_TAXONOMIES } from './builtin-taxonomies';

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
