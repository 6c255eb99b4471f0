import { parse as parseQuery } from 'qs';
import { simpleApiUrl } from './embedder.service';

const BASE = 'http://example.org/cms-json/';

/** What the full parsers (URL and qs) read from the same link. */
function parsed(href: string) {
  const url = new URL(href);
  return {
    route: decodeURIComponent(url.pathname.slice('/cms-json'.length)) || '/',
    query: parseQuery(url.search.replace(/^\?/, '')),
  };
}

describe('simpleApiUrl', () => {
  it.each([
    'http://example.org/cms-json/',
    'http://example.org/cms-json/cms/v2/users/7',
    'http://example.org/cms-json/cms/v2/categories?post=12',
    'http://example.org/cms-json/cms/v2/comments?post=12&type=comment&per_page=5',
    'http://example.org/cms-json/cms/v2/media?parent=3&flag',
    'http://example.org/cms-json/cms/v2/tags?search=caf%C3%A9%20au%20lait',
    'http://example.org/cms-json/cms/v2/pages/4/revisions?',
  ])('reads %s as the URL parser and qs do', (href) => {
    expect(simpleApiUrl(href, BASE)).toEqual(parsed(href));
  });

  it.each([
    'http://other.example/cms-json/cms/v2/users/7',
    'http://example.org/cms-json/cms/v2/posts?categories[]=1',
    'http://example.org/cms-json/cms/v2/posts?search=a+b',
    'http://example.org/cms-json/cms/v2/posts?a=1&a=2',
    'http://example.org/cms-json/cms/v2/posts?__proto__=1',
    'http://example.org/cms-json/?rest_route=/cms/v2/posts',
    'http://example.org/cms-json/cms/v2/posts?bad=%E0%A4%A',
    'http://example.org/cms-json/cms/v2/posts#top',
  ])('leaves %s to the full parsers', (href) => {
    expect(simpleApiUrl(href, BASE)).toBeNull();
  });
});
