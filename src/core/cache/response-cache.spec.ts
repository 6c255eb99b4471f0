import { WireNames } from '../wire-names';
import { HookRegistry } from '../hooks/hook-registry.service';
import { AnswerSources } from './answer-sources';
import { ResponseCache } from './response-cache';
import { resolveCmsOptions } from '../config/cms-options';

describe('ResponseCache keys', () => {
  const cache = new ResponseCache({ enabled: true } as never, new HookRegistry(), resolveCmsOptions({}));
  const stamps = { versions: {} as never, token: 'token', content: 1 };
  const sources = Object.assign(new AnswerSources(), { content: true });

  it('differ between the wire names for the same base URL, root, route and query', async () => {
    const args = ['http://example.org', '/api', '/', { context: 'view' }] as const;
    const cms = cache.keyOf(...args, WireNames.of('cms'));
    const wp = cache.keyOf(...args, WireNames.of('wordpress'));
    expect(cms).not.toBe(wp);
    expect(cache.keyOf(...args)).toBe(cms);
    // An answer kept under one mode's key is not found under the other's.
    cache.store(cms, stamps, sources, { body: Buffer.from('{"namespaces":["cms/v2"]}') });
    expect((await cache.lookup(cms, stamps))?.body.toString()).toBe('{"namespaces":["cms/v2"]}');
    expect(await cache.lookup(wp, stamps)).toBeUndefined();
  });
});
