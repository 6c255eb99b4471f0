import { Injectable } from '@nestjs/common';
import { RestRequest } from '../../core/rest/rest-request';
import { Allow, RestRoute } from '../../core/rest/rest-route.decorator';
import { Methods } from '../../core/rest/route-types';
import { MenuItemsResource } from './menu-items.resource';
import { MenuLocationsResource } from './menu-locations.resource';
import { MenusResource } from './menus.resource';

type H = MenusHandlers;
const MENU = '/menus/(?P<id>[\\d]+)';
const ITEM = '/menu-items/(?P<id>[\\d]+)';
const menuSchema = (h: H) => h.menus.getPublicItemSchema();
const itemSchema = (h: H) => h.items.getPublicItemSchema();
const locationSchema = (h: H) => h.locations.getPublicItemSchema();

/**
 * Routes of `menus`, `menu-items` and `menu-locations` (mirror WP_REST_Menus_Controller,
 * WP_REST_Menu_Items_Controller and WP_REST_Menu_Locations_Controller::register_routes).
 */
@Injectable()
export class MenusHandlers {
  constructor(
    readonly menus: MenusResource,
    readonly items: MenuItemsResource,
    readonly locations: MenuLocationsResource,
  ) {}

  @RestRoute('/menus', {
    allowBatch: true,
    methods: Methods.READABLE,
    args: (h: H) => h.menus.collectionArgs(),
    schema: menuSchema,
    readsPostContent: false,
  })
  @Allow((req, h: H) => h.menus.canList(req))
  listMenus(req: RestRequest) {
    return this.menus.getItems(req);
  }

  @RestRoute('/menus', {
    allowBatch: true,
    methods: Methods.CREATABLE,
    args: (h: H) => h.menus.createArgs(),
    schema: menuSchema,
  })
  @Allow((req, h: H) => h.menus.canCreate(req))
  createMenu(req: RestRequest) {
    return this.menus.createItem(req);
  }

  @RestRoute(MENU, {
    allowBatch: true,
    methods: Methods.READABLE,
    args: (h: H) => h.menus.readArgs(),
    schema: menuSchema,
    readsPostContent: false,
  })
  @Allow((req, h: H) => h.menus.canRead(req))
  getMenu(req: RestRequest) {
    return this.menus.getItem(req);
  }

  @RestRoute(MENU, {
    allowBatch: true,
    methods: Methods.EDITABLE,
    args: (h: H) => h.menus.updateArgs(),
    schema: menuSchema,
  })
  @Allow((req, h: H) => h.menus.canUpdate(req))
  updateMenu(req: RestRequest) {
    return this.menus.updateItem(req);
  }

  @RestRoute(MENU, {
    allowBatch: true,
    methods: Methods.DELETABLE,
    args: (h: H) => h.menus.deleteArgs(),
    schema: menuSchema,
  })
  @Allow((req, h: H) => h.menus.canDelete(req))
  deleteMenu(req: RestRequest) {
    return this.menus.deleteItem(req);
  }

  @RestRoute('/menu-items', {
    allowBatch: true,
    methods: Methods.READABLE,
    args: (h: H) => h.items.collectionArgs(),
    schema: itemSchema,
    readsPostContent: false,
  })
  @Allow((req, h: H) => h.items.canList(req))
  listItems(req: RestRequest) {
    return this.items.getItems(req);
  }

  @RestRoute('/menu-items', {
    allowBatch: true,
    methods: Methods.CREATABLE,
    args: (h: H) => h.items.createArgs(),
    schema: itemSchema,
  })
  @Allow((req, h: H) => h.items.canCreate(req))
  createItem(req: RestRequest) {
    return this.items.createItem(req);
  }

  @RestRoute(ITEM, {
    allowBatch: true,
    methods: Methods.READABLE,
    args: (h: H) => h.items.readArgs(),
    schema: itemSchema,
    readsPostContent: false,
  })
  @Allow((req, h: H) => h.items.canRead(req))
  getItem(req: RestRequest) {
    return this.items.getItem(req);
  }

  @RestRoute(ITEM, {
    allowBatch: true,
    methods: Methods.EDITABLE,
    args: (h: H) => h.items.updateArgs(),
    schema: itemSchema,
  })
  @Allow((req, h: H) => h.items.canUpdate(req))
  updateItem(req: RestRequest) {
    return this.items.updateItem(req);
  }

  @RestRoute(ITEM, {
    allowBatch: true,
    methods: Methods.DELETABLE,
    args: (h: H) => h.items.deleteArgs(),
    schema: itemSchema,
  })
  @Allow((req, h: H) => h.items.canDelete(req))
  deleteItem(req: RestRequest) {
    return this.items.deleteItem(req);
  }

  @RestRoute('/menu-locations', {
    methods: Methods.READABLE,
    args: (h: H) => h.locations.listArgs(),
    schema: locationSchema,
    returns: 'map',
    readsPostContent: false,
  })
  @Allow((req, h: H) => h.menus.policies.canViewLocations(req))
  listLocations(req: RestRequest) {
    return this.locations.getItems(req);
  }

  @RestRoute('/menu-locations/(?P<location>[\\w-]+)', {
    methods: Methods.READABLE,
    args: (h: H) => h.locations.itemArgs(),
    schema: locationSchema,
    readsPostContent: false,
  })
  @Allow((req, h: H) => h.menus.policies.canViewLocations(req))
  getLocation(req: RestRequest) {
    return this.locations.getItem(req);
  }
}
