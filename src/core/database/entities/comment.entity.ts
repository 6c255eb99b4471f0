import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { ZERO_DATE } from '../mysql-date';

/**
 * A row of WordPress's `{prefix}comments` table. `approved` is `'0'`, `'1'`, `'spam'`, `'trash'`, ...;
 * dates are datetime strings.
 */
@Entity('comments')
@Index('comment_post_ID', ['postId'])
@Index('comment_approved_date_gmt', ['approved', 'dateGmt'])
@Index('comment_date_gmt', ['dateGmt'])
@Index('comment_parent', ['parent'])
@Index('comment_author_email', ['authorEmail']) // comment_author_email(10)
export class CommentEntity {
  @PrimaryGeneratedColumn({ name: 'comment_ID', type: 'bigint', unsigned: true })
  id!: number;

  @Column({ name: 'comment_post_ID', type: 'bigint', unsigned: true, default: 0 })
  postId!: number;

  /** `tinytext` in WordPress. */
  @Column({ name: 'comment_author', type: 'text', default: '' })
  author!: string;

  @Column({ name: 'comment_author_email', type: 'varchar', length: 100, default: '' })
  authorEmail!: string;

  @Column({ name: 'comment_author_url', type: 'varchar', length: 200, default: '' })
  authorUrl!: string;

  @Column({ name: 'comment_author_IP', type: 'varchar', length: 100, default: '' })
  authorIp!: string;

  @Column({ name: 'comment_date', type: 'varchar', length: 19, default: ZERO_DATE })
  date!: string;

  @Column({ name: 'comment_date_gmt', type: 'varchar', length: 19, default: ZERO_DATE })
  dateGmt!: string;

  @Column({ name: 'comment_content', type: 'text', default: '' })
  content!: string;

  @Column({ name: 'comment_karma', type: 'int', default: 0 })
  karma!: number;

  @Column({ name: 'comment_approved', type: 'varchar', length: 20, default: '1' })
  approved!: string;

  @Column({ name: 'comment_agent', type: 'varchar', length: 255, default: '' })
  agent!: string;

  @Column({ name: 'comment_type', type: 'varchar', length: 20, default: 'comment' })
  type!: string;

  @Column({ name: 'comment_parent', type: 'bigint', unsigned: true, default: 0 })
  parent!: number;

  @Column({ name: 'user_id', type: 'bigint', unsigned: true, default: 0 })
  userId!: number;
}
