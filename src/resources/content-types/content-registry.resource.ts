import { Injectable } from '@nestjs/common';
import { HookRegistry } from '../../core/hooks/hook-registry.service';
import { RestException } from '../../core/errors/rest.exception';
import { ContentRegistry } from '../../core/registry/content-registry.service';
import { RestResource } from '../../core/rest/rest-resource';
import { RestRequest } from '../../core/rest/rest-request';
import { RestResponse } from '../../core/rest/rest-response';
import { RestServer } from '../../core/rest/rest-server.service';
import { CmsExtensionRegistry } from '../../extensions/extension-registry.service';

/**
 * Shared base of the read-only registry resources (types, statuses, taxonomies): collections are objects keyed by
 * name, and `context=edit` on a collection needs a capability on at least one of its items.
 */
@Injectable()
export abstract class ContentRegistryResource extends RestResource {
  constructor(
    server: RestServer,
    extensions: CmsExtensionRegistry,
    hooks: HookRegistry,
    protected readonly content: ContentRegistry,
  ) {
    super(server, extensions, hooks);
  }

  /** `true` when the caller holds `capOf(item)` for at least one item. */
  protected async canAny<T>(items: T[], req: RestRequest, capOf: (item: T) => string): Promise<boolean> {
    for (const item of items) if (await req.ctx.can(capOf(item))) return true;
    return false;
  }

  /** The collection permission check: any context but `edit` passes; `edit` needs the capability on some item. */
  async canListInContext<T>(req: RestRequest, items: T[], capOf: (item: T) => string): Promise<true | RestException> {
    if (req.context !== 'edit' || (await this.canAny(items, req, capOf))) return true;
    return new RestException(
      'rest_cannot_view',
      'Sorry, you cannot view this resource with edit context.',
      req.ctx.authorizationRequiredCode,
    );
  }

  /** An object keyed by `nameOf(item)` of the prepared items that `include` lets through. */
  protected async keyedCollection<T>(
    items: T[],
    req: RestRequest,
    nameOf: (item: T) => string,
    include: (item: T) => Promise<boolean> | boolean,
    prepare: (item: T) => Promise<RestResponse>,
  ): Promise<Record<string, unknown>> {
    const data: Record<string, unknown> = {};
    for (const item of items) {
      if (!(await include(item))) continue;
      data[nameOf(item)] = this.server.toCollectionItem(await prepare(item));
    }
    return data;
  }
}
