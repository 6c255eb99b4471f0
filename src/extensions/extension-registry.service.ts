import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { ContentRegistry } from '../core/registry/content-registry.service';
import type { PostStatusArgs, PostTypeArgs, TaxonomyArgs } from '../core/registry/content-types';
import { RouteRegistry } from '../core/rest/route-registry.service';
import type { EndpointDefinition, RouteOptions } from '../core/rest/route-types';
import type {
  MetaKeyDefinition,
  RegisteredFields,
  RestFieldDefinition,
  SettingDefinition,
} from '../core/registry/field-types';

/**
 * The extension API: what a third party may add to the server. Calls must be made before the application has
 * bootstrapped (e.g. in an extension provider's `onModuleInit`); afterwards the registries are frozen and a
 * late call throws.
 *
 * @example
 * @Injectable()
 * export class ReadingTimeExtension implements OnModuleInit {
 *   constructor(private readonly cms: CmsExtensionRegistry) {}
 *   onModuleInit() {
 *     this.cms.registerRestField('post', 'reading_time', { get: (p) => 3, schema: { type: 'integer', context: ['view'] } });
 *   }
 * }
 */
@Injectable()
export class CmsExtensionRegistry implements OnApplicationBootstrap, RegisteredFields {
  private readonly fields = new Map<string, Map<string, RestFieldDefinition>>();
  private readonly meta = new Map<string, Map<string, MetaKeyDefinition>>();
  private readonly settingsMap = new Map<string, SettingDefinition>();
  private readonly templates = new Map<string, { name: string; postTypes: string[] }>();
  private frozen = false;

  constructor(
    private readonly routes: RouteRegistry,
    private readonly content: ContentRegistry,
  ) {}

  private assertOpen(what: string): void {
    if (this.frozen) throw new Error(`${what} must be registered before the application bootstraps (in onModuleInit).`);
  }

  /** Adds a field to one or more object types. */
  registerRestField(objectTypes: string | string[], name: string, definition: RestFieldDefinition): void {
    this.assertOpen(`REST field "${name}"`);
    for (const type of Array.isArray(objectTypes) ? objectTypes : [objectTypes]) {
      const map = this.fields.get(type) ?? new Map<string, RestFieldDefinition>();
      map.set(name, definition);
      this.fields.set(type, map);
    }
  }

  /** The additional fields of an object type. */
  restFields(objectType: string): ReadonlyMap<string, RestFieldDefinition> {
    return this.fields.get(objectType) ?? new Map();
  }

  /** Exposes a meta key of an object type (`post`, `comment`, `user`, `term`). */
  registerMeta(objectType: string, key: string, definition: MetaKeyDefinition): void {
    this.assertOpen(`Meta key "${key}"`);
    const map = this.meta.get(objectType) ?? new Map<string, MetaKeyDefinition>();
    map.set(key, { single: false, ...definition });
    this.meta.set(objectType, map);
  }

  /** Registered meta keys of an object type (optionally limited to a subtype), exposed or not. */
  metaKeys(objectType: string, subtype?: string): Array<[string, MetaKeyDefinition]> {
    return [...(this.meta.get(objectType) ?? new Map<string, MetaKeyDefinition>())].filter(
      ([, def]) => !def.subtype || !subtype || def.subtype === subtype,
    );
  }

  /** Registers a site option (stored in the options table under `option`); exposed in `settings` when `showInRest`. */
  registerSetting(option: string, definition: SettingDefinition): void {
    this.assertOpen(`Setting "${option}"`);
    this.settingsMap.set(option, definition);
  }

  /** Registered settings by option name, in registration order. */
  settings(): Array<[string, SettingDefinition]> {
    return [...this.settingsMap];
  }

  /**
   * Offers a page template (a theme's `Template Name:` file) for posts of the given types; posts store its file
   * name in `template`. Templates not offered are not kept.
   */
  registerPageTemplate(file: string, name: string, postTypes: string[] = ['page']): void {
    this.assertOpen(`Page template "${file}"`);
    this.templates.set(file, { name, postTypes });
  }

  /** The page templates offered for a post type, `file → name`. */
  pageTemplates(postType: string): Record<string, string> {
    return Object.fromEntries(
      [...this.templates].filter(([, t]) => t.postTypes.includes(postType)).map(([file, t]) => [file, t.name]),
    );
  }

  /**
   * Adds an image size (`add_image_size()`) made for every uploaded image larger than it, or replaces one of the same
   * name (`thumbnail`, `medium`, `medium_large`, `large` by default). A box of 0 on one side leaves it unbounded.
   */
  registerImageSize(name: string, size: { width: number; height: number; crop?: boolean }): void {
    this.imageSizeMap.set(name, {
      name,
      width: Math.max(0, Math.trunc(size.width)),
      height: Math.max(0, Math.trunc(size.height)),
      crop: size.crop ?? false,
    });
  }

  /**
   * Adds a role (`add_role()`), kept in code rather than in the `<prefix>user_roles` option: a role of the same name
   * stored in the database wins. Role names are the `roles` values users may get.
   */
  registerRole(name: string, role: { name: string; capabilities: Record<string, boolean> }): void {
    this.content.registerRole(name, role);
  }

  /** Image sizes registered by extensions, in registration order. */
  imageSizes(): Array<{ name: string; width: number; height: number; crop: boolean }> {
    return [...this.imageSizeMap.values()];
  }

  private readonly imageSizeMap = new Map<string, { name: string; width: number; height: number; crop: boolean }>();

  /** Adds a route in any namespace. */
  registerRoute(
    namespace: string,
    route: string,
    endpoints: EndpointDefinition | EndpointDefinition[],
    options?: RouteOptions,
  ): void {
    // The reference lets a handler read any parameter; an extension asks for strict arguments itself.
    // Nor is its answer cached unless it says it may be (`cacheable: true`).
    const list = (Array.isArray(endpoints) ? endpoints : [endpoints]).map((e) => ({
      ...e,
      strictArgs: e.strictArgs ?? false,
      cacheable: e.cacheable ?? false,
    }));
    this.routes.register(namespace, route, list, options);
  }

  registerPostType(name: string, args: PostTypeArgs): void {
    this.assertOpen(`Post type "${name}"`);
    this.content.registerPostType(name, args);
  }

  registerTaxonomy(name: string, objectTypes: string | string[], args: TaxonomyArgs): void {
    this.assertOpen(`Taxonomy "${name}"`);
    this.content.registerTaxonomy(name, Array.isArray(objectTypes) ? objectTypes : [objectTypes], args);
  }

  registerPostStatus(name: string, args: PostStatusArgs): void {
    this.assertOpen(`Post status "${name}"`);
    this.content.registerPostStatus(name, args);
  }

  /** Freezes the registries once every module has initialised (the reference's `rest_api_init` rule). */
  onApplicationBootstrap(): void {
    this.frozen = true;
    this.content.freeze();
  }
}
