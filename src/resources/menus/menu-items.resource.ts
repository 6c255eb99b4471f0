import { Injectable } from '@nestjs/common';
import { HookRegistry } from '../../core/hooks/hook-registry.service';
import { RestException } from '../../core/errors/rest.exception';
import { escUrlRaw } from '../../core/formatting/esc-url';
import { ItemSchema, RouteArg } from '../../core/json-schema/json-schema';
import { OptionsService } from '../../core/options/options.service';
import { ContentRegistry } from '../../core/registry/content-registry.service';
import { sanitizeKey } from '../../core/registry/content-types';
import { CollectionQuery } from '../../core/rest/collection-query';
import { RestResource } from '../../core/rest/rest-resource';
import { RestRequest } from '../../core/rest/rest-request';
import { RestResponse } from '../../core/rest/rest-response';
import { RestServer } from '../../core/rest/rest-server.service';
import { Methods } from '../../core/rest/route-types';
import { CmsExtensionRegistry } from '../../extensions/extension-registry.service';
import { SiteClock } from '../../core/options/site-clock';
import { PostTypeObject, TaxonomyObject } from '../../core/registry/content-types';
import { availableActions, postCollectionArgs, PostListArgs, postListQuery, PostsService, schemaLinks } from '../posts';
import { TermsService } from '../terms';
import { MenuItemPresenter, NavMenuItem } from './menu-item-presenter';
import { MenuPolicies, routeId } from './menu-policies';
import { MENU_ITEM_ID, menuItemCollectionArgs, menuItemSchema, MenuItemWriteArgs } from './menu-schema';
import { MenuItemRow, MenusService } from './menus.service';

const READ_REFUSED = 'Sorry, you are not allowed to view menu items.';

/**
 * `menu-items` and `menu-items/<id>`: the `nav_menu_item` posts with their `_menu_item_*` meta (mirrors
 * WP_REST_Menu_Items_Controller; routes in MenusHandlers). Items have no trash: a delete needs `force`.
 */
@Injectable()
export class MenuItemsResource extends RestResource {
  readonly restBase = 'menu-items';
  readonly policies: MenuPolicies;
  private readonly presenter: MenuItemPresenter;

  constructor(
    server: RestServer,
    extensions: CmsExtensionRegistry,
    hooks: HookRegistry,
    private readonly content: ContentRegistry,
    private readonly terms: TermsService,
    private readonly menus: MenusService,
    private readonly options: OptionsService,
    private readonly posts: PostsService,
  ) {
    super(server, extensions, hooks);
    this.policies = new MenuPolicies(content);
    this.presenter = new MenuItemPresenter({ content, terms, menus, options }, this.namespace);
  }

  /** `get_post_stati( array( 'internal' => false ) )`. */
  private statuses(): string[] {
    return this.content
      .allStatuses()
      .filter((s) => !s.internal)
      .map((s) => s.name);
  }

  /** The `nav_menu_item` post type (registered in every dialect; listed by `types` with WordPress's names only). */
  private get type(): PostTypeObject {
    const type = this.content.postType('nav_menu_item');
    if (!type) throw new Error('The nav_menu_item post type is not registered.');
    return type;
  }

  /** The item's taxonomy, `nav_menu` (the `menus` argument and field). */
  private taxonomies(): TaxonomyObject[] {
    const menus = this.content.taxonomy('nav_menu');
    return menus ? [menus] : [];
  }

  protected baseSchema(): ItemSchema {
    const schema = menuItemSchema(this.statuses());
    // WordPress's posts controller describes the edit context's action links (get_schema_links).
    if (this.server.options.wire.dialect.posts.editExtras) {
      const item = `${this.namespace}/${this.restBase}/{id}`;
      const relBase = this.server.options.linkRelBase;
      schema.links = schemaLinks(this.type, this.taxonomies(), false, item, relBase);
      // The menu items controller's own (WP_REST_Menu_Items_Controller::get_schema_links()).
      schema.links.push({
        rel: `${relBase}menu-item-object`,
        title: 'Get linked object.',
        href: item,
        targetSchema: { type: 'object', properties: { object: { type: 'integer' } } },
      });
    }
    return schema;
  }

  readonly collectionArgs = (): Record<string, RouteArg> =>
    menuItemCollectionArgs(
      postCollectionArgs(this.type, {
        collectionParams: this.getCollectionParams(),
        idListArg: (description) => this.idListArg(description),
        statuses: this.content.allStatuses().map((s) => s.name),
        taxonomies: this.taxonomies(),
        dialect: this.server.options.wire.dialect.posts,
      }),
    );
  readonly readArgs = () => this.itemReadArgs(MENU_ITEM_ID);
  readonly createArgs = () => this.getEndpointArgsForItemSchema(Methods.CREATABLE);
  readonly updateArgs = () => this.itemUpdateArgs(MENU_ITEM_ID);
  readonly deleteArgs = () => this.itemDeleteArgs(MENU_ITEM_ID, 'Whether to bypass Trash and force deletion.');

  // --- permission checks (WP_REST_Posts_Controller's, then check_has_read_only_access for reads) ---

  async canList(req: RestRequest): Promise<true | RestException> {
    if (req.context === 'edit' && !(await req.ctx.can('edit_theme_options')))
      return this.policies.refuse(
        req,
        'rest_forbidden_context',
        'Sorry, you are not allowed to edit posts in this post type.',
      );
    return this.policies.readOnlyAccess(req, READ_REFUSED);
  }

  async canRead(req: RestRequest): Promise<true | RestException> {
    const row = await this.loadRow(req);
    if (req.context === 'edit' && !(await req.ctx.can('edit_post', row.post.id)))
      return this.policies.refuse(req, 'rest_forbidden_context', 'Sorry, you are not allowed to edit this post.');
    if (row.post.status !== 'publish' && !(await req.ctx.can('read_post', row.post.id)))
      return this.policies.refuse(req, 'rest_forbidden', 'Sorry, you are not allowed to do that.');
    return this.policies.readOnlyAccess(req, READ_REFUSED);
  }

  async canCreate(req: RestRequest): Promise<true | RestException> {
    if (await req.ctx.can('edit_theme_options')) return true;
    return this.policies.refuse(req, 'rest_cannot_create', 'Sorry, you are not allowed to create posts as this user.');
  }

  async canUpdate(req: RestRequest): Promise<true | RestException> {
    const row = await this.loadRow(req);
    if (await req.ctx.can('edit_post', row.post.id)) return true;
    return this.policies.refuse(req, 'rest_cannot_edit', 'Sorry, you are not allowed to edit this post.');
  }

  async canDelete(req: RestRequest): Promise<true | RestException> {
    const row = await this.loadRow(req);
    if (await req.ctx.can('delete_post', row.post.id)) return true;
    return this.policies.refuse(req, 'rest_cannot_delete', 'Sorry, you are not allowed to delete this post.');
  }

  private async loadRow(req: RestRequest, id = routeId(req)): Promise<MenuItemRow> {
    const [row] = id ? await this.menus.findItems([id]) : [];
    if (!row) throw new RestException('rest_post_invalid_id', 'Invalid post ID.', 404);
    return row;
  }

  // --- handlers ---

  async getItems(req: RestRequest): Promise<RestResponse> {
    const q = CollectionQuery.of<PostListArgs>(req);
    let statuses = q.args.status ?? ['publish'];
    // sanitize_post_statuses(): statuses other than publish need edit_posts of the type.
    if (statuses.some((s) => s !== 'publish') && !(await req.ctx.can('edit_theme_options')))
      throw new RestException('rest_invalid_param', 'Invalid parameter(s): status', 400, {
        params: { status: 'Status is forbidden.' },
      });
    if (statuses.includes('any'))
      statuses = this.content
        .allStatuses()
        .filter((s) => !s.exclude_from_search && s.name !== 'trash' && s.name !== 'auto-draft')
        .map((s) => s.name);
    const clock = SiteClock.fromOptions(await this.options.getMany(['timezone_string', 'gmt_offset']));
    const query = postListQuery(q, {
      type: this.type,
      taxonomies: this.taxonomies(),
      statuses,
      clock,
      sticky: [],
      orderby: 'menu_order',
      order: 'ASC',
    });
    const { posts, total } = await this.posts.list(query);
    const rows = await this.menus.withMetaAndMenus(posts);
    const batch = await this.presenter.batchOf(rows, req);
    const items: unknown[] = [];
    for (const row of rows)
      items.push(this.server.toCollectionItem(await this.prepareItem(this.presenter.setup(row, batch), req)));
    return this.paginate(new RestResponse(items), req, total, `${this.namespace}/${this.restBase}`, {
      page: Math.ceil(q.offset / q.perPage + 1),
      perPage: q.perPage,
    });
  }

  async getItem(req: RestRequest): Promise<RestResponse> {
    return this.prepareItem(await this.setupOne(await this.loadRow(req), req), req);
  }

  async createItem(req: RestRequest): Promise<RestResponse> {
    const id = await this.save(req, null);
    req.set('context', 'edit');
    const response = await this.prepareItem(await this.setupOne(await this.loadRow(req, id), req), req);
    return this.created(response, req, `${this.namespace}/${this.restBase}/${id}`);
  }

  async updateItem(req: RestRequest): Promise<RestResponse> {
    const current = await this.setupOne(await this.loadRow(req), req);
    const id = await this.save(req, current);
    req.set('context', 'edit');
    return this.prepareItem(await this.setupOne(await this.loadRow(req, id), req), req);
  }

  async deleteItem(req: RestRequest): Promise<RestResponse> {
    const item = await this.setupOne(await this.loadRow(req), req);
    if (req.args<{ force?: boolean }>().force !== true)
      throw new RestException(
        'rest_trash_not_supported',
        "Menu items do not support trashing. Set 'force=true' to delete.",
        501,
      );
    const previous = await this.prepareItem(item, req);
    await this.menus.deleteItems([item.id]);
    await this.hooks.doAction('rest_delete_nav_menu_item', item, previous, req);
    return new RestResponse({ deleted: true, previous: previous.data });
  }

  /** prepare_item_for_database() then wp_update_nav_menu_item(): the item's id. */
  private async save(req: RestRequest, current: NavMenuItem | null): Promise<number> {
    const args = req.args<MenuItemWriteArgs>();
    const item = {
      menuId: current?.menuId ?? 0,
      objectId: current?.objectId ?? 0,
      object: current?.object ?? '',
      parent: current?.parent ?? 0,
      position: current ? current.menuOrder || 1 : 1,
      type: current?.type ?? 'custom',
      title: current?.title ?? '',
      url: current?.url ?? '',
      description: current?.post.content ?? '',
      attrTitle: current?.attrTitle ?? '',
      target: current?.target ?? '',
      classes: current?.classes ?? [],
      xfn: current ? current.xfn.split(' ') : [],
      status: current?.status ?? 'publish',
    };
    if (args.object_id !== undefined) item.objectId = args.object_id;
    if (args.object !== undefined) item.object = args.object;
    if (args.parent !== undefined) item.parent = args.parent;
    if (args.menu_order !== undefined) item.position = args.menu_order;
    if (args.type !== undefined) item.type = args.type;
    if (args.url !== undefined) item.url = args.url;
    if (args.description !== undefined) item.description = args.description;
    if (args.attr_title !== undefined) item.attrTitle = args.attr_title;
    if (args.target !== undefined) item.target = args.target;
    if (args.classes !== undefined) item.classes = args.classes;
    if (args.xfn !== undefined) item.xfn = args.xfn;
    if (args.status !== undefined) item.status = args.status;
    if (args.menus) item.menuId = Math.abs(args.menus);
    if (typeof args.title === 'string') item.title = args.title;
    else if (args.title && args.title.raw) item.title = args.title.raw;

    let originalParent = current ? Number(current.post.parent) : 0;
    let originalTitle = '';
    if (!item.object && item.type === 'taxonomy') {
      const taxonomy = (await this.menus.termTaxonomies([item.objectId])).get(item.objectId);
      if (!taxonomy) throw new RestException('rest_term_invalid_id', 'Invalid term ID.', 400);
      item.object = taxonomy;
    } else if (!item.object && item.type === 'post_type') {
      const post = (await this.menus.posts([item.objectId])).get(item.objectId);
      if (!post) throw new RestException('rest_post_invalid_id', 'Invalid post ID.', 400);
      item.object = post.type;
    }
    if (item.type === 'post_type_archive' && !this.content.postType(item.object))
      throw new RestException('rest_post_invalid_type', 'Invalid post type.', 400);
    if (item.type === 'custom') {
      if (item.title === '')
        throw new RestException(
          'rest_title_required',
          'The title is required when using a custom menu item type.',
          400,
        );
      if (!item.url)
        throw new RestException('rest_url_required', 'The url is required when using a custom menu item type.', 400);
    }
    const status = item.status === 'publish' ? 'publish' : 'draft';

    // wp_update_nav_menu_item().
    if (item.menuId && !(await this.menuExists(item.menuId)))
      throw new RestException('invalid_menu_id', 'Invalid menu ID.', 400);
    let position = item.position;
    if (!item.menuId) position = 1;
    else if (!position) position = (await this.menus.lastPosition(item.menuId)) + 1;
    let url = item.url;
    let description = item.description;
    let title = item.title;
    if (item.type === 'custom') url = url.trim();
    else {
      url = '';
      if (item.type === 'taxonomy') {
        const [term] = await this.presenterTerms(item.object, item.objectId);
        originalParent = term?.parent ?? 0;
        originalTitle = term?.name ?? '';
      } else if (item.type === 'post_type') {
        const post = (await this.menus.posts([item.objectId])).get(item.objectId);
        originalParent = Number(post?.parent ?? 0);
        originalTitle = post?.title ?? '';
      } else if (item.type === 'post_type_archive') {
        originalTitle = this.content.postType(item.object)?.labels.archives ?? '';
      }
      if (title === originalTitle) title = '';
      if (title === '' && description === '') description = ' ';
    }
    const home = String((await this.optionsHome(req)) ?? '').replace(/\/+$/, '');
    return this.menus.saveItem(
      current?.id ?? 0,
      {
        menuId: item.menuId,
        position,
        status: current ? (item.status === 'draft' ? 'draft' : 'publish') : status,
        title,
        description,
        attrTitle: item.attrTitle,
        parent: originalParent,
        meta: {
          _menu_item_type: sanitizeKey(item.type),
          _menu_item_menu_item_parent: String(Math.trunc(item.parent)),
          _menu_item_object_id: String(Math.trunc(item.objectId)),
          _menu_item_object: sanitizeKey(item.object),
          _menu_item_target: sanitizeKey(item.target),
          _menu_item_classes: item.classes
            .join(' ')
            .split(' ')
            .map((c) => c.replace(/[^A-Za-z0-9_-]/g, '')),
          _menu_item_xfn: item.xfn.join(' '),
          _menu_item_url: url ? escUrlRaw(url) : '',
        },
      },
      home,
    );
  }

  private async menuExists(menuId: number): Promise<boolean> {
    return (await this.presenterTerms('nav_menu', menuId)).length > 0;
  }

  private presenterTerms(taxonomy: string, id: number) {
    return this.terms.findByIds(taxonomy, [id]);
  }

  private async optionsHome(req: RestRequest): Promise<string> {
    return String((await this.options.get('home', req.ctx.baseUrl)) ?? req.ctx.baseUrl);
  }

  // --- preparation ---

  private async setupOne(row: MenuItemRow, req: RestRequest): Promise<NavMenuItem> {
    return this.presenter.setup(row, await this.presenter.batchOf([row], req));
  }

  private async prepareItem(item: NavMenuItem, req: RestRequest) {
    const relBase = this.server.options.linkRelBase;
    const links = this.presenter.links(item, req, relBase);
    // WordPress's posts controller: the caller's actions (get_available_actions), in the edit context.
    if (req.context === 'edit' && req.ctx.wire.dialect.posts.editExtras) {
      const self = links.get('self');
      for (const rel of await availableActions(this.type, this.taxonomies(), false, req))
        links.set(`${relBase}${rel}`, [{ href: self?.[0]?.href ?? '', attributes: {} }]);
    }
    return this.prepareResponse(this.presenter.data(item), req, links, 'nav_menu_item', item);
  }
}
