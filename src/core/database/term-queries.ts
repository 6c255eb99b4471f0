import { DataSource, EntityManager, SelectQueryBuilder } from 'typeorm';
import { TermTaxonomyEntity } from './entities/term-taxonomy.entity';
import { TermEntity } from './entities/term.entity';

/**
 * A query of the terms of one taxonomy, to finish with its select and further conditions: the `terms` rows as `t`,
 * their `term_taxonomy` rows joined as `tt`, the taxonomy's condition first.
 */
export function taxonomyTerms(db: DataSource | EntityManager, taxonomy: string): SelectQueryBuilder<TermEntity> {
  return db
    .getRepository(TermEntity)
    .createQueryBuilder('t')
    .innerJoin(TermTaxonomyEntity, 'tt', 'tt.termId = t.id')
    .where('tt.taxonomy = :taxonomy', { taxonomy });
}
