import { CommentEntity } from '../core/database/entities/comment.entity';
import { CommentsService } from '../resources/comments/comments.service';
import { WxrAuthors } from './wxr-authors';
import { message, metaOps, Tally, WxrImportContext } from './wxr-import-support';
import { WxrComment } from './wxr-reader';

/** The comments of an imported post: matched by post, author and date, created when missing, threads remapped. */
export class WxrComments {
  private readonly commentsService: CommentsService;

  constructor(
    private readonly ctx: WxrImportContext,
    private readonly tally: Tally,
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

  private async importComment(postId: number, c: WxrComment, ids: Map<number, number>): Promise<void> {
    try {
      const existing = await this.ctx.dataSource
        .getRepository(CommentEntity)
        .findOne({ select: { id: true }, where: { postId, author: c.author, date: c.date } });
      if (existing) {
        ids.set(c.id, Number(existing.id));
        this.tally.skipped++;
        return;
      }
      const id = await this.commentsService.create(
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
      ids.set(c.id, id);
      this.tally.created++;
    } catch (error) {
      this.tally.failed++;
      this.ctx.report(`Failed: comment ${c.id} by "${c.author}": ${message(error)}`);
    }
  }
}
