import { Injectable } from '@nestjs/common';
import { PostEntity } from '../../core/database/entities/post.entity';
import { ContentRegistry } from '../../core/registry/content-registry.service';
import { RestRequest } from '../../core/rest/rest-request';
import { canReadPost, postLoader } from './post-access';
import { samePassword } from './post-content';
import { PostsService } from './posts.service';

/**
 * What every resource that hangs off posts (comments, media) reads of them: the request-wide loader of posts by id,
 * the reference's read check of a post, and a post's password.
 */
@Injectable()
export class PostReads {
  constructor(
    private readonly posts: PostsService,
    private readonly content: ContentRegistry,
  ) {}

  /** Posts by id, batched across a request and its embedded sub-requests (see {@link postLoader}). */
  loader(req: RestRequest) {
    return postLoader(req, this.posts);
  }

  /**
   * The reference's `check_read_permission` of a post (see {@link canReadPost}), its ancestors read through the
   * request's loader.
   */
  canRead(post: PostEntity, req: RestRequest): Promise<boolean> {
    return canReadPost(post, req, this.content, (id) => this.loader(req).load(id));
  }

  /** Whether a password sent matches the post's, compared in constant time. */
  passwordMatches(post: PostEntity, given: string): boolean {
    return samePassword(post.password, given);
  }
}
