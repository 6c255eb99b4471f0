import { Logger as TypeOrmLogger } from 'typeorm';
import { SQLITE_CHANGE_STATEMENTS } from '../../src/core/database/raw-query';

/** A TypeORM logger that counts the SQL statements sent, so tests can assert that a request costs a fixed number. */
export class QueryCounter implements TypeOrmLogger {
  /** Statements sent, besides the version stamps' read (one per read request while the response cache is on). */
  count = 0;
  /**
   * Checks of the version stamps: a read of `cms_versions`; on SQLite, the two statements that tell whether anything
   * was committed since the last check ({@link SQLITE_CHANGE_STATEMENTS}), followed by that read only when something was.
   */
  stampReads = 0;
  /** Reads of posts' versions (`cms_versions`, when a cached answer's posts are checked or an answer is kept). */
  objectReads = 0;
  readonly statements: string[] = [];

  logQuery(query: string): void {
    const previous = this.statements[this.statements.length - 1];
    this.statements.push(query);
    if (query === SQLITE_CHANGE_STATEMENTS[0]) this.stampReads++;
    else if (query === SQLITE_CHANGE_STATEMENTS[1]) return;
    else if (/^SELECT name, version FROM \S*cms_versions/.test(query)) {
      if (previous !== SQLITE_CHANGE_STATEMENTS[1]) this.stampReads++;
    } else if (/^SELECT post_id, version FROM \S*cms_post_versions/.test(query)) this.objectReads++;
    else this.count++;
  }
  logQueryError(): void {}
  logQuerySlow(): void {}
  logSchemaBuild(): void {}
  logMigration(): void {}
  log(): void {}

  /** Resets, runs `fn`, and returns how many statements it sent. */
  async during(fn: () => Promise<unknown>): Promise<number> {
    this.count = 0;
    this.stampReads = 0;
    this.objectReads = 0;
    this.statements.length = 0;
    await fn();
    return this.count;
  }
}
