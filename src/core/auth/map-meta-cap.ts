/**
 * Port of WordPress 6.1's `map_meta_cap()` (wp-includes/capabilities.php) for a single site: turns a capability
 * (meta or primitive) and its arguments into the primitive capabilities a user must hold, plus the
 * `WP_User::has_cap()` check that follows it ({@link userHasAllCaps}).
 *
 * Framework-free: every read goes through {@link MetaCapLookups}, whose methods take either an id or an
 * already-loaded row (so callers that hold rows cause no queries).
 *
 * Differences from WordPress, all deliberate:
 * - single site only: `is_multisite()` is false everywhere; `is_super_admin()` is the single-site rule
 *   ("holds `delete_users`"), which only matters for `remove_user` on oneself;
 * - the file editors (`edit_files`, `edit_plugins`, `edit_themes`) are always `do_not_allow`, as with
 *   `DISALLOW_FILE_EDIT`; `DISALLOW_UNFILTERED_HTML` and `ALLOW_UNFILTERED_UPLOADS` are not set;
 * - `edit_user` on oneself needs a logged-in user (WordPress also lets the anonymous user 0 "edit" user 0);
 * - there are no filters: the `map_meta_cap` filter is replaced by {@link MetaCapLookups.override} (consulted
 *   first, for every capability, including the ones mapped recursively) and the `auth_{type}_meta_{key}`
 *   filters by {@link MetaCapLookups.authMeta}; protected (`_`-prefixed) meta keys map to `do_not_allow`
 *   (WordPress requires the meta capability itself, which no role holds);
 * - no `_doing_it_wrong()` notices: a missing object argument simply maps to `do_not_allow`.
 *
 * The mappings of posts (`meta-caps-posts.ts`), terms (`meta-caps-terms.ts`) and object meta (`meta-caps-meta.ts`)
 * have files of their own; users, comments and the site's capabilities are mapped here.
 */
import {
  DO_NOT_ALLOW,
  getComment,
  getPost,
  idOf,
  isset,
  MetaCapCall,
  MetaCapLookups,
  MetaCapUser,
  phpTruthy,
} from './meta-cap-lookups';
import { objectMetaCaps } from './meta-caps-meta';
import {
  BLOCK_CAPS,
  deletePostCaps,
  editPostCaps,
  postTypeMetaCaps,
  publishPostCaps,
  readPostCaps,
} from './meta-caps-posts';
import { termCaps } from './meta-caps-terms';

/**
 * The primitive capabilities `user` must hold for `cap` with `args` (WordPress 6.1's `map_meta_cap()`, single
 * site). `do_not_allow` in the result means "nobody"; `exist` is held by everyone (see {@link userHasAllCaps}).
 *
 * Object arguments (post, comment, user, term) may be ids or loaded rows.
 *
 * @example
 * await mapMetaCap('edit_post', user, [post], lookups); // ['edit_published_posts'] for the author of a published post
 */
export async function mapMetaCap(
  cap: string,
  user: MetaCapUser,
  args: readonly unknown[],
  lookups: MetaCapLookups,
): Promise<string[]> {
  return map(cap, user, args, lookups, 0);
}

async function map(
  cap: string,
  user: MetaCapUser,
  args: readonly unknown[],
  lookups: MetaCapLookups,
  depth: number,
): Promise<string[]> {
  if (depth > 16) return [DO_NOT_ALLOW];
  if (lookups.override) {
    const overridden = await lookups.override(cap, user, args);
    if (overridden) return [...overridden];
  }
  const recurse = (c: string, a: readonly unknown[]) => map(c, user, a, lookups, depth + 1);
  const { registry } = lookups;
  const call: MetaCapCall = { cap, user, args, lookups, recurse };
  const caps: string[] = [];

  switch (cap) {
    case 'remove_user': {
      // is_super_admin() on a single site: the user holds delete_users.
      if (isset(args[0]) && user.id > 0 && idOf(args[0]) === user.id && !user.hasCap('delete_users')) {
        caps.push(DO_NOT_ALLOW);
      } else {
        caps.push('remove_users');
      }
      return caps;
    }
    case 'promote_user':
    case 'add_users':
      return ['promote_users'];

    case 'edit_user':
    case 'edit_users':
      // Users may edit themselves.
      if (cap === 'edit_user' && isset(args[0]) && user.id > 0 && idOf(args[0]) === user.id) return [];
      return ['edit_users'];

    case 'delete_post':
    case 'delete_page':
      return deletePostCaps(call);

    case 'edit_post':
    case 'edit_page':
      return editPostCaps(call);

    case 'read_post':
    case 'read_page':
      return readPostCaps(call);

    case 'publish_post':
      return publishPostCaps(call);

    case 'edit_post_meta':
    case 'delete_post_meta':
    case 'add_post_meta':
    case 'edit_comment_meta':
    case 'delete_comment_meta':
    case 'add_comment_meta':
    case 'edit_term_meta':
    case 'delete_term_meta':
    case 'add_term_meta':
    case 'edit_user_meta':
    case 'delete_user_meta':
    case 'add_user_meta':
      return objectMetaCaps(call);

    case 'edit_comment': {
      if (!isset(args[0])) return [DO_NOT_ALLOW];
      const comment = await getComment(lookups, args[0]);
      if (!comment) return [DO_NOT_ALLOW];
      const post = await getPost(lookups, comment.postId);
      // An orphaned comment falls back to edit_posts.
      return post ? recurse('edit_post', [post]) : recurse('edit_posts', []);
    }

    case 'unfiltered_upload':
      // ALLOW_UNFILTERED_UPLOADS is not defined.
      return [DO_NOT_ALLOW];

    case 'edit_css':
    case 'unfiltered_html':
      // DISALLOW_UNFILTERED_HTML is not defined.
      return ['unfiltered_html'];

    case 'edit_files':
    case 'edit_plugins':
    case 'edit_themes':
      // As with DISALLOW_FILE_EDIT: the server's files are never edited through the API.
      return [DO_NOT_ALLOW];

    case 'update_plugins':
    case 'delete_plugins':
    case 'install_plugins':
    case 'upload_plugins':
    case 'update_themes':
    case 'delete_themes':
    case 'install_themes':
    case 'upload_themes':
    case 'update_core':
      if (cap === 'upload_themes') return ['install_themes'];
      if (cap === 'upload_plugins') return ['install_plugins'];
      return [cap];

    case 'install_languages':
    case 'update_languages':
      return ['install_languages'];

    case 'activate_plugins':
    case 'deactivate_plugins':
    case 'activate_plugin':
    case 'deactivate_plugin':
      return ['activate_plugins'];

    case 'resume_plugin':
      return ['resume_plugins'];
    case 'resume_theme':
      return ['resume_themes'];

    case 'delete_user':
    case 'delete_users':
      return ['delete_users'];

    case 'create_users':
      return [cap];

    case 'manage_links':
      return [phpTruthy(await lookups.option('link_manager_enabled')) ? cap : DO_NOT_ALLOW];

    case 'customize':
      return ['edit_theme_options'];

    case 'delete_site':
      return [DO_NOT_ALLOW];

    case 'edit_term':
    case 'delete_term':
    case 'assign_term':
      return termCaps(call);

    case 'manage_post_tags':
    case 'edit_categories':
    case 'edit_post_tags':
    case 'delete_categories':
    case 'delete_post_tags':
      return ['manage_categories'];

    case 'assign_categories':
    case 'assign_post_tags':
      return ['edit_posts'];

    case 'create_sites':
    case 'delete_sites':
    case 'manage_network':
    case 'manage_sites':
    case 'manage_network_users':
    case 'manage_network_plugins':
    case 'manage_network_themes':
    case 'manage_network_options':
    case 'upgrade_network':
      return [cap];

    case 'setup_network':
      return ['manage_options'];

    case 'update_php':
      return ['update_core'];

    case 'update_https':
      return ['manage_options', 'update_core'];

    case 'export_others_personal_data':
    case 'erase_others_personal_data':
    case 'manage_privacy_options':
      return ['manage_options'];

    case 'create_app_password':
    case 'list_app_passwords':
    case 'read_app_password':
    case 'edit_app_password':
    case 'delete_app_passwords':
    case 'delete_app_password':
      return recurse('edit_user', [args[0]]);

    default: {
      // Meta capabilities of post types registered with map_meta_cap (`edit_book` → `edit_post`).
      const core = postTypeMetaCaps(registry).get(cap);
      if (core) return recurse(core, args);
      if (BLOCK_CAPS.has(cap)) return [cap.replace('_blocks', '_posts')];
      return [cap];
    }
  }
}

/**
 * `WP_User::has_cap()` after the mapping: `true` when the user holds every capability of `caps`. Everyone has
 * `exist`, nobody has `do_not_allow`, and the grants of WordPress's default `user_has_cap` filters apply
 * (`install_languages` with `update_core`/`install_plugins`/`install_themes`, `resume_plugins` with
 * `activate_plugins`, `resume_themes` with `switch_themes`, `view_site_health_checks` with `install_plugins`).
 */
export function userHasAllCaps(user: Pick<MetaCapUser, 'hasCap'>, caps: readonly string[]): boolean {
  return caps.every((cap) => userHasPrimitiveCap(user, cap));
}

/** One primitive capability, as in {@link userHasAllCaps}. */
export function userHasPrimitiveCap(user: Pick<MetaCapUser, 'hasCap'>, cap: string): boolean {
  switch (cap) {
    case 'exist':
      return true;
    case DO_NOT_ALLOW:
      return false;
    case 'install_languages':
      return (
        user.hasCap(cap) ||
        user.hasCap('update_core') ||
        user.hasCap('install_plugins') ||
        user.hasCap('install_themes')
      );
    case 'resume_plugins':
      return user.hasCap(cap) || user.hasCap('activate_plugins');
    case 'resume_themes':
      return user.hasCap(cap) || user.hasCap('switch_themes');
    case 'view_site_health_checks':
      return user.hasCap(cap) || user.hasCap('install_plugins');
    default:
      return user.hasCap(cap);
  }
}
