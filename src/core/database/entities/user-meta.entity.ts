import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** A row of WordPress's `{prefix}usermeta` table (e.g. `{prefix}capabilities`). */
@Entity('usermeta')
@Index('user_id', ['userId'])
@Index('meta_key', ['key']) // meta_key(191)
export class UserMetaEntity {
  @PrimaryGeneratedColumn({ name: 'umeta_id', type: 'bigint', unsigned: true })
  id!: number;

  @Column({ name: 'user_id', type: 'bigint', unsigned: true, default: 0 })
  userId!: number;

  @Column({ name: 'meta_key', type: 'varchar', length: 255, nullable: true, default: null })
  key!: string | null;

  @Column({ name: 'meta_value', type: 'text', nullable: true, default: null })
  value!: string | null;
}
