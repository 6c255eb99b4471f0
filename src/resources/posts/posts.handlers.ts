import { Injectable } from '@nestjs/common';
import { RestRequest } from '../../core/rest/rest-request';
import { Allow, RestRoute, RouteTarget } from '../../core/rest/rest-route.decorator';
import { Methods } from '../../core/rest/route-types';
import { PostTypeResource } from './post-type.resource';
import { PostTypeResources } from './post-type-resources.service';

type H = PostsHandlers;
const perPostType = PostTypeResources.serves;
const schema = (h: H, t: RouteTarget) => h.of(t).getPublicItemSchema();

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

  @RestRoute('{base}', { methods: Methods.READABLE, perPostType, args: (h: H, t) => h.of(t).collectionArgs(), schema })
  @Allow((req, h: H, t) => h.of(t).canList(req))
  list(req: RestRequest, target: RouteTarget) {
    return this.of(target).getItems(req);
  }

  @RestRoute('{base}', { methods: Methods.CREATABLE, perPostType, args: (h: H, t) => h.of(t).createArgs(), schema })
  @Allow((req, h: H, t) => h.of(t).canCreate(req))
  create(req: RestRequest, target: RouteTarget) {
    return this.of(target).createItem(req);
  }

  @RestRoute('{base}/(?P<id>[\\d]+)', { methods: Methods.READABLE, perPostType, args: (h: H, t) => h.of(t).readArgs(), schema })
  @Allow((req, h: H, t) => h.of(t).canRead(req))
  get(req: RestRequest, target: RouteTarget) {
    return this.of(target).getItem(req);
  }

  @RestRoute('{base}/(?P<id>[\\d]+)', { methods: Methods.EDITABLE, perPostType, args: (h: H, t) => h.of(t).updateArgs(), schema })
  @Allow((req, h: H, t) => h.of(t).canUpdate(req))
  update(req: RestRequest, target: RouteTarget) {
    return this.of(target).updateItem(req);
  }

  @RestRoute('{base}/(?P<id>[\\d]+)', { methods: Methods.DELETABLE, perPostType, args: (h: H, t) => h.of(t).deleteArgs(), schema })
  @Allow((req, h: H, t) => h.of(t).canDelete(req))
  remove(req: RestRequest, target: RouteTarget) {
    return this.of(target).deleteItem(req);
  }
}
