import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** A row of WordPress's `{prefix}term_taxonomy` table: a term in one taxonomy (its id is the "tt_id"). */
@Entity('term_taxonomy')
@Index('term_id_taxonomy', ['termId', 'taxonomy'], { unique: true })
@Index('taxonomy', ['taxonomy'])
export class TermTaxonomyEntity {
  @PrimaryGeneratedColumn({ name: 'term_taxonomy_id', type: 'bigint', unsigned: true })
  id!: number;

  @Column({ name: 'term_id', type: 'bigint', unsigned: true, default: 0 })
  termId!: number;

  @Column({ name: 'taxonomy', type: 'varchar', length: 32, default: '' })
  taxonomy!: string;

  @Column({ name: 'description', type: 'text', default: '' })
  description!: string;

  /** Parent term id (`term_id`, not `term_taxonomy_id`). */
  @Column({ name: 'parent', type: 'bigint', unsigned: true, default: 0 })
  parent!: number;

  @Column({ name: 'count', type: 'bigint', default: 0 })
  count!: number;
}
