import { Injectable } from '@nestjs/common';
import { RestException } from '../../core/errors/rest.exception';
import { PostTypeObject } from '../../core/registry/content-types';
import { POST_TYPE_SCHEMA, postTypeToRest } from '../../core/registry/rest-shapes';
import { RestRequest } from '../../core/rest/rest-request';
import { linkMap } from '../../core/rest/rest-response';
import { ItemSchema } from '../../core/json-schema/json-schema';
import { ContentRegistryResource } from './content-registry.resource';

/** The arguments of `GET types/<type>` (the path's `type`, validated: the route has no permission check). */
export interface PostTypeItemArgs {
  type: string;
}

/** `types` and `types/<type>`: the REST-enabled post types, as an object keyed by name (routes in TypesHandlers). */
@Injectable()
export class TypesResource extends ContentRegistryResource {
  readonly restBase = 'types';

  protected baseSchema(): ItemSchema {
    return POST_TYPE_SCHEMA as unknown as ItemSchema;
  }

  readonly listArgs = () => ({ context: this.getContextParam({ default: 'view' }) });

  readonly itemArgs = () => ({
    type: { description: 'An alphanumeric identifier for the post type.', type: 'string' as const },
    context: this.getContextParam({ default: 'view' }),
  });

  /** context=edit needs edit_posts of at least one REST-enabled type. */
  canList(req: RestRequest) {
    return this.canListInContext(req, this.content.listedPostTypes(), editPosts);
  }

  getItems(req: RestRequest) {
    return this.keyedCollection(
      this.content.listedPostTypes(),
      req,
      (type) => type.name,
      (type) => req.context !== 'edit' || req.ctx.can(editPosts(type)),
      (type) => this.prepareItem(type, req),
    );
  }

  /**
   * The reference checks inside the handler (the route has no permission callback, so `Allow: GET` is always sent),
   * before any work: the type exists, is served by the API, and `context=edit` needs its `edit_posts`.
   */
  async getItem(req: RestRequest) {
    const type = this.content.postType(req.args<PostTypeItemArgs>().type);
    // An unlisted type (the seed's view of reusable blocks) is unknown here, as to the seed.
    if (!type || type.unlisted) throw new RestException('rest_type_invalid', 'Invalid resource.', 404);
    const code = req.ctx.authorizationRequiredCode;
    if (!type.show_in_rest) throw new RestException('rest_cannot_read_type', 'Cannot view resource.', code);
    if (req.context === 'edit' && !(await req.ctx.can(type.cap.edit_posts))) {
      throw new RestException('rest_forbidden_context', 'Sorry, you are not allowed to manage this resource.', code);
    }
    return this.prepareItem(type, req);
  }

  private prepareItem(type: PostTypeObject, req: RestRequest) {
    const data = postTypeToRest(type, this.content.restTaxonomiesOfType(type.name)) as unknown as Record<
      string,
      unknown
    >;
    // The namespace as the wire names it (`wp/v2` with WordPress's names).
    data.rest_namespace = req.ctx.wire.namespace(type.rest_namespace);
    const links = linkMap({
      collection: { href: req.ctx.restUrl(`${this.namespace}/types`) },
      [`${this.server.options.linkRelBase}items`]: {
        href: req.ctx.restUrl(`${type.rest_namespace}/${type.rest_base || type.name}`),
      },
    });
    return this.prepareResponse(data, req, links, 'post_type', type);
  }
}

const editPosts = (type: PostTypeObject) => type.cap.edit_posts;
