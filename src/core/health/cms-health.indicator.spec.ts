import { DataSource } from 'typeorm';
import { CMS_MIGRATIONS } from '../database/cms-migrations';
import { CmsHealthIndicator } from './cms-health.indicator';

const NAMES = CMS_MIGRATIONS.map((m) => new m().name);

/** A data source stand-in: `query` and the migrations table as given. */
function dataSource(options: { initialized?: boolean; query?: () => Promise<unknown>; applied?: string[] | null }): DataSource {
  const runner = {
    hasTable: jest.fn(async () => options.applied !== null),
    query: jest.fn(async () => (options.applied ?? []).map((name) => ({ name }))),
    release: jest.fn(async () => undefined),
  };
  return {
    isInitialized: options.initialized ?? true,
    query: options.query ?? (async () => [{ 1: 1 }]),
    options: { migrationsTableName: 'cms_cms_migrations' },
    driver: { escape: (name: string) => `"${name}"` },
    createQueryRunner: () => runner,
  } as unknown as DataSource;
}

describe('CmsHealthIndicator', () => {
  it('reports the database up when it answers, down with the reason when it fails or is closed', async () => {
    expect(await new CmsHealthIndicator(dataSource({})).database()).toEqual({ database: { status: 'up', responseTime: expect.any(Number) } });
    const failing = dataSource({ query: async () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:3306')) });
    expect(await new CmsHealthIndicator(failing).database('db')).toEqual({ db: { status: 'down', message: 'connect ECONNREFUSED 127.0.0.1:3306' } });
    expect((await new CmsHealthIndicator(dataSource({ initialized: false })).database()).database.status).toBe('down');
  });

  it('reports migrations up when every one is recorded, down naming those that are not', async () => {
    expect(await new CmsHealthIndicator(dataSource({ applied: NAMES })).migrations()).toEqual({ migrations: { status: 'up', applied: NAMES.length } });
    const behind = await new CmsHealthIndicator(dataSource({ applied: NAMES.slice(0, -1) })).migrations();
    expect(behind).toEqual({ migrations: { status: 'down', message: '1 migration(s) not applied', pending: [NAMES[NAMES.length - 1]] } });
    const none = await new CmsHealthIndicator(dataSource({ applied: null })).migrations();
    expect(none.migrations).toMatchObject({ status: 'down', pending: NAMES });
  });
});
