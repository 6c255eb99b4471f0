import { PostReads } from '../posts';
import { CommentEntity } from '../../core/database/entities/comment.entity';
import { PostEntity } from '../../core/database/entities/post.entity';
import { RestException } from '../../core/errors/rest.exception';
import { RestRequest } from '../../core/rest/rest-request';
import { CommentsService } from './comments.service';
import type { CommentCheckArgs } from './comment-schema';

/** The request-wide loader of comments by id (one query for all those asked together). */
export function commentLoader(req: RestRequest, comments: CommentsService) {
  return req.ctx.loader<number, CommentEntity | null>('comments', async (ids) => {
    const rows = await comments.findByIds(ids);
    return ids.map((id) => rows.find((r) => r.id === id) ?? null);
  });
}

/** A comment's post by id through the request-wide post loader (`null` for no post, `0`). */
export async function loadPost(req: RestRequest, posts: PostReads, id: number): Promise<PostEntity | null> {
  return id > 0 ? posts.loader(req).load(id) : null;
}

/**
 * The comment of the route's `id`, or `null`. The id is converted here: the permission checks that call this also run
 * for the `Allow` header of an OPTIONS request or of one whose arguments failed validation, where it is the path's
 * string (see {@link CommentCheckArgs}).
 */
export async function loadComment(req: RestRequest, comments: CommentsService): Promise<CommentEntity | null> {
  const id = Number(req.args<CommentCheckArgs>().id);
  return Number.isInteger(id) && id > 0 ? commentLoader(req, comments).load(id) : null;
}

/** The comment of the route's `id`, or the reference's `rest_comment_invalid_id` (404). */
export async function loadCommentOrFail(req: RestRequest, comments: CommentsService): Promise<CommentEntity> {
  const comment = await loadComment(req, comments);
  if (!comment) throw new RestException('rest_comment_invalid_id', 'Invalid comment id.', 404);
  return comment;
}
