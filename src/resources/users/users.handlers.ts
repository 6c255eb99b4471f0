import { Injectable } from '@nestjs/common';
import { RestRequest } from '../../core/rest/rest-request';
import { Allow, RestRoute } from '../../core/rest/rest-route.decorator';
import { Methods } from '../../core/rest/route-types';
import { UserPolicies } from './user-policies';
import { UsersResource } from './users.resource';

type H = UsersHandlers;
const schema = (h: H) => h.users.getPublicItemSchema();

/** Routes of `users` (mirrors WP_REST_Users_Controller::register_routes). */
@Injectable()
export class UsersHandlers {
  constructor(
    readonly users: UsersResource,
    readonly policies: UserPolicies,
  ) {}

  @RestRoute('/users', {
    methods: Methods.READABLE,
    args: (h: H) => h.users.collectionArgs(),
    schema,
    readsPostContent: false,
  })
  @Allow((req, h: H) => h.policies.canList(req))
  list(req: RestRequest) {
    return this.users.getItems(req);
  }

  @RestRoute('/users', { methods: Methods.CREATABLE, args: (h: H) => h.users.createArgs(), schema })
  @Allow((req, h: H) => h.policies.canCreate(req))
  create(req: RestRequest) {
    return this.users.createItem(req);
  }

  @RestRoute('/users/(?P<id>[\\d]+)', {
    methods: Methods.READABLE,
    args: (h: H) => h.users.readArgs(),
    schema,
    readsPostContent: false,
  })
  @Allow((req, h: H) => h.policies.canRead(req))
  get(req: RestRequest) {
    return this.users.getItem(req);
  }

  @RestRoute('/users/(?P<id>[\\d]+)', { methods: Methods.EDITABLE, args: (h: H) => h.users.updateArgs(), schema })
  @Allow((req, h: H) => h.policies.canUpdate(req))
  update(req: RestRequest) {
    return this.users.updateItem(req);
  }

  @RestRoute('/users/(?P<id>[\\d]+)', { methods: Methods.DELETABLE, args: (h: H) => h.users.deleteByIdArgs(), schema })
  @Allow((req, h: H) => h.policies.canDelete(req))
  remove(req: RestRequest) {
    return this.users.deleteItem(req);
  }

  @RestRoute('/users/me', { methods: Methods.READABLE, args: (h: H) => h.users.currentArgs(), schema })
  me(req: RestRequest) {
    return this.users.getCurrent(req);
  }

  @RestRoute('/users/me', { methods: Methods.EDITABLE, args: (h: H) => h.users.editArgs(), schema })
  @Allow((req, h: H) => h.policies.withCurrentId(req, () => h.policies.canUpdate(req)))
  updateMe(req: RestRequest) {
    return this.users.updateItem(req);
  }

  @RestRoute('/users/me', { methods: Methods.DELETABLE, args: (h: H) => h.users.deleteArgs(), schema })
  @Allow((req, h: H) => h.policies.withCurrentId(req, () => h.policies.canDelete(req)))
  removeMe(req: RestRequest) {
    return this.users.deleteItem(req);
  }
}
