import { Logger as TypeOrmLogger } from 'typeorm';

/** A TypeORM logger that counts the SQL statements sent, so tests can assert that a request costs a fixed number. */
export class QueryCounter implements TypeOrmLogger {
  count = 0;
  readonly statements: string[] = [];

  logQuery(query: string): void {
    this.count++;
    this.statements.push(query);
  }
  logQueryError(): void {}
  logQuerySlow(): void {}
  logSchemaBuild(): void {}
  logMigration(): void {}
  log(): void {}

  /** Resets, runs `fn`, and returns how many statements it sent. */
  async during(fn: () => Promise<unknown>): Promise<number> {
    this.count = 0;
    this.statements.length = 0;
    await fn();
    return this.count;
  }
}
