import type { PostTypeObject } from '../../core/registry/content-types';
import { Injectable } from '@nestjs/common';
import { RestRequest } from '../../core/rest/rest-request';
import { Allow, RestRoute, RouteTarget } from '../../core/rest/rest-route.decorator';
import { Methods } from '../../core/rest/route-types';
import { AutosaveResources } from './autosave-resources.service';
import { AutosavesResource } from './autosaves.resource';
import { postTypeRoutes } from './post-type-routes';

type H = AutosavesHandlers;
/** A route of every post type the posts routes serve (WordPress registers autosaves for all but attachments). */
const route = postTypeRoutes<AutosavesResource>((type: PostTypeObject) => AutosaveResources.keepsAutosaves(type));
/** The autosaves of a post: `id` is the post's (as in WordPress). */
const AUTOSAVES = '{base}/(?P<id>[\\d]+)/autosaves';

/** Routes of the autosaves of every post type (mirrors WP_REST_Autosaves_Controller::register_routes). */
@Injectable()
export class AutosavesHandlers {
  constructor(private readonly autosaves: AutosaveResources) {}

  of(target: RouteTarget): AutosavesResource {
    return this.autosaves.of(target.postType!);
  }

  @RestRoute(AUTOSAVES, route(Methods.READABLE, (r) => r.listArgs()))
  @Allow((req, h: H, t) => h.of(t).canList(req))
  list(req: RestRequest, target: RouteTarget) {
    return this.of(target).getItems(req);
  }

  @RestRoute(AUTOSAVES, route(Methods.CREATABLE, (r) => r.createArgs()))
  @Allow((req, h: H, t) => h.of(t).canCreate(req))
  create(req: RestRequest, target: RouteTarget) {
    return this.of(target).createItem(req);
  }

  @RestRoute('{base}/(?P<parent>[\\d]+)/autosaves/(?P<id>[\\d]+)', route(Methods.READABLE, (r) => r.readArgs()))
  @Allow((req, h: H, t) => h.of(t).canRead(req))
  get(req: RestRequest, target: RouteTarget) {
    return this.of(target).getItem(req);
  }
}
