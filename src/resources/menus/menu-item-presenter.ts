import type { PostEntity } from '../../core/database/entities/post.entity';
import { applyTitleFilters, wpTrimWords } from '../../core/formatting';
import type { OptionsService } from '../../core/options/options.service';
import type { ContentRegistry } from '../../core/registry/content-registry.service';
import { permalink, PLAIN_LINK_STATUSES } from '../../core/rest/permalink';
import type { RestRequest } from '../../core/rest/rest-request';
import { linkMap, type LinkMap } from '../../core/rest/rest-response';
import type { TermRow, TermsService } from '../terms';
import { sanitizeHtmlClass } from './menu-schema';
import type { MenuItemRow, MenusService } from './menus.service';

/** A menu item as `wp_setup_nav_menu_item()` makes it. */
export interface NavMenuItem {
  id: number;
  title: string;
  status: string;
  url: string;
  attrTitle: string;
  description: string;
  type: string;
  typeLabel: string;
  object: string;
  objectId: number;
  parent: number;
  menuOrder: number;
  target: string;
  classes: string[];
  xfn: string;
  invalid: boolean;
  menuId: number;
  /** The REST route of the post or term the item points at, and its type (`menu-item-object` link). */
  objectRoute?: { path: string; type: string };
  /** The row, for the post parent kept on updates. */
  post: PostEntity;
}

/** What setting up a set of items loads once: the posts and terms they point at, and the home URL. */
export interface MenuItemBatch {
  home: string;
  posts: Map<number, PostEntity>;
  terms: Map<string, Map<number, TermRow>>;
}

/** `wp_setup_nav_menu_item()` and the fields and links of WP_REST_Menu_Items_Controller::prepare_item_for_response(). */
export class MenuItemPresenter {
  constructor(
    private readonly deps: {
      content: ContentRegistry;
      terms: TermsService;
      menus: MenusService;
      options: OptionsService;
    },
    private readonly namespace: string,
  ) {}

  /** The posts and terms the items point at: one query for the posts, one per taxonomy for the terms. */
  async batchOf(rows: MenuItemRow[], req: RestRequest): Promise<MenuItemBatch> {
    const home = String((await this.deps.options.get('home', req.ctx.baseUrl)) ?? req.ctx.baseUrl).replace(/\/+$/, '');
    const of = (type: string) => rows.filter((r) => r.meta._menu_item_type === type);
    const posts = await this.deps.menus.posts(of('post_type').map((r) => Number(r.meta._menu_item_object_id)));
    const byTaxonomy = new Map<string, number[]>();
    for (const row of of('taxonomy')) {
      const taxonomy = text(row.meta._menu_item_object);
      byTaxonomy.set(taxonomy, [...(byTaxonomy.get(taxonomy) ?? []), Number(row.meta._menu_item_object_id)]);
    }
    const terms = new Map<string, Map<number, TermRow>>();
    for (const [taxonomy, ids] of byTaxonomy) {
      const found = await this.deps.terms.findByIds(taxonomy, ids);
      terms.set(taxonomy, new Map(found.map((t) => [t.termId, t])));
    }
    return { home, posts, terms };
  }

  /** `wp_setup_nav_menu_item()`. */
  setup(row: MenuItemRow, batch: MenuItemBatch): NavMenuItem {
    const { post, meta } = row;
    const type = text(meta._menu_item_type);
    const object = text(meta._menu_item_object);
    const objectId = Number(meta._menu_item_object_id ?? 0) || 0;
    const classes = Array.isArray(meta._menu_item_classes)
      ? meta._menu_item_classes.map(String)
      : meta._menu_item_classes && typeof meta._menu_item_classes === 'object'
        ? Object.values(meta._menu_item_classes).map(String)
        : [];
    const item: NavMenuItem = {
      id: post.id,
      title: post.title,
      status: post.status,
      url: text(meta._menu_item_url),
      attrTitle: post.excerpt,
      description: wpTrimWords(post.content, 200),
      type,
      typeLabel: '',
      object,
      objectId,
      parent: Number(meta._menu_item_menu_item_parent ?? 0) || 0,
      menuOrder: Number(post.menuOrder),
      target: text(meta._menu_item_target),
      classes,
      xfn: text(meta._menu_item_xfn),
      invalid: false,
      menuId: row.menuId,
      post,
    };
    const noTitle = () => `#${objectId} (no title)`;
    if (type === 'post_type') {
      const postType = this.deps.content.postType(object);
      item.typeLabel = postType ? (postType.labels.singular_name ?? '') : object;
      if (!postType) item.invalid = true;
      const original = batch.posts.get(objectId);
      if (original) {
        if (original.status === 'trash') item.invalid = true;
        const originalType = this.deps.content.postType(original.type);
        item.url = originalType
          ? permalink(original, originalType, batch.home, new Map(), !PLAIN_LINK_STATUSES.includes(original.status))
          : '';
        const title = applyTitleFilters(original.title);
        item.title = post.title === '' ? title || noTitle() : post.title;
        const route = originalType?.show_in_rest ? `${originalType.rest_namespace}/${originalType.rest_base}` : '';
        if (route) item.objectRoute = { path: `${route}/${objectId}`, type: original.type };
      } else {
        item.url = '';
        item.invalid = true;
        item.title = post.title === '' ? noTitle() : post.title;
      }
    } else if (type === 'post_type_archive') {
      const postType = this.deps.content.postType(object);
      if (postType) {
        item.title = post.title === '' ? (postType.labels.archives ?? '') : post.title;
        item.url = postType.has_archive
          ? `${batch.home}/${typeof postType.has_archive === 'string' ? postType.has_archive : postType.name}/`
          : '';
      } else item.invalid = true;
      item.typeLabel = 'Post Type Archive';
    } else if (type === 'taxonomy') {
      const taxonomy = this.deps.content.taxonomy(object);
      item.typeLabel = taxonomy ? (taxonomy.labels.singular_name ?? '') : object;
      if (!taxonomy) item.invalid = true;
      const term = batch.terms.get(object)?.get(objectId);
      if (term && taxonomy) {
        item.url = termLink(term, taxonomy.rewrite ? taxonomy.rewrite.slug : '', taxonomy.query_var, batch.home);
        item.title = post.title === '' ? term.name || noTitle() : post.title;
        if (taxonomy.show_in_rest)
          item.objectRoute = { path: `${taxonomy.rest_namespace}/${taxonomy.rest_base}/${objectId}`, type: object };
      } else {
        item.url = '';
        item.invalid = true;
        item.title = post.title === '' ? noTitle() : post.title;
      }
    } else {
      item.typeLabel = 'Custom Link';
    }
    return item;
  }

  /** The item's fields, in the reference's order. */
  data(item: NavMenuItem): Record<string, unknown> {
    return {
      id: item.id,
      title: { raw: item.title, rendered: applyTitleFilters(item.title) },
      status: item.status,
      url: item.url,
      attr_title: item.attrTitle,
      description: item.description,
      type: item.type,
      type_label: item.typeLabel,
      object: item.object,
      object_id: Math.abs(item.objectId),
      parent: item.parent,
      menu_order: item.menuOrder,
      target: item.target,
      classes: item.classes,
      xfn: item.xfn.split(' ').map(sanitizeHtmlClass),
      invalid: item.invalid,
      meta: [],
      menus: item.menuId,
    };
  }

  /** The posts controller's links of the item, `wp:term` of its menu and `menu-item-object`. */
  links(item: NavMenuItem, req: RestRequest, relBase: string): LinkMap {
    const url = (path: string) => req.ctx.restUrl(path);
    const base = `${this.namespace}/menu-items`;
    const links = linkMap({
      self: { href: url(`${base}/${item.id}`) },
      collection: { href: url(base) },
      about: { href: url(`${this.namespace}/types/nav_menu_item`) },
      [`${relBase}term`]: {
        href: url(`${this.namespace}/menus?post=${item.id}`),
        taxonomy: 'nav_menu',
        embeddable: true,
      },
    });
    if (item.objectId && item.objectRoute) {
      links.set(`${relBase}menu-item-object`, [
        { href: url(item.objectRoute.path), attributes: { [item.type]: item.objectRoute.type, embeddable: true } },
      ]);
    }
    return links;
  }
}

/** `get_term_link()` of a flat term with `/%postname%/` permalinks. */
function termLink(term: TermRow, slug: string, queryVar: string | false, home: string): string {
  if (slug) return `${home}/${slug}/${term.slug}/`;
  return queryVar ? `${home}/?${queryVar}=${term.slug}` : `${home}/?taxonomy=${term.taxonomy}&term=${term.slug}`;
}

/** A stored scalar as text (anything else: empty). */
function text(value: unknown): string {
  return typeof value === 'string' || typeof value === 'number' ? String(value) : '';
}
