import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** A row of WordPress's `{prefix}terms` table; taxonomy data lives in {@link TermTaxonomyEntity}. */
@Entity('terms')
@Index('slug', ['slug']) // slug(191)
@Index('name', ['name']) // name(191)
export class TermEntity {
  @PrimaryGeneratedColumn({ name: 'term_id', type: 'bigint', unsigned: true })
  id!: number;

  @Column({ name: 'name', type: 'varchar', length: 200, default: '' })
  name!: string;

  @Column({ name: 'slug', type: 'varchar', length: 200, default: '' })
  slug!: string;

  @Column({ name: 'term_group', type: 'bigint', default: 0 })
  group!: number;
}
