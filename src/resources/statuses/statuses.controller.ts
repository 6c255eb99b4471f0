import { Injectable } from '@nestjs/common';
import { RestException } from '../../core/http/rest.exception';
import { PostStatusObject } from '../../core/registry/content-types';
import { POST_STATUS_SCHEMA, restListedStatuses, statusToRest } from '../../core/registry/rest-shapes';
import { RestRequest } from '../../core/rest/rest-request';
import { linkMap } from '../../core/rest/rest-response';
import { ItemSchema } from '../../core/schema/json-schema';
import { ContentRegistryController } from '../content-registry.controller';

/** `statuses` and `statuses/<status>`: post statuses the caller may see, as an object keyed by name. */
@Injectable()
export class StatusesController extends ContentRegistryController {
  readonly restBase = 'statuses';

  protected baseSchema(): ItemSchema {
    return POST_STATUS_SCHEMA as unknown as ItemSchema;
  }

  protected registerRoutes(): void {
    this.route('/statuses', {
      methods: 'GET',
      args: () => ({ context: this.getContextParam({ default: 'view' }) }),
      permission: (req) => this.canListInContext(req, this.content.restPostTypes(), (type) => type.cap.edit_posts),
      handler: (req) =>
        this.keyedCollection(
          restListedStatuses(this.content.allStatuses()),
          req,
          (status) => status.name,
          (status) => this.canRead(status, req),
          (status) => this.prepareItem(status, req),
        ),
    });
    this.route('/statuses/(?P<status>[\\w-]+)', {
      methods: 'GET',
      args: () => ({
        status: { description: 'An alphanumeric identifier for the status.', type: 'string' },
        context: this.getContextParam({ default: 'view' }),
      }),
      permission: (req) => this.canReadItem(req),
      handler: (req) => this.prepareItem(this.content.status(String(req.get('status'))) as PostStatusObject, req),
    });
  }

  /** Public statuses are visible to all; other non-internal ones and `trash` to those who can edit posts. */
  private async canRead(status: PostStatusObject, req: RestRequest): Promise<boolean> {
    if (status.public) return true;
    if (!status.internal || status.name === 'trash') return this.canAny(this.content.restPostTypes(), req, (t) => t.cap.edit_posts);
    return false;
  }

  private async canReadItem(req: RestRequest): Promise<true | RestException> {
    const status = this.content.status(String(req.get('status')));
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
