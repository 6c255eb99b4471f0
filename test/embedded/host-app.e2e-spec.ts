import { Controller, Get, Injectable, INestApplication, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { InjectRepository, TypeOrmModule } from '@nestjs/typeorm';
import request from 'supertest';
import { Column, DataSource, Entity, PrimaryGeneratedColumn, Repository } from 'typeorm';
import { buildDataSourceOptions, CMS_ENTITIES, CmsModule } from '../../src';
import { LibraryExtensionModule } from '../fixtures/extensions/library.extension';
import { dropTestDatabase, testDatabaseUrl } from '../utils/test-db';

@Entity('host_notes')
class HostNoteEntity {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column({ type: 'varchar', length: 100 })
  text!: string;
}

@Controller('hello')
class HelloController {
  constructor(@InjectRepository(HostNoteEntity) private readonly notes: Repository<HostNoteEntity>) {}

  @Get()
  async hello() {
    return { hello: 'host', notes: await this.notes.count() };
  }
}

/** A host service the async options factory reads from, as a host's ConfigService would be. */
@Injectable()
class HostConfig {
  readonly siteUrl = 'https://host.example';
}

@Module({ providers: [HostConfig], exports: [HostConfig] })
class HostConfigModule {}

describe('CmsModule embedded in a host Nest app', () => {
  let app: INestApplication;

  beforeAll(async () => {
    const databaseUrl = await testDatabaseUrl('embedded_host');
    const base = buildDataSourceOptions({ databaseUrl, tablePrefix: 'cms_' });
    const moduleRef = await Test.createTestingModule({
      imports: [
        TypeOrmModule.forRoot({ ...base, entities: [...CMS_ENTITIES, HostNoteEntity] }),
        TypeOrmModule.forFeature([HostNoteEntity]),
        CmsModule.forRootAsync({
          imports: [HostConfigModule],
          inject: [HostConfig],
          routePrefix: 'api/cms-json',
          useFactory: (config: HostConfig) => ({ baseUrl: config.siteUrl, siteTitle: 'Host Site' }),
          extensions: [LibraryExtensionModule],
        }),
      ],
      controllers: [HelloController],
    }).compile();
    app = moduleRef.createNestApplication({ logger: ['error'] });
    await app.init();
    // The host's own table is the host's business: create it the way its own migrations would.
    await app
      .get(DataSource)
      .query('CREATE TABLE IF NOT EXISTS cms_host_notes (id INTEGER PRIMARY KEY, text VARCHAR(100))');
  });
  afterAll(async () => {
    await app.close();
    await dropTestDatabase('embedded_host');
  });

  it('mounts the API under the configured prefix with options from the async factory', async () => {
    const res = await request(app.getHttpServer()).get('/api/cms-json/').expect(200);
    expect(res.body.name).toBe('Host Site');
    expect(res.body.url).toBe('https://host.example');
    expect(res.body.routes['/cms/v2/types']._links.self[0].href).toBe('https://host.example/api/cms-json/cms/v2/types');
    await request(app.getHttpServer()).get('/api/cms-json/cms/v2/types/post').expect(200);
    await request(app.getHttpServer()).get('/cms-json/cms/v2/types/post').expect(404);
  });

  it('leaves the host routes and entities working next to it', async () => {
    const res = await request(app.getHttpServer()).get('/hello').expect(200);
    expect(res.body).toEqual({ hello: 'host', notes: 0 });
  });

  it('reads bodies the host body parser already parsed', async () => {
    const res = await request(app.getHttpServer())
      .post('/api/cms-json/library/v1/echo')
      .send({ somerequired: 'host-json', someinteger: 4 })
      .expect(200);
    expect(res.body.params).toMatchObject({ somerequired: 'host-json', someinteger: 4 });
    const form = await request(app.getHttpServer())
      .post('/api/cms-json/library/v1/echo')
      .type('form')
      .send('somerequired=f')
      .expect(200);
    expect(form.body.params.somerequired).toBe('f');
  });

  it('answers malformed JSON on API paths with rest_invalid_json even when the host parsed the body', async () => {
    const res = await request(app.getHttpServer())
      .post('/api/cms-json/library/v1/echo')
      .set('Content-Type', 'application/json')
      .send('{"broken": ');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      code: 'rest_invalid_json',
      message: 'Invalid JSON body passed.',
      data: { status: 400 },
    });
  });
});
