import { Inject, Injectable, Optional } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { RateLimiter } from '../auth/rate-limiter.service';
import type { HealthIndicatorResult } from '@nestjs/terminus';
import { DataSource } from 'typeorm';
import { CMS_DATA_SOURCE } from '../database/cms-data-source';
import { CMS_MIGRATIONS } from '../database/cms-migrations';
import { isMySql } from '../database/query-helpers';
import { isConnectionLost } from '../database/database-errors';

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
  constructor(
    @Inject(CMS_DATA_SOURCE) private readonly dataSource: DataSource,
    @Optional() private readonly moduleRef?: ModuleRef,
  ) {}

  /**
   * The authentication rate limits: always `up` (counting in each process while Redis cannot be reached is
   * degraded, not unready), with `store` (`redis` or `memory`) and, when Redis is configured but away, why.
   */
  rateLimits<K extends string = 'rateLimits'>(key: K = 'rateLimits' as K): HealthIndicatorResult<K> {
    const limiter = this.moduleRef?.get(RateLimiter, { strict: false });
    return limiter ? limiter.health(key) : result(key, 'up', { store: 'memory' });
  }

  /** Whether the server is a Galera node (`null`: not known yet; asked once, on the first check that reaches it). */
  private galera: boolean | null = null;

  /**
   * `up` when the database answers a query within 3 s and, on a Galera node, the node can serve: it is in the
   * primary component (`wsrep_cluster_status` Primary), ready (`wsrep_ready` ON) and synced (`wsrep_local_state` 4).
   * A node that lost quorum still answers `SELECT 1` but refuses every table (1047), and a joining or donor node
   * serves stale rows: both are `down`, with the state named, so that a load balancer stops sending them requests.
   */
  async database<K extends string = 'database'>(key: K = 'database' as K): Promise<HealthIndicatorResult<K>> {
    const started = Date.now();
    try {
      if (!this.dataSource.isInitialized) throw new Error('The connection is not open.');
      // The cluster's state first: a Galera node outside the primary component makes reads wait (causal reads)
      // until they time out, while its state answers at once and says why.
      const cluster = await withTimeout(this.clusterState(), CHECK_TIMEOUT_MS);
      if (cluster && !cluster.ok) return result(key, 'down', { message: cluster.message, galera: cluster.status });
      // A connection lost under the check (a database node failing over) is tried once more on a new one: readiness
      // reports a database that cannot be reached, not one connection that went away.
      await withTimeout(
        this.dataSource
          .query('SELECT 1')
          .catch((error: unknown) =>
            isConnectionLost(error) ? this.dataSource.query('SELECT 1') : Promise.reject(error),
          ),
        CHECK_TIMEOUT_MS,
      );
      return result(key, 'up', { responseTime: Date.now() - started, ...(cluster ? { galera: cluster.status } : {}) });
    } catch (error) {
      return result(key, 'down', { message: messageOf(error) });
    }
  }

  /** A Galera node's state (`null` on any other server). */
  private async clusterState(): Promise<{ ok: boolean; message: string; status: Record<string, string> } | null> {
    if (this.galera === false || !isMySql(this.dataSource)) return null;
    if (this.galera === null) {
      // MariaDB shows wsrep status variables without a cluster too (Disconnected, not ready): wsrep_on tells.
      const on = await this.dataSource.query<Array<{ Value: string }>>("SHOW GLOBAL VARIABLES LIKE 'wsrep_on'");
      this.galera = String(on[0]?.Value ?? '').toUpperCase() === 'ON';
      if (!this.galera) return null;
    }
    const show =
      "SHOW GLOBAL STATUS WHERE Variable_name IN ('wsrep_ready', 'wsrep_local_state', 'wsrep_local_state_comment', 'wsrep_cluster_status', 'wsrep_cluster_size')";
    // Without waiting for causality (wsrep_sync_wait, which a node without quorum never satisfies): MariaDB's
    // per-statement setting; a server without it (MySQL with wsrep) is asked plainly.
    const rows = (await this.dataSource
      .query(`SET STATEMENT wsrep_sync_wait = 0 FOR ${show}`)
      .catch((error: unknown) =>
        (error as { errno?: number; driverError?: { errno?: number } }).driverError?.errno === 1064
          ? this.dataSource.query(show)
          : Promise.reject(error),
      )) as Array<{
      Variable_name: string;
      Value: string;
    }>;
    const status = Object.fromEntries(rows.map((row) => [row.Variable_name.replace(/^wsrep_/, ''), String(row.Value)]));
    if (status.cluster_status !== 'Primary')
      return {
        ok: false,
        message: `Galera node outside the primary component (wsrep_cluster_status ${status.cluster_status})`,
        status,
      };
    if (status.ready !== 'ON') return { ok: false, message: 'Galera node not ready (wsrep_ready OFF)', status };
    if (status.local_state !== '4')
      return {
        ok: false,
        message: `Galera node not synced (wsrep_local_state ${status.local_state}: ${status.local_state_comment ?? 'unknown'})`,
        status,
      };
    return { ok: true, message: 'Synced', status };
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
    return pending.length
      ? result(key, 'down', { message: `${pending.length} migration(s) not applied`, pending })
      : result(key, 'up', { applied: expected.length });
  }

  /** Names recorded in the migrations table; none when it does not exist yet. */
  private async appliedMigrations(): Promise<string[]> {
    const table = this.dataSource.options.migrationsTableName ?? 'migrations';
    const runner = this.dataSource.createQueryRunner();
    try {
      if (!(await runner.hasTable(table))) return [];
      const escaped = this.dataSource.driver.escape(table);
      const rows = (await runner.query(
        `SELECT ${this.dataSource.driver.escape('name')} AS name FROM ${escaped}`,
      )) as Array<{ name: string }>;
      return rows.map((row) => row.name);
    } finally {
      await runner.release();
    }
  }
}

function result<K extends string>(
  key: K,
  status: 'up' | 'down',
  data: Record<string, unknown>,
): HealthIndicatorResult<K> {
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
