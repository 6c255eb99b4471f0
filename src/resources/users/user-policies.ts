import { Injectable } from '@nestjs/common';
import { RestException } from '../../core/errors/rest.exception';
import { ContentRegistry } from '../../core/registry/content-registry.service';
import { RestRequest } from '../../core/rest/rest-request';
import type { PostTypeObject } from '../../core/registry/post-types';
import { loadUser } from './user-loader';
import { authorPostTypes } from './user-query';
import { UsersService } from './users.service';
import type { UserCheckArgs } from './users.schema';

/**
 * Who may do what with users (the `@Allow` policies of UsersHandlers): the reference's `*_permissions_check` of the
 * users controller, with its error codes — the public-user rule, the filters and orders only `list_users` may use,
 * `edit_user` / `promote_user` for changes and their roles, `delete_user`, and `users/me` for logged-in callers.
 */
@Injectable()
export class UserPolicies {
  constructor(
    private readonly users: UsersService,
    private readonly content: ContentRegistry,
  ) {}

  /** The post types whose published posts make an author, as the request's dialect counts them. */
  private authorTypes(req: RestRequest): PostTypeObject[] {
    return authorPostTypes(this.content, req.ctx.wire.dialect.users);
  }

  async canList(req: RestRequest): Promise<true | RestException> {
    const code = req.ctx.authorizationRequiredCode;
    const args = req.args<UserCheckArgs>();
    const listUsers = await req.ctx.can('list_users');
    if (nonEmpty(args.roles) && !listUsers)
      return new RestException('rest_user_cannot_view', 'Sorry, you cannot filter by role.', code);
    if (nonEmpty(args.capabilities) && !listUsers) {
      return new RestException('rest_user_cannot_view', 'Sorry, you cannot filter by capability.', code);
    }
    if (req.context === 'edit' && !listUsers) {
      return new RestException(
        'rest_forbidden_context',
        'Sorry, you cannot view this resource with edit context.',
        code,
      );
    }
    if (['email', 'registered_date'].includes(String(args.orderby)) && !listUsers) {
      return new RestException('rest_forbidden_orderby', 'Sorry, you cannot order by this parameter.', code);
    }
    if (args.who === 'authors') {
      for (const type of this.authorTypes(req)) if (await req.ctx.can(type.cap.edit_posts)) return true;
      return new RestException(
        'rest_forbidden_who',
        'Sorry, you are not allowed to query users by this parameter.',
        code,
      );
    }
    return true;
  }

  async canRead(req: RestRequest): Promise<true | RestException> {
    const user = await loadUser(req, this.users);
    if (req.ctx.user.id === user.id) return true;
    const code = req.ctx.authorizationRequiredCode;
    const listUsers = await req.ctx.can('list_users');
    if (req.context === 'edit') {
      if (req.ctx.wire.dialect.users.editContextNeeds === 'list_users' && !listUsers) {
        return new RestException(
          'rest_user_cannot_view',
          'Sorry, you cannot view this resource with edit context.',
          code,
        );
      }
      if (req.ctx.wire.dialect.users.editContextNeeds === 'edit_user' && !(await req.ctx.can('edit_user', user.id)))
        return new RestException('rest_forbidden_context', 'Sorry, you are not allowed to edit this user.', code);
    }
    if (!listUsers && !(await req.ctx.can('edit_user', user.id))) {
      const published = await req.ctx
        .loader<number, boolean>('users-published', async (ids) => {
          const names = this.authorTypes(req).map((t) => t.name);
          const found = await this.users.withPublishedPosts([...ids], names);
          return ids.map((id) => found.has(id));
        })
        .load(user.id);
      if (!published) return new RestException('rest_user_cannot_view', 'Sorry, you cannot view this resource.', code);
    }
    return true;
  }

  async canCreate(req: RestRequest): Promise<true | RestException> {
    if (await req.ctx.can('create_users')) return true;
    // The spec's error table gives this code 401 for every caller, logged in or not: the one refusal that does not
    // follow the 401/403 rule (docs/differences.md lists it). WordPress answers 403 to a logged-in caller.
    const status = req.ctx.wire.dialect.users.createRefusalStatus === 401 ? 401 : req.ctx.authorizationRequiredCode;
    return new RestException('rest_cannot_create_user', 'Sorry, you are not allowed to create resource.', status);
  }

  async canUpdate(req: RestRequest): Promise<true | RestException> {
    const user = await loadUser(req, this.users);
    const code = req.ctx.authorizationRequiredCode;
    // An empty list takes every role away: it is a change of roles too (the reference asks promote_user for a
    // non-empty list only, and lets anyone strip their own roles).
    const roles = req.args<UserCheckArgs>().roles !== undefined;
    const promote = roles && (await req.ctx.can('promote_user', user.id));
    // The reference's order: edit_user first (rest_cannot_edit), then the roles. Changing only the roles needs
    // nothing more than promote_user.
    const rolesOnly =
      roles && !req.paramNames().some((n) => req.sent(n) && n !== 'id' && n !== 'roles' && n !== 'context');
    if (!(rolesOnly && promote) && !(await req.ctx.can('edit_user', user.id))) {
      return new RestException('rest_cannot_edit', 'Sorry, you are not allowed to edit resource.', code);
    }
    if (roles && !promote)
      return new RestException(
        'rest_cannot_edit_roles',
        'Sorry, you are not allowed to edit roles of this resource.',
        code,
      );
    return true;
  }

  async canDelete(req: RestRequest): Promise<true | RestException> {
    const user = await loadUser(req, this.users);
    if (await req.ctx.can('delete_user', user.id)) return true;
    return new RestException(
      'rest_user_cannot_delete',
      'Sorry, you are not allowed to delete this resource.',
      req.ctx.authorizationRequiredCode,
    );
  }

  /** `users/me` acts on the current user: anonymous callers get 401 `rest_not_logged_in`. */
  async withCurrentId(req: RestRequest, check: () => Promise<true | RestException>): Promise<true | RestException> {
    if (!req.ctx.isLoggedIn) return new RestException('rest_not_logged_in', 'You are not currently logged in.', 401);
    req.urlParams.id = String(req.ctx.user.id);
    return check();
  }
}

function nonEmpty(value: unknown): boolean {
  return Array.isArray(value) ? value.length > 0 : value !== undefined && value !== null && value !== '';
}
