import { PostEntity } from '../../core/database/entities/post.entity';
import { ContentRegistry } from '../../core/registry/content-registry.service';
import { RestRequest } from '../../core/rest/rest-request';

/**
 * The reference's `check_read_permission` of a post: published or of a public status, readable through `read_post`,
 * or an attachment/revision (`inherit`) whose parent is readable (one without a parent counts as published).
 * Used by the posts resource and by the resources that hang off a post (comments).
 */
export async function canReadPost(
  post: PostEntity,
  req: RestRequest,
  content: ContentRegistry,
  loadPost: (id: number) => Promise<PostEntity | null>,
): Promise<boolean> {
  if (post.status === 'publish') return true;
  if (content.status(post.status)?.public) return true;
  if (await req.ctx.can('read_post', post)) return true;
  if (post.status === 'inherit') {
    if (post.parent > 0) {
      const parent = await loadPost(post.parent);
      if (parent) return canReadPost(parent, req, content, loadPost);
    }
    return true;
  }
  return false;
}
