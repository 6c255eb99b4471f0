import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { RestException } from '../errors/rest.exception';
import type { RestRequest } from '../rest/rest-request';
import type { PermissionPolicy, RouteTarget } from '../rest/rest-route.decorator';

/** Metadata key of a handler's permission policy (see `@Allow`). */
export const ALLOW_POLICY = 'cms:allow_policy';

/**
 * Evaluates the `@Allow(policy)` of an API handler: the reference's permission check, with its order and codes
 * (401 to anonymous callers, 403 to logged-in ones). The handler's arguments are `[RestRequest, handlers,
 * RouteTarget]` (context type `cms-rest`). A refusal with a code of its own is thrown as that `RestException`.
 */
@Injectable()
export class CapabilityGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const policy = this.reflector.get<PermissionPolicy | undefined>(ALLOW_POLICY, context.getHandler());
    if (!policy) return true;
    const [req, handlers, target] = context.getArgs<[RestRequest, unknown, RouteTarget]>();
    const result = await policy(req, handlers, target);
    if (result instanceof RestException) throw result;
    return result === true;
  }
}
