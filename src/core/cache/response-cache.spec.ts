import { WireNames } from '../wire-names';
import { ResponseCache } from './response-cache';
import { resolveCmsOptions } from '../../cms-options';

describe('ResponseCache keys', () => {
  const cache = new ResponseCache({ enabled: true } as never, { generation: 0 } as never, resolveCmsOptions({}));

  it('differ between the wire names for the same base URL, root, route and query', () => {
    const args = ['http://example.org', '/api', '/', { context: 'view' }] as const;
    const cms = cache.keyOf(...args, WireNames.of('cms'));
    const wp = cache.keyOf(...args, WireNames.of('wordpress'));
    expect(cms).not.toBe(wp);
    expect(cache.keyOf(...args)).toBe(cms);
    // An answer kept under one mode's key is not found under the other's.
    cache.store(cms, 'token', 200, {}, Buffer.from('{"namespaces":["cms/v2"]}'));
    expect(cache.lookup(cms, 'token')?.body.toString()).toBe('{"namespaces":["cms/v2"]}');
    expect(cache.lookup(wp, 'token')).toBeUndefined();
  });
});
