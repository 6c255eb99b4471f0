import { Injectable } from '@nestjs/common';
import { escHtml, sanitizeTitle } from '../../core/formatting';
import { sanitizeSavedName } from '../../core/formatting/esc-url';
import { HookRegistry } from '../../core/hooks/hook-registry.service';
import { RestException } from '../../core/errors/rest.exception';
import { ItemSchema, RouteArg } from '../../core/json-schema/json-schema';
import { ContentRegistry } from '../../core/registry/content-registry.service';
import { CollectionArgs, CollectionQuery } from '../../core/rest/collection-query';
import { exposedMetaKeys, metaResponse } from '../../core/rest/meta-fields';
import { RestResource } from '../../core/rest/rest-resource';
import { RestRequest } from '../../core/rest/rest-request';
import { linkMap, RestResponse } from '../../core/rest/rest-response';
import { RestServer } from '../../core/rest/rest-server.service';
import { Methods } from '../../core/rest/route-types';
import { CmsExtensionRegistry } from '../../extensions/extension-registry.service';
import { TermRow, TermsService } from '../terms';
import { MenuLocations } from './menu-locations';
import { MenuPolicies, routeId } from './menu-policies';
import { MENU_ID, menuCollectionArgs, MenuListArgs, menuSchema, MenuWriteArgs } from './menu-schema';
import { MenusService } from './menus.service';

const TAXONOMY = 'nav_menu';

/**
 * `menus` and `menus/<id>`: the `nav_menu` terms with their locations and `auto_add` (mirrors
 * WP_REST_Menus_Controller, a terms controller; routes in MenusHandlers). A delete answers `{ deleted, previous }`.
 */
@Injectable()
export class MenusResource extends RestResource {
  readonly restBase = 'menus';
  readonly policies: MenuPolicies;

  constructor(
    server: RestServer,
    extensions: CmsExtensionRegistry,
    hooks: HookRegistry,
    content: ContentRegistry,
    private readonly terms: TermsService,
    private readonly menus: MenusService,
    private readonly locations: MenuLocations,
  ) {
    super(server, extensions, hooks);
    this.policies = new MenuPolicies(content);
  }

  protected baseSchema(): ItemSchema {
    return menuSchema((name) => this.locations.has(name));
  }

  readonly collectionArgs = (): Record<string, RouteArg> =>
    menuCollectionArgs(this.getCollectionParams(), (d) => this.idListArg(d));
  readonly readArgs = () => this.itemReadArgs(MENU_ID);
  readonly createArgs = () => this.getEndpointArgsForItemSchema(Methods.CREATABLE);
  readonly updateArgs = () => this.itemUpdateArgs(MENU_ID);
  readonly deleteArgs = () => this.itemDeleteArgs(MENU_ID, 'Required to be true, as terms do not support trashing.');

  // --- permission checks (WP_REST_Terms_Controller's, then check_has_read_only_access for reads) ---

  async canList(req: RestRequest): Promise<true | RestException> {
    if (req.context === 'edit' && !(await req.ctx.can('edit_theme_options')))
      return this.policies.refuse(
        req,
        'rest_forbidden_context',
        'Sorry, you are not allowed to edit terms in this taxonomy.',
      );
    return this.policies.readOnlyAccess(req, 'Sorry, you are not allowed to view menus.');
  }

  async canRead(req: RestRequest): Promise<true | RestException> {
    const term = await this.loadMenu(req);
    if (req.context === 'edit' && !(await req.ctx.can('edit_term', term.termId)))
      return this.policies.refuse(req, 'rest_forbidden_context', 'Sorry, you are not allowed to edit this term.');
    return this.policies.readOnlyAccess(req, 'Sorry, you are not allowed to view menus.');
  }

  async canCreate(req: RestRequest): Promise<true | RestException> {
    if (await req.ctx.can('edit_theme_options')) return true;
    return this.policies.refuse(
      req,
      'rest_cannot_create',
      'Sorry, you are not allowed to create terms in this taxonomy.',
    );
  }

  async canUpdate(req: RestRequest): Promise<true | RestException> {
    const term = await this.loadMenu(req);
    if (await req.ctx.can('edit_term', term.termId)) return true;
    return this.policies.refuse(req, 'rest_cannot_update', 'Sorry, you are not allowed to edit this term.');
  }

  async canDelete(req: RestRequest): Promise<true | RestException> {
    const term = await this.loadMenu(req);
    if (await req.ctx.can('delete_term', term.termId)) return true;
    return this.policies.refuse(req, 'rest_cannot_delete', 'Sorry, you are not allowed to delete this term.');
  }

  private async loadMenu(req: RestRequest): Promise<TermRow> {
    const id = routeId(req);
    const [term] = id ? await this.terms.findByIds(TAXONOMY, [id]) : [];
    if (!term) throw new RestException('rest_term_invalid', 'Term does not exist.', 404);
    return term;
  }

  // --- handlers ---

  async getItems(req: RestRequest): Promise<RestResponse> {
    const q = CollectionQuery.of<CollectionArgs & MenuListArgs>(req);
    const { offset, perPage } = q;
    let rows: TermRow[];
    let total: number;
    if (q.args.post) {
      const all = (await this.terms.ofPosts(TAXONOMY, [q.args.post])).get(q.args.post) ?? [];
      total = all.length;
      rows = all.slice(offset, offset + perPage);
    } else {
      ({ terms: rows, total } = await this.terms.list({
        taxonomy: TAXONOMY,
        include: q.include,
        exclude: q.exclude,
        search: q.search,
        slugs: q.slugs,
        hideEmpty: q.args.hide_empty === true,
        orderby: q.orderby('name'),
        order: q.order('ASC'),
        limit: perPage,
        offset,
      }));
    }
    const batch = await this.batchOf(rows);
    const items: unknown[] = [];
    for (const row of rows) items.push(this.server.toCollectionItem(await this.prepareItem(row, req, batch)));
    return this.paginate(new RestResponse(items), req, total, `${this.namespace}/${this.restBase}`, {
      page: Math.ceil(offset / perPage + 1),
    });
  }

  async getItem(req: RestRequest): Promise<RestResponse> {
    const term = await this.loadMenu(req);
    return this.prepareItem(term, req, await this.batchOf([term]));
  }

  /** `wp_update_nav_menu_object( 0 )`: the name must be new among menus (`menu_exists`); the slug follows it. */
  async createItem(req: RestRequest): Promise<RestResponse> {
    const args = req.args<MenuWriteArgs>();
    const name = sanitizeSavedName((args.name ?? '').trim());
    await this.refuseTakenName(name, 0);
    if (!name) throw new RestException('empty_term_name', 'A name is required for this term.', 400);
    const termId = await this.terms.create(
      TAXONOMY,
      false,
      { name, slug: sanitizeTitle(name), slugGiven: false, description: args.description ?? '', parent: 0 },
      [],
    );
    await this.afterWrite(termId, req, true);
    req.set('context', 'view');
    const term = await this.loadById(termId);
    const response = await this.prepareItem(term, req, await this.batchOf([term]));
    return this.created(response, req, `${this.namespace}/${this.restBase}/${termId}`);
  }

  /** `wp_update_nav_menu_object( id )` when a term field is sent (name, description, slug): the slug follows the name. */
  async updateItem(req: RestRequest): Promise<RestResponse> {
    const current = await this.loadMenu(req);
    const args = req.args<MenuWriteArgs>();
    if (args.name !== undefined || args.description !== undefined || args.slug !== undefined) {
      const name = args.name !== undefined ? sanitizeSavedName(args.name.trim()) : current.name;
      await this.refuseTakenName(name, current.termId);
      if (!name) throw new RestException('empty_term_name', 'A name is required for this term.', 400);
      // As wp_update_nav_menu_object(): a description not sent is emptied, the slug made again from the name.
      await this.terms.update(current, false, { name, slug: '', description: args.description ?? '' }, []);
    }
    await this.afterWrite(current.termId, req, false);
    req.set('context', 'view');
    const term = await this.loadById(current.termId);
    return this.prepareItem(term, req, await this.batchOf([term]));
  }

  /** `wp_delete_nav_menu()`: its items go, its locations are emptied, then the term. */
  async deleteItem(req: RestRequest): Promise<RestResponse> {
    const term = await this.loadMenu(req);
    if (req.args<{ force?: boolean }>().force !== true)
      throw new RestException(
        'rest_trash_not_supported',
        "Menus do not support trashing. Set 'force=true' to delete.",
        501,
      );
    req.set('context', 'view');
    const previous = await this.prepareItem(term, req, await this.batchOf([term]));
    const items = (await this.menus.itemIdsOfMenus([term.termId])).get(term.termId) ?? [];
    await this.menus.deleteItems(items);
    const locations = await this.menus.locations();
    if (Object.values(locations).includes(term.termId)) {
      for (const [name, id] of Object.entries(locations)) if (id === term.termId) locations[name] = 0;
      await this.menus.setLocations(locations);
    }
    await this.terms.delete(term, 0);
    await this.hooks.doAction(`rest_delete_${TAXONOMY}`, term, previous, req);
    return new RestResponse({ deleted: true, previous: previous.data });
  }

  private async refuseTakenName(name: string, self: number): Promise<void> {
    const taken = await this.menus.menuNamed(name);
    if (taken !== null && taken !== self)
      throw new RestException(
        'menu_exists',
        `The menu name <strong>${escHtml(name)}</strong> conflicts with another menu name. Please try another.`,
        400,
        { term_id: taken },
        [],
        // wp_update_nav_menu_object() adds the term id, then the REST controller the status.
        [taken],
      );
  }

  private async loadById(termId: number): Promise<TermRow> {
    const [term] = await this.terms.findByIds(TAXONOMY, [termId]);
    return term;
  }

  /** `handle_locations()` and `handle_auto_add()`, then the `rest_insert_nav_menu` action. */
  private async afterWrite(termId: number, req: RestRequest, creating: boolean): Promise<void> {
    const args = req.args<MenuWriteArgs>();
    const term = await this.loadById(termId);
    await this.hooks.doAction(`rest_insert_${TAXONOMY}`, term, req, creating);
    if (args.locations !== undefined) {
      for (const location of args.locations) {
        if (!this.locations.has(location))
          throw new RestException('rest_invalid_menu_location', 'Invalid menu location.', 400, { location });
      }
      const assigned = Object.fromEntries(
        Object.entries(await this.menus.locations()).filter(([, id]) => id !== termId),
      );
      for (const location of args.locations) assigned[location] = termId;
      await this.menus.setLocations(assigned);
    }
    if (args.auto_add !== undefined) await this.menus.setAutoAdd(termId, args.auto_add);
  }

  // --- preparation ---

  private async batchOf(terms: TermRow[]) {
    const metaKeys = exposedMetaKeys(this.extensions, 'term', TAXONOMY);
    const meta = metaKeys.length
      ? await this.terms.metaOf(
          terms.map((t) => t.termId),
          metaKeys.map((m) => m.key),
        )
      : new Map<number, Record<string, unknown[]>>();
    return { locations: await this.menus.locations(), autoAdd: await this.menus.autoAdd(), metaKeys, meta };
  }

  private async prepareItem(term: TermRow, req: RestRequest, batch: Awaited<ReturnType<MenusResource['batchOf']>>) {
    const locations = Object.entries(batch.locations)
      .filter(([, id]) => id === term.termId)
      .map(([name]) => name);
    const data: Record<string, unknown> = {
      id: term.termId,
      description: term.description,
      name: term.name,
      slug: term.slug,
      meta: metaResponse(batch.metaKeys, batch.meta.get(term.termId) ?? {}),
      locations,
      auto_add: batch.autoAdd.includes(term.termId),
    };
    const url = (path: string) => req.ctx.restUrl(path);
    const base = `${this.namespace}/${this.restBase}`;
    const links = linkMap({
      self: { href: url(`${base}/${term.termId}`) },
      collection: { href: url(base) },
      about: { href: url(`${this.namespace}/taxonomies/${TAXONOMY}`) },
      [`${this.server.options.linkRelBase}post_type`]: {
        href: url(`${this.namespace}/menu-items?menus=${term.termId}`),
      },
    });
    if (locations.length) {
      links.set(
        `${this.server.options.linkRelBase}menu-location`,
        locations.map((name) => ({
          href: url(`${this.namespace}/menu-locations/${name}`),
          attributes: { embeddable: true },
        })),
      );
    }
    return this.prepareResponse(data, req, links, TAXONOMY, term);
  }
}
