import type { PostTypeObject } from '../../core/registry/content-types';
import { Injectable } from '@nestjs/common';
import { RestRequest } from '../../core/rest/rest-request';
import { Allow, RestRoute, RouteTarget } from '../../core/rest/rest-route.decorator';
import { Methods } from '../../core/rest/route-types';
import { PostTypeResources } from './post-type-resources.service';
import { postTypeRoutes } from './post-type-routes';
import { RevisionsResource } from './revisions.resource';

type H = RevisionsHandlers;
/** A route of every post type that keeps revisions. */
const route = postTypeRoutes<RevisionsResource>((type: PostTypeObject) => PostTypeResources.keepsRevisions(type));
/** The route of one revision. */
const REVISION = '{base}/(?P<parent>[\\d]+)/revisions/(?P<id>[\\d]+)';

/** Routes of the revisions of every post type that keeps them (mirrors WP_REST_Revisions_Controller::register_routes). */
@Injectable()
export class RevisionsHandlers {
  constructor(private readonly types: PostTypeResources) {}

  of(target: RouteTarget): RevisionsResource {
    return this.types.revisionsOf(target.postType!);
  }

  @RestRoute('{base}/(?P<parent>[\\d]+)/revisions', route(Methods.READABLE, (r) => r.listArgs()))
  @Allow((req, h: H, t) => h.of(t).canReadRevisions(req))
  list(req: RestRequest, target: RouteTarget) {
    return this.of(target).getItems(req);
  }

  @RestRoute(REVISION, route(Methods.READABLE, (r) => r.readArgs()))
  @Allow((req, h: H, t) => h.of(t).canReadRevisions(req))
  get(req: RestRequest, target: RouteTarget) {
    return this.of(target).getItem(req);
  }

  @RestRoute(REVISION, route(Methods.DELETABLE, (r) => r.deleteArgs()))
  @Allow((req, h: H, t) => h.of(t).canDelete(req))
  remove(req: RestRequest, target: RouteTarget) {
    return this.of(target).deleteItem(req);
  }
}
