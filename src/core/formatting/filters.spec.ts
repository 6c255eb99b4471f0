/** Hand-picked examples; every expected value is what WordPress 6.1 (PHP) returned for the same input. */
import { renderTitle, renderContent, renderCommentText, parseBlocks, createRenderState } from './filters';

const SITE = 'http://127.0.0.1:8090';

describe('the_title / the_content chains and the block parser', () => {
  it('rest_title:  Its WordPress -- Wordpress & co ', () => {
    expect(renderTitle(' It\'s "WordPress" -- Wordpress & co ', { status: 'publish' })).toBe(
      'It&#8217;s &#8220;WordPress&#8221; &#8212; WordPress &#038; co',
    );
  });
  it('rest_title: Secret', () => {
    expect(renderTitle('Secret', { status: 'private' })).toBe('Private: Secret');
  });
  it('rest_title: Locked', () => {
    expect(renderTitle('Locked', { status: 'private', password: 'x' })).toBe('Locked');
  });
  it('rest_content: Its a test. Second :) paragraph with Wordpress.', () => {
    expect(renderContent("It's a test.\n\nSecond :) paragraph with Wordpress.", { siteUrl: SITE })).toBe(
      '<p>It&#8217;s a test.</p>\n<p>Second 🙂 paragraph with WordPress.</p>\n',
    );
  });
  it('rest_content: <!-- wp:paragraph --> <p>Its a block.</p> <!-- /wp:paragraph --> <', () => {
    expect(
      renderContent(
        "<!-- wp:paragraph -->\n<p>It's a block.</p>\n<!-- /wp:paragraph -->\n\n<!-- wp:paragraph -->\n<p>Second.</p>\n<!-- /wp:paragraph -->",
        { siteUrl: SITE },
      ),
    ).toBe('\n<p>It&#8217;s a block.</p>\n\n\n\n<p>Second.</p>\n');
  });
  it('rest_content: Before [gallery] [[gallery]]', () => {
    expect(renderContent('Before\n\n[gallery]\n\n[[gallery]]', { siteUrl: SITE })).toBe(
      '<p>Before</p>\n[gallery]\n<p>[gallery]</p>\n',
    );
  });
  it('rest_content: Before [gallery] [[gallery]] (after a block post)', () => {
    const afterBlocks = createRenderState();
    renderContent('<!-- wp:paragraph --><p>x</p><!-- /wp:paragraph -->', { state: afterBlocks });
    expect(renderContent('Before\n\n[gallery]\n\n[[gallery]]', { siteUrl: SITE, state: afterBlocks })).toBe(
      '<p>Before</p>\n<p>[gallery]</p>\n<p>[gallery]</p>\n',
    );
  });
  it('rest_content: <img src=a.png width=10 height=10>', () => {
    expect(renderContent('<img src="a.png" width="10" height="10">', { siteUrl: SITE })).toBe(
      '<p><img decoding="async" loading="lazy" src="a.png" width="10" height="10"></p>\n',
    );
  });
  it('parse_blocks: <!-- wp:group {layout:{type:flex}} --><div><!-- wp:separator /--><', () => {
    expect(
      JSON.parse(
        JSON.stringify(
          parseBlocks(
            '<!-- wp:group {"layout":{"type":"flex"}} --><div><!-- wp:separator /--></div><!-- /wp:group -->',
          ),
        ),
      ),
    ).toEqual([
      {
        blockName: 'core/group',
        attrs: { layout: { type: 'flex' } },
        innerBlocks: [{ blockName: 'core/separator', attrs: {}, innerBlocks: [], innerHTML: '', innerContent: [] }],
        innerHTML: '<div></div>',
        innerContent: ['<div>', null, '</div>'],
      },
    ]);
  });
});

describe('comment_text chain', () => {
  it('texturizes, balances tags, then adds paragraphs, as comment_text does', () => {
    expect(renderCommentText('Hello')).toBe('<p>Hello</p>\n');
    expect(renderCommentText('"Quoted" -- Wordpress')).toBe('<p>&#8220;Quoted&#8221; &#8212; WordPress</p>\n');
    expect(renderCommentText('<b>open\n\nsecond')).toBe('<p><b>open</p>\n<p>second</b></p>\n');
  });

  it('turns smilies into characters unless the site turned them off', () => {
    expect(renderCommentText('Nice :)')).toBe('<p>Nice \u{1F642}</p>\n');
    expect(renderCommentText('Nice :)', { useSmilies: false })).toBe('<p>Nice :)</p>\n');
  });
});
