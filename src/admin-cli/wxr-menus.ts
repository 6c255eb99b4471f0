import { PostMetaEntity } from '../core/database/entities/post-meta.entity';
import { writeTransaction } from '../core/database/write-transaction';
import { OptionsService } from '../core/options/options.service';
import { termIdsBySlug } from '../resources/posts/post-terms';
import { message, WxrImportContext } from './wxr-import-support';
import { WxrMeta } from './wxr-reader';
import { WxrTerms } from './wxr-terms';

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A menu item created by the import, whose object and parent ids are remapped once every item is in. */
interface CreatedMenuItem {
  id: number;
  label: string;
  meta: Map<string, string>;
}

/**
 * Navigation menus after the posts: menu items' object and parent ids remapped to the new ids (the WordPress
 * importer's `process_menu_item()`), and the theme locations of the file's menus set in the theme mod
 * `nav_menu_locations` (the `theme_mods_<stylesheet>` option, where the menus resource reads them).
 */
export class WxrMenus {
  private readonly options: OptionsService;
  private readonly items: CreatedMenuItem[] = [];
  /** Location → slug of the menu there, as in the file. */
  private readonly locations = new Map<string, string>();

  constructor(
    private readonly ctx: WxrImportContext,
    private readonly terms: WxrTerms,
  ) {
    this.options = ctx.get(OptionsService);
  }

  addItem(id: number, label: string, meta: WxrMeta[]): void {
    this.items.push({ id, label, meta: new Map(meta.map((m) => [m.key, m.value])) });
  }

  addLocation(location: string, menuSlug: string): void {
    this.locations.set(location, menuSlug);
  }

  /** Points each created menu item at the new ids of its object (a post or a term, or itself) and parent item. */
  async remapItems(postIds: ReadonlyMap<number, number>): Promise<void> {
    for (const item of this.items) {
      const kind = item.meta.get('_menu_item_type');
      const objectId = Number(item.meta.get('_menu_item_object_id') ?? 0);
      const parentId = Number(item.meta.get('_menu_item_menu_item_parent') ?? 0);
      const object =
        kind === 'taxonomy'
          ? this.terms.termOf(objectId)
          : kind === 'post_type'
            ? postIds.get(objectId)
            : kind === 'custom'
              ? item.id
              : objectId;
      const parent = parentId ? (postIds.get(parentId) ?? 0) : 0;
      if (object === undefined)
        this.ctx.report.note(
          `the ${kind === 'taxonomy' ? 'term' : 'post'} ${objectId} of menu item ${item.label} is not in the file; the item still points at it.`,
        );
      const values: Array<[string, string]> = [
        ['_menu_item_object_id', String(object ?? objectId)],
        ['_menu_item_menu_item_parent', String(parent)],
      ];
      await writeTransaction(this.ctx.dataSource, async (em) => {
        for (const [key, value] of values) {
          if (item.meta.has(key) && item.meta.get(key) !== value)
            await em.getRepository(PostMetaEntity).update({ postId: item.id, key }, { value });
        }
      });
    }
  }

  /**
   * Sets each location of the file to its menu here (`set_theme_mod( 'nav_menu_locations', ... )`), in one
   * transaction; locations the file does not name keep their menus. A location already on that menu is skipped.
   */
  async assignLocations(): Promise<void> {
    if (!this.locations.size) return;
    const modsName = `theme_mods_${String((await this.options.get('stylesheet', '')) ?? '')}`;
    const mods = await this.options.get<unknown>(modsName, {});
    const current = isRecord(mods) && isRecord(mods.nav_menu_locations) ? mods.nav_menu_locations : {};
    const changes: Record<string, number> = {};
    for (const [location, slug] of this.locations) {
      const label = `"${location}"`;
      const [menu] = await termIdsBySlug(this.ctx.dataSource, 'nav_menu', [slug]);
      if (menu === undefined && !this.ctx.dryRun) {
        this.ctx.report.failed('menu location', label, `the menu "${slug}" is not in the file or the site`);
      } else if (menu !== undefined && Number(current[location]) === menu) {
        this.ctx.report.skipped('menu location', label, `already on the menu "${slug}"`, { id: menu });
      } else {
        if (menu !== undefined) changes[location] = menu;
        this.ctx.report.created('menu location', label, { id: menu }, `on the menu "${slug}"`);
      }
    }
    if (this.ctx.dryRun || !Object.keys(changes).length) return;
    try {
      await writeTransaction(this.ctx.dataSource, (em) =>
        this.options.updateWithin(em, modsName, (value) => {
          const all = isRecord(value) ? value : {};
          const assigned = isRecord(all.nav_menu_locations) ? all.nav_menu_locations : {};
          return { ...all, nav_menu_locations: { ...assigned, ...changes } };
        }),
      );
    } catch (error) {
      for (const location of Object.keys(changes))
        this.ctx.report.failed('menu location', `"${location}"`, message(error));
    }
  }
}
