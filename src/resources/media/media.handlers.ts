import { Injectable } from '@nestjs/common';
import { RestRequest } from '../../core/rest/rest-request';
import { Allow, RestRoute } from '../../core/rest/rest-route.decorator';
import { Methods } from '../../core/rest/route-types';
import { listReadsPostContent } from '../../core/rest/post-list-content';
import { MediaResources } from './media-resources.service';

type H = MediaHandlers;
const schema = (h: H) => h.resources.media.getPublicItemSchema();

/** Routes of media (mirrors WP_REST_Attachments_Controller::register_routes): uploads on the collection's POST. */
@Injectable()
export class MediaHandlers {
  constructor(readonly resources: MediaResources) {}

  @RestRoute('media', {
    methods: Methods.READABLE,
    args: (h: H) => h.resources.media.collectionArgs(),
    schema,
    readsPostContent: listReadsPostContent,
  })
  @Allow((req, h: H) => h.resources.media.policies.canList(req))
  list(req: RestRequest) {
    return this.resources.media.getItems(req);
  }

  @RestRoute('media', {
    methods: Methods.CREATABLE,
    args: (h: H) => h.resources.media.createArgs(),
    schema,
    acceptsFiles: true,
  })
  @Allow((req, h: H) => h.resources.media.policies.canCreate(req))
  create(req: RestRequest) {
    return this.resources.media.createItem(req);
  }

  @RestRoute('media/(?P<id>[\\d]+)', {
    methods: Methods.READABLE,
    args: (h: H) => h.resources.media.readArgs(),
    schema,
    readsPostContent: false,
  })
  @Allow((req, h: H) => h.resources.media.policies.canRead(req))
  get(req: RestRequest) {
    return this.resources.media.getItem(req);
  }

  @RestRoute('media/(?P<id>[\\d]+)', {
    methods: Methods.EDITABLE,
    args: (h: H) => h.resources.media.updateArgs(),
    schema,
  })
  @Allow((req, h: H) => h.resources.media.policies.canUpdate(req))
  update(req: RestRequest) {
    return this.resources.media.updateItem(req);
  }

  @RestRoute('media/(?P<id>[\\d]+)', {
    methods: Methods.DELETABLE,
    args: (h: H) => h.resources.media.deleteArgs(),
    schema,
  })
  @Allow((req, h: H) => h.resources.media.policies.canDelete(req))
  remove(req: RestRequest) {
    return this.resources.media.deleteItem(req);
  }
}
