import { Injectable } from '@nestjs/common';
import { HookRegistry } from '../../core/hooks/hook-registry.service';
import { RestException } from '../../core/errors/rest.exception';
import { ItemSchema } from '../../core/json-schema/json-schema';
import { RestResource } from '../../core/rest/rest-resource';
import { RestRequest } from '../../core/rest/rest-request';
import { linkMap, RestResponse } from '../../core/rest/rest-response';
import { RestServer } from '../../core/rest/rest-server.service';
import { CmsExtensionRegistry } from '../../extensions/extension-registry.service';
import { MenuLocations } from './menu-locations';
import { MENU_LOCATION_SCHEMA } from './menu-schema';
import { MenusService } from './menus.service';

/** The arguments of `GET menu-locations/<location>`. */
export interface MenuLocationArgs {
  location: string;
}

/** `menu-locations` and `menu-locations/<location>` (mirrors WP_REST_Menu_Locations_Controller). */
@Injectable()
export class MenuLocationsResource extends RestResource {
  readonly restBase = 'menu-locations';

  constructor(
    server: RestServer,
    extensions: CmsExtensionRegistry,
    hooks: HookRegistry,
    private readonly locations: MenuLocations,
    private readonly menus: MenusService,
  ) {
    super(server, extensions, hooks);
  }

  protected baseSchema(): ItemSchema {
    return MENU_LOCATION_SCHEMA;
  }

  readonly listArgs = () => ({ context: this.getContextParam({ default: 'view' }) });
  readonly itemArgs = () => ({
    location: { description: 'An alphanumeric identifier for the menu location.', type: 'string' as const },
    context: this.getContextParam({ default: 'view' }),
  });

  async getItems(req: RestRequest): Promise<Record<string, unknown> | unknown[]> {
    const assigned = await this.menus.locations();
    const data: Record<string, unknown> = {};
    for (const [name, description] of this.locations.registered()) {
      data[name] = this.server.toCollectionItem(await this.prepareItem(name, description, assigned, req));
    }
    // PHP encodes an empty map as an empty list.
    return Object.keys(data).length ? data : [];
  }

  async getItem(req: RestRequest): Promise<RestResponse> {
    const name = req.args<MenuLocationArgs>().location;
    const description = this.locations.registered().get(name);
    if (description === undefined) throw new RestException('rest_menu_location_invalid', 'Invalid menu location.', 404);
    return this.prepareItem(name, description, await this.menus.locations(), req);
  }

  private prepareItem(name: string, description: string, assigned: Record<string, number>, req: RestRequest) {
    const menu = assigned[name] ?? 0;
    const base = `${this.namespace}/${this.restBase}`;
    const links = linkMap({
      self: { href: req.ctx.restUrl(`${base}/${name}`) },
      collection: { href: req.ctx.restUrl(base) },
    });
    if (menu) {
      links.set(`${this.server.options.linkRelBase}menu`, [
        { href: req.ctx.restUrl(`${this.namespace}/menus/${menu}`), attributes: { embeddable: true } },
      ]);
    }
    return this.prepareResponse({ name, description, menu }, req, links, 'menu_location', { name, description });
  }
}
