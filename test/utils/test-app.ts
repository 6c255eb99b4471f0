import { INestApplication, Type } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { getDataSourceToken, TypeOrmModule } from '@nestjs/typeorm';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { CmsModule } from '../../src/cms.module';
import { CmsModuleOptions } from '../../src/core/config/cms-options';
import { buildDataSourceOptions, BuildDataSourceOptionsInput } from '../../src/core/database/data-source-options';
import { serveApiFirst } from '../../src/core/http/api-front';
import { createUser, TestUser } from '../factories/user.factory';
import { QueryCounter } from './query-counter';
import { dropTestDatabase, testDatabaseUrl } from './test-db';

export const TEST_BASE_URL = 'http://example.org';
export const TEST_PREFIX = 'cms_';

export interface TestApp {
  app: INestApplication;
  http: ReturnType<typeof request>;
  dataSource: DataSource;
  queries: QueryCounter;
  /** One user per role, created at start-up: administrator, editor, author, contributor, subscriber. */
  users: Record<'administrator' | 'editor' | 'author' | 'contributor' | 'subscriber', TestUser>;
  close(): Promise<void>;
}

/**
 * Boots the API as the standalone server does (TypeORM connection + `CmsModule.forRoot`, API requests served ahead
 * of Express) on a fresh database of the kind chosen by `DB` (`sqlite` default, `mysql`), with one user per role.
 */
export async function createTestApp(
  name: string,
  options: {
    cms?: CmsModuleOptions;
    extensions?: Type<unknown>[];
    /** An existing database (another node's): not created, and with `users`, no users made. */
    databaseUrl?: string;
    /** The users another node on the same database made. */
    users?: TestApp['users'];
    /** More inputs of `buildDataSourceOptions` (read replicas, their lag bound, the timeout). */
    dataSource?: Partial<Omit<BuildDataSourceOptionsInput, 'databaseUrl' | 'tablePrefix' | 'logger' | 'logging'>>;
  } = {},
): Promise<TestApp> {
  const databaseUrl = options.databaseUrl ?? (await testDatabaseUrl(name));
  const queries = new QueryCounter();
  const moduleRef = await Test.createTestingModule({
    imports: [
      TypeOrmModule.forRoot({
        ...buildDataSourceOptions({ ...options.dataSource, databaseUrl, tablePrefix: TEST_PREFIX, logger: queries }),
        logging: ['query'],
      }),
      CmsModule.forRoot({
        baseUrl: TEST_BASE_URL,
        restRouteQuery: true,
        // No webhook delivery worker polling the outbox in the background (its reads would land in the query
        // counts of requests), unless a test asks for webhooks.
        webhooks: { worker: false },
        ...options.cms,
        extensions: options.extensions,
      }),
    ],
  }).compile();
  const app = moduleRef.createNestApplication({ bodyParser: false, logger: ['error', 'warn'] });
  await app.init();
  // As the standalone server does (test/embedded covers the API behind a host app's middleware chain).
  serveApiFirst(app);
  const dataSource = app.get<DataSource>(getDataSourceToken());
  const users = options.users ?? ({} as TestApp['users']);
  if (!options.users) {
    for (const role of ['administrator', 'editor', 'author', 'contributor', 'subscriber'] as const) {
      users[role] = await createUser(dataSource, TEST_PREFIX, role, role);
    }
  }
  return {
    app,
    http: request(app.getHttpServer()),
    dataSource,
    queries,
    users,
    async close() {
      await app.close();
      await dropTestDatabase(name);
    },
  };
}

/** Asserts a response is an error with the given code and status, in the API's error shape. */
export function expectRestError(res: { status: number; body: unknown }, code: string, status: number): void {
  const body = res.body as { code?: string; message?: unknown; data?: { status?: number } };
  expect({
    status: res.status,
    code: body.code,
    dataStatus: body.data?.status,
    messageType: typeof body.message,
  }).toEqual({
    status,
    code,
    dataStatus: status,
    messageType: 'string',
  });
}
