import { Injectable } from '@nestjs/common';
import { RestRequest } from '../../core/rest/rest-request';
import { Allow, RestRoute } from '../../core/rest/rest-route.decorator';
import { Methods } from '../../core/rest/route-types';
import { CommentPolicies } from './comment-policies';
import { CommentResource } from './comment.resource';

type H = CommentsHandlers;
const schema = (h: H) => h.comments.getPublicItemSchema();

/** Routes of the comments resource (mirrors WP_REST_Comments_Controller::register_routes). */
@Injectable()
export class CommentsHandlers {
  constructor(
    readonly comments: CommentResource,
    readonly policies: CommentPolicies,
  ) {}

  @RestRoute('comments', {
    methods: Methods.READABLE,
    args: (h: H) => h.comments.collectionArgs(),
    schema,
    readsPostContent: false,
  })
  @Allow((req, h: H) => h.policies.canList(req))
  list(req: RestRequest) {
    return this.comments.getItems(req);
  }

  @RestRoute('comments', { methods: Methods.CREATABLE, args: (h: H) => h.comments.createArgs(), schema })
  @Allow((req, h: H) => h.policies.canCreate(req))
  create(req: RestRequest) {
    return this.comments.createItem(req);
  }

  @RestRoute('comments/(?P<id>[\\d]+)', {
    methods: Methods.READABLE,
    args: (h: H) => h.comments.readArgs(),
    schema,
    readsPostContent: false,
  })
  @Allow((req, h: H) => h.policies.canRead(req))
  get(req: RestRequest) {
    return this.comments.getItem(req);
  }

  @RestRoute('comments/(?P<id>[\\d]+)', { methods: Methods.EDITABLE, args: (h: H) => h.comments.updateArgs(), schema })
  @Allow((req, h: H) => h.policies.canUpdate(req))
  update(req: RestRequest) {
    return this.comments.updateItem(req);
  }

  @RestRoute('comments/(?P<id>[\\d]+)', { methods: Methods.DELETABLE, args: (h: H) => h.comments.deleteArgs(), schema })
  @Allow((req, h: H) => h.policies.canDelete(req))
  remove(req: RestRequest) {
    return this.comments.deleteItem(req);
  }
}
