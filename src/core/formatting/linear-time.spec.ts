import {
  renderCommentText,
  renderContent,
  renderExcerpt,
  renderTitle,
  sanitizeTitle,
  stripAllTags,
  forceBalanceTags,
} from './index';
import { wpFilterKses, wpKsesPost } from './kses';
import { convertInvalidEntities, wpTargetedLinkRel } from './sanitize-title';
import { strtr } from './texturize';

/**
 * The filters user text goes through run in time linear in their input: for each text shape that makes a
 * backtracking regex search the rest of the text at every start (`<` with no `>`, shortcodes with no closing tag,
 * elements never closed, …), eight times the input must cost well under sixty-four times as much (the square's
 * ratio): under twenty-four times (plus a collection's pause), which leaves room for the collector's share. The fastest of three runs is compared,
 * from 16 KiB to 128 KiB.
 */
const SHAPES: Record<string, (n: number) => string> = {
  paragraphs: (n) => '<p>a</p>'.repeat(n / 8),
  'lone <': (n) => '<'.repeat(n),
  'unclosed tags': (n) => '<a href="x'.repeat(n / 10),
  'nested tags': (n) => '<div>'.repeat(n / 11) + '</span>'.repeat(n / 11),
  'shortcodes without closing': (n) => '[gallery id="1"]'.repeat(n / 16),
  'shortcode heads without ]': (n) => '[gallery '.repeat(n / 9),
  'open comments': (n) => '<!--'.repeat(n / 4),
  'block comments': (n) => '<!-- wp:paragraph --><p>x</p><!-- /wp:paragraph -->'.repeat(n / 50),
  'unclosed block comments': (n) => '<!-- wp:'.repeat(n / 8),
  'unclosed script': (n) => '<script>'.repeat(n / 8),
  'unclosed CDATA': (n) => '<![CDATA['.repeat(n / 9),
  'unclosed pre': (n) => '<pre>'.repeat(n / 5),
  ampersands: (n) => '&'.repeat(n),
  entities: (n) => '&amp;&#123;&#x1F;&foo;'.repeat(n / 22),
  attributes: (n) => `<a ${'x="1" '.repeat(n / 6)}>`,
  styles: (n) => `<p style="${'color:red;'.repeat(n / 10)}">x</p>`,
  quotes: (n) => `"'"'`.repeat(n / 4),
  'line breaks': (n) => 'a\n\n'.repeat(n / 3),
  mixed: (n) => '<a href="javascript:x">&#106;</a><img src=x onerror=1>[caption]:)'.repeat(n / 64),
};

const FILTERS: Record<string, (text: string) => unknown> = {
  wpKsesPost: (t) => wpKsesPost(t),
  wpFilterKses: (t) => wpFilterKses(t),
  renderContent: (t) => renderContent(t),
  renderExcerpt: (t) => renderExcerpt('', t),
  renderTitle: (t) => renderTitle(t, { status: 'publish', password: '' }),
  renderCommentText: (t) => renderCommentText(t),
  sanitizeTitle: (t) => sanitizeTitle(t),
  forceBalanceTags: (t) => forceBalanceTags(t),
  stripAllTags: (t) => stripAllTags(t),
  'save filters': (t) => wpTargetedLinkRel(convertInvalidEntities(t)),
  strtr: (t) => strtr(t, { '[': '&#91;', ']': '&#93;', '&#91;': '&#091;' }),
};

/** CPU milliseconds of the fastest of three runs (the process's CPU time: other processes' load does not count). */
function cost(filter: (text: string) => unknown, text: string): number {
  let best = Infinity;
  for (let run = 0; run < 3; run++) {
    const start = process.cpuUsage();
    filter(text);
    const used = process.cpuUsage(start);
    best = Math.min(best, (used.user + used.system) / 1000);
  }
  return best;
}

const SMALL = 16 * 1024;

describe('the text filters run in time linear in their input', () => {
  jest.setTimeout(120_000);

  it.each(Object.keys(FILTERS))(
    '%s: eight times the input costs less than 24 times as much, for every shape',
    (name) => {
      const filter = FILTERS[name];
      const slow: string[] = [];
      for (const [shape, make] of Object.entries(SHAPES)) {
        const small = make(SMALL);
        const large = make(SMALL * 8);
        filter(small); // warm-up
        const a = cost(filter, small);
        const b = cost(filter, large);
        // Plus 25 ms: one full collection of the test process's heap, which either run may pay for.
        if (b > 24 * a + 25) slow.push(`${shape}: ${a.toFixed(1)} ms → ${b.toFixed(1)} ms`);
      }
      expect(slow).toEqual([]);
    },
  );
});
