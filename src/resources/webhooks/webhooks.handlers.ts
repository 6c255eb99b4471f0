import { Injectable } from '@nestjs/common';
import { RestRequest } from '../../core/rest/rest-request';
import { Allow, RestRoute } from '../../core/rest/rest-route.decorator';
import { Methods } from '../../core/rest/route-types';
import { WebhooksResource } from './webhooks.resource';

type H = WebhooksHandlers;
const ITEM = '/webhooks/(?P<id>[\\d]+)';
const schema = (h: H) => h.webhooks.getPublicItemSchema();
const admin = (req: RestRequest, h: H) => h.webhooks.canManage(req);

/** Routes of `webhooks` (subscriptions and delivery logs; see docs/webhooks.md). */
@Injectable()
export class WebhooksHandlers {
  constructor(readonly webhooks: WebhooksResource) {}

  @RestRoute('/webhooks', { methods: Methods.READABLE, args: (h: H) => h.webhooks.listArgs(), schema })
  @Allow(admin)
  list(req: RestRequest) {
    return this.webhooks.getItems(req);
  }

  @RestRoute('/webhooks', { methods: Methods.CREATABLE, args: (h: H) => h.webhooks.createArgs(), schema })
  @Allow(admin)
  create(req: RestRequest) {
    return this.webhooks.createItem(req);
  }

  @RestRoute(ITEM, { methods: Methods.READABLE, args: (h: H) => h.webhooks.readArgs(), schema })
  @Allow(admin)
  get(req: RestRequest) {
    return this.webhooks.getItem(req);
  }

  @RestRoute(ITEM, { methods: Methods.EDITABLE, args: (h: H) => h.webhooks.updateArgs(), schema })
  @Allow(admin)
  update(req: RestRequest) {
    return this.webhooks.updateItem(req);
  }

  @RestRoute(ITEM, { methods: Methods.DELETABLE, args: (h: H) => h.webhooks.deleteArgs(), schema })
  @Allow(admin)
  delete(req: RestRequest) {
    return this.webhooks.deleteItem(req);
  }

  @RestRoute(`${ITEM}/deliveries`, { methods: Methods.READABLE, args: (h: H) => h.webhooks.deliveriesArgs() })
  @Allow(admin)
  deliveries(req: RestRequest) {
    return this.webhooks.getDeliveries(req);
  }

  @RestRoute(`${ITEM}/deliveries/(?P<delivery>[\\d]+)/redeliver`, {
    methods: Methods.CREATABLE,
    args: (h: H) => h.webhooks.redeliverArgs(),
  })
  @Allow(admin)
  redeliver(req: RestRequest) {
    return this.webhooks.redeliver(req);
  }
}
