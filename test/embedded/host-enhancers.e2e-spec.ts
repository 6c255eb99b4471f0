import {
  ArgumentsHost,
  CallHandler,
  CanActivate,
  Catch,
  Controller,
  ExecutionContext,
  ForbiddenException,
  Get,
  INestApplication,
  Injectable,
  NestInterceptor,
} from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_INTERCEPTOR, BaseExceptionFilter, RouterModule } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { ThrottlerGuard, ThrottlerModule } from '@nestjs/throttler';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { Request } from 'express';
import { Observable, tap } from 'rxjs';
import request from 'supertest';
import { buildDataSourceOptions, CmsModule } from '../../src';
import { UsersService } from '../../src/resources/users/users.service';
import { LibraryExtensionModule } from '../fixtures/extensions/library.extension';
import { dropTestDatabase, testDatabaseUrl } from '../utils/test-db';

/** What the host's global enhancers saw. */
const seen = {
  guarded: [] as string[],
  intercepted: [] as Array<{ url: string; route?: string }>,
  filtered: [] as unknown[],
};

/** A company's auth or tenant guard: refuses requests that carry `X-Host-Deny`. */
@Injectable()
class HostGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const req = context.switchToHttp().getRequest<Request>();
    seen.guarded.push(req.originalUrl);
    if (req.headers['x-host-deny']) throw new ForbiddenException('denied by the host');
    return true;
  }
}

/** An audit interceptor: records each request and, once it is handled, the API route that matched. */
@Injectable()
class HostInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const req = context.switchToHttp().getRequest<Request & { cmsMatchedRoute?: string }>();
    const entry: { url: string; route?: string } = { url: req.originalUrl };
    seen.intercepted.push(entry);
    return next.handle().pipe(tap({ finalize: () => (entry.route = req.cmsMatchedRoute) }));
  }
}

/** Error reporting: sees every exception, then answers as Nest does. */
@Catch()
class HostFilter extends BaseExceptionFilter {
  override catch(exception: unknown, host: ArgumentsHost): void {
    seen.filtered.push(exception);
    super.catch(exception, host);
  }
}

@Controller('hello')
class HelloController {
  @Get()
  hello() {
    return { hello: 'host' };
  }
}

async function hostApp(
  name: string,
  options: { globalPrefix?: string; mountUnder?: string; users?: typeof UsersService } = {},
): Promise<INestApplication> {
  const databaseUrl = await testDatabaseUrl(name);
  let builder = Test.createTestingModule({
    imports: [
      TypeOrmModule.forRoot(buildDataSourceOptions({ databaseUrl, tablePrefix: 'cms_' })),
      CmsModule.forRoot({ baseUrl: 'https://host.example', extensions: [LibraryExtensionModule] }),
      ThrottlerModule.forRoot([
        { ttl: 60_000, limit: 3, skipIf: (ctx) => !ctx.switchToHttp().getRequest<Request>().headers['x-throttle'] },
      ]),
      ...(options.mountUnder ? [RouterModule.register([{ path: options.mountUnder, module: CmsModule }])] : []),
    ],
    controllers: [HelloController],
    providers: [
      { provide: APP_GUARD, useClass: HostGuard },
      { provide: APP_GUARD, useClass: ThrottlerGuard },
      { provide: APP_INTERCEPTOR, useClass: HostInterceptor },
      { provide: APP_FILTER, useClass: HostFilter },
    ],
  });
  if (options.users) builder = builder.overrideProvider(UsersService).useClass(options.users);
  const moduleRef = await builder.compile();
  const app = moduleRef.createNestApplication({ logger: false });
  if (options.globalPrefix) app.setGlobalPrefix(options.globalPrefix);
  await app.init();
  return app;
}

describe('host app enhancers around the API (one real Nest route)', () => {
  let app: INestApplication;
  const http = () => request(app.getHttpServer());

  beforeAll(async () => {
    app = await hostApp('embedded_enhancers');
  });
  afterAll(async () => {
    await app.close();
    await dropTestDatabase('embedded_enhancers');
  });

  it('runs the host guard on API requests, which can refuse them', async () => {
    seen.guarded.length = 0;
    await http().get('/cms-json/cms/v2/types').expect(200);
    expect(seen.guarded).toContain('/cms-json/cms/v2/types');
    const refused = await http().get('/cms-json/cms/v2/types').set('X-Host-Deny', '1');
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe('denied by the host');
  });

  it('shows every top-level API request to the host interceptor, with the route pattern that matched', async () => {
    seen.intercepted.length = 0;
    await http().get('/cms-json/cms/v2/types/post').expect(200);
    await http().get('/cms-json/cms/v2/posts?_embed').expect(200);
    await http().get('/cms-json/').expect(200);
    expect(seen.intercepted).toEqual([
      { url: '/cms-json/cms/v2/types/post', route: '/cms/v2/types/(?P<type>[\\w-]+)' },
      { url: '/cms-json/cms/v2/posts?_embed', route: '/cms/v2/posts' },
      { url: '/cms-json/', route: '/' },
    ]);
  });

  it('gives a handler\u2019s unexpected error to the host filter, and answers in the API\u2019s error shape', async () => {
    seen.filtered.length = 0;
    const res = await http().get('/cms-json/library/v1/boom').expect(500);
    expect(res.body).toEqual({ code: 'internal_server_error', message: expect.any(String), data: { status: 500 } });
    expect(JSON.stringify(res.body)).not.toMatch(/SELECT|secret_table/);
    expect(res.headers['cache-control']).toMatch(/no-cache/);
    expect(seen.filtered).toHaveLength(1);
    const cause = (seen.filtered[0] as { cause?: unknown }).cause;
    expect(cause).toBeInstanceOf(Error);
    expect((cause as Error).message).toContain('secret_table');
    // Expected API errors are answers, not exceptions.
    await http().get('/cms-json/cms/v2/posts/999999').expect(404);
    expect(seen.filtered).toHaveLength(1);
  });

  it('lets the host throttler limit API requests', async () => {
    for (let i = 0; i < 3; i++) await http().get('/cms-json/cms/v2/statuses').set('X-Throttle', '1').expect(200);
    await http().get('/cms-json/cms/v2/statuses').set('X-Throttle', '1').expect(429);
  });

  it('puts no API headers on host routes', async () => {
    const res = await http().get('/hello').expect(200);
    expect(res.body).toEqual({ hello: 'host' });
    expect(res.headers.link).toBeUndefined();
    expect(res.headers['x-robots-tag']).toBeUndefined();
    expect(res.headers['x-cms-nonce']).toBeUndefined();
  });
});

describe('mounting the API below a host path', () => {
  it('serves it under setGlobalPrefix, with links under that prefix', async () => {
    const app = await hostApp('embedded_global_prefix', { globalPrefix: 'api' });
    try {
      const index = await request(app.getHttpServer()).get('/api/cms-json/').expect(200);
      expect(index.body.routes['/cms/v2/types']._links.self[0].href).toBe(
        'https://host.example/api/cms-json/cms/v2/types',
      );
      const types = await request(app.getHttpServer()).get('/api/cms-json/cms/v2/types').expect(200);
      expect(types.headers.link).toBe('<https://host.example/api/cms-json/>; rel="https://api.w.org/"');
      expect(types.body.post._links.collection[0].href).toBe('https://host.example/api/cms-json/cms/v2/types');
      await request(app.getHttpServer()).get('/cms-json/cms/v2/types').expect(404);
    } finally {
      await app.close();
      await dropTestDatabase('embedded_global_prefix');
    }
  });

  it('serves it where RouterModule mounts the module', async () => {
    const app = await hostApp('embedded_router_module', { mountUnder: 'content' });
    try {
      const res = await request(app.getHttpServer()).get('/content/cms-json/cms/v2/types/post').expect(200);
      expect(res.body._links.collection[0].href).toBe('https://host.example/content/cms-json/cms/v2/types');
      await request(app.getHttpServer()).get('/cms-json/cms/v2/types/post').expect(404);
    } finally {
      await app.close();
      await dropTestDatabase('embedded_router_module');
    }
  });
});

describe('replacing a resource provider in a test', () => {
  it('serves users from an overridden UsersService', async () => {
    class FortyTwoUsers extends UsersService {
      override async list(): Promise<{ users: never[]; total: number }> {
        return { users: [], total: 42 };
      }
    }
    const app = await hostApp('embedded_override', { users: FortyTwoUsers });
    try {
      const res = await request(app.getHttpServer()).get('/cms-json/cms/v2/users').expect(200);
      expect(res.body).toEqual([]);
      expect(res.headers['x-cms-total']).toBe('42');
    } finally {
      await app.close();
      await dropTestDatabase('embedded_override');
    }
  });
});
