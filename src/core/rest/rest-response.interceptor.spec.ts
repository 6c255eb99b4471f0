import { lastValueFrom, of } from 'rxjs';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import { CurrentUser } from '../auth/current-user';
import { RequestContext } from '../auth/request-context';
import { HookRegistry } from '../hooks/hook-registry.service';
import type { Embedder } from './embedder.service';
import { RestRequest } from './rest-request';
import { RestResponse } from './rest-response';
import { RestResponseInterceptor } from './rest-response.interceptor';
import type { RestServer } from './rest-server.service';

function setUp(response: RestResponse) {
  const hooks = new HookRegistry();
  const server = {
    dispatch: jest.fn(async () => response),
    addAllowHeader: jest.fn(async (r: RestResponse) => void r.header('Allow', 'GET')),
  };
  const embedder = { responseToData: jest.fn(async (r: RestResponse) => r.data) };
  const interceptor = new RestResponseInterceptor(
    server as unknown as RestServer,
    embedder as unknown as Embedder,
    hooks,
  );
  const ctx = new RequestContext(CurrentUser.anonymous(), {} as never, 'http://example.org', 'cms-json');
  return { hooks, server, embedder, interceptor, ctx };
}

describe('RestResponseInterceptor', () => {
  it('adds Allow, runs rest_post_dispatch and keeps the status and headers, served directly or as a Nest interceptor', async () => {
    const { hooks, interceptor, ctx } = setUp(new RestResponse({ id: 1, title: 'x' }, 201));
    hooks.addFilter('rest_post_dispatch', (r: RestResponse) => r.header('X-Seen', 'yes'));
    const direct = await interceptor.serve(new RestRequest({ route: '/cms/v2/posts' }, ctx));
    const req = new RestRequest({ route: '/cms/v2/posts' }, ctx);
    const viaNest = await lastValueFrom(
      interceptor.intercept(new ExecutionContextHost([req]), {
        handle: () => of(new RestResponse({ id: 1, title: 'x' }, 201)),
      }),
    );
    for (const served of [direct, viaNest]) {
      expect(served.status).toBe(201);
      expect(served.data).toEqual({ id: 1, title: 'x' });
      expect(served.headers).toMatchObject({ Allow: 'GET', 'X-Seen': 'yes' });
    }
  });

  it('keeps only _fields and wraps the answer with _envelope', async () => {
    const ok = setUp(new RestResponse({ id: 1, title: 'x', content: 'y' }));
    const fields = await ok.interceptor.serve(new RestRequest({ route: '/x', query: { _fields: 'id,title' } }, ok.ctx));
    expect(fields.data).toEqual({ id: 1, title: 'x' });
    const { interceptor, ctx } = setUp(new RestResponse({ id: 1, title: 'x', content: 'y' }, 404));
    const envelope = await interceptor.serve(new RestRequest({ route: '/x', query: { _envelope: '' } }, ctx));
    expect(envelope.status).toBe(200);
    expect(envelope.data).toEqual({
      body: { id: 1, title: 'x', content: 'y' },
      status: 404,
      headers: { Allow: 'GET' },
    });
  });

  it('asks the embedder for the relations named in _embed', async () => {
    const { interceptor, embedder, ctx } = setUp(new RestResponse([{ id: 1 }]));
    await interceptor.serve(new RestRequest({ route: '/x', query: { _embed: 'author,wp:term' } }, ctx));
    expect(embedder.responseToData).toHaveBeenCalledWith(expect.any(RestResponse), ['author', 'wp:term'], ctx, true);
  });
});
