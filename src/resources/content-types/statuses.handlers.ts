import { Injectable } from '@nestjs/common';
import { RestRequest } from '../../core/rest/rest-request';
import { Allow, RestRoute } from '../../core/rest/rest-route.decorator';
import { StatusesResource } from './statuses.resource';

const schema = (h: StatusesHandlers) => h.statuses.getPublicItemSchema();

/** Routes of `statuses` (mirrors WP_REST_Post_Statuses_Controller::register_routes). */
@Injectable()
export class StatusesHandlers {
  constructor(readonly statuses: StatusesResource) {}

  @RestRoute('/statuses', {
    methods: 'GET',
    args: (h: StatusesHandlers) => h.statuses.listArgs(),
    schema,
    returns: 'map',
    readsPostContent: false,
  })
  @Allow((req, h: StatusesHandlers) => h.statuses.canList(req))
  list(req: RestRequest) {
    return this.statuses.getItems(req);
  }

  @RestRoute('/statuses/(?P<status>[\\w-]+)', {
    methods: 'GET',
    args: (h: StatusesHandlers) => h.statuses.itemArgs(),
    schema,
    readsPostContent: false,
  })
  @Allow((req, h: StatusesHandlers) => h.statuses.canReadItem(req))
  get(req: RestRequest) {
    return this.statuses.getItem(req);
  }
}
