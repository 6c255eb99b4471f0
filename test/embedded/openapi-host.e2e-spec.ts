import { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { TypeOrmModule } from '@nestjs/typeorm';
import request from 'supertest';
import { buildDataSourceOptions, CmsModule } from '../../src';
import { LibraryExtensionModule } from '../fixtures/extensions/library.extension';
import { dropTestDatabase, testDatabaseUrl } from '../utils/test-db';

/** The OpenAPI document and the docs page when the API is a route of a host app, under its global prefix. */
describe('OpenAPI and docs in a host app (setGlobalPrefix)', () => {
  let app: INestApplication;

  beforeAll(async () => {
    const databaseUrl = await testDatabaseUrl('openapi_host');
    const moduleRef = await Test.createTestingModule({
      imports: [
        TypeOrmModule.forRoot(buildDataSourceOptions({ databaseUrl, tablePrefix: 'cms_' })),
        CmsModule.forRoot({ routePrefix: 'content', extensions: [LibraryExtensionModule] }),
      ],
    }).compile();
    app = moduleRef.createNestApplication({ logger: ['error'] });
    app.setGlobalPrefix('api');
    await app.init();
  });
  afterAll(async () => {
    await app.close();
    await dropTestDatabase('openapi_host');
  });

  it('serves the document under the prefixes, its server being the API root the host mounts', async () => {
    const res = await request(app.getHttpServer())
      .get('/api/content/openapi.json')
      .set('Host', 'host.example:8080')
      .expect(200);
    expect(res.body.servers).toEqual([{ url: 'http://host.example:8080/api/content' }]);
    expect(res.body.paths['/cms/v2/posts/{id}']).toBeDefined();
    expect(res.body.paths['/library/v1/readers/{id}']).toBeDefined();
  });

  it('serves the docs page and its files under the prefixes', async () => {
    const http = request(app.getHttpServer());
    expect((await http.get('/api/content/docs').expect(301)).headers.location).toBe('docs/');
    const page = await http.get('/api/content/docs/').expect(200);
    expect(page.headers['content-type']).toBe('text/html; charset=UTF-8');
    const css = await http.get('/api/content/docs/swagger-ui.css').expect(200);
    expect(css.headers['content-type']).toBe('text/css; charset=UTF-8');
    await http.get('/content/docs/').expect(404);
  });
});
