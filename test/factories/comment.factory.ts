import { DataSource } from 'typeorm';
import { CommentEntity } from '../../src/core/database/entities/comment.entity';

let commentSeq = 0;

/** `YYYY-MM-DD HH:MM:SS` of a UTC instant. */
export function sqlDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
}

/** Writes a comment row the way WordPress stores it, straight into the table (dates a minute apart, in order). */
export async function insertComment(ds: DataSource, fields: Partial<CommentEntity> = {}): Promise<CommentEntity> {
  commentSeq++;
  const date = fields.date ?? sqlDate(Date.UTC(2024, 2, 1) + commentSeq * 60_000);
  return ds.getRepository(CommentEntity).save({
    postId: 0,
    author: `Guest ${commentSeq}`,
    authorEmail: `guest${commentSeq}@example.net`,
    authorUrl: '',
    authorIp: '192.0.2.1',
    date,
    dateGmt: fields.dateGmt ?? date,
    content: `Stored comment ${commentSeq}`,
    karma: 0,
    approved: '1',
    agent: '',
    type: 'comment',
    parent: 0,
    userId: 0,
    ...fields,
  });
}

/**
 * WordPress refuses a second comment of the same user / IP / e-mail within 15 s (comment_flood): comments written in
 * the last few minutes are moved two hours back, so that a test meets the rule only on purpose.
 */
export async function unflood(ds: DataSource): Promise<void> {
  const repo = ds.getRepository(CommentEntity);
  const recent = sqlDate(Date.now() - 10 * 60_000);
  const rows = await repo.createQueryBuilder('c').where('c.dateGmt >= :recent', { recent }).getMany();
  const back = (s: string) => sqlDate(Date.parse(`${s.replace(' ', 'T')}Z`) - 2 * 3600_000);
  for (const row of rows) await repo.update({ id: row.id }, { date: back(row.date), dateGmt: back(row.dateGmt) });
}
