import { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { getDataSourceToken, TypeOrmModule } from '@nestjs/typeorm';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { buildDataSourceOptions, CMS_ENTITIES, CmsModule } from '../../src';
import { createUser } from '../factories/user.factory';
import { dropTestDatabase, testDatabaseUrl } from '../utils/test-db';

/**
 * A host whose DataSource lists no entities and loads them from the modules (`autoLoadEntities`): the API's modules
 * declare the WordPress tables they read with `TypeOrmModule.forFeature`, so nothing has to be spread in.
 */
describe('CmsModule in a host with autoLoadEntities', () => {
  let app: INestApplication;

  beforeAll(async () => {
    const databaseUrl = await testDatabaseUrl('embedded_autoload');
    const moduleRef = await Test.createTestingModule({
      imports: [
        TypeOrmModule.forRoot({
          ...buildDataSourceOptions({ databaseUrl, tablePrefix: 'cms_' }),
          entities: [],
          autoLoadEntities: true,
        }),
        CmsModule.forRoot({ baseUrl: 'https://host.example' }),
      ],
    }).compile();
    app = moduleRef.createNestApplication({ logger: ['error'] });
    await app.init();
  });
  afterAll(async () => {
    await app.close();
    await dropTestDatabase('embedded_autoload');
  });

  it('gets every WordPress entity from the modules, and serves reads and writes', async () => {
    const dataSource = app.get<DataSource>(getDataSourceToken());
    const loaded = dataSource.entityMetadatas.map((m) => m.target);
    for (const entity of CMS_ENTITIES) expect(loaded).toContain(entity);
    const admin = await createUser(dataSource, 'cms_', 'boss', 'administrator');
    const created = await request(app.getHttpServer())
      .post('/cms-json/cms/v2/posts')
      .set('Authorization', admin.authorization)
      .send({ title: 'From a host', status: 'publish' })
      .expect(201);
    const list = await request(app.getHttpServer()).get('/cms-json/cms/v2/posts').expect(200);
    expect(list.body.map((p: { id: number }) => p.id)).toContain(created.body.id);
    await request(app.getHttpServer()).get(`/cms-json/cms/v2/users/${admin.id}`).expect(200);
  });
});
