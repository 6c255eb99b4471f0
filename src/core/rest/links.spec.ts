import { compactLinks } from './links';
import { linkMap, type LinkMap } from './rest-response';

const API = 'https://api.w.org/';
const ROOT = 'http://example.org/cms-json/cms/v2';

describe('compactLinks', () => {
  it('renames relations under the base to cms:<name>', () => {
    const out = compactLinks(linkMap({ [`${API}featuredmedia`]: { href: `${ROOT}/media/9`, embeddable: true } }), API);
    expect(out['cms:featuredmedia']).toEqual([{ embeddable: true, href: `${ROOT}/media/9` }]);
    expect(out).not.toHaveProperty(`${API}featuredmedia`);
  });

  it('keeps plain relations first and appends compacted ones after them, then curies', () => {
    const links = linkMap({
      self: { href: `${ROOT}/posts/1` },
      [`${API}attachment`]: { href: `${ROOT}/media?parent=1` },
      collection: { href: `${ROOT}/posts` },
      [`${API}term`]: [
        { href: `${ROOT}/categories?post=1`, taxonomy: 'category', embeddable: true },
        { href: `${ROOT}/tags?post=1`, taxonomy: 'post_tag', embeddable: true },
      ],
      author: { href: `${ROOT}/users/1`, embeddable: true },
    });
    expect(Object.keys(compactLinks(links, API))).toEqual([
      'self',
      'collection',
      'author',
      'cms:attachment',
      'cms:term',
      'curies',
    ]);
  });

  it('appends the curies entry last when at least one relation was compacted', () => {
    const out = compactLinks(linkMap({ [`${API}items`]: { href: `${ROOT}/posts` } }), API);
    expect(out.curies).toEqual([{ name: 'cms', href: 'https://api.w.org/{rel}', templated: true }]);
  });

  it('adds no curies when no relation is under the base', () => {
    const out = compactLinks(linkMap({ self: { href: `${ROOT}/posts/1` }, up: { href: `${ROOT}/posts/2` } }), API);
    expect(out).not.toHaveProperty('curies');
    expect(Object.keys(out)).toEqual(['self', 'up']);
  });

  it('does not compact the base itself (an empty name)', () => {
    const out = compactLinks(linkMap({ [API]: { href: ROOT } }), API);
    expect(Object.keys(out)).toEqual([API]);
  });

  it('does not compact a relation that only contains the base further in', () => {
    const rel = `http://example.org/?r=${API}x`;
    expect(Object.keys(compactLinks(linkMap({ [rel]: { href: ROOT } }), API))).toEqual([rel]);
  });

  it('writes each link as its attributes followed by href', () => {
    const out = compactLinks(
      linkMap({ [`${API}term`]: { href: `${ROOT}/tags?post=1`, taxonomy: 'post_tag', embeddable: true } }),
      API,
    );
    const [link] = out['cms:term'];
    expect(Object.keys(link)).toEqual(['taxonomy', 'embeddable', 'href']);
    expect(JSON.stringify(link)).toBe(`{"taxonomy":"post_tag","embeddable":true,"href":"${ROOT}/tags?post=1"}`);
  });

  it('ignores an attribute named href: the link target wins and href stays last (reference add_link drops it)', () => {
    const stored = { href: `${ROOT}/types/post`, attributes: { href: 'other', title: 'T' } };
    const links: LinkMap = new Map([['about', [stored]]]);
    const [link] = compactLinks(links, API).about;
    expect(link.href).toBe(`${ROOT}/types/post`);
    expect(Object.keys(link)).toEqual(['title', 'href']);
  });

  it('keeps every link of a relation, in order', () => {
    const out = compactLinks(linkMap({ 'version-history': [{ href: 'a' }, { href: 'b' }] }), API);
    expect(out['version-history']).toEqual([{ href: 'a' }, { href: 'b' }]);
  });

  it('writes a link without attributes as just its href', () => {
    const links: LinkMap = new Map([['self', [{ href: `${ROOT}/posts/1`, attributes: {} }]]]);
    expect(compactLinks(links, API)).toEqual({ self: [{ href: `${ROOT}/posts/1` }] });
  });

  it('uses a custom relation base and curie name', () => {
    const base = 'https://example.com/rels/';
    const out = compactLinks(
      linkMap({ self: { href: 's' }, [`${base}thing`]: { href: 't' }, [`${API}term`]: { href: 'u' } }),
      base,
      'ex',
    );
    expect(Object.keys(out)).toEqual(['self', `${API}term`, 'ex:thing', 'curies']);
    expect(out.curies).toEqual([{ name: 'ex', href: 'https://example.com/rels/{rel}', templated: true }]);
  });

  it('returns an empty object for no links', () => {
    expect(compactLinks(new Map(), API)).toEqual({});
  });

  it('does not share link objects with its input', () => {
    const links = linkMap({ self: { href: 'x', embeddable: true } });
    const out = compactLinks(links, API);
    (out.self[0] as Record<string, unknown>).embeddable = false;
    expect(links.get('self')?.[0].attributes.embeddable).toBe(true);
  });
});
