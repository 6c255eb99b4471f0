import { WireNames } from './wire-names';
import { resolveCmsOptions } from './config/cms-options';

/** The names each mode gives: `[name, cms, wordpress]`. */
const NAMES: Array<[name: string, cms: string, wordpress: string]> = [
  ['root', 'cms-json', 'wp-json'],
  ['ownNamespace', 'cms/v2', 'wp/v2'],
  ['curie', 'cms', 'wp'],
  ['totalHeader', 'X-CMS-Total', 'X-WP-Total'],
  ['totalPagesHeader', 'X-CMS-TotalPages', 'X-WP-TotalPages'],
  ['nonceHeader', 'X-CMS-Nonce', 'X-WP-Nonce'],
  ['nonceParam', '_cmsnonce', '_wpnonce'],
];
const namesOf = (mode: 'cms' | 'wordpress') =>
  Object.fromEntries(NAMES.map(([name, cms, wordpress]) => [name, mode === 'cms' ? cms : wordpress]));

describe('WireNames', () => {
  it('keeps the spec names by default', () => {
    const wire = WireNames.of();
    expect(wire).toMatchObject({ mode: 'cms', ...namesOf('cms') });
    expect(wire.namespace('cms/v2')).toBe('cms/v2');
    expect(wire.path('cms/v2/posts/7')).toBe('cms/v2/posts/7');
    expect(wire.nonceHeadersAccepted).toEqual(['x-cms-nonce', 'x-wp-nonce']);
    expect(wire.nonceParamsAccepted).toEqual(['_cmsnonce', '_wpnonce']);
  });

  it("names the API's own namespace and paths wp/v2 with WordPress's names, leaving other namespaces alone", () => {
    const wire = WireNames.of('wordpress');
    expect(wire).toMatchObject(namesOf('wordpress'));
    expect(wire.namespace('cms/v2')).toBe('wp/v2');
    expect(wire.namespace('cms-auth/v1')).toBe('cms-auth/v1');
    expect(wire.namespace('shop/v1')).toBe('shop/v1');
    expect(wire.path('cms/v2')).toBe('wp/v2');
    expect(wire.path('/cms/v2/posts/7')).toBe('/wp/v2/posts/7');
    expect(wire.path('cms/v2?context=help')).toBe('wp/v2?context=help');
    expect(wire.path('cms/v20/things')).toBe('cms/v20/things');
    expect(wire.path('shop/v1/cms/v2')).toBe('shop/v1/cms/v2');
    expect(wire.path('')).toBe('');
    expect(wire.nonceHeadersAccepted).toEqual(['x-wp-nonce']);
    expect(wire.corsExposeHeaders).toBe('X-WP-Total, X-WP-TotalPages, Link, ETag');
  });

  it('sets the default route prefix of the options, and refuses an unknown mode', () => {
    expect(resolveCmsOptions({ wireNames: 'wordpress' })).toMatchObject({
      routePrefix: 'wp-json',
      wireNames: 'wordpress',
      wire: WireNames.of('wordpress'),
    });
    expect(resolveCmsOptions({ wireNames: 'wordpress', routePrefix: '/api-root/' }).routePrefix).toBe('api-root');
    expect(resolveCmsOptions({}).routePrefix).toBe('cms-json');
    expect(() => resolveCmsOptions({ wireNames: 'wp' as never })).toThrow(/wireNames must be 'cms' or 'wordpress'/);
  });
});
