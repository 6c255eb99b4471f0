import { wpRelUgc } from './rel-ugc';

describe('wp_rel_ugc', () => {
  const home = 'http://example.org';

  it('marks links to other sites nofollow ugc', () => {
    expect(wpRelUgc('See <a href="https://one.example/">one</a>.', home)).toBe(
      'See <a href="https://one.example/" rel="nofollow ugc">one</a>.',
    );
  });

  it('leaves links to the site itself as they are', () => {
    expect(wpRelUgc('<a href="http://example.org/about/">us</a>', home)).toBe(
      '<a href="http://example.org/about/">us</a>',
    );
    expect(wpRelUgc('<a href="https://EXAMPLE.org/" rel="me">us</a>', home)).toBe(
      '<a href="https://EXAMPLE.org/" rel="me">us</a>',
    );
  });

  it('merges a rel the link already has, rebuilding its attributes', () => {
    expect(wpRelUgc('<a href="https://x.example/" rel="external" title="T &amp; c">x</a>', home)).toBe(
      '<a href="https://x.example/" title="T &amp; c" rel="external nofollow ugc">x</a>',
    );
    expect(wpRelUgc('<a rel="nofollow" href="https://x.example/">x</a>', home)).toBe(
      '<a href="https://x.example/" rel="nofollow ugc">x</a>',
    );
  });

  it('leaves text without links alone', () => {
    expect(wpRelUgc('No <b>links</b> here', home)).toBe('No <b>links</b> here');
  });
});
