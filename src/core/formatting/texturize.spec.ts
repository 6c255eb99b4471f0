/** Hand-picked examples; every expected value is what WordPress 6.1 (PHP) returned for the same input. */
import { wptexturize, DEFAULT_SHORTCODE_TAGS } from './texturize';

describe('wptexturize() — curly quotes, apostrophes, primes, dashes, ellipses, ™, ×, no-texturize elements', () => {
  it('wptexturize: cause todays effort makes it worth tomorrows holiday ...', () => {
    expect(wptexturize("'cause today's effort makes it worth tomorrow's \"holiday\" ...", { shortcodeTags: [] })).toBe(
      '&#8217;cause today&#8217;s effort makes it worth tomorrow&#8217;s &#8220;holiday&#8221; &#8230;',
    );
  });
  it('wptexturize: The 80s were great, the 90s too.', () => {
    expect(wptexturize("The '80s were great, the 90's too.", { shortcodeTags: [] })).toBe(
      'The &#8217;80s were great, the 90&#8217;s too.',
    );
  });
  it('wptexturize: She is 510 tall; the board is 9 long.', () => {
    expect(wptexturize("She is 5'10\" tall; the board is 9' long.", { shortcodeTags: [] })).toBe(
      'She is 5&#8217;10&#8221; tall; the board is 9&#8242; long.',
    );
  });
  it('wptexturize: a -- b, a --- b, 10 - 20, xn--80ak6aa92e.com', () => {
    expect(wptexturize('a -- b, a --- b, 10 - 20, xn--80ak6aa92e.com', { shortcodeTags: [] })).toBe(
      'a &#8212; b, a &#8212; b, 10 &#8211; 20, xn--80ak6aa92e.com',
    );
  });
  it('wptexturize: WordPress (tm) and 1x2, 0x9999, 3.5x4', () => {
    expect(wptexturize('WordPress (tm) and 1x2, 0x9999, 3.5x4', { shortcodeTags: [] })).toBe(
      'WordPress &#8482; and 1&#215;2, 0x9999, 3.5&#215;4',
    );
  });
  it('wptexturize: <code>its code</code> but its <kbd>--</kbd> <a title=its>its</a>', () => {
    expect(
      wptexturize('<code>it\'s "code"</code> but it\'s <kbd>--</kbd> <a title="it\'s">it\'s</a>', {
        shortcodeTags: [],
      }),
    ).toBe('<code>it\'s "code"</code> but it&#8217;s <kbd>--</kbd> <a title="it\'s">it&#8217;s</a>');
  });
  it('wptexturize: <pre>x</pre>y<script>var s = z;</script>', () => {
    expect(wptexturize("<pre>'x'</pre>'y'<script>var s = 'z';</script>", { shortcodeTags: [] })).toBe(
      "<pre>'x'</pre>&#8216;y&#8217;<script>var s = 'z';</script>",
    );
  });
  it('wptexturize: AT&T &amp; R&D &copy;', () => {
    expect(wptexturize('AT&T &amp; R&D &copy;', { shortcodeTags: [] })).toBe('AT&#038;T &amp; R&#038;D &copy;');
  });
  it('wptexturize: [gallery columns=3] quoted', () => {
    expect(wptexturize('[gallery columns="3"] \'quoted\'', { shortcodeTags: DEFAULT_SHORTCODE_TAGS })).toBe(
      '[gallery columns="3"] &#8216;quoted&#8217;',
    );
  });
});
