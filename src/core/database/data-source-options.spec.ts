import { DataSource } from 'typeorm';
import { SQLITE_RUNNER_STATEMENTS } from '../memory/cache-limits';
import type * as mysql2 from 'mysql2';
import {
  afterDataSourceInit,
  buildDataSourceOptions,
  sessionStatement,
  WP_SQL_MODE_STATEMENT,
} from './data-source-options';
import { replicaRouterOf } from './replica-routing';
import { sqliteStatementBytes } from './raw-query';

describe('afterDataSourceInit on SQLite', () => {
  let ds: DataSource;

  beforeAll(async () => {
    ds = new DataSource(buildDataSourceOptions({ databaseUrl: 'sqlite::memory:', tablePrefix: 'wp_' }));
    await ds.initialize();
    await afterDataSourceInit(ds);
  });
  afterAll(() => ds.destroy());

  it("keeps TypeORM's prepared statements for reuse within a byte and count bound, past TypeORM's 100", async () => {
    const runner = ds.driver.createQueryRunner('master') as unknown as { stmtCache: Map<string, unknown> };
    const cache = runner.stmtCache;
    // More distinct statements than TypeORM's own bound: the first are still kept.
    for (let i = 0; i < 150; i++) await ds.query(`SELECT ${i} AS n`);
    expect(cache.has('SELECT 0 AS n')).toBe(true);
    expect(cache.has('SELECT 149 AS n')).toBe(true);
    // One statement over an eighth of the bytes is prepared but not kept.
    const long = `SELECT 1 AS n WHERE 1 IN (${Array.from({ length: 2 ** 17 }, () => '1').join(',')})`;
    expect(sqliteStatementBytes(long, 0)).toBeGreaterThan(SQLITE_RUNNER_STATEMENTS.bytes / 8);
    await ds.query(long);
    expect(cache.has(long)).toBe(false);
    // Past the count, the oldest go first.
    for (let i = 150; i < SQLITE_RUNNER_STATEMENTS.entries + 10; i++) await ds.query(`SELECT ${i} AS n`);
    expect(cache.size).toBeLessThanOrEqual(SQLITE_RUNNER_STATEMENTS.entries);
    expect(cache.has('SELECT 0 AS n')).toBe(false);
    expect(cache.has(`SELECT ${SQLITE_RUNNER_STATEMENTS.entries + 9} AS n`)).toBe(true);
  });
});

describe('buildDataSourceOptions with read replicas', () => {
  it('refuses replicas with SQLite, and a replica that is not a MySQL/MariaDB URL, naming DATABASE_REPLICA_URLS', () => {
    const withReplicas = (databaseUrl: string, replicaUrls: string[]) => () =>
      buildDataSourceOptions({ databaseUrl, tablePrefix: 'wp_', replicaUrls });
    expect(withReplicas('sqlite::memory:', ['mysql://u@r/db'])).toThrow(/DATABASE_REPLICA_URLS.*SQLite/);
    expect(withReplicas('mysql://u:secret@p/db', ['sqlite:./r.db'])).toThrow(/DATABASE_REPLICA_URLS/);
    // A replica URL without a host: refused, its password not shown.
    const hostless = withReplicas('mysql://u@p/db', ['mysql://u:hidden@/db']);
    expect(hostless).toThrow(/DATABASE_REPLICA_URLS/);
    expect(hostless).not.toThrow(/hidden/);
    // Without replicas (or with empty entries, as an empty variable gives) nothing changes.
    expect(withReplicas('sqlite::memory:', [' '])).not.toThrow();
  });

  it("gives each replica's connections the primary's options and session settings, at the replica's address", async () => {
    const options = buildDataSourceOptions({
      databaseUrl: 'mysql://primary:pw@127.0.0.1:1/cms',
      tablePrefix: 'wp_',
      timeoutMs: 1000,
      replicaUrls: ['mysql://reader:rpw@127.0.0.1:2/cms_copy'],
    }) as { driver: typeof mysql2 };
    const pool = options.driver.createPool({
      host: '127.0.0.1',
      port: 1,
      user: 'primary',
      password: 'pw',
      database: 'cms',
      charset: 'utf8mb4_unicode_520_ci',
      timezone: 'Z',
      dateStrings: true,
      supportBigNumbers: true,
      flags: ['-IGNORE_SPACE'],
    });
    const router = replicaRouterOf({ options } as unknown as DataSource);
    expect(router?.size).toBe(1);
    const replica = router!.pools[0] as unknown as {
      config: { connectionConfig: Record<string, unknown> };
    } & mysql2.Pool;
    expect(replica.config.connectionConfig).toMatchObject({
      host: '127.0.0.1',
      port: 2,
      user: 'reader',
      password: 'rpw',
      database: 'cms_copy',
      timezone: 'Z',
      dateStrings: true,
      supportBigNumbers: true,
    });
    expect(replica.config.connectionConfig.charsetNumber).toBe(
      (pool as unknown as { config: { connectionConfig: Record<string, unknown> } }).config.connectionConfig
        .charsetNumber,
    );
    // WordPress's sql_mode and the command bound: the listeners the primary's pool has.
    expect(replica.listenerCount('connection')).toBe(2);
    const ran: string[] = [];
    const fake = { query: (sql: string) => ran.push(sql), addCommand: () => undefined };
    replica.emit('connection', fake);
    expect(ran).toEqual([WP_SQL_MODE_STATEMENT]);
    await new Promise<void>((resolve) => pool.end(() => resolve()));
  });

  it('adds Galera causal reads to the session statement', () => {
    expect(sessionStatement({ galera: false })).toBe(WP_SQL_MODE_STATEMENT);
    expect(sessionStatement({ galera: true })).toBe(`${WP_SQL_MODE_STATEMENT}, SESSION wsrep_sync_wait = 1`);
  });
});

describe('afterDataSourceInit on a Galera node', () => {
  /** A data source as TypeORM builds it from these options, its pool made by the driver, and `wsrep_on` as given. */
  function galeraLike(wsrep: string | undefined) {
    const options = buildDataSourceOptions({
      databaseUrl: 'mysql://u:pw@127.0.0.1:1/cms',
      tablePrefix: 'wp_',
      replicaUrls: ['mysql://u:pw@127.0.0.1:2/cms'],
    }) as { type: 'mysql'; driver: typeof mysql2 };
    const pool = options.driver.createPool({ host: '127.0.0.1', port: 1, user: 'u', password: 'pw', database: 'cms' });
    const dataSource = {
      options,
      driver: { pool },
      logger: { log: () => undefined },
      query: async (sql: string) => {
        if (sql.startsWith('SHOW VARIABLES'))
          return wsrep === undefined ? [] : [{ Variable_name: 'wsrep_on', Value: wsrep }];
        return [{ mode: 'NO_ENGINE_SUBSTITUTION' }];
      },
    } as unknown as DataSource;
    /** The statements a new connection of each pool (the primary's, the replica's) runs first. */
    const firstStatements = () =>
      [pool, ...replicaRouterOf(dataSource)!.pools].map((each) => {
        const ran: string[] = [];
        each.emit('connection', { query: (sql: string) => ran.push(sql) });
        return ran;
      });
    return { dataSource, pool, firstStatements };
  }

  it("has every connection, the primary's and the replicas', read causally (wsrep_sync_wait = 1) when wsrep is on", async () => {
    const { dataSource, pool, firstStatements } = galeraLike('ON');
    await afterDataSourceInit(dataSource);
    expect(firstStatements()).toEqual([[sessionStatement({ galera: true })], [sessionStatement({ galera: true })]]);
    expect(sessionStatement({ galera: true })).toContain('wsrep_sync_wait = 1');
    await new Promise<void>((resolve) => pool.end(() => resolve()));
  });

  it('changes nothing without wsrep', async () => {
    for (const wsrep of ['OFF', undefined]) {
      const { dataSource, pool, firstStatements } = galeraLike(wsrep);
      await afterDataSourceInit(dataSource);
      expect(firstStatements()).toEqual([[WP_SQL_MODE_STATEMENT], [WP_SQL_MODE_STATEMENT]]);
      await new Promise<void>((resolve) => pool.end(() => resolve()));
    }
  });
});
