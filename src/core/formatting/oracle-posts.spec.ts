/**
 * title/content/excerpt `rendered` of every post and page of the project's WordPress 6.1 test site,
 * compared with WordPress's own REST output (test/fixtures/formatting/oracle-posts.json, captured from
 * `GET /wp/v2/posts` and `GET /wp/v2/pages` with `context=edit`; see the fixture's `_comment`).
 *
 * Posts are rendered in response order with one RenderState per request, as WordPress does.
 */
import { readFileSync } from 'fs';
import { join } from 'path';
import { createRenderState, renderContent, renderExcerpt, renderTitle } from './index';

interface OraclePost {
  id: number;
  type: string;
  status: string;
  password: string;
  title: { raw: string; rendered: string };
  content: { raw: string; rendered: string };
  excerpt: { raw: string; rendered: string };
}
interface OracleFixture {
  siteUrl: string;
  requests: { request: string; posts: OraclePost[] }[];
}

const fixture: OracleFixture = JSON.parse(
  readFileSync(join(__dirname, '../../../test/fixtures/formatting/oracle-posts.json'), 'utf8'),
);

interface Rendered {
  request: string;
  post: OraclePost;
  title: string;
  content: string;
  excerpt: string;
}

// Render like the REST controller: per post title, then content, then excerpt, in response order.
const rendered: Rendered[] = [];
for (const req of fixture.requests) {
  const state = createRenderState();
  for (const post of req.posts) {
    const options = { siteUrl: fixture.siteUrl, state };
    const title = renderTitle(post.title.raw, {
      status: post.status,
      password: post.password,
      siteUrl: fixture.siteUrl,
    });
    const content = renderContent(post.content.raw, options);
    const excerpt = renderExcerpt(post.excerpt.raw, post.content.raw, options);
    rendered.push({ request: req.request, post, title, content, excerpt });
  }
}

const rows = rendered.map(
  (r) => [`${r.post.type} ${r.post.id} (${r.post.status}${r.post.password ? ', password' : ''})`, r] as const,
);

describe('formatting: REST rendered fields of the oracle site', () => {
  it('covers every post and page of the fixture', () => {
    expect(rendered.length).toBe(fixture.requests.reduce((n, r) => n + r.posts.length, 0));
    expect(rendered.length).toBeGreaterThanOrEqual(35);
  });

  it.each(rows)('%s: title.rendered', (_label, r) => {
    expect(r.title).toBe(r.post.title.rendered);
  });

  it.each(rows)('%s: content.rendered', (_label, r) => {
    expect(r.content).toBe(r.post.content.rendered);
  });

  it.each(rows)('%s: excerpt.rendered', (_label, r) => {
    expect(r.excerpt).toBe(r.post.excerpt.rendered);
  });
});
