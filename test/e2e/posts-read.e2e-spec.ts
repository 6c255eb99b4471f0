import { OptionEntity } from '../../src/core/database/entities/option.entity';
import { TermTaxonomyEntity } from '../../src/core/database/entities/term-taxonomy.entity';
import { TermEntity } from '../../src/core/database/entities/term.entity';
import { assignTerms, createPost, createTerm, setPostMeta } from '../factories/post.factory';
import { OptionsService } from '../../src/core/options/options.service';
import { createTestApp, expectRestError, TestApp } from '../utils/test-app';
import { PostsService } from '../../src/resources/posts/posts.service';

describe('posts: reading', () => {
  let t: TestApp;
  let published: number;
  let draft: number;
  let privatePost: number;
  let protectedPost: number;
  let tagId: number;

  beforeAll(async () => {
    t = await createTestApp('posts_read');
    const author = t.users.author.id;
    published = (
      await createPost(t.dataSource, {
        author,
        title: 'First "quoted" post',
        content: 'Line one\n\nLine two',
        date: '2024-02-01 09:00:00',
      })
    ).id;
    draft = (await createPost(t.dataSource, { author, status: 'draft', title: 'A draft' })).id;
    privatePost = (
      await createPost(t.dataSource, {
        author: t.users.editor.id,
        status: 'private',
        title: 'Private',
        name: 'private-one',
      })
    ).id;
    protectedPost = (
      await createPost(t.dataSource, { author, title: 'Locked', content: 'Secret text', password: 'secret' })
    ).id;
    tagId = await createTerm(t.dataSource, 'post_tag', 'News');
    await assignTerms(t.dataSource, published, 'post_tag', [tagId]);
    await assignTerms(t.dataSource, published, 'category', [1]);
    await setPostMeta(t.dataSource, published, '_thumbnail_id', '0');
    await t.dataSource
      .getRepository(OptionEntity)
      .update({ name: 'sticky_posts' }, { value: `a:1:{i:0;i:${published};}` });
    // Written under the server, as WordPress would: its option cache is dropped (else it sees it within 5 s).
    t.app.get(OptionsService).invalidate();
  });
  afterAll(() => t.close());

  it('lists published posts to anonymous callers, newest first, with totals', async () => {
    const res = await t.http.get('/cms-json/cms/v2/posts').expect(200);
    expect(res.body.map((p: { id: number }) => p.id)).toEqual([published, protectedPost]);
    expect(res.headers['x-cms-total']).toBe('2');
  });

  it('prepares a post with its fields, terms, sticky flag and links', async () => {
    const res = await t.http.get(`/cms-json/cms/v2/posts/${published}`).expect(200);
    expect(Object.keys(res.body)).toEqual([
      'id',
      'date',
      'date_gmt',
      'guid',
      'modified',
      'modified_gmt',
      'slug',
      'status',
      'type',
      'link',
      'title',
      'content',
      'excerpt',
      'author',
      'featured_media',
      'parent',
      'comment_status',
      'ping_status',
      'sticky',
      'template',
      'format',
      'meta',
      'categories',
      'tags',
      '_links',
    ]);
    expect(res.body).toMatchObject({
      id: published,
      date: '2024-02-01T09:00:00',
      date_gmt: '2024-02-01T09:00:00',
      status: 'publish',
      type: 'post',
      link: `http://example.org/${res.body.slug}/`,
      author: t.users.author.id,
      sticky: true,
      format: 'standard',
      categories: [1],
      tags: [tagId],
      content: { protected: false },
    });
    expect(res.body.title.rendered).toBe('First &#8220;quoted&#8221; post');
    expect(res.body.content.rendered).toBe('<p>Line one</p>\n<p>Line two</p>\n');
    expect(res.body.title.raw).toBeUndefined();
    const links = res.body._links;
    expect(links.author[0]).toEqual({
      embeddable: true,
      href: `http://example.org/cms-json/cms/v2/users/${t.users.author.id}`,
    });
    expect(links['cms:term'].map((l: { taxonomy: string }) => l.taxonomy)).toEqual(['category', 'post_tag']);
    expect(links['version-history'][0]).toMatchObject({ count: 0 });
  });

  it('hides drafts and private posts from anonymous callers (401) and shows them to those who may read them', async () => {
    expectRestError(await t.http.get(`/cms-json/cms/v2/posts/${draft}`), 'rest_forbidden', 401);
    expectRestError(await t.http.get(`/cms-json/cms/v2/posts/${privatePost}`), 'rest_forbidden', 401);
    await t.http.get(`/cms-json/cms/v2/posts/${draft}`).set('Authorization', t.users.author.authorization).expect(200);
    await t.http
      .get(`/cms-json/cms/v2/posts/${privatePost}`)
      .set('Authorization', t.users.editor.authorization)
      .expect(200);
    expectRestError(
      await t.http.get(`/cms-json/cms/v2/posts/${privatePost}`).set('Authorization', t.users.author.authorization),
      'rest_forbidden',
      403,
    );
  });

  it('needs edit capabilities for other statuses and context=edit', async () => {
    const forbidden = await t.http.get('/cms-json/cms/v2/posts?status=draft');
    expectRestError(forbidden, 'rest_invalid_param', 400);
    expect(forbidden.body.data.params).toEqual({ status: 'Status is forbidden.' });
    const drafts = await t.http
      .get('/cms-json/cms/v2/posts?status=draft')
      .set('Authorization', t.users.editor.authorization)
      .expect(200);
    expect(drafts.body.map((p: { id: number }) => p.id)).toEqual([draft]);
    expectRestError(await t.http.get('/cms-json/cms/v2/posts?context=edit'), 'rest_forbidden_context', 401);
    const edit = await t.http
      .get(`/cms-json/cms/v2/posts/${published}?context=edit`)
      .set('Authorization', t.users.author.authorization)
      .expect(200);
    expect(edit.body.title.raw).toBe('First "quoted" post');
    expect(edit.body.password).toBe('');
  });

  it('hides protected content unless the right password is sent', async () => {
    const locked = await t.http.get(`/cms-json/cms/v2/posts/${protectedPost}`).expect(200);
    expect(locked.body.content).toEqual({ rendered: '', protected: true });
    const open = await t.http.get(`/cms-json/cms/v2/posts/${protectedPost}?password=secret`).expect(200);
    expect(open.body.content.rendered).toBe('<p>Secret text</p>\n');
    expectRestError(
      await t.http.get(`/cms-json/cms/v2/posts/${protectedPost}?password=wrong`),
      'rest_post_incorrect_password',
      403,
    );
  });

  it('filters by terms, sticky, search, include and slug', async () => {
    const ids = async (query: string) =>
      (await t.http.get(`/cms-json/cms/v2/posts?${query}`).expect(200)).body.map((p: { id: number }) => p.id);
    expect(await ids(`tags=${tagId}`)).toEqual([published]);
    expect(await ids(`tags_exclude=${tagId}`)).toEqual([protectedPost]);
    // A term whose stored count says it has many posts is filtered the other way (probing posts in date order): same rows.
    await t.dataSource
      .getRepository(TermTaxonomyEntity)
      .update({ termId: tagId, taxonomy: 'post_tag' }, { count: 5000 });
    expect(await ids(`tags=${tagId}`)).toEqual([published]);
    expect(await ids(`tags_exclude=${tagId}`)).toEqual([protectedPost]);
    expect(await ids(`tags=${tagId}&categories=1&tax_relation=OR`)).toEqual([published]);
    await t.dataSource.getRepository(TermTaxonomyEntity).update({ termId: tagId, taxonomy: 'post_tag' }, { count: 1 });
    expect(await ids('sticky=true')).toEqual([published]);
    expect(await ids('sticky=false')).toEqual([protectedPost]);
    expect(await ids('search=quoted')).toEqual([published]);
    expect(await ids(`include=${published}`)).toEqual([published]);
    expect(await ids(`slug=${(await t.http.get(`/cms-json/cms/v2/posts/${published}`)).body.slug}`)).toEqual([
      published,
    ]);
  });

  it('applies the spec filter[<query_var>] parameters, private ones only for editors, and reflects them in the totals', async () => {
    const ids = async (query: string, auth?: string) => {
      const req = t.http.get(`/cms-json/cms/v2/posts?${query}`);
      if (auth) req.set('Authorization', auth);
      const res = await req.expect(200);
      return {
        ids: res.body.map((p: { id: number }) => p.id),
        total: res.headers['x-cms-total'],
        pages: res.headers['x-cms-totalpages'],
      };
    };
    expect((await ids('filter[s]=quoted')).ids).toEqual([published]);
    expect((await ids('filter[s]=quoted')).total).toBe('1');
    expect((await ids('filter[cat]=1')).ids).toEqual([published]);
    expect((await ids('filter[cat]=-1')).ids).toEqual([protectedPost]);
    expect((await ids('filter[tag]=news')).ids).toEqual([published]);
    expect((await ids('filter[author_name]=author')).ids).toEqual([published, protectedPost]);
    expect((await ids('filter[year]=2024&filter[monthnum]=2')).ids).toEqual([published]);
    expect((await ids('filter[orderby]=title&filter[order]=asc')).ids).toEqual([published, protectedPost]);
    // The reference's rest_query_vars (posts_per_page among them) apply for everyone (issue 17); private query
    // variables (post_status) are ignored for anonymous callers, applied for editors.
    const paged = await ids('filter[posts_per_page]=1');
    expect(paged.ids).toHaveLength(1);
    expect(paged.pages).toBe('2');
    expect((await ids('filter[posts_per_page]=1', t.users.editor.authorization)).pages).toBe('2');
    expect((await ids('filter[post_status]=draft')).total).toBe('2');
    // A filter that is not an object is ignored without error.
    expect((await ids('filter=nonsense')).total).toBe('2');
  });

  it('answers unknown ids and posts of another type with rest_post_invalid_id', async () => {
    expectRestError(await t.http.get('/cms-json/cms/v2/posts/999999'), 'rest_post_invalid_id', 404);
    expectRestError(await t.http.get(`/cms-json/cms/v2/pages/${published}`), 'rest_post_invalid_id', 404);
  });

  it('costs the same number of queries for 2 and for 20 posts with _embed, whatever the number of authors', async () => {
    const authors = [t.users.author.id, t.users.editor.id, t.users.administrator.id, t.users.contributor.id];
    for (let i = 0; i < 20; i++) await createPost(t.dataSource, { author: authors[i % authors.length] });
    const posts = t.app.get(PostsService);
    // One request first, so that options known to be missing are known on both measured requests.
    await t.http.get('/cms-json/cms/v2/posts?per_page=1&_embed').expect(200);
    posts.clearCounts();
    const small = await t.queries.during(() => t.http.get('/cms-json/cms/v2/posts?per_page=2&_embed').expect(200));
    posts.clearCounts();
    const large = await t.queries.during(() => t.http.get('/cms-json/cms/v2/posts?per_page=20&_embed').expect(200));
    expect(large).toBe(small);
  });

  it('counts the same filters once within a moment, and again after a write', async () => {
    t.app.get(PostsService).clearCounts();
    // A logged-in reader: its reads are not served from the response cache, so they reach the count.
    const reader = t.users.subscriber.authorization;
    const counts = () => t.queries.statements.filter((sql) => /SELECT COUNT\(\*\) AS n FROM \S*posts/.test(sql)).length;
    await t.queries.during(() =>
      t.http.get('/cms-json/cms/v2/posts?per_page=3').set('Authorization', reader).expect(200),
    );
    expect(counts()).toBe(1);
    const again = await t.http.get('/cms-json/cms/v2/posts?per_page=5').set('Authorization', reader);
    await t.queries.during(() =>
      t.http.get('/cms-json/cms/v2/posts?per_page=3').set('Authorization', reader).expect(200),
    );
    expect(counts()).toBe(0);
    const total = Number(again.headers['x-cms-total']);
    await createPost(t.dataSource, { author: t.users.author.id });
    const after = await t.http.get('/cms-json/cms/v2/posts?per_page=3').expect(200);
    expect(after.headers['x-cms-total']).toBe(String(total + 1));
  });

  it('lists term ids by term name, every one of many, and the post format, in items and in lists', async () => {
    const post = (await createPost(t.dataSource, { author: t.users.author.id, title: 'Many tags' })).id;
    const named: Array<[string, number]> = [];
    // Created in reverse name order, so that id order and name order differ.
    for (let i = 149; i >= 0; i--) {
      const name = `bulk-${String(i).padStart(3, '0')}`;
      named.push([name, await createTerm(t.dataSource, 'post_tag', name)]);
    }
    await assignTerms(
      t.dataSource,
      post,
      'post_tag',
      named.map(([, id]) => id),
    );
    const second = await createTerm(t.dataSource, 'category', 'cat-b');
    const first = await createTerm(t.dataSource, 'category', 'cat-a');
    await assignTerms(t.dataSource, post, 'category', [second, first]);
    const aside = await createTerm(t.dataSource, 'post_format', 'post-format-aside');
    await assignTerms(t.dataSource, post, 'post_format', [aside]);

    const byName = [...named].sort((a, b) => a[0].localeCompare(b[0])).map(([, id]) => id);
    const item = await t.http.get(`/cms-json/cms/v2/posts/${post}`).expect(200);
    expect(item.body.tags).toEqual(byName);
    expect(item.body.categories).toEqual([first, second]);
    expect(item.body.format).toBe('aside');
    const list = await t.http.get(`/cms-json/cms/v2/posts?include=${post},${published}&orderby=include`).expect(200);
    expect(
      list.body.map((p: { id: number; tags: number[]; format: string }) => [p.id, p.tags.length, p.format]),
    ).toEqual([
      [post, 150, 'aside'],
      [published, 1, 'standard'],
    ]);
    expect(list.body[0].tags).toEqual(byName);
  });

  it('reads a post format whose stored slug holds list separators', async () => {
    const post = (await createPost(t.dataSource, { author: t.users.author.id, title: 'Odd format' })).id;
    const tag = await createTerm(t.dataSource, 'post_tag', 'odd-format-tag');
    const format = await createTerm(t.dataSource, 'post_format', 'post-format-odd');
    await t.dataSource.getRepository(TermEntity).update({ id: format }, { slug: 'post-format-a,0:99' });
    await assignTerms(t.dataSource, post, 'post_tag', [tag]);
    await assignTerms(t.dataSource, post, 'post_format', [format]);
    const item = await t.http.get(`/cms-json/cms/v2/posts/${post}`).expect(200);
    expect(item.body.format).toBe('a,0:99');
    expect(item.body.tags).toEqual([tag]);
  });
});
