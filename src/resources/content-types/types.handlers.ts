import { Injectable } from '@nestjs/common';
import { RestRequest } from '../../core/rest/rest-request';
import { Allow, RestRoute } from '../../core/rest/rest-route.decorator';
import { TypesResource } from './types.resource';

const schema = (h: TypesHandlers) => h.types.getPublicItemSchema();

/** Routes of `types` (mirrors WP_REST_Post_Types_Controller::register_routes). */
@Injectable()
export class TypesHandlers {
  constructor(readonly types: TypesResource) {}

  @RestRoute('/types', {
    methods: 'GET',
    args: (h: TypesHandlers) => h.types.listArgs(),
    schema,
    returns: 'map',
    readsPostContent: false,
  })
  @Allow((req, h: TypesHandlers) => h.types.canList(req))
  list(req: RestRequest) {
    return this.types.getItems(req);
  }

  /** No permission callback in the reference (so `Allow: GET` always): the handler checks, before any work. */
  @RestRoute('/types/(?P<type>[\\w-]+)', {
    methods: 'GET',
    args: (h: TypesHandlers) => h.types.itemArgs(),
    schema,
    readsPostContent: false,
  })
  get(req: RestRequest) {
    return this.types.getItem(req);
  }
}
