import { Injectable } from '@nestjs/common';
import { ApplicationPasswordItem, ApplicationPasswords } from '../../core/auth/application-passwords.service';
import { UserEntity } from '../../core/database/entities/user.entity';
import { HookRegistry } from '../../core/hooks/hook-registry.service';
import { RestException } from '../../core/errors/rest.exception';
import { RestResource } from '../../core/rest/rest-resource';
import { RestRequest } from '../../core/rest/rest-request';
import { linkMap, RestResponse } from '../../core/rest/rest-response';
import { RestServer } from '../../core/rest/rest-server.service';
import { Methods } from '../../core/rest/route-types';
import { ItemSchema } from '../../core/json-schema/json-schema';
import { CmsExtensionRegistry } from '../../extensions/extension-registry.service';
import { UsersService } from './users.service';

const SCHEMA: ItemSchema = {
  $schema: 'http://json-schema.org/draft-04/schema#',
  title: 'application-password',
  type: 'object',
  properties: {
    uuid: {
      description: 'The unique identifier for the application password.',
      type: 'string',
      format: 'uuid',
      context: ['view', 'edit', 'embed'],
      readonly: true,
    },
    app_id: {
      description:
        'A UUID provided by the application to uniquely identify it. It is recommended to use an UUID v5 with the URL or DNS namespace.',
      type: 'string',
      format: 'uuid',
      context: ['view', 'edit', 'embed'],
    },
    name: {
      description: 'The name of the application password.',
      type: 'string',
      required: true,
      context: ['view', 'edit', 'embed'],
      minLength: 1,
      pattern: '.*\\S.*',
    },
    password: {
      description: 'The generated password. Only available after adding an application.',
      type: 'string',
      context: ['edit'],
      readonly: true,
    },
    created: {
      description: 'The GMT date the application password was created.',
      type: 'string',
      format: 'date-time',
      context: ['view', 'edit'],
      readonly: true,
    },
    last_used: {
      description: 'The GMT date the application password was last used.',
      type: ['string', 'null'],
      format: 'date-time',
      context: ['view', 'edit'],
      readonly: true,
    },
    last_ip: {
      description: 'The IP address the application password was last used by.',
      type: ['string', 'null'],
      format: 'ip',
      context: ['view', 'edit'],
      readonly: true,
    },
  },
};

/**
 * The arguments of the application passwords' routes: the path's `user_id` (digits or `me`) and `uuid` (on one
 * password's routes) — not declared, so a query parameter of the same name wins and they are converted where used —
 * and the schema's writable properties on update.
 */
export interface ApplicationPasswordArgs {
  user_id?: unknown;
  uuid?: unknown;
  name?: string;
  app_id?: string;
}

/** The arguments of `POST users/<id|me>/application-passwords` (`name` is required). */
interface ApplicationPasswordCreateArgs extends ApplicationPasswordArgs {
  name: string;
}

/**
 * `users/<id|me>/application-passwords[/<uuid>]`: list, create (the plain password is answered once), read,
 * rename, delete one and delete all, stored the way WordPress stores them.
 */
@Injectable()
export class ApplicationPasswordsResource extends RestResource {
  readonly restBase = 'application-passwords';

  constructor(
    server: RestServer,
    extensions: CmsExtensionRegistry,
    hooks: HookRegistry,
    private readonly accounts: ApplicationPasswords,
    private readonly users: UsersService,
  ) {
    super(server, extensions, hooks);
  }

  protected baseSchema(): ItemSchema {
    return SCHEMA;
  }

  readonly contextArgs = () => ({ context: this.getContextParam({ default: 'view' }) });
  readonly createArgs = () => this.getEndpointArgsForItemSchema(Methods.CREATABLE);
  readonly editArgs = () => this.getEndpointArgsForItemSchema(Methods.EDITABLE);

  private async user(req: RestRequest): Promise<UserEntity> {
    const id = String(req.args<ApplicationPasswordArgs>().user_id);
    if (id === 'me') {
      if (!req.ctx.isLoggedIn) throw new RestException('rest_not_logged_in', 'You are not currently logged in.', 401);
      return (await this.users.findById(req.ctx.user.id)) as UserEntity;
    }
    const user = await this.users.findById(Number(id));
    if (!user) throw new RestException('rest_user_invalid_id', 'Invalid user ID.', 404);
    return user;
  }

  async check(req: RestRequest, cap: string, code: string, message: string): Promise<true | RestException> {
    const user = await this.user(req);
    const uuid = req.args<ApplicationPasswordArgs>().uuid;
    if (await req.ctx.can(cap, user.id, uuid)) return true;
    return new RestException(code, message, req.ctx.authorizationRequiredCode);
  }

  async canIntrospect(req: RestRequest): Promise<true | RestException> {
    const user = await this.user(req);
    if (req.ctx.user.id !== user.id) {
      return new RestException(
        'rest_cannot_introspect_app_password_for_non_authenticated_user',
        'The authenticated application password can only be introspected for the current user.',
        req.ctx.authorizationRequiredCode,
      );
    }
    return true;
  }

  /** The application password the current request authenticated with. */
  async introspect(req: RestRequest): Promise<RestResponse> {
    const user = await this.user(req);
    const uuid = req.ctx.user.applicationPassword;
    if (!uuid)
      throw new RestException('rest_no_authenticated_app_password', 'Cannot introspect application password.', 404);
    const item = await this.accounts.getApplicationPassword(user.id, uuid);
    if (!item) throw new RestException('rest_application_password_not_found', 'Application password not found.', 500);
    return this.prepare(item, user, req);
  }

  private async item(req: RestRequest, user: UserEntity): Promise<ApplicationPasswordItem> {
    const item = await this.accounts.getApplicationPassword(user.id, String(req.args<ApplicationPasswordArgs>().uuid));
    if (!item) throw new RestException('rest_application_password_not_found', 'Application password not found.', 404);
    return item;
  }

  async list(req: RestRequest): Promise<unknown[]> {
    const user = await this.user(req);
    const items = await this.accounts.listApplicationPasswords(user.id);
    return Promise.all(items.map(async (item) => this.server.toCollectionItem(await this.prepare(item, user, req))));
  }

  async get(req: RestRequest): Promise<RestResponse> {
    const user = await this.user(req);
    return this.prepare(await this.item(req, user), user, req);
  }

  async create(req: RestRequest): Promise<RestResponse> {
    const user = await this.user(req);
    const args = req.args<ApplicationPasswordCreateArgs>();
    const created = await this.accounts.createApplicationPassword(user.id, args.name.trim(), args.app_id ?? '');
    req.set('context', 'edit');
    const response = await this.prepare(created.item, user, req, created.password);
    return this.created(response, req, `${this.namespace}/users/${user.id}/application-passwords/${created.item.uuid}`);
  }

  async update(req: RestRequest): Promise<RestResponse> {
    const user = await this.user(req);
    const item = await this.item(req, user);
    const name = req.args<ApplicationPasswordArgs>().name;
    const updated =
      name !== undefined
        ? await this.accounts.updateApplicationPassword(user.id, item.uuid, { name: name.trim() })
        : item;
    req.set('context', 'edit');
    return this.prepare(updated ?? item, user, req);
  }

  async deleteOne(req: RestRequest): Promise<unknown> {
    const user = await this.user(req);
    const item = await this.item(req, user);
    req.set('context', 'edit');
    const previous = await this.prepare(item, user, req);
    await this.accounts.deleteApplicationPassword(user.id, item.uuid);
    return { deleted: true, previous: previous.data };
  }

  async deleteAll(req: RestRequest): Promise<unknown> {
    const user = await this.user(req);
    return { deleted: true, count: await this.accounts.deleteAllApplicationPasswords(user.id) };
  }

  private prepare(
    item: ApplicationPasswordItem,
    user: UserEntity,
    req: RestRequest,
    plain?: string,
  ): Promise<RestResponse> {
    const data: Record<string, unknown> = {
      uuid: item.uuid,
      app_id: item.app_id,
      name: item.name,
      created: unixToRfc3339(item.created),
      last_used: item.last_used ? unixToRfc3339(item.last_used) : null,
      last_ip: item.last_ip || null,
    };
    // Shown once, in groups of four as WordPress shows it.
    if (plain) data.password = plain.match(/.{1,4}/g)?.join(' ') ?? plain;
    const links = linkMap({
      self: { href: req.ctx.restUrl(`${this.namespace}/users/${user.id}/application-passwords/${item.uuid}`) },
    });
    return this.prepareResponse(data, req, links, 'application_password', item);
  }
}

function unixToRfc3339(seconds: number): string {
  return new Date(Number(seconds) * 1000).toISOString().slice(0, 19);
}
