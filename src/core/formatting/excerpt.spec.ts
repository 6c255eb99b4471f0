/** Hand-picked examples; every expected value is what WordPress 6.1 (PHP) returned for the same input. */
import { wpTrimWords, phpStripTags, forceBalanceTags, stripShortcodes } from './excerpt';
import { renderExcerpt } from './filters';

describe('wp_trim_words(), strip_tags(), force_balance_tags(), strip_shortcodes(), generated excerpts', () => {
  it('wp_trim_words: one two three four five', () => {
    expect(wpTrimWords('one two three four five', 3, '&hellip;')).toBe('one two three&hellip;');
  });
  it('wp_trim_words: <p>one <b>two</b></p> <script>x y</script>three', () => {
    expect(wpTrimWords('<p>one <b>two</b></p>\n<script>x y</script>three', 55, ' [&hellip;]')).toBe('one two three');
  });
  it('strip_tags: a <b>b</b> <!-- c --> 1 < 2 <?php x ?> <a title=x>y>z</a>', () => {
    expect(phpStripTags('a <b>b</b> <!-- c --> 1 < 2 <?php x ?> <a title="x>y">z</a>')).toBe('a b  1 < 2  z');
  });
  it('force_balance_tags: <div><p>Open <b>bold', () => {
    expect(forceBalanceTags('<div><p>Open <b>bold')).toBe('<div><p>Open <b>bold</b></p></div>');
  });
  it('force_balance_tags: <br><img src=x><span/>', () => {
    expect(forceBalanceTags('<br><img src=x><span/>')).toBe('<br /><img src=x/><span></span>');
  });
  it('strip_shortcodes: a [gallery ids=1] b [[caption]] c [unknown]', () => {
    expect(stripShortcodes('a [gallery ids="1"] b [[caption]] c [unknown]')).toBe('a  b [caption] c [unknown]');
  });
  it('rest_excerpt: <p>Teaser &amp; intro</p> <!--more--> <p>Rest</p>', () => {
    expect(renderExcerpt('', "<p>Teaser &amp; 'intro'</p>\n<!--more-->\n<p>Rest</p>")).toBe(
      '<p>Teaser &amp; &#8216;intro&#8217;</p>\n',
    );
  });
  it('rest_excerpt: w0 w1 w2 w3 w4 w5 w6 w7 w8 w9 w10 w11 w12 w13 w14 w15 w16 w17 w18 ', () => {
    expect(
      renderExcerpt(
        '',
        'w0 w1 w2 w3 w4 w5 w6 w7 w8 w9 w10 w11 w12 w13 w14 w15 w16 w17 w18 w19 w20 w21 w22 w23 w24 w25 w26 w27 w28 w29 w30 w31 w32 w33 w34 w35 w36 w37 w38 w39 w40 w41 w42 w43 w44 w45 w46 w47 w48 w49 w50 w51 w52 w53 w54 w55 w56 w57 w58 w59',
      ),
    ).toBe(
      '<p>w0 w1 w2 w3 w4 w5 w6 w7 w8 w9 w10 w11 w12 w13 w14 w15 w16 w17 w18 w19 w20 w21 w22 w23 w24 w25 w26 w27 w28 w29 w30 w31 w32 w33 w34 w35 w36 w37 w38 w39 w40 w41 w42 w43 w44 w45 w46 w47 w48 w49 w50 w51 w52 w53 w54 [&hellip;]</p>\n',
    );
  });
  it('rest_excerpt: Hand-made excerpt second line', () => {
    expect(renderExcerpt("Hand-made 'excerpt'\nsecond line", 'ignored')).toBe(
      '<p>Hand-made &#8216;excerpt&#8217;<br />\nsecond line</p>\n',
    );
  });
  it('rest_excerpt: <!-- wp:paragraph --> <p>Block text.</p> <!-- /wp:paragraph --> <!', () => {
    expect(
      renderExcerpt(
        '',
        '<!-- wp:paragraph -->\n<p>Block text.</p>\n<!-- /wp:paragraph -->\n\n<!-- wp:latest-posts /-->\n\n<!-- wp:group --><div><!-- wp:paragraph --><p>In group</p><!-- /wp:paragraph --></div><!-- /wp:group -->',
      ),
    ).toBe('<p>Block text. In group</p>\n');
  });
});
