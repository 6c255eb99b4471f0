import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** A row of WordPress's `{prefix}commentmeta` table. */
@Entity('commentmeta')
@Index('comment_id', ['commentId'])
@Index('meta_key', ['key']) // meta_key(191)
export class CommentMetaEntity {
  @PrimaryGeneratedColumn({ name: 'meta_id', type: 'bigint', unsigned: true })
  id!: number;

  @Column({ name: 'comment_id', type: 'bigint', unsigned: true, default: 0 })
  commentId!: number;

  @Column({ name: 'meta_key', type: 'varchar', length: 255, nullable: true, default: null })
  key!: string | null;

  @Column({ name: 'meta_value', type: 'text', nullable: true, default: null })
  value!: string | null;
}
