import type { PostEntity } from '../database/entities/post.entity';
import type { RestRequest } from './rest-request';

/**
 * Posts by id, batched across a request and its embedded sub-requests: the one `posts` loader every resource that
 * reads posts (posts, comments, media, terms) shares; `find` reads the rows (`findPostsByIds`, core/database).
 */
export function postsLoader(req: RestRequest, find: (ids: readonly number[]) => Promise<PostEntity[]>) {
  return req.ctx.loader<number, PostEntity | null>('posts', async (ids) => {
    const rows = await find(ids);
    return ids.map((id) => rows.find((r) => r.id === id) ?? null);
  });
}
