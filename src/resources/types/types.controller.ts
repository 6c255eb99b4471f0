import { Injectable } from '@nestjs/common';
import { CmsExtensionRegistry } from '../../extensions/extension-registry.service';
import { HookRegistry } from '../../core/hooks/hook-registry.service';
import { RestException } from '../../core/http/rest.exception';
import { ContentRegistry } from '../../core/registry/content-registry.service';
import { PostTypeObject } from '../../core/registry/content-types';
import { POST_TYPE_SCHEMA, postTypeToRest } from '../../core/registry/rest-shapes';
import { RestController } from '../../core/rest/rest-controller';
import { RestRequest } from '../../core/rest/rest-request';
import { linkMap } from '../../core/rest/rest-response';
import { RestServer } from '../../core/rest/rest-server.service';
import { ItemSchema } from '../../core/schema/json-schema';

/** `types` and `types/<type>`: the REST-enabled post types, as an object keyed by name. */
@Injectable()
export class TypesController extends RestController {
  readonly restBase = 'types';

  constructor(server: RestServer, extensions: CmsExtensionRegistry, hooks: HookRegistry, private readonly content: ContentRegistry) {
    super(server, extensions, hooks);
  }

  protected baseSchema(): ItemSchema {
    return POST_TYPE_SCHEMA as unknown as ItemSchema;
  }

  protected registerRoutes(): void {
    this.route('/types', {
      methods: 'GET',
      args: () => ({ context: this.getContextParam({ default: 'view' }) }),
      permission: (req) => this.canListInContext(req),
      handler: (req) => this.getItems(req),
    });
    this.route('/types/(?P<type>[\\w-]+)', {
      methods: 'GET',
      args: () => ({
        type: { description: 'An alphanumeric identifier for the post type.', type: 'string' },
        context: this.getContextParam({ default: 'view' }),
      }),
      handler: (req) => this.getItem(req),
    });
  }

  /** `context=edit` needs `edit_posts` of at least one REST-enabled type. */
  private async canListInContext(req: RestRequest): Promise<true | RestException> {
    if (req.context !== 'edit') return true;
    for (const type of this.content.restPostTypes()) if (await req.ctx.can(type.cap.edit_posts)) return true;
    return new RestException('rest_cannot_view', 'Sorry, you cannot view this resource with edit context.', req.ctx.authorizationRequiredCode);
  }

  private async getItems(req: RestRequest): Promise<unknown> {
    const data: Record<string, unknown> = {};
    for (const type of this.content.restPostTypes()) {
      if (req.context === 'edit' && !(await req.ctx.can(type.cap.edit_posts))) continue;
      data[type.name] = this.server.toCollectionItem(await this.prepareItem(type, req));
    }
    return data;
  }

  /**
   * The reference checks inside the handler (the route has no permission callback, so `Allow: GET` is always sent),
   * before any work: the type exists, is served by the API, and `context=edit` needs its `edit_posts`.
   */
  private async getItem(req: RestRequest) {
    const type = this.content.postType(String(req.get('type')));
    if (!type) throw new RestException('rest_type_invalid', 'Invalid resource.', 404);
    const code = req.ctx.authorizationRequiredCode;
    if (!type.show_in_rest) throw new RestException('rest_cannot_read_type', 'Cannot view resource.', code);
    if (req.context === 'edit' && !(await req.ctx.can(type.cap.edit_posts))) {
      throw new RestException('rest_forbidden_context', 'Sorry, you are not allowed to manage this resource.', code);
    }
    return this.prepareItem(type, req);
  }

  private prepareItem(type: PostTypeObject, req: RestRequest) {
    const data = postTypeToRest(type, this.content.restTaxonomiesOfType(type.name)) as unknown as Record<string, unknown>;
    const links = linkMap({
      collection: { href: req.ctx.restUrl(`${this.namespace}/types`) },
      [`${this.server.options.linkRelBase}items`]: { href: req.ctx.restUrl(`${type.rest_namespace}/${type.rest_base || type.name}`) },
    });
    return this.prepareResponse(data, req, links, 'post_type', type);
  }
}
