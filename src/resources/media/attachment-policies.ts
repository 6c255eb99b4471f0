import { PostPolicies } from '../posts';
import { RestException } from '../../core/errors/rest.exception';
import { RestRequest } from '../../core/rest/rest-request';
import type { MediaWriteArgs } from './attachment-schema';

/** The policies of the media routes: those of every post type, and an upload to a post needs the right to edit it. */
export class AttachmentPolicies extends PostPolicies {
  override async canCreate(req: RestRequest): Promise<true | RestException> {
    const shared = await super.canCreate(req);
    if (shared !== true) return shared;
    const { post } = req.args<MediaWriteArgs>();
    if (post !== undefined && post > 0) {
      const parent = await this.view.posts.findById(post);
      if (!parent || !(await req.ctx.can('edit_post', parent))) {
        return new RestException(
          'rest_cannot_edit',
          'Sorry, you are not allowed to upload media to this resource.',
          req.ctx.authorizationRequiredCode,
        );
      }
    }
    return true;
  }
}
