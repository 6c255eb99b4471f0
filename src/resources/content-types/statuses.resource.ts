import { Injectable } from '@nestjs/common';
import { RestException } from '../../core/errors/rest.exception';
import { PostStatusObject } from '../../core/registry/content-types';
import { POST_STATUS_SCHEMA, restListedStatuses, statusToRest } from '../../core/registry/rest-shapes';
import { RestRequest } from '../../core/rest/rest-request';
import { linkMap } from '../../core/rest/rest-response';
import { ItemSchema } from '../../core/json-schema/json-schema';
import { ContentRegistryResource } from './content-registry.resource';

/**
 * The arguments of `GET statuses/<status>`. `status` is the path's string once validated; the permission check also
 * runs where it was not (the `Allow` header: as sent, a query parameter winning), so it converts it.
 */
export interface StatusArgs {
  status: string;
}

/** `statuses` and `statuses/<status>`: post statuses the caller may see, as an object keyed by name (routes in StatusesHandlers). */
@Injectable()
export class StatusesResource extends ContentRegistryResource {
  readonly restBase = 'statuses';

  protected baseSchema(): ItemSchema {
    return POST_STATUS_SCHEMA as unknown as ItemSchema;
  }

  readonly listArgs = () => ({ context: this.getContextParam({ default: 'view' }) });

  readonly itemArgs = () => ({
    status: { description: 'An alphanumeric identifier for the status.', type: 'string' as const },
    context: this.getContextParam({ default: 'view' }),
  });

  canList(req: RestRequest) {
    return this.canListInContext(req, this.content.listedPostTypes(), (type) => type.cap.edit_posts);
  }

  getItems(req: RestRequest) {
    return this.keyedCollection(
      restListedStatuses(this.content.allStatuses()),
      req,
      (status) => status.name,
      (status) => this.canRead(status, req),
      (status) => this.prepareItem(status, req),
    );
  }

  getItem(req: RestRequest) {
    return this.prepareItem(this.content.status(req.args<StatusArgs>().status) as PostStatusObject, req);
  }

  /** Public statuses are visible to all; other non-internal ones and `trash` to those who can edit posts. */
  private async canRead(status: PostStatusObject, req: RestRequest): Promise<boolean> {
    if (status.public) return true;
    if (!status.internal || status.name === 'trash')
      return this.canAny(this.content.listedPostTypes(), req, (t) => t.cap.edit_posts);
    return false;
  }

  async canReadItem(req: RestRequest): Promise<true | RestException> {
    const status = this.content.status(String(req.args<StatusArgs>().status));
    if (!status) return new RestException('rest_status_invalid', 'Invalid resource.', 404);
    if (!(await this.canRead(status, req))) {
      return new RestException('rest_cannot_read_status', 'Cannot view resource.', req.ctx.authorizationRequiredCode);
    }
    return true;
  }

  private prepareItem(status: PostStatusObject, req: RestRequest) {
    const data = statusToRest(status) as unknown as Record<string, unknown>;
    const posts = req.ctx.restUrl(`${this.namespace}/posts`);
    const links = linkMap({ archives: { href: status.name === 'publish' ? posts : `${posts}?status=${status.name}` } });
    return this.prepareResponse(data, req, links, 'status', status);
  }
}
