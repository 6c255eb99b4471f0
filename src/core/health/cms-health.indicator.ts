import { Inject, Injectable } from '@nestjs/common';
import type { HealthIndicatorResult } from '@nestjs/terminus';
import { DataSource } from 'typeorm';
import { CMS_DATA_SOURCE } from '../database/cms-data-source';
import { CMS_MIGRATIONS } from '../database/cms-migrations';

/** How long a database check may take before the database counts as unreachable. */
const CHECK_TIMEOUT_MS = 3000;

/**
 * Health indicators of the API for `@nestjs/terminus`: whether its database answers, and whether every one of its
 * migrations (`CMS_MIGRATIONS`) is recorded in the data source's migrations table. Each answers a terminus result
 * (`{ [key]: { status: 'up' | 'down', ... } }`); a `down` one makes `HealthCheckService.check` answer 503.
 *
 * A host that embeds `CmsModule` provides it next to its own terminus controller:
 *
 * @example
 * @Controller('health')
 * class HealthController {
 *   constructor(private readonly health: HealthCheckService, private readonly cms: CmsHealthIndicator) {}
 *   @Get('ready') @HealthCheck()
 *   ready() { return this.health.check([() => this.cms.database(), () => this.cms.migrations()]); }
 * }
 * // @Module({ imports: [TerminusModule], controllers: [HealthController], providers: [CmsHealthIndicator] })
 */
@Injectable()
export class CmsHealthIndicator {
  constructor(@Inject(CMS_DATA_SOURCE) private readonly dataSource: DataSource) {}

  /** `up` when the database answers a query within 3 s. */
  async database<K extends string = 'database'>(key: K = 'database' as K): Promise<HealthIndicatorResult<K>> {
    const started = Date.now();
    try {
      if (!this.dataSource.isInitialized) throw new Error('The connection is not open.');
      await withTimeout(this.dataSource.query('SELECT 1'), CHECK_TIMEOUT_MS);
      return result(key, 'up', { responseTime: Date.now() - started });
    } catch (error) {
      return result(key, 'down', { message: messageOf(error) });
    }
  }

  /** `up` when every migration of the API is recorded as applied; `down` with the names of those that are not. */
  async migrations<K extends string = 'migrations'>(key: K = 'migrations' as K): Promise<HealthIndicatorResult<K>> {
    const expected = CMS_MIGRATIONS.map((migration) => new migration().name ?? migration.name);
    let applied: Set<string>;
    try {
      applied = new Set(await withTimeout(this.appliedMigrations(), CHECK_TIMEOUT_MS));
    } catch (error) {
      return result(key, 'down', { message: messageOf(error), pending: expected });
    }
    const pending = expected.filter((name) => !applied.has(name));
    return pending.length ? result(key, 'down', { message: `${pending.length} migration(s) not applied`, pending }) : result(key, 'up', { applied: expected.length });
  }

  /** Names recorded in the migrations table; none when it does not exist yet. */
  private async appliedMigrations(): Promise<string[]> {
    const table = this.dataSource.options.migrationsTableName ?? 'migrations';
    const runner = this.dataSource.createQueryRunner();
    try {
      if (!(await runner.hasTable(table))) return [];
      const escaped = this.dataSource.driver.escape(table);
      const rows = (await runner.query(`SELECT ${this.dataSource.driver.escape('name')} AS name FROM ${escaped}`)) as Array<{ name: string }>;
      return rows.map((row) => row.name);
    } finally {
      await runner.release();
    }
  }
}

function result<K extends string>(key: K, status: 'up' | 'down', data: Record<string, unknown>): HealthIndicatorResult<K> {
  return { [key]: { status, ...data } } as HealthIndicatorResult<K>;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`No answer within ${ms} ms.`)), ms);
    timer.unref();
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
