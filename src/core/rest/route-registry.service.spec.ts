import type { ItemSchema } from '../json-schema/json-schema';
import { RouteRegistry, routePatternToRegExp } from './route-registry.service';
import type { EndpointDefinition } from './route-types';

const handler = () => ({ ok: true });
const get = (extra: Partial<EndpointDefinition> = {}): EndpointDefinition => ({ methods: 'GET', handler, ...extra });

describe('routePatternToRegExp', () => {
  const types = routePatternToRegExp('/cms/v2/types/(?P<type>[\\w-]+)');

  it('turns (?P<name>...) groups into named groups', () => {
    const match = types.exec('/cms/v2/types/post');
    expect(match).not.toBeNull();
    expect(match?.groups).toEqual({ type: 'post' });
  });

  it('keeps the group pattern', () => {
    expect(types.exec('/cms/v2/types/my-type_2')?.groups?.type).toBe('my-type_2');
    expect(types.test('/cms/v2/types/bad.type')).toBe(false);
  });

  it('is anchored at both ends', () => {
    expect(types.test('/cms/v2/types/post/extra')).toBe(false);
    expect(types.test('/prefix/cms/v2/types/post')).toBe(false);
    expect(types.test('/cms/v2/types/')).toBe(false);
  });

  it('is case-insensitive', () => {
    expect(types.exec('/CMS/V2/Types/Post')?.groups?.type).toBe('Post');
  });

  it('handles several groups', () => {
    const re = routePatternToRegExp('/cms/v2/posts/(?P<parent>[\\d]+)/revisions/(?P<id>[\\d]+)');
    expect(re.exec('/cms/v2/posts/12/revisions/34')?.groups).toEqual({ parent: '12', id: '34' });
    expect(re.test('/cms/v2/posts/12/revisions/x')).toBe(false);
  });

  it('matches a route without groups literally', () => {
    const re = routePatternToRegExp('/cms/v2/posts');
    expect(re.test('/cms/v2/posts')).toBe(true);
    expect(re.test('/cms/v2/posts/1')).toBe(false);
  });
});

describe('RouteRegistry.register', () => {
  let registry: RouteRegistry;

  beforeEach(() => {
    registry = new RouteRegistry();
  });

  it('keys a route as /namespace/path', () => {
    registry.register('cms/v2', '/posts', get());
    expect(registry.all().map((r) => r.route)).toEqual(['/cms/v2/posts']);
    expect(registry.get('/cms/v2/posts')?.namespace).toBe('cms/v2');
  });

  it('trims slashes around the namespace and the path', () => {
    registry.register('/cms/v2/', 'posts/', get());
    expect(registry.get('/cms/v2/posts')).toBeDefined();
  });

  it('keys the namespace route itself as /namespace', () => {
    registry.register('cms/v2', '', get());
    expect(registry.get('/cms/v2')).toBeDefined();
  });

  it('keys a route without namespace as /path and does not list an empty namespace', () => {
    registry.register('', '/', get());
    expect(registry.get('/')).toBeDefined();
    expect(registry.namespaces()).toEqual([]);
  });

  it('compiles the route pattern for matching', () => {
    registry.register('cms/v2', '/posts/(?P<id>[\\d]+)', get());
    const route = registry.get('/cms/v2/posts/(?P<id>[\\d]+)');
    expect(route?.regex.exec('/cms/v2/posts/42')?.groups?.id).toBe('42');
  });

  it('splits comma separated methods, trims and upper-cases them', () => {
    registry.register('cms/v2', '/posts', { methods: 'post, put,patch', handler });
    expect(registry.get('/cms/v2/posts')?.endpoints[0].methods).toEqual(['POST', 'PUT', 'PATCH']);
  });

  it('upper-cases methods given as a list and does not mutate the list', () => {
    const methods = ['get', 'delete'] as const;
    registry.register('cms/v2', '/posts', { methods, handler });
    expect(registry.get('/cms/v2/posts')?.endpoints[0].methods).toEqual(['GET', 'DELETE']);
    expect(methods).toEqual(['get', 'delete']);
  });

  it('fills endpoint defaults: empty args, shown in the index', () => {
    registry.register('cms/v2', '/posts', get());
    const [endpoint] = registry.get('/cms/v2/posts')!.endpoints;
    expect(endpoint.args).toEqual({});
    expect(endpoint.showInIndex).toBe(true);
    expect(endpoint.handler).toBe(handler);
    expect(endpoint.permission).toBeUndefined();
  });

  it('keeps args, permission and showInIndex of an endpoint', () => {
    const permission = () => true;
    registry.register('cms/v2', '/posts', get({ args: { page: { type: 'integer' } }, permission, showInIndex: false }));
    const [endpoint] = registry.get('/cms/v2/posts')!.endpoints;
    expect(endpoint.args).toEqual({ page: { type: 'integer' } });
    expect(endpoint.permission).toBe(permission);
    expect(endpoint.showInIndex).toBe(false);
  });

  it('registers several endpoints at once, in order', () => {
    registry.register('cms/v2', '/posts', [get(), { methods: 'POST', handler }]);
    expect(registry.get('/cms/v2/posts')?.endpoints.map((e) => e.methods)).toEqual([['GET'], ['POST']]);
  });

  it('merges the endpoints of a second registration of the same route', () => {
    registry.register('cms/v2', '/posts', get());
    registry.register('cms/v2', '/posts', { methods: 'POST', handler });
    expect(registry.all()).toHaveLength(1);
    expect(registry.get('/cms/v2/posts')?.endpoints.map((e) => e.methods)).toEqual([['GET'], ['POST']]);
  });

  it('keeps the schema when merging without one and takes a new one when given', () => {
    const first = () => ({ title: 'first' }) as ItemSchema;
    const second = () => ({ title: 'second' }) as ItemSchema;
    registry.register('cms/v2', '/posts', get(), { schema: first });
    registry.register('cms/v2', '/posts', get());
    expect(registry.get('/cms/v2/posts')?.schema).toBe(first);
    registry.register('cms/v2', '/posts', get(), { schema: second });
    expect(registry.get('/cms/v2/posts')?.schema).toBe(second);
  });

  it('replaces the endpoints and schema with override, keeping the route position', () => {
    const schema = () => ({ title: 'old' }) as ItemSchema;
    registry.register('cms/v2', '/posts', get(), { schema });
    registry.register('cms/v2', '/users', get());
    registry.register('cms/v2', '/posts', { methods: 'DELETE', handler }, { override: true });
    const route = registry.get('/cms/v2/posts');
    expect(route?.endpoints.map((e) => e.methods)).toEqual([['DELETE']]);
    expect(route?.schema).toBeUndefined();
    expect(registry.all().map((r) => r.route)).toEqual(['/cms/v2/posts', '/cms/v2/users']);
  });

  it('lists routes in registration order', () => {
    registry.register('cms/v2', '/posts', get());
    registry.register('other/v1', '/things', get());
    registry.register('cms/v2', '/posts/(?P<id>[\\d]+)', get());
    expect(registry.all().map((r) => r.route)).toEqual([
      '/cms/v2/posts',
      '/other/v1/things',
      '/cms/v2/posts/(?P<id>[\\d]+)',
    ]);
  });

  it('lists namespaces once each, in order of first registration', () => {
    registry.register('cms/v2', '/posts', get());
    registry.register('other/v1', '/things', get());
    registry.register('cms/v2', '/users', get());
    expect(registry.namespaces()).toEqual(['cms/v2', 'other/v1']);
  });

  it('returns a copy of the namespace list', () => {
    registry.register('cms/v2', '/posts', get());
    registry.namespaces().push('mutated');
    expect(registry.namespaces()).toEqual(['cms/v2']);
  });

  it('calls onNewNamespace once per namespace, before the route is stored', () => {
    const seen: Array<[string, string[]]> = [];
    registry.onNewNamespace = (ns) => seen.push([ns, registry.all().map((r) => r.route)]);
    registry.register('cms/v2', '/posts', get());
    registry.register('cms/v2', '/users', get());
    registry.register('/other/v1/', '/things', get());
    expect(seen).toEqual([
      ['cms/v2', []],
      ['other/v1', ['/cms/v2/posts', '/cms/v2/users']],
    ]);
  });

  it('returns undefined for an unknown route', () => {
    expect(registry.get('/cms/v2/nothing')).toBeUndefined();
  });
});

describe('RouteRegistry.freeze', () => {
  it('makes register throw an error naming the route, and keeps the table unchanged', () => {
    const registry = new RouteRegistry();
    registry.register('cms/v2', '/posts', get());
    expect(registry.isFrozen).toBe(false);
    registry.freeze();
    expect(registry.isFrozen).toBe(true);
    expect(() => registry.register('cms/v2', '/late', get())).toThrow(/cms\/v2\/late/);
    expect(registry.all().map((r) => r.route)).toEqual(['/cms/v2/posts']);
  });

  it('does not call onNewNamespace for a refused registration', () => {
    const registry = new RouteRegistry();
    const onNewNamespace = jest.fn();
    registry.onNewNamespace = onNewNamespace;
    registry.freeze();
    expect(() => registry.register('late/v1', '/x', get())).toThrow();
    expect(onNewNamespace).not.toHaveBeenCalled();
    expect(registry.namespaces()).toEqual([]);
  });
});

describe('RouteRegistry.candidates', () => {
  const handler = () => ({});
  const registry = new RouteRegistry();
  const patterns: Array<[string, string]> = [
    ['', '/'],
    ['cms/v2', ''],
    ['cms/v2', '/posts'],
    ['cms/v2', '/posts/(?P<id>[\\d]+)'],
    ['cms/v2', '/posts/(?P<parent>[\\d]+)/revisions'],
    ['cms/v2', '/(?P<base>books|films)/(?P<id>[\\d]+)'],
    ['cms/v2', '/users/me'],
    ['cms/v2', '/users/(?P<id>[\\d]+)'],
    ['library/v1', '/echo'],
    ['library/v1', '/readers/(?P<id>[\\d]+)'],
    ['cms/v2', '/posts-extra'],
    ['(?P<ns>[a-z]+)/v9', '/anything'],
  ];
  for (const [namespace, path] of patterns) registry.register(namespace, path, { methods: 'GET', handler });
  registry.freeze();

  /** The first route whose pattern matches, scanning every route: what matching gives without candidates. */
  const firstOfAll = (path: string) => registry.all().find((route) => route.regex.test(path))?.route;
  const firstOfCandidates = (path: string) => registry.candidates(path).find((route) => route.regex.test(path))?.route;

  it.each([
    '/',
    '/cms/v2',
    '/cms/v2/posts',
    '/CMS/V2/Posts/7',
    '/cms/v2/posts/7/revisions',
    '/cms/v2/posts-extra',
    '/cms/v2/books/3',
    '/cms/v2/films/x',
    '/cms/v2/users/me',
    '/cms/v2/users/12',
    '/cms/v2/comments',
    '/library/v1/echo',
    '/library/v1/readers/5',
    '/abc/v9/anything',
    '/nowhere',
    '/cms//v2/posts',
  ])('matches %s as a scan of every route does', (path) => {
    expect(firstOfCandidates(path)).toBe(firstOfAll(path));
  });

  it('tests only the routes of the path’s first segments and those that begin with a pattern', () => {
    expect(registry.candidates('/cms/v2/posts/7').map((r) => r.route)).toEqual([
      '/cms/v2/posts',
      '/cms/v2/posts/(?P<id>[\\d]+)',
      '/cms/v2/posts/(?P<parent>[\\d]+)/revisions',
      '/cms/v2/(?P<base>books|films)/(?P<id>[\\d]+)',
      '/(?P<ns>[a-z]+)/v9/anything',
    ]);
    expect(registry.candidates('/cms/v2/comments').map((r) => r.route)).toEqual([
      '/cms/v2/(?P<base>books|films)/(?P<id>[\\d]+)',
      '/(?P<ns>[a-z]+)/v9/anything',
    ]);
  });

  it('keeps candidates only for the routes’ own leading segments, whatever paths are asked for', () => {
    const kept = () => (registry as unknown as { byLeadingSegments: Map<string, unknown> }).byLeadingSegments;
    for (let i = 0; i < 2000; i++) {
      const path = `/cms/v2/${'x'.repeat(1000)}${i}/1`;
      expect(firstOfCandidates(path)).toBe(firstOfAll(path));
    }
    expect(registry.candidates('/no/such/route')).toBe(registry.candidates('/cms/v2/comments'));
    const literal = new Set(registry.all().map((r) => r.route.split('/', 4).join('/').toLowerCase()));
    expect([...kept().keys()].every((key) => literal.has(key))).toBe(true);
    expect(kept().size).toBeLessThanOrEqual(literal.size);
  });

  it('lists every route while the table is still open', () => {
    const open = new RouteRegistry();
    open.register('a/v1', '/x', { methods: 'GET', handler });
    open.register('b/v1', '/y', { methods: 'GET', handler });
    expect(open.candidates('/a/v1/x')).toHaveLength(2);
  });
});
