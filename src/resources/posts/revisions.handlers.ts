import type { PostTypeObject } from '../../core/registry/content-types';
import { Injectable } from '@nestjs/common';
import { RestRequest } from '../../core/rest/rest-request';
import { Allow, RestRoute, RouteTarget } from '../../core/rest/rest-route.decorator';
import { Methods } from '../../core/rest/route-types';
import { PostTypeResources } from './post-type-resources.service';
import { RevisionsResource } from './revisions.resource';

type H = RevisionsHandlers;
const perPostType = (type: PostTypeObject) => PostTypeResources.keepsRevisions(type);
const schema = (h: H, t: RouteTarget) => h.of(t).getPublicItemSchema();

/** Routes of the revisions of every post type that keeps them (mirrors WP_REST_Revisions_Controller::register_routes). */
@Injectable()
export class RevisionsHandlers {
  constructor(private readonly types: PostTypeResources) {}

  of(target: RouteTarget): RevisionsResource {
    return this.types.revisionsOf(target.postType!);
  }

  @RestRoute('{base}/(?P<parent>[\\d]+)/revisions', {
    methods: Methods.READABLE,
    perPostType,
    args: (h: H, t) => h.of(t).listArgs(),
    schema,
  })
  @Allow((req, h: H, t) => h.of(t).canReadRevisions(req))
  list(req: RestRequest, target: RouteTarget) {
    return this.of(target).getItems(req);
  }

  @RestRoute('{base}/(?P<parent>[\\d]+)/revisions/(?P<id>[\\d]+)', {
    methods: Methods.READABLE,
    perPostType,
    args: (h: H, t) => h.of(t).readArgs(),
    schema,
  })
  @Allow((req, h: H, t) => h.of(t).canReadRevisions(req))
  get(req: RestRequest, target: RouteTarget) {
    return this.of(target).getItem(req);
  }

  @RestRoute('{base}/(?P<parent>[\\d]+)/revisions/(?P<id>[\\d]+)', {
    methods: Methods.DELETABLE,
    perPostType,
    args: (h: H, t) => h.of(t).deleteArgs(),
    schema,
  })
  @Allow((req, h: H, t) => h.of(t).canDelete(req))
  remove(req: RestRequest, target: RouteTarget) {
    return this.of(target).deleteItem(req);
  }
}
