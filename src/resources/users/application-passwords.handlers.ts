import { Injectable } from '@nestjs/common';
import { RestRequest } from '../../core/rest/rest-request';
import { Allow, RestRoute } from '../../core/rest/rest-route.decorator';
import { Methods } from '../../core/rest/route-types';
import { ApplicationPasswordsResource } from './application-passwords.resource';

type H = ApplicationPasswordsHandlers;
const BASE = '/users/(?P<user_id>(?:[\\d]+|me))/application-passwords';
const schema = (h: H) => h.passwords.getPublicItemSchema();
/** The reference's capability check of each route: the meta capability on the user (and uuid), its code and message. */
const can = (cap: string, code: string, message: string) => (req: RestRequest, h: H) =>
  h.passwords.check(req, cap, code, message);

/** Routes of application passwords (mirrors WP_REST_Application_Passwords_Controller::register_routes). */
@Injectable()
export class ApplicationPasswordsHandlers {
  constructor(readonly passwords: ApplicationPasswordsResource) {}

  @RestRoute(BASE, { methods: Methods.READABLE, args: (h: H) => h.passwords.contextArgs(), schema, returns: 'list' })
  @Allow(
    can(
      'list_app_passwords',
      'rest_cannot_list_application_passwords',
      'Sorry, you are not allowed to list application passwords for this user.',
    ),
  )
  list(req: RestRequest) {
    return this.passwords.list(req);
  }

  @RestRoute(BASE, { methods: Methods.CREATABLE, args: (h: H) => h.passwords.createArgs(), schema })
  @Allow(
    can(
      'create_app_password',
      'rest_cannot_create_application_passwords',
      'Sorry, you are not allowed to create application passwords for this user.',
    ),
  )
  create(req: RestRequest) {
    return this.passwords.create(req);
  }

  @RestRoute(BASE, { methods: Methods.DELETABLE, schema })
  @Allow(
    can(
      'delete_app_passwords',
      'rest_cannot_delete_application_passwords',
      'Sorry, you are not allowed to delete application passwords for this user.',
    ),
  )
  removeAll(req: RestRequest) {
    return this.passwords.deleteAll(req);
  }

  // Declared before the uuid route, which would otherwise match it.
  @RestRoute(`${BASE}/introspect`, { methods: Methods.READABLE, args: (h: H) => h.passwords.contextArgs(), schema })
  @Allow((req, h: H) => h.passwords.canIntrospect(req))
  introspect(req: RestRequest) {
    return this.passwords.introspect(req);
  }

  @RestRoute(`${BASE}/(?P<uuid>[\\w\\-]+)`, {
    methods: Methods.READABLE,
    args: (h: H) => h.passwords.contextArgs(),
    schema,
  })
  @Allow(
    can(
      'read_app_password',
      'rest_cannot_read_application_password',
      'Sorry, you are not allowed to read this application password.',
    ),
  )
  get(req: RestRequest) {
    return this.passwords.get(req);
  }

  @RestRoute(`${BASE}/(?P<uuid>[\\w\\-]+)`, {
    methods: Methods.EDITABLE,
    args: (h: H) => h.passwords.editArgs(),
    schema,
  })
  @Allow(
    can(
      'edit_app_password',
      'rest_cannot_edit_application_password',
      'Sorry, you are not allowed to edit this application password.',
    ),
  )
  update(req: RestRequest) {
    return this.passwords.update(req);
  }

  @RestRoute(`${BASE}/(?P<uuid>[\\w\\-]+)`, { methods: Methods.DELETABLE, schema })
  @Allow(
    can(
      'delete_app_password',
      'rest_cannot_delete_application_password',
      'Sorry, you are not allowed to delete this application password.',
    ),
  )
  remove(req: RestRequest) {
    return this.passwords.deleteOne(req);
  }
}
