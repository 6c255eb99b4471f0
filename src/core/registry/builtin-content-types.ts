/**
 * Built-in content registrations, ported from WordPress 6.1's `create_initial_post_types()` and
 * `create_initial_taxonomies()`.
 *
 * Two views: the seed's (the default), where only post, page, attachment, category and post_tag are exposed over
 * REST; and WordPress 6.1's (`later`), which adds what WordPress added since (each marked `addedIn`): the REST
 * exposure of nav_menu_item and nav_menu, the wp_block, wp_template, wp_template_part and wp_navigation post types,
 * and the request-* statuses. The seed's view registers wp_block too, unlisted (its routes are served in every
 * dialect; `types` does not list it). Not registered in either: wp_global_styles, custom_css, customize_changeset,
 * oembed_cache, user_request, and the wp_theme and wp_template_part_area taxonomies.
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
  type PostTypeArgs,
  type PostTypeObject,
  type TaxonomyObject,
} from './content-types';
import { BUILTIN_POST_STATUSES, LATER_POST_STATUSES } from './builtin-post-statuses';
import { BUILTIN_POST_TYPES, EVERY_DIALECT_POST_TYPES, LATER_POST_TYPES } from './builtin-post-types';
import { BUILTIN_TAXONOMIES, LATER_TAXONOMIES } from './builtin-taxonomies';

export { BUILTIN_POST_STATUSES } from './builtin-post-statuses';
export { BUILTIN_POST_TYPES } from './builtin-post-types';
export { BUILTIN_TAXONOMIES } from './builtin-taxonomies';

/** The built-in post types, taxonomies and statuses, built and keyed by name (registration order kept). */
export interface BuiltinRegistry {
  postTypes: Map<string, PostTypeObject>;
  taxonomies: Map<string, TaxonomyObject>;
  statuses: Map<string, PostStatusObject>;
}

/** Which built-ins: the seed's (default), or WordPress 6.1's with what WordPress added since (`later`). */
export interface BuiltinRegistryOptions {
  later?: boolean;
}

/**
 * A registration list with the later one applied: an entry of `later` naming one of `list` merges its arguments
 * into that one's (in place), the others are appended.
 */
function withLater<T extends readonly unknown[]>(list: ReadonlyArray<T>, later: ReadonlyArray<T>, argsAt: number): T[] {
  const merged = list.map((entry) => [...entry] as unknown as T);
  for (const entry of later) {
    const found = merged.find((own) => own[0] === entry[0]) as unknown[] | undefined;
    if (found) found[argsAt] = { ...(found[argsAt] as object), ...(entry[argsAt] as object) };
    else merged.push(entry);
  }
  return merged;
}

/**
 * Builds {@link BUILTIN_POST_TYPES}, {@link BUILTIN_TAXONOMIES} and {@link BUILTIN_POST_STATUSES} (with the
 * `LATER_*` ones when `later`), attaching each post type's `taxonomies` to the matching taxonomy like
 * `register_post_type()` does.
 */
export function buildBuiltinRegistry(options: BuiltinRegistryOptions = {}): BuiltinRegistry {
  const pick = <T extends readonly unknown[]>(list: ReadonlyArray<T>, later: ReadonlyArray<T>, argsAt: number) =>
    options.later ? withLater(list, later, argsAt) : list;
  const taxonomies = new Map<string, TaxonomyObject>();
  for (const [name, objectTypes, args] of pick(BUILTIN_TAXONOMIES, LATER_TAXONOMIES, 2)) {
    taxonomies.set(name, buildTaxonomy(name, objectTypes, args));
  }
  const postTypes = new Map<string, PostTypeObject>();
  // The seed's view still serves the later types every dialect serves, unlisted.
  const everyDialect = LATER_POST_TYPES.filter(([name]) => EVERY_DIALECT_POST_TYPES.includes(name)).map(
    ([name, args]): readonly [string, PostTypeArgs] => [name, { ...args, unlisted: true }],
  );
  const postTypeList = options.later
    ? withLater(BUILTIN_POST_TYPES, LATER_POST_TYPES, 1)
    : [...BUILTIN_POST_TYPES, ...everyDialect];
  for (const [name, args] of postTypeList) {
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
  for (const [name, args] of pick(BUILTIN_POST_STATUSES, LATER_POST_STATUSES, 1)) {
    const status = buildPostStatus(name, args);
    statuses.set(status.name, status);
  }
  return { postTypes, taxonomies, statuses };
}
