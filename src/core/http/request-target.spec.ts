import fc from 'fast-check';
import { requestTarget } from './request-target';

function viaUrl(raw: string): { pathname: string; search: string } {
  const url = new URL(raw, 'http://localhost');
  return { pathname: url.pathname, search: url.search };
}

/** The result, or the error's message (a target that is no URL throws either way). */
function outcome(f: () => unknown): unknown {
  try {
    return f();
  } catch (error) {
    return (error as Error).message;
  }
}

describe('requestTarget', () => {
  it.each([
    '/',
    '/cms-json/cms/v2/posts',
    '/cms-json/cms/v2/posts?per_page=10&_embed',
    '/cms-json/cms/v2/posts?',
    '/cms-json/cms/v2/posts/?categories[]=1&categories[]=2',
    '/cms-json/cms/v2/posts?search=a%20b&_fields=id,title.rendered',
    '/cms-json/cms/v2/posts/../users',
    '/cms-json/cms/v2/posts/%2E%2E/users',
    '/cms-json/./cms/v2',
    '//evil.example/cms-json/',
    '/cms-json/cms/v2/posts?search=a b',
    '/cms-json/cms/v2/posts?search="x"<y>',
    "/cms-json/cms/v2/posts?search=it's",
    '/cms-json/cms/v2/posts#frag',
    '/cms-json\\cms/v2/posts',
    '/cms-json/cms/v2/posts?search=caf\u00e9',
    '/cms-json/cms/v2/p\tosts',
    '/cms-json/cms/v2/posts/{id}',
  ])('gives what URL gives for %j', (raw) => {
    expect(requestTarget(raw)).toEqual(viaUrl(raw));
  });

  it('gives what URL gives for any target starting with /', () => {
    const chars = fc.constantFrom(
      ...'/?#%.:@!$&\'()*+,;=[]{}<>"`\\ \t^|~-_aZ09é\u0000'.split(''),
      'ab',
      '%2e',
      '%2E',
      '..',
    );
    fc.assert(
      fc.property(fc.array(chars, { maxLength: 24 }), (parts) => {
        const raw = `/${parts.join('')}`;
        expect(outcome(() => requestTarget(raw))).toEqual(outcome(() => viaUrl(raw)));
      }),
      { numRuns: 5000 },
    );
  });
});
