/** Hand-picked examples; every expected value is what WordPress 6.1 (PHP) returned for the same input. */
import { wpKsesPost, safecssFilterAttr, wpKsesBadProtocol } from './kses';

describe('wp_kses_post() and its helpers', () => {
  it('wp_kses_post: <p onclick=x() class=a style=color: red; position: fixed>Hi<script', () => {
    expect(
      wpKsesPost('<p onclick="x()" class="a" style="color: red; position: fixed">Hi<script>alert(1)</script></p>'),
    ).toBe('<p class="a" style="color: red">Hialert(1)</p>');
  });
  it('wp_kses_post: <a href=javascript:alert(1) target=_blank>x</a> <a href=https://ex', () => {
    expect(
      wpKsesPost('<a href="javascript:alert(1)" target="_blank">x</a> <a href="https://example.com/?a=1&b=2">y</a>'),
    ).toBe('<a href="alert(1)" target="_blank">x</a> <a href="https://example.com/?a=1&amp;b=2">y</a>');
  });
  it('wp_kses_post: <iframe src=https://x></iframe><img src=a.png onerror=x alt=A><div', () => {
    expect(
      wpKsesPost(
        '<iframe src="https://x"></iframe><img src="a.png" onerror="x" alt="A"><div data-id="5" aria-label="L">d</div>',
      ),
    ).toBe('<img src="a.png" alt="A"><div data-id="5" aria-label="L">d</div>');
  });
  it('wp_kses_post: 1 < 2 & 3 > 2 &bogus; &nbsp; <!-- <b>comment</b> -->', () => {
    expect(wpKsesPost('1 < 2 & 3 > 2 &bogus; &nbsp; <!-- <b>comment</b> -->')).toBe(
      '1  2 &amp;bogus; &nbsp; &lt;!-- <b>comment</b> --&gt;',
    );
  });
  it('wp_kses_post: <!-- wp:paragraph {className:a<b>} --> <p class=a>x</p> <!-- /wp:p', () => {
    expect(wpKsesPost('<!-- wp:paragraph {"className":"a<b>"} -->\n<p class="a">x</p>\n<!-- /wp:paragraph -->')).toBe(
      '&lt;!-- wp:paragraph {&quot;className&quot;:&quot;a<b>"} --&gt;\n<p class="a">x</p>\n<!-- /wp:paragraph -->',
    );
  });
  it('wp_kses_post: <div style=background: url(javascript:x); width: calc(100% - 1px)>', () => {
    expect(wpKsesPost('<div style="background: url(javascript:x); width: calc(100% - 1px)">s</div>')).toBe(
      '<div style="width: calc(100% - 1px)">s</div>',
    );
  });
  it('safecss_filter_attr: color: red; behavior: url(x.htc); margin: 0 auto', () => {
    expect(safecssFilterAttr('color: red; behavior: url(x.htc); margin: 0 auto')).toBe('color: red;margin: 0 auto');
  });
  it('wp_kses_bad_protocol: &#106;avascript:alert(1)', () => {
    expect(wpKsesBadProtocol('&#106;avascript:alert(1)')).toBe('alert(1)');
  });
});
