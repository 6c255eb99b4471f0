/** Hand-picked examples; every expected value is what WordPress 6.1 (PHP) returned for the same input. */
import { convertChars, convertSmilies, capitalPDangit } from './convert-chars';

const SITE = 'http://127.0.0.1:8090';

describe('convert_chars(), convert_smilies(), capital_P_dangit()', () => {
  it('convert_chars: AT&T &amp; &#38; &bogus; & x', () => {
    expect(convertChars('AT&T &amp; &#38; &bogus; & x')).toBe('AT&#038;T &amp; &#38; &bogus; &#038; x');
  });
  it('convert_smilies: Hi :) and :mrgreen: but not in <code>:)</code>', () => {
    expect(convertSmilies('Hi :) and :mrgreen: but not in <code>:)</code>', { siteUrl: SITE })).toBe(
      'Hi 🙂 and <img src="http://127.0.0.1:8090/wp-includes/images/smilies/mrgreen.png" alt=":mrgreen:" class="wp-smiley" style="height: 1em; max-height: 1em;" /> but not in <code>:)</code>',
    );
  });
  it('capital_P_dangit: I use Wordpress (Wordpress) and &#8220;Wordpress', () => {
    expect(capitalPDangit('I use Wordpress (Wordpress) and &#8220;Wordpress', 'content')).toBe(
      'I use WordPress (WordPress) and &#8220;WordPress',
    );
  });
  it('capital_P_dangit_title: Wordpress tips', () => {
    expect(capitalPDangit('Wordpress tips', 'title')).toBe('WordPress tips');
  });
});
