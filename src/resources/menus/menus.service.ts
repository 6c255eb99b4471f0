import { Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager, In } from 'typeorm';
import { CMS_DATA_SOURCE } from '../../core/database/cms-data-source';
import { PostMetaEntity } from '../../core/database/entities/post-meta.entity';
import { PostEntity } from '../../core/database/entities/post.entity';
import { TermRelationshipEntity } from '../../core/database/entities/term-relationship.entity';
import { TermTaxonomyEntity } from '../../core/database/entities/term-taxonomy.entity';
import { taxonomyTerms } from '../../core/database/term-queries';
import { takeWriteTurn, writeTransaction } from '../../core/database/write-transaction';
import { maybeSerialize, maybeUnserialize } from '../../core/formatting/php-serialize';
import { OptionsService } from '../../core/options/options.service';
import { SiteClock } from '../../core/options/site-clock';

/** The meta keys of a menu item (`wp_setup_nav_menu_item()` reads them). */
export const MENU_ITEM_META = [
  '_menu_item_type',
  '_menu_item_menu_item_parent',
  '_menu_item_object_id',
  '_menu_item_object',
  '_menu_item_target',
  '_menu_item_classes',
  '_menu_item_xfn',
  '_menu_item_url',
] as const;

/** A menu item as stored: its post row, its `_menu_item_*` meta (unserialized) and its menu. */
export interface MenuItemRow {
  post: PostEntity;
  meta: Record<string, unknown>;
  menuId: number;
}

/** Filters of a menu items collection. */
/** What `wp_update_nav_menu_item()` stores. */
export interface MenuItemWrite {
  menuId: number;
  position: number;
  status: string;
  title: string;
  description: string;
  attrTitle: string;
  parent: number;
  meta: Record<(typeof MENU_ITEM_META)[number], unknown>;
}

/**
 * The database side of navigation menus: the menu locations (the theme mod `nav_menu_locations`), the menus that
 * add new pages (`nav_menu_options`), and the `nav_menu_item` posts with their meta and menu, read in a fixed number
 * of queries and written each in one transaction.
 */
@Injectable()
export class MenusService {
  constructor(
    @Inject(CMS_DATA_SOURCE) private readonly dataSource: DataSource,
    private readonly options: OptionsService,
  ) {}

  /** The option holding the theme mods (`theme_mods_<stylesheet>`). */
  private async themeModsName(): Promise<string> {
    return `theme_mods_${String((await this.options.get('stylesheet', '')) ?? '')}`;
  }

  /** `get_nav_menu_locations()`: location → menu id. */
  async locations(): Promise<Record<string, number>> {
    const mods = await this.options.get<unknown>(await this.themeModsName(), {});
    const assigned = isRecord(mods) ? mods.nav_menu_locations : undefined;
    if (!isRecord(assigned)) return {};
    return Object.fromEntries(Object.entries(assigned).map(([name, id]) => [name, Number(id) || 0]));
  }

  /** `set_theme_mod( 'nav_menu_locations', ... )`. */
  async setLocations(locations: Record<string, number>): Promise<void> {
    const name = await this.themeModsName();
    await writeTransaction(this.dataSource, (em) =>
      this.options.updateWithin(em, name, (current) => ({
        ...(isRecord(current) ? current : {}),
        nav_menu_locations: locations,
      })),
    );
  }

  /** The menus that get new top-level pages (`nav_menu_options['auto_add']`). */
  async autoAdd(): Promise<number[]> {
    const options = await this.options.get<unknown>('nav_menu_options', {});
    const list = isRecord(options) ? options.auto_add : undefined;
    return Array.isArray(list) ? list.map(Number) : isRecord(list) ? Object.values(list).map(Number) : [];
  }

  /** Adds a menu to `auto_add` or takes it out (`handle_auto_add()`). */
  async setAutoAdd(menuId: number, on: boolean): Promise<void> {
    await writeTransaction(this.dataSource, (em) =>
      this.options.updateWithin(em, 'nav_menu_options', (current) => {
        const options = isRecord(current) ? { ...current } : {};
        const list = Array.isArray(options.auto_add) ? options.auto_add.map(Number) : [];
        const at = list.indexOf(menuId);
        if (on && at < 0) list.push(menuId);
        else if (!on && at >= 0) list.splice(at, 1);
        return { ...options, auto_add: list };
      }),
    );
  }

  /** The id of the menu named `name` (`get_term_by( 'name' )`), if any. */
  async menuNamed(name: string): Promise<number | null> {
    const row = await taxonomyTerms(this.dataSource, 'nav_menu')
      .select('t.id', 'id')
      .andWhere('t.name = :name', { name })
      .getRawOne<{ id: number }>();
    return row ? Number(row.id) : null;
  }

  /** The items of a menu (`wp_delete_nav_menu()` deletes them with it). */
  async itemIdsOfMenus(menuIds: number[]): Promise<Map<number, number[]>> {
    const out = new Map<number, number[]>(menuIds.map((id) => [id, []]));
    if (!menuIds.length) return out;
    const rows = await this.dataSource
      .getRepository(TermRelationshipEntity)
      .createQueryBuilder('r')
      .innerJoin(TermTaxonomyEntity, 'tt', 'tt.id = r.termTaxonomyId')
      .select(['r.objectId AS object_id', 'tt.termId AS term_id'])
      .where("tt.taxonomy = 'nav_menu'")
      .andWhere('tt.termId IN (:...menuIds)', { menuIds })
      .getRawMany<{ object_id: number; term_id: number }>();
    for (const row of rows) out.get(Number(row.term_id))?.push(Number(row.object_id));
    return out;
  }

  /** One page of menu items and the total. */
  /** Menu items by id (others are left out). */
  async findItems(ids: number[]): Promise<MenuItemRow[]> {
    if (!ids.length) return [];
    const posts = await this.dataSource
      .getRepository(PostEntity)
      .find({ where: { id: In(ids), type: 'nav_menu_item' } });
    return this.withMetaAndMenus(posts);
  }

  /** Posts by id, of any type (the objects menu items point at). */
  async posts(ids: number[]): Promise<Map<number, PostEntity>> {
    const unique = [...new Set(ids.filter((id) => id > 0))];
    if (!unique.length) return new Map();
    const rows = await this.dataSource.getRepository(PostEntity).find({ where: { id: In(unique) } });
    return new Map(rows.map((p) => [Number(p.id), p]));
  }

  /** The taxonomy of each term id (`get_term()` without a taxonomy): one query. */
  async termTaxonomies(ids: number[]): Promise<Map<number, string>> {
    const unique = [...new Set(ids.filter((id) => id > 0))];
    if (!unique.length) return new Map();
    const rows = await this.dataSource
      .getRepository(TermTaxonomyEntity)
      .find({ select: { termId: true, taxonomy: true }, where: { termId: In(unique) } });
    return new Map(rows.map((r) => [Number(r.termId), r.taxonomy]));
  }

  /** Meta and menus of menu item posts (in their order): two queries for all of them. */
  async withMetaAndMenus(posts: PostEntity[]): Promise<MenuItemRow[]> {
    if (!posts.length) return [];
    const ids = posts.map((p) => p.id);
    const meta = await this.dataSource
      .getRepository(PostMetaEntity)
      .find({ where: { postId: In(ids), key: In([...MENU_ITEM_META]) }, order: { id: 'ASC' } });
    const byPost = new Map<number, Record<string, unknown>>(ids.map((id) => [id, {}]));
    for (const m of meta) {
      const values = byPost.get(Number(m.postId))!;
      if (!(m.key! in values)) values[m.key!] = maybeUnserialize(m.value ?? '');
    }
    const menus = await this.dataSource
      .getRepository(TermRelationshipEntity)
      .createQueryBuilder('r')
      .innerJoin(TermTaxonomyEntity, 'tt', 'tt.id = r.termTaxonomyId')
      .select(['r.objectId AS object_id', 'tt.termId AS term_id'])
      .where("tt.taxonomy = 'nav_menu'")
      .andWhere('r.objectId IN (:...ids)', { ids })
      .orderBy('tt.termId', 'ASC')
      .getRawMany<{ object_id: number; term_id: number }>();
    const menuOf = new Map<number, number>();
    for (const row of menus)
      if (!menuOf.has(Number(row.object_id))) menuOf.set(Number(row.object_id), Number(row.term_id));
    return posts.map((post) => ({ post, meta: byPost.get(post.id) ?? {}, menuId: menuOf.get(post.id) ?? 0 }));
  }

  /** The last position in a menu (`wp_update_nav_menu_item()` puts a new item after it). */
  async lastPosition(menuId: number): Promise<number> {
    const ids = (await this.itemIdsOfMenus([menuId])).get(menuId) ?? [];
    if (!ids.length) return 0;
    const row = await this.dataSource
      .getRepository(PostEntity)
      .createQueryBuilder('p')
      .select('MAX(p.menuOrder)', 'last')
      .where('p.id IN (:...ids)', { ids })
      .andWhere("p.status IN ('publish', 'draft')")
      .getRawOne<{ last: number | null }>();
    return Number(row?.last ?? 0);
  }

  /** `wp_update_nav_menu_item()`: inserts (`id` 0) or updates the post, its menu and its meta. Returns its id. */
  async saveItem(id: number, write: MenuItemWrite, home: string): Promise<number> {
    const clock = SiteClock.fromOptions(await this.options.getMany(['timezone_string', 'gmt_offset']));
    return writeTransaction(this.dataSource, async (em) => {
      await takeWriteTurn(em);
      const posts = em.getRepository(PostEntity);
      const { local, gmt } = clock.now();
      const fields = {
        menuOrder: write.position,
        pingStatus: 'closed',
        content: write.description,
        excerpt: write.attrTitle,
        parent: write.parent,
        title: write.title,
        status: write.status,
        modified: local,
        modifiedGmt: gmt,
      };
      if (!id) {
        const inserted = await posts.insert({
          ...fields,
          type: 'nav_menu_item',
          commentStatus: 'closed',
          date: local,
          dateGmt: gmt,
          author: 0,
        });
        id = Number(inserted.identifiers[0].id);
        await posts.update({ id }, { name: String(id), guid: `${home}/?p=${id}` });
      } else {
        await posts.update({ id }, fields);
      }
      await this.setMenu(em, id, write.menuId);
      const meta = { ...write.meta };
      if (meta._menu_item_type === 'custom') {
        meta._menu_item_object_id = String(id);
        meta._menu_item_object = 'custom';
      }
      await this.writeMeta(em, id, meta);
      return id;
    });
  }

  /** Files the item in its menu (`wp_set_object_terms( nav_menu )`), its other menus dropped. */
  private async setMenu(em: EntityManager, id: number, menuId: number): Promise<void> {
    if (!menuId) return;
    const tt = await em.getRepository(TermTaxonomyEntity).findOne({ where: { termId: menuId, taxonomy: 'nav_menu' } });
    if (!tt) return;
    const rel = em.getRepository(TermRelationshipEntity);
    const current = await rel
      .createQueryBuilder('r')
      .innerJoin(TermTaxonomyEntity, 'tt', 'tt.id = r.termTaxonomyId')
      .select('r.termTaxonomyId', 'id')
      .where('r.objectId = :id', { id })
      .andWhere("tt.taxonomy = 'nav_menu'")
      .getRawMany<{ id: number }>();
    const ids = current.map((r) => Number(r.id));
    const others = ids.filter((ttId) => ttId !== tt.id);
    if (others.length) await rel.delete({ objectId: id, termTaxonomyId: In(others) });
    if (!ids.includes(tt.id)) await rel.insert({ objectId: id, termTaxonomyId: tt.id, termOrder: 0 });
    if (others.length || !ids.includes(tt.id)) await this.recount(em, [tt.id, ...others]);
  }

  /** The counts of nav menus: their items (`_update_generic_term_count()`, any status). */
  private async recount(em: EntityManager, ttIds: number[]): Promise<void> {
    for (const ttId of ttIds) {
      const count = await em.getRepository(TermRelationshipEntity).count({ where: { termTaxonomyId: ttId } });
      await em.getRepository(TermTaxonomyEntity).update({ id: ttId }, { count });
    }
  }

  private async writeMeta(em: EntityManager, id: number, meta: Record<string, unknown>): Promise<void> {
    const repo = em.getRepository(PostMetaEntity);
    await repo.delete({ postId: id, key: In([...Object.keys(meta), '_menu_item_orphaned']) });
    await repo.insert(Object.entries(meta).map(([key, value]) => ({ postId: id, key, value: maybeSerialize(value) })));
  }

  /** Deletes menu items and their meta and menus (`wp_delete_post( force )`); their children move up. */
  async deleteItems(ids: number[]): Promise<void> {
    if (!ids.length) return;
    await writeTransaction(this.dataSource, async (em) => {
      await takeWriteTurn(em);
      const rel = em.getRepository(TermRelationshipEntity);
      const ttIds = (await rel.find({ select: { termTaxonomyId: true }, where: { objectId: In(ids) } })).map(
        (r) => r.termTaxonomyId,
      );
      // wp_delete_post() of a menu item: its sub-items get its parent (_wp_delete_post_menu_item()).
      const metas = em.getRepository(PostMetaEntity);
      for (const id of ids) {
        const parent = await metas.findOne({ where: { postId: id, key: '_menu_item_menu_item_parent' } });
        await metas.update({ key: '_menu_item_menu_item_parent', value: String(id) }, { value: parent?.value ?? '0' });
      }
      await rel.delete({ objectId: In(ids) });
      await metas.delete({ postId: In(ids) });
      await em.getRepository(PostEntity).delete({ id: In(ids) });
      await this.recount(em, [...new Set(ttIds)]);
    });
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
