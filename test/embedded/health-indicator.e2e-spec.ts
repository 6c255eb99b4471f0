import { INestApplication, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { getDataSourceToken, TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { buildDataSourceOptions, CMS_MIGRATIONS, CmsHealthIndicator, CmsModule } from '../../src';
import { dropTestDatabase, testDatabaseUrl } from '../utils/test-db';

/**
 * The health indicator a host provides next to its own terminus controller: it reads the API's data source (the
 * host's) and the host's migrations table.
 */
@Module({ providers: [CmsHealthIndicator], exports: [CmsHealthIndicator] })
class HostHealthModule {}

describe('CmsHealthIndicator in a host app', () => {
  let app: INestApplication;
  const names = CMS_MIGRATIONS.map((m) => new m().name);

  beforeAll(async () => {
    const databaseUrl = await testDatabaseUrl('embedded_health');
    const moduleRef = await Test.createTestingModule({
      imports: [
        TypeOrmModule.forRoot(buildDataSourceOptions({ databaseUrl, tablePrefix: 'host_' })),
        CmsModule.forRoot({ baseUrl: 'https://host.example' }),
        HostHealthModule,
      ],
    }).compile();
    app = moduleRef.createNestApplication({ logger: ['error'] });
    await app.init();
  });
  afterAll(async () => {
    await app.close();
    await dropTestDatabase('embedded_health');
  });

  it('reports the database and the migrations up once CmsModule has migrated', async () => {
    const health = app.get(CmsHealthIndicator);
    expect(await health.database()).toEqual({ database: { status: 'up', responseTime: expect.any(Number) } });
    expect(await health.migrations('cms-migrations')).toEqual({
      'cms-migrations': { status: 'up', applied: names.length },
    });
  });

  it('reports a migration missing from the migrations table as pending', async () => {
    const dataSource = app.get<DataSource>(getDataSourceToken());
    const table = dataSource.options.migrationsTableName as string;
    expect(table).toBe('host_cms_migrations');
    const last = names[names.length - 1];
    const rows = await dataSource.query<Array<Record<string, unknown>>>(
      `SELECT * FROM ${dataSource.driver.escape(table)} WHERE ${dataSource.driver.escape('name')} = ?`,
      [last],
    );
    expect(rows).toHaveLength(1);
    await dataSource.query(
      `DELETE FROM ${dataSource.driver.escape(table)} WHERE ${dataSource.driver.escape('name')} = ?`,
      [last],
    );
    try {
      expect((await app.get(CmsHealthIndicator).migrations()).migrations).toEqual({
        status: 'down',
        message: '1 migration(s) not applied',
        pending: [last],
      });
    } finally {
      const { id: _id, ...row } = rows[0];
      const columns = Object.keys(row);
      await dataSource.query(
        `INSERT INTO ${dataSource.driver.escape(table)} (${columns.map((c) => dataSource.driver.escape(c)).join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
        columns.map((c) => row[c]),
      );
    }
    expect((await app.get(CmsHealthIndicator).migrations()).migrations.status).toBe('up');
  });
});
