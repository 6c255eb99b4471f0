import { PostEntity } from '../../core/database/entities/post.entity';
import { ContentRegistry } from '../../core/registry/content-registry.service';
import { postsLoader } from '../../core/rest/posts-loader';
import { RestRequest } from '../../core/rest/rest-request';
import type { PostsService } from './posts.service';

/** The request's shared `posts` loader (see {@link postsLoader}), reading through the posts service. */
export function postLoader(req: RestRequest, posts: Pick<PostsService, 'findByIds'>) {
  return postsLoader(req, (ids) => posts.findByIds(ids));
}

/**
 * The reference's `check_read_permission` of a post: published or of a public status, readable through `read_post`,
 * or an attachment/revision (`inherit`) whose parent is readable (one without a parent counts as published).
 * Used by the posts resource and by the resources that hang off a post (comments).
 */
/** The controller WordPress serves reusable blocks (`wp_block`) with: raw texts in every context, no rendered ones. */
export const BLOCKS_CONTROLLER = 'WP_REST_Blocks_Controller';

export async function canReadPost(
  post: PostEntity,
  req: RestRequest,
  content: ContentRegistry,
  loadPost: (id: number) => Promise<PostEntity | null>,
): Promise<boolean> {
  // WP_REST_Blocks_Controller::check_read_permission: `read_post` first (a reusable block's `read` is `edit_posts`).
  if (
    content.postType(post.type)?.rest_controller_class === BLOCKS_CONTROLLER &&
    !(await req.ctx.can('read_post', post))
  )
    return false;
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
