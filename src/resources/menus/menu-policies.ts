import { RestException } from '../../core/errors/rest.exception';
import type { ContentRegistry } from '../../core/registry/content-registry.service';
import type { RestRequest } from '../../core/rest/rest-request';

/** The route's `id`, as sent (the checks also run where arguments were not validated: the `Allow` header). */
export interface IdArgs {
  id?: unknown;
}

/**
 * Who may do what with menus, menu items and menu locations: WordPress 6.1's `*_permissions_check` of the menus,
 * menu items and menu locations controllers, with their error codes. Writes need `edit_theme_options`; reads need
 * what `check_has_read_only_access()` asks (`edit_theme_options`, or `edit_posts` of some REST post type).
 */
export class MenuPolicies {
  constructor(private readonly content: ContentRegistry) {}

  /** `check_has_read_only_access()`: `rest_cannot_view` with `message` for the others. */
  async readOnlyAccess(req: RestRequest, message: string): Promise<true | RestException> {
    if (await req.ctx.can('edit_theme_options')) return true;
    if (await req.ctx.can('edit_posts')) return true;
    for (const type of this.content.listedPostTypes()) if (await req.ctx.can(type.cap.edit_posts)) return true;
    return new RestException('rest_cannot_view', message, req.ctx.authorizationRequiredCode);
  }

  /** A refusal with the caller's status (401 anonymous, 403 logged in). */
  refuse(req: RestRequest, code: string, message: string): RestException {
    return new RestException(code, message, req.ctx.authorizationRequiredCode);
  }

  /** `menu-locations`: `edit_theme_options`. */
  async canViewLocations(req: RestRequest): Promise<true | RestException> {
    if (await req.ctx.can('edit_theme_options')) return true;
    return this.refuse(req, 'rest_cannot_view', 'Sorry, you are not allowed to view menu locations.');
  }
}

/** The `id` of a route as an integer (0 when it is not one). */
export function routeId(req: RestRequest): number {
  const id = Number(req.args<IdArgs>().id);
  return Number.isInteger(id) && id > 0 ? id : 0;
}
