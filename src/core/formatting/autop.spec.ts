/** Hand-picked examples; every expected value is what WordPress 6.1 (PHP) returned for the same input. */
import { wpautop, shortcodeUnautop } from './autop';
import { DEFAULT_SHORTCODE_TAGS } from './texturize';

describe('wpautop() / shortcode_unautop()', () => {
  it('wpautop: First. Second line.', () => {
    expect(wpautop('First.\n\nSecond\nline.')).toBe('<p>First.</p>\n<p>Second<br />\nline.</p>\n');
  });
  it('wpautop: <ul> <li>One</li> <li>Two</li> </ul> After', () => {
    expect(wpautop('<ul>\n<li>One</li>\n<li>Two</li>\n</ul>\nAfter')).toBe(
      '<ul>\n<li>One</li>\n<li>Two</li>\n</ul>\n<p>After</p>\n',
    );
  });
  it('wpautop: <pre>a b</pre> text', () => {
    expect(wpautop('<pre>a\n\nb</pre>\n\ntext')).toBe('<pre>a\n\nb</pre>\n<p>text</p>\n');
  });
  it('wpautop: <blockquote>Quote More</blockquote>', () => {
    expect(wpautop('<blockquote>Quote\n\nMore</blockquote>')).toBe(
      '<blockquote><p>Quote</p>\n<p>More</p></blockquote>\n',
    );
  });
  it('wpautop: Lone text', () => {
    expect(wpautop('Lone text')).toBe('<p>Lone text</p>\n');
  });
  it('wpautop: <!-- c --> Text <!-- d e -->', () => {
    expect(wpautop('<!-- c -->\nText\n<!-- d\ne -->')).toBe('<p><!-- c --><br />\nText<br />\n<!-- d\ne --></p>\n');
  });
  it('wpautop: a b c', () => {
    expect(wpautop('a\nb\n\nc', false)).toBe('<p>a\nb</p>\n<p>c</p>\n');
  });
  it('wpautop: a<br> <br/>b', () => {
    expect(wpautop('a<br>\n<br/>b')).toBe('<p>a</p>\n<p>b</p>\n');
  });
  it('shortcode_unautop: <p>[gallery ids=1]</p> <p>text [gallery]</p> ', () => {
    expect(shortcodeUnautop('<p>[gallery ids="1"]</p>\n<p>text [gallery]</p>\n', DEFAULT_SHORTCODE_TAGS)).toBe(
      '[gallery ids="1"]\n<p>text [gallery]</p>\n',
    );
  });
});
