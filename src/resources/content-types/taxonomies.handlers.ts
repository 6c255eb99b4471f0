import { Injectable } from '@nestjs/common';
import { RestRequest } from '../../core/rest/rest-request';
import { Allow, RestRoute } from '../../core/rest/rest-route.decorator';
import { TaxonomiesResource } from './taxonomies.resource';

const schema = (h: TaxonomiesHandlers) => h.taxonomies.getPublicItemSchema();

/** Routes of `taxonomies` (mirrors WP_REST_Taxonomies_Controller::register_routes). */
@Injectable()
export class TaxonomiesHandlers {
  constructor(readonly taxonomies: TaxonomiesResource) {}

  @RestRoute('/taxonomies', {
    methods: 'GET',
    args: (h: TaxonomiesHandlers) => h.taxonomies.listArgs(),
    schema,
    returns: 'map',
    readsPostContent: false,
  })
  @Allow((req, h: TaxonomiesHandlers) => h.taxonomies.canList(req))
  list(req: RestRequest) {
    return this.taxonomies.getItems(req);
  }

  @RestRoute('/taxonomies/(?P<taxonomy>[\\w-]+)', {
    methods: 'GET',
    args: (h: TaxonomiesHandlers) => h.taxonomies.itemArgs(),
    schema,
    readsPostContent: false,
  })
  @Allow((req, h: TaxonomiesHandlers) => h.taxonomies.canReadItem(req))
  get(req: RestRequest) {
    return this.taxonomies.getItem(req);
  }
}
