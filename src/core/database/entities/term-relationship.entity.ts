import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** A row of WordPress's `{prefix}term_relationships` table: links an object (post) to a term taxonomy. */
@Entity('term_relationships')
@Index('term_taxonomy_id', ['termTaxonomyId'])
export class TermRelationshipEntity {
  /** Post id (or link id). */
  @PrimaryColumn({ name: 'object_id', type: 'bigint', unsigned: true, default: 0 })
  objectId!: number;

  @PrimaryColumn({ name: 'term_taxonomy_id', type: 'bigint', unsigned: true, default: 0 })
  termTaxonomyId!: number;

  @Column({ name: 'term_order', type: 'int', default: 0 })
  termOrder!: number;
}
