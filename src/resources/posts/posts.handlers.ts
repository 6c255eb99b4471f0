import type { PostTypeObject } from '../../core/registry/content-types';
import { Injectable } from '@nestjs/common';
import { RestRequest } from '../../core/rest/rest-request';
import { Allow, RestRoute, RouteTarget } from '../../core/rest/rest-route.decorator';
import { Methods } from '../../core/rest/route-types';
import { listReadsPostContent } from '../../core/rest/post-list-content';
import { PostTypeResource } from './post-type.resource';
import { PostTypeResources } from './post-type-resources.service';
import { postTypeRoutes } from './post-type-routes';

type H = PostsHandlers;
/** The routes of every post type the posts routes serve (attachments have their own). */
const typeRoute = postTypeRoutes<PostTypeResource>((type: PostTypeObject) => PostTypeResources.serves(type));
/** A route of every post type the posts routes serve, which `batch/v1` may call (WordPress's `allow_batch`). */
const route: typeof typeRoute = (...declared) => ({ ...typeRoute(...declared), allowBatch: true });
/** The route of one post. */
const POST = '{base}/(?P<id>[\\d]+)';

/**
 * Routes of every REST post type (mirrors WP_REST_Posts_Controller::register_routes), declared once: `{base}` is
 * the type's `rest_base`, and the route target names the type.
 */
@Injectable()
export class PostsHandlers {
  constructor(private readonly types: PostTypeResources) {}

  of(target: RouteTarget): PostTypeResource {
    return this.types.of(target.postType!);
  }

  @RestRoute('{base}', route(Methods.READABLE, (r) => r.collectionArgs(), { readsPostContent: listReadsPostContent }))
  @Allow((req, h: H, t) => h.of(t).policies.canList(req))
  list(req: RestRequest, target: RouteTarget) {
    return this.of(target).getItems(req);
  }

  @RestRoute('{base}', route(Methods.CREATABLE, (r) => r.createArgs()))
  @Allow((req, h: H, t) => h.of(t).policies.canCreate(req))
  create(req: RestRequest, target: RouteTarget) {
    return this.of(target).createItem(req);
  }

  @RestRoute(POST, route(Methods.READABLE, (r) => r.readArgs(), { readsPostContent: false }))
  @Allow((req, h: H, t) => h.of(t).policies.canRead(req))
  get(req: RestRequest, target: RouteTarget) {
    return this.of(target).getItem(req);
  }

  @RestRoute(POST, route(Methods.EDITABLE, (r) => r.updateArgs()))
  @Allow((req, h: H, t) => h.of(t).policies.canUpdate(req))
  update(req: RestRequest, target: RouteTarget) {
    return this.of(target).updateItem(req);
  }

  @RestRoute(POST, route(Methods.DELETABLE, (r) => r.deleteArgs()))
  @Allow((req, h: H, t) => h.of(t).policies.canDelete(req))
  remove(req: RestRequest, target: RouteTarget) {
    return this.of(target).deleteItem(req);
  }
}
