import { Inject, Injectable, Optional } from '@nestjs/common';
import { CMS_OPTIONS, type ResolvedCmsOptions } from '../config/cms-options';
import { buildBuiltinRegistry } from './builtin-content-types';
import {
  buildPostStatus,
  buildPostType,
  buildTaxonomy,
  PostStatusArgs,
  PostStatusObject,
  PostTypeArgs,
  PostTypeObject,
  registerTaxonomyForObjectType,
  TaxonomyArgs,
  TaxonomyObject,
} from './content-types';
import { servedByGenericRoutes } from './registration-settings';
import { restTaxonomyNamesForType } from './rest-shapes';

/**
 * The post types, taxonomies and post statuses of the site: WordPress's built-ins plus those registered by
 * extensions. Frozen once the application has bootstrapped. The built-ins are the seed's, or, where the wire dialect
 * lists later content types (`listsLaterContentTypes`), WordPress 6.1's: then what WordPress added since (marked
 * `addedIn`: wp_block, the templates, wp_navigation, the REST exposure of nav_menu_item and nav_menu, the
 * request-* statuses) is registered too, so that every answer that reads the registry follows.
 */
@Injectable()
export class ContentRegistry {
  private readonly postTypes: Map<string, PostTypeObject>;
  private readonly taxonomies: Map<string, TaxonomyObject>;
  private readonly statuses: Map<string, PostStatusObject>;
  private frozen = false;

  constructor(@Optional() @Inject(CMS_OPTIONS) options?: ResolvedCmsOptions) {
    const builtins = buildBuiltinRegistry({ later: options?.wire.dialect.listsLaterContentTypes ?? false });
    this.postTypes = builtins.postTypes;
    this.taxonomies = builtins.taxonomies;
    this.statuses = builtins.statuses;
  }

  private assertOpen(): void {
    if (this.frozen) throw new Error('The content registry is frozen: register types in onModuleInit.');
  }

  registerPostType(name: string, args: PostTypeArgs): PostTypeObject {
    this.assertOpen();
    const postType = buildPostType(name, args);
    this.postTypes.set(postType.name, postType);
    for (const taxonomyName of postType.taxonomies) {
      const taxonomy = this.taxonomies.get(taxonomyName);
      if (taxonomy) this.taxonomies.set(taxonomyName, registerTaxonomyForObjectType(taxonomy, postType.name));
    }
    return postType;
  }

  registerTaxonomy(name: string, objectTypes: string[], args: TaxonomyArgs): TaxonomyObject {
    this.assertOpen();
    const taxonomy = buildTaxonomy(name, objectTypes, args);
    this.taxonomies.set(taxonomy.name, taxonomy);
    return taxonomy;
  }

  registerPostStatus(name: string, args: PostStatusArgs): PostStatusObject {
    this.assertOpen();
    const status = buildPostStatus(name, args);
    this.statuses.set(status.name, status);
    return status;
  }

  /** Adds a role kept in code (`add_role()` of an extension); a role of the same name stored in the database wins. */
  registerRole(name: string, role: { name: string; capabilities: Record<string, boolean> }): void {
    this.roleMap.set(name, { name: role.name, capabilities: { ...role.capabilities } });
  }

  /** Roles registered in code. */
  registeredRoles(): Record<string, { name: string; capabilities: Record<string, boolean> }> {
    return Object.fromEntries(this.roleMap);
  }

  private readonly roleMap = new Map<string, { name: string; capabilities: Record<string, boolean> }>();

  freeze(): void {
    this.frozen = true;
  }

  postType(name: string): PostTypeObject | undefined {
    return this.postTypes.get(name);
  }

  allPostTypes(): PostTypeObject[] {
    return [...this.postTypes.values()];
  }

  /**
   * Post types the posts routes serve: `show_in_rest`, and no resource of their own (`restRoutes`; nav_menu_item)
   * nor listed only (the templates, wp_navigation).
   */
  restPostTypes(): PostTypeObject[] {
    return this.allPostTypes().filter(servedByGenericRoutes);
  }

  /**
   * Every post type `show_in_rest` (what `types` lists, as WordPress's `get_post_types( show_in_rest )`), except
   * those served `unlisted` (the seed's view of reusable blocks).
   */
  listedPostTypes(): PostTypeObject[] {
    return this.allPostTypes().filter((t) => t.show_in_rest && !t.unlisted);
  }

  taxonomy(name: string): TaxonomyObject | undefined {
    return this.taxonomies.get(name);
  }

  allTaxonomies(): TaxonomyObject[] {
    return [...this.taxonomies.values()];
  }

  /** Taxonomies the terms routes serve: `show_in_rest`, and no resource of their own (`restRoutes`; nav_menu). */
  restTaxonomies(): TaxonomyObject[] {
    return this.allTaxonomies().filter(servedByGenericRoutes);
  }

  /** Every taxonomy `show_in_rest` (what `taxonomies` lists). */
  listedTaxonomies(): TaxonomyObject[] {
    return this.allTaxonomies().filter((t) => t.show_in_rest);
  }

  /** REST-enabled (`show_in_rest`) taxonomy names of a post type, in registration order. */
  restTaxonomiesOfType(postType: string): string[] {
    return restTaxonomyNamesForType(postType, this.taxonomies.values());
  }

  status(name: string): PostStatusObject | undefined {
    return this.statuses.get(name);
  }

  allStatuses(): PostStatusObject[] {
    return [...this.statuses.values()];
  }
}
