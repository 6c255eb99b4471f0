import { CommentEntity } from '../core/database/entities/comment.entity';
import { CommentsService } from '../resources/comments/comments.service';
import { WxrAuthors } from './wxr-authors';
import { message, metaOps, WxrImportContext } from './wxr-import-support';
import { WxrComment } from './wxr-reader';

/** The kind a comment is reported as: its type (`pingback`, `trackback`), or `comment`. */
export const commentKind = (c: Pick<WxrComment, 'type'>) => (c.type && c.type !== 'comment' ? c.type : 'comment');

/**
 * The comments of an imported post, of any type (pingbacks, trackbacks, notes), with their meta: matched by post,
 * author and date (WordPress's `comment_exists()`), created when missing, each in its own transaction, threads
 * remapped to the new parent ids.
 */
export class WxrComments {
  private readonly commentsService: CommentsService;
  /** In a dry run, the comments that would be created: `post author date`. */
  private readonly planned = new Set<string>();

  constructor(
    private readonly ctx: WxrImportContext,
    private readonly authors: WxrAuthors,
  ) {
    this.commentsService = ctx.get(CommentsService);
  }

  /** Comments of one post, parents first (a reply whose parent comes later waits for it). */
  async importComments(postId: number, comments: WxrComment[]): Promise<void> {
    const ids = new Map<number, number>();
    let pending = comments;
    while (pending.length) {
      const waiting: WxrComment[] = [];
      for (const comment of pending) {
        const inFile = comment.parent && pending.some((c) => c.id === comment.parent);
        if (comment.parent && !ids.has(comment.parent) && inFile) waiting.push(comment);
        else await this.importComment(postId, comment, ids);
      }
      // Parents that never come (a loop) leave their replies at the top level.
      if (waiting.length === pending.length) {
        for (const comment of waiting) await this.importComment(postId, { ...comment, parent: 0 }, ids);
        break;
      }
      pending = waiting;
    }
  }

  /** Reports every comment of a post that could not be imported as failed. */
  failAll(comments: WxrComment[], reason: string): void {
    for (const c of comments)
      this.ctx.report.failed(commentKind(c), this.label(c), reason, { fileId: c.id || undefined });
  }

  private label(c: WxrComment): string {
    return `by "${c.author}" on ${c.date}`;
  }

  private async importComment(postId: number, c: WxrComment, ids: Map<number, number>): Promise<void> {
    const kind = commentKind(c);
    const fileId = c.id || undefined;
    try {
      const existing =
        postId > 0
          ? await this.ctx.dataSource
              .getRepository(CommentEntity)
              .findOne({ select: { id: true }, where: { postId, author: c.author, date: c.date } })
          : null;
      const key = `${postId} ${c.author} ${c.date}`;
      if (existing || this.planned.has(key)) {
        const id = existing ? Number(existing.id) : undefined;
        if (id) ids.set(c.id, id);
        this.ctx.report.skipped(kind, this.label(c), 'already there (same post, author and date)', { fileId, id });
        return;
      }
      let id: number;
      if (this.ctx.dryRun) {
        id = this.ctx.fakeId();
        this.planned.add(key);
      } else {
        id = await this.commentsService.create(
          {
            postId,
            author: c.author,
            authorEmail: c.authorEmail,
            authorUrl: c.authorUrl,
            authorIp: c.authorIp,
            date: c.date,
            dateGmt: c.dateGmt || c.date,
            content: c.content,
            karma: 0,
            approved: c.approved || '1',
            agent: '',
            type: c.type || 'comment',
            parent: (c.parent && ids.get(c.parent)) || 0,
            userId: (c.userId && this.authors.userOf(c.userId)) || 0,
          },
          undefined,
          metaOps(c.meta),
        );
      }
      ids.set(c.id, id);
      this.ctx.report.created(kind, this.label(c), { fileId, id });
    } catch (error) {
      this.ctx.report.failed(kind, this.label(c), message(error), { fileId });
    }
  }
}
