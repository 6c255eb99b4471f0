import { MigrationInterface, QueryRunner } from 'typeorm';
import { LOCKS_TABLE, locksTableDdl } from '../cluster-lock';
import { isSqlite } from '../migration-helpers';

/**
 * `{prefix}cms_locks`: named locks every node of a fleet shares through the database (the migrations' lock row, the
 * writers' turn; see cluster-lock.ts). The start-up creates it before it takes the migrations' lock; this migration
 * creates it for hosts that run the migrations in their own pipeline. `down()` drops it.
 */
export class ClusterLocks1765152000000 implements MigrationInterface {
  name = 'ClusterLocks1765152000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const table = `${queryRunner.connection.options.entityPrefix ?? ''}${LOCKS_TABLE}`;
    await queryRunner.query(locksTableDdl(table, !isSqlite(queryRunner)));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const table = `${queryRunner.connection.options.entityPrefix ?? ''}${LOCKS_TABLE}`;
    await queryRunner.query(
      isSqlite(queryRunner) ? `DROP TABLE IF EXISTS "${table}"` : `DROP TABLE IF EXISTS \`${table}\``,
    );
  }
}
