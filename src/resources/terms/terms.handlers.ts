import { Injectable } from '@nestjs/common';
import { RestRequest } from '../../core/rest/rest-request';
import { Allow, RestRoute, RouteTarget } from '../../core/rest/rest-route.decorator';
import { Methods } from '../../core/rest/route-types';
import { TaxonomyResources } from './taxonomy-resources.service';
import { TermResource } from './term.resource';

type H = TermsHandlers;
const schema = (h: H, t: RouteTarget) => h.of(t).getPublicItemSchema();

/**
 * Routes of the terms of every REST taxonomy (mirrors WP_REST_Terms_Controller::register_routes), declared once:
 * `{base}` is the taxonomy's `rest_base`, and the route target names the taxonomy. `batch/v1` may call them all
 * (WordPress's `allow_batch`).
 */
@Injectable()
export class TermsHandlers {
  constructor(private readonly taxonomies: TaxonomyResources) {}

  of(target: RouteTarget): TermResource {
    return this.taxonomies.of(target.taxonomy!);
  }

  @RestRoute('{base}', {
    methods: Methods.READABLE,
    perTaxonomy: true,
    allowBatch: true,
    args: (h: H, t) => h.of(t).collectionArgs(),
    schema,
    readsPostContent: false,
  })
  @Allow((req, h: H, t) => h.of(t).policies.canList(req))
  list(req: RestRequest, target: RouteTarget) {
    return this.of(target).getItems(req);
  }

  @RestRoute('{base}', {
    methods: Methods.CREATABLE,
    perTaxonomy: true,
    allowBatch: true,
    args: (h: H, t) => h.of(t).createArgs(),
    schema,
  })
  @Allow((req, h: H, t) => h.of(t).policies.canCreate(req))
  create(req: RestRequest, target: RouteTarget) {
    return this.of(target).createItem(req);
  }

  @RestRoute('{base}/(?P<id>[\\d]+)', {
    methods: Methods.READABLE,
    perTaxonomy: true,
    allowBatch: true,
    args: (h: H, t) => h.of(t).readArgs(),
    schema,
    readsPostContent: false,
  })
  @Allow((req, h: H, t) => h.of(t).policies.canReadItem(req))
  get(req: RestRequest, target: RouteTarget) {
    return this.of(target).getItem(req);
  }

  @RestRoute('{base}/(?P<id>[\\d]+)', {
    methods: Methods.EDITABLE,
    perTaxonomy: true,
    allowBatch: true,
    args: (h: H, t) => h.of(t).updateArgs(),
    schema,
  })
  @Allow((req, h: H, t) => h.of(t).policies.canUpdate(req))
  update(req: RestRequest, target: RouteTarget) {
    return this.of(target).updateItem(req);
  }

  @RestRoute('{base}/(?P<id>[\\d]+)', {
    methods: Methods.DELETABLE,
    perTaxonomy: true,
    allowBatch: true,
    args: (h: H, t) => h.of(t).deleteArgs(),
    schema,
  })
  @Allow((req, h: H, t) => h.of(t).policies.canDelete(req))
  remove(req: RestRequest, target: RouteTarget) {
    return this.of(target).deleteItem(req);
  }
}
