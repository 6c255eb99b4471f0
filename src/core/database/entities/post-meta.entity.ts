import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** A row of WordPress's `{prefix}postmeta` table. `value` is stored as by `maybe_serialize()`. */
@Entity('postmeta')
@Index('post_id', ['postId'])
@Index('meta_key', ['key']) // meta_key(191)
export class PostMetaEntity {
  @PrimaryGeneratedColumn({ name: 'meta_id', type: 'bigint', unsigned: true })
  id!: number;

  @Column({ name: 'post_id', type: 'bigint', unsigned: true, default: 0 })
  postId!: number;

  @Column({ name: 'meta_key', type: 'varchar', length: 255, nullable: true, default: null })
  key!: string | null;

  @Column({ name: 'meta_value', type: 'text', nullable: true, default: null })
  value!: string | null;
}
