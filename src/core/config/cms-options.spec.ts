import { CmsModuleOptions, resolveCmsOptions } from './cms-options';

describe('resolveCmsOptions: the answer cache and the memos', () => {
  it.each<[string, CmsModuleOptions, boolean, boolean]>([
    ['the defaults', {}, true, true],
    ['the response cache off (the memos follow it)', { responseCache: false }, false, false],
    ['the response cache off, the memos on', { responseCache: false, memos: true }, false, true],
    ['the memos off (no stamps: no answer cache either)', { memos: false }, false, false],
    ['both on, with a size', { responseCache: { maxBytes: 1024 }, memos: true }, true, true],
  ])('%s', (_name, options, cache, memos) => {
    const resolved = resolveCmsOptions(options);
    expect(resolved.responseCache !== false).toBe(cache);
    expect(resolved.memos).toBe(memos);
  });

  it("takes stampTriggers 'install' or 'remove' only", () => {
    expect(resolveCmsOptions({ stampTriggers: 'install' }).stampTriggers).toBe('install');
    expect(resolveCmsOptions({}).stampTriggers).toBeUndefined();
    expect(() => resolveCmsOptions({ stampTriggers: 'on' as never })).toThrow(
      "stampTriggers must be 'install' or 'remove'",
    );
  });
});
