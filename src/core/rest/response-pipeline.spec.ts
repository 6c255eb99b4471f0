import { CurrentUser } from '../auth/current-user';
import { RequestContext } from '../auth/request-context';
import { HookRegistry } from '../hooks/hook-registry.service';
import type { Embedder } from './embedder.service';
import { RestRequest } from './rest-request';
import { RestResponse } from './rest-response';
import { ResponsePipeline } from './response-pipeline';
import type { RestServer } from './rest-server.service';

function setUp(response: RestResponse) {
  const hooks = new HookRegistry();
  const server = {
    dispatch: jest.fn(async () => response),
    addAllowHeader: jest.fn(async (r: RestResponse) => void r.header('Allow', 'GET')),
  };
  const embedder = { responseToData: jest.fn(async (r: RestResponse) => r.data) };
  const pipeline = new ResponsePipeline(server as unknown as RestServer, embedder as unknown as Embedder, hooks);
  const ctx = new RequestContext({
    user: CurrentUser.anonymous(),
    caps: {} as never,
    baseUrl: 'http://example.org',
    apiPrefix: 'cms-json',
  });
  return { hooks, server, embedder, pipeline, ctx };
}

describe('ResponsePipeline', () => {
  it('adds Allow, runs rest_post_dispatch and keeps the status and headers', async () => {
    const { hooks, pipeline, ctx } = setUp(new RestResponse({ id: 1, title: 'x' }, 201));
    hooks.addFilter('rest_post_dispatch', (r: RestResponse) => r.header('X-Seen', 'yes'));
    const served = await pipeline.serve(new RestRequest({ route: '/cms/v2/posts' }, ctx));
    expect(served.status).toBe(201);
    expect(served.data).toEqual({ id: 1, title: 'x' });
    expect(served.headers).toMatchObject({ Allow: 'GET', 'X-Seen': 'yes' });
  });

  it('keeps only _fields and wraps the answer with _envelope', async () => {
    const ok = setUp(new RestResponse({ id: 1, title: 'x', content: 'y' }));
    const fields = await ok.pipeline.serve(new RestRequest({ route: '/x', query: { _fields: 'id,title' } }, ok.ctx));
    expect(fields.data).toEqual({ id: 1, title: 'x' });
    const { pipeline, ctx } = setUp(new RestResponse({ id: 1, title: 'x', content: 'y' }, 404));
    const envelope = await pipeline.serve(new RestRequest({ route: '/x', query: { _envelope: '' } }, ctx));
    expect(envelope.status).toBe(200);
    expect(envelope.data).toEqual({
      body: { id: 1, title: 'x', content: 'y' },
      status: 404,
      headers: { Allow: 'GET' },
    });
  });

  it('asks the embedder for the relations named in _embed', async () => {
    const { pipeline, embedder, ctx } = setUp(new RestResponse([{ id: 1 }]));
    await pipeline.serve(new RestRequest({ route: '/x', query: { _embed: 'author,wp:term' } }, ctx));
    expect(embedder.responseToData).toHaveBeenCalledWith(expect.any(RestResponse), ['author', 'wp:term'], ctx, true);
  });
});
