import { MigrationInterface, QueryRunner } from 'typeorm';
import { wordpressSqliteIndexes } from './1732147200000-initial-schema';

/**
 * On SQLite, gives a database created by an earlier version the keys the initial schema now creates: a plain key of a
 * table whose primary key spans several columns (`term_relationships`) ends with those columns, as InnoDB's keys do,
 * so that it covers the lookups WordPress's queries make (a term's posts, from the `term_taxonomy_id` key alone).
 * Such an index, when it holds only the leading columns, is dropped and created again under its name; tables and
 * rows are untouched. MySQL/MariaDB: nothing to do.
 */
export class SqliteCoveringKeys1763683200000 implements MigrationInterface {
  name = 'SqliteCoveringKeys1763683200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const { type } = queryRunner.connection.driver.options;
    if (type !== 'better-sqlite3' && type !== 'sqlite') return;
    for (const index of wordpressSqliteIndexes(queryRunner.connection.options.entityPrefix ?? '')) {
      const info = (await queryRunner.query(`PRAGMA index_info("${index.name}")`)) as Array<{
        seqno: number;
        name: string;
      }>;
      const existing = info.sort((a, b) => a.seqno - b.seqno).map((column) => column.name);
      // Missing (a table made elsewhere without it) or already as wanted: left as it is.
      const narrower =
        existing.length > 0 &&
        existing.length < index.columns.length &&
        existing.every((column, i) => column === index.columns[i]);
      if (!narrower) continue;
      await queryRunner.query(`DROP INDEX "${index.name}"`);
      await queryRunner.query(index.statement);
    }
  }

  async down(): Promise<void> {
    // The wider keys serve every query the narrower ones did: nothing to undo.
  }
}
