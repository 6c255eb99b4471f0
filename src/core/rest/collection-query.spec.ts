import { CurrentUser } from '../auth/current-user';
import { RequestContext } from '../auth/request-context';
import { CollectionQuery } from './collection-query';
import { RestRequest } from './rest-request';

const ctx = new RequestContext({
  user: CurrentUser.anonymous(),
  caps: {} as never,
  baseUrl: 'http://example.org',
  apiPrefix: 'cms-json',
});

/** A request whose query holds `sent` and whose declared defaults are `defaults`, as the dispatcher leaves it. */
function request(sent: Record<string, unknown>, defaults: Record<string, unknown> = { page: 1, per_page: 10 }) {
  const req = new RestRequest({ route: '/cms/v2/x', query: { ...sent } }, ctx);
  req.defaults = { ...defaults };
  return req;
}

describe('CollectionQuery', () => {
  it('pages by page and per_page, and a positive offset wins over the page', () => {
    expect(CollectionQuery.of(request({ page: 3, per_page: 20 }))).toMatchObject({ page: 3, limit: 20, offset: 40 });
    expect(CollectionQuery.of(request({ page: 3, per_page: 20, offset: 5 }))).toMatchObject({ offset: 5 });
    expect(CollectionQuery.of(request({ page: 2, offset: 0 }))).toMatchObject({ offset: 10 });
    expect(CollectionQuery.of(request({ page: 2, offset: -3 }))).toMatchObject({ offset: 10 });
  });

  it('follows a resource rules: absint() offsets, every row when per_page is absent, any sent offset', () => {
    expect(CollectionQuery.of(request({ page: 2, offset: -3 }), { absoluteOffset: true })).toMatchObject({ offset: 3 });
    const all = CollectionQuery.of(request({ page: 2 }, {}), { perPageWhenAbsent: 0, offsetWhenSent: true });
    expect(all).toMatchObject({ limit: 0, offset: 0 });
    const sent = CollectionQuery.of(request({ page: 2, per_page: 5, offset: 0 }, {}), { offsetWhenSent: true });
    expect(sent).toMatchObject({ offset: 0 });
  });

  it('reads the shared filters typed, absent and null values as empty', () => {
    const q = CollectionQuery.of(
      request({ include: [3, 4], search: '', order: 'asc', orderby: 'title', slug: null, exclude: null }),
    );
    expect(q.include).toEqual([3, 4]);
    expect(q.exclude).toEqual([]);
    expect(q.slugs).toEqual([]);
    expect(q.search).toBeUndefined();
    expect(q.order('DESC')).toBe('ASC');
    expect(q.orderby('date')).toBe('title');
    expect(CollectionQuery.of(request({})).orderby('date')).toBe('date');
    expect(CollectionQuery.of(request({})).order('DESC')).toBe('DESC');
  });
});
