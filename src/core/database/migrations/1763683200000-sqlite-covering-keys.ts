import { MigrationInterface, QueryRunner } from 'typeorm';
import { wordpressSchemaStatements } from './1732147200000-initial-schema';

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
    const prefix = queryRunner.connection.options.entityPrefix ?? '';
    for (const statements of wordpressSchemaStatements('sqlite', prefix).values()) {
      for (const statement of statements) {
        const index = /^CREATE INDEX IF NOT EXISTS "(\w+)" ON "\w+" \((.+)\)$/.exec(statement);
        if (!index) continue;
        const [, name, list] = index;
        const wanted = list.split(', ').map((column) => column.replace(/"/g, ''));
        const info: Array<{ seqno: number; name: string }> = await queryRunner.query(`PRAGMA index_info("${name}")`);
        const existing = info.sort((a, b) => a.seqno - b.seqno).map((column) => column.name);
        // Missing (a table made elsewhere without it) or already as wanted: left as it is.
        if (!existing.length || existing.length >= wanted.length || existing.some((column, i) => column !== wanted[i])) continue;
        await queryRunner.query(`DROP INDEX "${name}"`);
        await queryRunner.query(statement);
      }
    }
  }

  async down(): Promise<void> {
    // The wider keys serve every query the narrower ones did: nothing to undo.
  }
}
