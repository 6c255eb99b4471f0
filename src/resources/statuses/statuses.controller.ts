import { Injectable } from '@nestjs/common';
import { CmsExtensionRegistry } from '../../extensions/extension-registry.service';
import { HookRegistry } from '../../core/hooks/hook-registry.service';
import { RestException } from '../../core/http/rest.exception';
import { ContentRegistry } from '../../core/registry/content-registry.service';
import { PostStatusObject } from '../../core/registry/content-types';
import { POST_STATUS_SCHEMA, restListedStatuses, statusToRest } from '../../core/registry/rest-shapes';
import { RestController } from '../../core/rest/rest-controller';
import { RestRequest } from '../../core/rest/rest-request';
import { linkMap } from '../../core/rest/rest-response';
import { RestServer } from '../../core/rest/rest-server.service';
import { ItemSchema } from '../../core/schema/json-schema';

/** `statuses` and `statuses/<status>`: post statuses the caller may see, as an object keyed by name. */
@Injectable()
export class StatusesController extends RestController {
  readonly restBase = 'statuses';

  constructor(server: RestServer, extensions: CmsExtensionRegistry, hooks: HookRegistry, private readonly content: ContentRegistry) {
    super(server, extensions, hooks);
  }

  protected baseSchema(): ItemSchema {
    return POST_STATUS_SCHEMA as unknown as ItemSchema;
  }

  protected registerRoutes(): void {
    this.route('/statuses', {
      methods: 'GET',
      args: () => ({ context: this.getContextParam({ default: 'view' }) }),
      permission: async (req) =>
        req.context !== 'edit' || (await this.canEditAnyType(req)) ||
        new RestException('rest_cannot_view', 'Sorry, you cannot view this resource with edit context.', req.ctx.authorizationRequiredCode),
      handler: (req) => this.getItems(req),
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

  private async canEditAnyType(req: RestRequest): Promise<boolean> {
    for (const type of this.content.restPostTypes()) if (await req.ctx.can(type.cap.edit_posts)) return true;
    return false;
  }

  /** Public statuses are visible to all; other non-internal ones and `trash` to those who can edit posts. */
  private async canRead(status: PostStatusObject, req: RestRequest): Promise<boolean> {
    if (status.public) return true;
    if (!status.internal || status.name === 'trash') return this.canEditAnyType(req);
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

  private async getItems(req: RestRequest): Promise<unknown> {
    const data: Record<string, unknown> = {};
    for (const status of restListedStatuses(this.content.allStatuses())) {
      if (!(await this.canRead(status, req))) continue;
      data[status.name] = this.server.toCollectionItem(await this.prepareItem(status, req));
    }
    return data;
  }

  private prepareItem(status: PostStatusObject, req: RestRequest) {
    const data = statusToRest(status) as unknown as Record<string, unknown>;
    const posts = req.ctx.restUrl(`${this.namespace}/posts`);
    const links = linkMap({ archives: { href: status.name === 'publish' ? posts : `${posts}?status=${status.name}` } });
    return this.prepareResponse(data, req, links, 'status', status);
  }
}
