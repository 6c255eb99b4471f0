import type { DataSource, EntityManager } from 'typeorm';
import { OptionEntity } from './entities/option.entity';
import { TermTaxonomyEntity } from './entities/term-taxonomy.entity';
import { TermEntity } from './entities/term.entity';
import { maybeSerialize } from '../formatting/php-serialize';

/** A role as WordPress stores it in the `{prefix}user_roles` option. */
export interface RoleDefinition {
  /** Display name (`'Administrator'`). */
  name: string;
  /** Capability → granted. */
  capabilities: Record<string, boolean>;
}

const grant = (capabilities: string[]): Record<string, boolean> =>
  Object.fromEntries(capabilities.map((capability) => [capability, true]));

// populate_roles_160()
const ADMIN_160 = [
  'switch_themes', 'edit_themes', 'activate_plugins', 'edit_plugins', 'edit_users', 'edit_files', 'manage_options',
  'moderate_comments', 'manage_categories', 'manage_links', 'upload_files', 'import', 'unfiltered_html', 'edit_posts',
  'edit_others_posts', 'edit_published_posts', 'publish_posts', 'edit_pages', 'read', 'level_10', 'level_9',
  'level_8', 'level_7', 'level_6', 'level_5', 'level_4', 'level_3', 'level_2', 'level_1', 'level_0',
]; // prettier-ignore
const EDITOR_160 = [
  'moderate_comments', 'manage_categories', 'manage_links', 'upload_files', 'unfiltered_html', 'edit_posts',
  'edit_others_posts', 'edit_published_posts', 'publish_posts', 'edit_pages', 'read', 'level_7', 'level_6',
  'level_5', 'level_4', 'level_3', 'level_2', 'level_1', 'level_0',
]; // prettier-ignore
const AUTHOR_160 = [
  'upload_files', 'edit_posts', 'edit_published_posts', 'publish_posts', 'read', 'level_2', 'level_1', 'level_0',
]; // prettier-ignore
// populate_roles_210(), administrator and editor
const PAGES_AND_POSTS_210 = [
  'edit_others_pages', 'edit_published_pages', 'publish_pages', 'delete_pages', 'delete_others_pages',
  'delete_published_pages', 'delete_posts', 'delete_others_posts', 'delete_published_posts', 'delete_private_posts',
  'edit_private_posts', 'read_private_posts', 'delete_private_pages', 'edit_private_pages', 'read_private_pages',
]; // prettier-ignore
// populate_roles_210() (users) to populate_roles_300(), administrator only
const ADMIN_210_300 = [
  'delete_users', 'create_users', 'unfiltered_upload', 'edit_dashboard', 'update_plugins', 'delete_plugins',
  'install_plugins', 'update_themes', 'install_themes', 'update_core', 'list_users', 'remove_users', 'promote_users',
  'edit_theme_options', 'delete_themes', 'export',
]; // prettier-ignore

/**
 * WordPress's five default roles with exactly the capabilities `populate_roles()` gives them (WordPress 6.1),
 * in the same order, so that `phpSerialize(DEFAULT_ROLES)` equals the `wp_user_roles` option of a fresh
 * WordPress install.
 */
export const DEFAULT_ROLES: Readonly<Record<string, RoleDefinition>> = {
  administrator: {
    name: 'Administrator',
    capabilities: grant([...ADMIN_160, ...PAGES_AND_POSTS_210, ...ADMIN_210_300]),
  },
  editor: { name: 'Editor', capabilities: grant([...EDITOR_160, ...PAGES_AND_POSTS_210]) },
  author: { name: 'Author', capabilities: grant([...AUTHOR_160, 'delete_posts', 'delete_published_posts']) },
  contributor: {
    name: 'Contributor',
    capabilities: grant(['edit_posts', 'read', 'level_1', 'level_0', 'delete_posts']),
  },
  subscriber: { name: 'Subscriber', capabilities: grant(['read', 'level_0']) },
};

/** `$wp_db_version` of the WordPress release whose schema and defaults are used (6.1). */
export const WP_DB_VERSION = 53496;

/** Options of {@link installSite}. */
export interface InstallSiteOptions {
  /** WordPress table prefix; names the `{prefix}user_roles` option. */
  tablePrefix: string;
  /** Site URL, stored as `siteurl` and `home` (without trailing slash). */
  siteUrl: string;
  /** `blogname` (default `'My CMS Site'`). */
  title?: string;
  /** `blogdescription` (default `''`). */
  description?: string;
  /** `admin_email` (default `'you@example.com'`, WordPress's). */
  adminEmail?: string;
  /** Install time, for `admin_email_lifespan` (default: now). */
  now?: Date;
}

/** Options that `populate_options()` stores with autoload `'no'`. */
const FAT_OPTIONS = new Set([
  'moderation_keys',
  'recently_edited',
  'disallowed_keys',
  'uninstall_plugins',
  'auto_plugin_theme_update_emails',
]);

const MONTH_IN_SECONDS = 30 * 24 * 60 * 60;

/**
 * The options of a fresh install, in WordPress's order: `populate_options()` defaults, then what `wp_install()`
 * adds or changes (roles, `fresh_site`, pretty permalinks `/%postname%/`).
 */
function defaultOptions(options: InstallSiteOptions): [string, unknown][] {
  const url = options.siteUrl.replace(/\/+$/, '');
  const now = options.now ?? new Date();
  const theme = 'twentytwentythree';
  return [
    ['siteurl', url],
    ['home', url],
    ['blogname', options.title ?? 'My CMS Site'],
    ['blogdescription', options.description ?? ''],
    ['users_can_register', 0],
    ['admin_email', options.adminEmail ?? 'you@example.com'],
    ['start_of_week', 1],
    ['use_balanceTags', 0],
    ['use_smilies', 1],
    ['require_name_email', 1],
    ['comments_notify', 1],
    ['posts_per_rss', 10],
    ['rss_use_excerpt', 0],
    ['mailserver_url', 'mail.example.com'],
    ['mailserver_login', 'login@example.com'],
    ['mailserver_pass', 'password'],
    ['mailserver_port', 110],
    ['default_category', 1],
    ['default_comment_status', 'open'],
    ['default_ping_status', 'open'],
    ['default_pingback_flag', 1],
    ['posts_per_page', 10],
    ['date_format', 'F j, Y'],
    ['time_format', 'g:i a'],
    ['links_updated_date_format', 'F j, Y g:i a'],
    ['comment_moderation', 0],
    ['moderation_notify', 1],
    ['permalink_structure', '/%postname%/'],
    ['rewrite_rules', ''],
    ['hack_file', 0],
    ['blog_charset', 'UTF-8'],
    ['moderation_keys', ''],
    ['active_plugins', []],
    ['category_base', ''],
    ['ping_sites', 'http://rpc.pingomatic.com/'],
    ['comment_max_links', 2],
    ['gmt_offset', 0],
    ['default_email_category', 1],
    ['recently_edited', ''],
    ['template', theme],
    ['stylesheet', theme],
    ['comment_registration', 0],
    ['html_type', 'text/html'],
    ['use_trackback', 0],
    ['default_role', 'subscriber'],
    ['db_version', WP_DB_VERSION],
    ['uploads_use_yearmonth_folders', 1],
    ['upload_path', ''],
    ['blog_public', '1'],
    ['default_link_category', 2],
    ['show_on_front', 'posts'],
    ['tag_base', ''],
    ['show_avatars', '1'],
    ['avatar_rating', 'G'],
    ['upload_url_path', ''],
    ['thumbnail_size_w', 150],
    ['thumbnail_size_h', 150],
    ['thumbnail_crop', 1],
    ['medium_size_w', 300],
    ['medium_size_h', 300],
    ['avatar_default', 'mystery'],
    ['large_size_w', 1024],
    ['large_size_h', 1024],
    ['image_default_link_type', 'none'],
    ['image_default_size', ''],
    ['image_default_align', ''],
    ['close_comments_for_old_posts', 0],
    ['close_comments_days_old', 14],
    ['thread_comments', 1],
    ['thread_comments_depth', 5],
    ['page_comments', 0],
    ['comments_per_page', 50],
    ['default_comments_page', 'newest'],
    ['comment_order', 'asc'],
    ['sticky_posts', []],
    ['widget_categories', []],
    ['widget_text', []],
    ['widget_rss', []],
    ['uninstall_plugins', []],
    ['timezone_string', ''],
    ['page_for_posts', 0],
    ['page_on_front', 0],
    ['default_post_format', 0],
    ['link_manager_enabled', 0],
    ['finished_splitting_shared_terms', 1],
    ['site_icon', 0],
    ['medium_large_size_w', 768],
    ['medium_large_size_h', 0],
    ['wp_page_for_privacy_policy', 0],
    ['show_comments_cookies_opt_in', 1],
    ['admin_email_lifespan', Math.floor(now.getTime() / 1000) + 6 * MONTH_IN_SECONDS],
    ['disallowed_keys', ''],
    ['comment_previously_approved', 1],
    ['auto_plugin_theme_update_emails', []],
    ['auto_update_core_dev', 'enabled'],
    ['auto_update_core_minor', 'enabled'],
    ['auto_update_core_major', 'enabled'],
    ['wp_force_deactivated_plugins', []],
    ['initial_db_version', WP_DB_VERSION],
    [`${options.tablePrefix}user_roles`, DEFAULT_ROLES],
    ['fresh_site', 1],
  ];
}

async function siteExists(manager: EntityManager): Promise<boolean> {
  return manager.getRepository(OptionEntity).exists({ where: { name: 'siteurl' } });
}

/**
 * First-start set-up of an empty site, like `wp_install()` minus the user and sample content: when the options
 * table has no `siteurl` row, inserts in one transaction WordPress's default options (values stored as by
 * `maybe_serialize()`, autoload `'yes'`/`'no'` as WordPress 6.1 does), the roles option
 * `{prefix}user_roles` ({@link DEFAULT_ROLES}) and the default category (term 1 "Uncategorized", slug
 * `uncategorized`, taxonomy `category`, count 0). The tables must exist (run the migrations first).
 *
 * @returns `true` when it installed, `false` when the site already existed (nothing is written then).
 */
export async function installSite(dataSource: DataSource, options: InstallSiteOptions): Promise<boolean> {
  try {
    return await dataSource.transaction(async (manager) => {
      if (await siteExists(manager)) return false;
      const rows = defaultOptions(options).map(([name, value]) => ({
        name,
        value: maybeSerialize(value),
        autoload: FAT_OPTIONS.has(name) ? 'no' : 'yes',
      }));
      await manager.createQueryBuilder().insert().into(OptionEntity).values(rows).updateEntity(false).execute();
      await manager
        .createQueryBuilder()
        .insert()
        .into(TermEntity)
        .values({ id: 1, name: 'Uncategorized', slug: 'uncategorized', group: 0 })
        .updateEntity(false)
        .execute();
      await manager
        .createQueryBuilder()
        .insert()
        .into(TermTaxonomyEntity)
        .values({ termId: 1, taxonomy: 'category', description: '', parent: 0, count: 0 })
        .updateEntity(false)
        .execute();
      return true;
    });
  } catch (error) {
    // Another process may have installed the site between our check and our insert (unique option_name).
    if (await siteExists(dataSource.manager)) return false;
    throw error;
  }
}
