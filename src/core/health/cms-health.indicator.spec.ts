import { DataSource } from 'typeorm';
import { CMS_MIGRATIONS } from '../database/cms-migrations';
import { CmsHealthIndicator } from './cms-health.indicator';

const NAMES = CMS_MIGRATIONS.map((m) => new m().name);

/** A data source stand-in: `query` and the migrations table as given. */
function dataSource(options: {
  initialized?: boolean;
  query?: (sql: string) => Promise<unknown>;
  applied?: string[] | null;
  type?: string;
}): DataSource {
  const runner = {
    hasTable: jest.fn(async () => options.applied !== null),
    query: jest.fn(async () => (options.applied ?? []).map((name) => ({ name }))),
    release: jest.fn(async () => undefined),
  };
  return {
    isInitialized: options.initialized ?? true,
    query: options.query ?? (async () => [{ 1: 1 }]),
    options: { migrationsTableName: 'cms_cms_migrations', type: options.type ?? 'better-sqlite3' },
    driver: { escape: (name: string) => `"${name}"` },
    createQueryRunner: () => runner,
  } as unknown as DataSource;
}

describe('CmsHealthIndicator', () => {
  it('reports the database up when it answers, down with the reason when it fails or is closed', async () => {
    expect(await new CmsHealthIndicator(dataSource({})).database()).toEqual({
      database: { status: 'up', responseTime: expect.any(Number) },
    });
    const failing = dataSource({ query: async () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:3306')) });
    expect(await new CmsHealthIndicator(failing).database('db')).toEqual({
      db: { status: 'down', message: 'connect ECONNREFUSED 127.0.0.1:3306' },
    });
    expect((await new CmsHealthIndicator(dataSource({ initialized: false })).database()).database.status).toBe('down');
  });

  it('reports migrations up when every one is recorded, down naming those that are not', async () => {
    expect(await new CmsHealthIndicator(dataSource({ applied: NAMES })).migrations()).toEqual({
      migrations: { status: 'up', applied: NAMES.length },
    });
    const behind = await new CmsHealthIndicator(dataSource({ applied: NAMES.slice(0, -1) })).migrations();
    expect(behind).toEqual({
      migrations: { status: 'down', message: '1 migration(s) not applied', pending: [NAMES[NAMES.length - 1]] },
    });
    const none = await new CmsHealthIndicator(dataSource({ applied: null })).migrations();
    expect(none.migrations).toMatchObject({ status: 'down', pending: NAMES });
  });

  /** A MariaDB server answering `SELECT 1`, `wsrep_on` and the wsrep status as given. */
  function mariadb(wsrepOn: string | null, status: Record<string, string>): DataSource & { asked: string[] } {
    const asked: string[] = [];
    const ds = dataSource({
      type: 'mysql',
      query: async (sql: string) => {
        asked.push(sql);
        if (sql.startsWith('SHOW GLOBAL VARIABLES'))
          return wsrepOn === null ? [] : [{ Variable_name: 'wsrep_on', Value: wsrepOn }];
        if (sql.includes('SHOW GLOBAL STATUS'))
          return Object.entries(status).map(([name, value]) => ({ Variable_name: `wsrep_${name}`, Value: value }));
        return [{ 1: 1 }];
      },
    });
    return Object.assign(ds, { asked });
  }

  const synced = {
    ready: 'ON',
    local_state: '4',
    local_state_comment: 'Synced',
    cluster_status: 'Primary',
    cluster_size: '3',
  };

  it('reports a synced Galera node of the primary component up, with its state', async () => {
    const result = await new CmsHealthIndicator(mariadb('ON', synced)).database();
    expect(result.database).toMatchObject({
      status: 'up',
      galera: { ready: 'ON', local_state: '4', cluster_status: 'Primary', cluster_size: '3' },
    });
  });

  it.each([
    [
      'outside the primary component (lost quorum)',
      { ...synced, cluster_status: 'non-Primary', ready: 'OFF' },
      'Galera node outside the primary component (wsrep_cluster_status non-Primary)',
    ],
    ['not ready', { ...synced, ready: 'OFF' }, 'Galera node not ready (wsrep_ready OFF)'],
    [
      'a donor',
      { ...synced, local_state: '2', local_state_comment: 'Donor/Desynced' },
      'Galera node not synced (wsrep_local_state 2: Donor/Desynced)',
    ],
    [
      'joining',
      { ...synced, local_state: '1', local_state_comment: 'Joining' },
      'Galera node not synced (wsrep_local_state 1: Joining)',
    ],
  ])('reports a Galera node %s down, naming its state', async (_what, status, message) => {
    const result = await new CmsHealthIndicator(mariadb('ON', status)).database();
    expect(result.database).toMatchObject({ status: 'down', message });
  });

  it('takes a server without wsrep for a plain one, and asks only once', async () => {
    // A plain MariaDB shows wsrep status variables too: Disconnected, not ready.
    const plain = mariadb('OFF', { ready: 'OFF', cluster_status: 'Disconnected', cluster_size: '0' });
    const indicator = new CmsHealthIndicator(plain);
    expect((await indicator.database()).database).toEqual({ status: 'up', responseTime: expect.any(Number) });
    expect((await indicator.database()).database.status).toBe('up');
    expect(plain.asked.filter((sql) => sql.includes('SHOW')).length).toBe(1);
    // MySQL without the wsrep provider: no such variable.
    expect((await new CmsHealthIndicator(mariadb(null, {})).database()).database.status).toBe('up');
  });
});
