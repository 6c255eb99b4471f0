import { Injectable, Module, OnModuleInit } from '@nestjs/common';
import { CmsExtensionRegistry, HookRegistry, RestResponse } from '../../src';
import { createPost } from '../factories/post.factory';
import { createTestApp, expectRestError, TestApp } from '../utils/test-app';

const seen: string[] = [];

/** Registers a custom post type served by the same posts controller, and listens to the posts hooks. */
@Injectable()
class BooksExtension implements OnModuleInit {
  constructor(
    private readonly cms: CmsExtensionRegistry,
    private readonly hooks: HookRegistry,
  ) {}

  onModuleInit(): void {
    this.cms.registerPostType('book', {
      public: true,
      show_in_rest: true,
      rest_base: 'books',
      hierarchical: false,
      supports: ['title', 'editor', 'author'],
      labels: { name: 'Books', singular_name: 'Book' },
    });
    this.cms.registerMeta('post', 'isbn', {
      type: 'string',
      single: true,
      default: '',
      showInRest: true,
      subtype: 'book',
    });
    this.hooks.addFilter('rest_book_query', (query: { exclude: number[] }) => {
      seen.push('rest_book_query');
      return query;
    });
    this.hooks.addFilter('rest_prepare_book', (response: RestResponse) => {
      seen.push('rest_prepare_book');
      (response.data as Record<string, unknown>).shelf = 'A';
      return response;
    });
  }
}

@Module({ providers: [BooksExtension] })
class BooksModule {}

describe('posts controller: pages and custom post types', () => {
  let t: TestApp;
  let parent: number;
  let child: number;
  let book: number;

  beforeAll(async () => {
    t = await createTestApp('posts_types', { extensions: [BooksModule] });
    parent = (await createPost(t.dataSource, { type: 'page', name: 'about', title: 'About', menuOrder: 2 })).id;
    child = (await createPost(t.dataSource, { type: 'page', name: 'team', title: 'Team', parent, menuOrder: 1 })).id;
    book = (await createPost(t.dataSource, { type: 'book', name: 'dune', title: 'Dune' })).id;
    await createPost(t.dataSource, { type: 'page', name: 'private-page', title: 'Hidden', status: 'private' });
  });
  afterAll(() => t.close());

  it('serves pages with parent, menu_order, a hierarchical link and an up link', async () => {
    const res = await t.http.get(`/cms-json/cms/v2/pages/${child}`).expect(200);
    expect(res.body).toMatchObject({
      id: child,
      parent,
      menu_order: 1,
      type: 'page',
      link: 'http://example.org/about/team/',
    });
    expect(res.body).not.toHaveProperty('sticky');
    expect(res.body).not.toHaveProperty('format');
    expect(res.body).toHaveProperty('excerpt');
    expect(res.body._links.up[0]).toEqual({
      embeddable: true,
      href: `http://example.org/cms-json/cms/v2/pages/${parent}`,
    });
    expect(res.headers.link).toBe('<http://example.org/about/team/>; rel="alternate"; type=text/html');
  });

  it('filters pages by parent and menu_order and orders by menu_order', async () => {
    const byParent = await t.http.get(`/cms-json/cms/v2/pages?parent=${parent}`).expect(200);
    expect(byParent.body.map((p: { id: number }) => p.id)).toEqual([child]);
    const top = await t.http.get('/cms-json/cms/v2/pages?parent=0').expect(200);
    expect(top.body.map((p: { id: number }) => p.id)).toEqual([parent]);
    const ordered = await t.http.get('/cms-json/cms/v2/pages?orderby=menu_order&order=asc').expect(200);
    expect(ordered.body.map((p: { id: number }) => p.id)).toEqual([child, parent]);
    const menu = await t.http.get('/cms-json/cms/v2/pages?menu_order=2').expect(200);
    expect(menu.body.map((p: { id: number }) => p.id)).toEqual([parent]);
  });

  it('prefixes private titles as the reference does, for those who may read them', async () => {
    const res = await t.http
      .get('/cms-json/cms/v2/pages?status=private')
      .set('Authorization', t.users.editor.authorization)
      .expect(200);
    expect(res.body[0].title.rendered).toBe('Private: Hidden');
  });

  it('serves a custom post type registered by an extension through the same controller, with its hooks', async () => {
    seen.length = 0;
    const list = await t.http.get('/cms-json/cms/v2/books').expect(200);
    expect(list.body.map((b: { id: number }) => b.id)).toEqual([book]);
    expect(list.body[0]).toMatchObject({
      type: 'book',
      slug: 'dune',
      shelf: 'A',
      link: 'http://example.org/book/dune/',
    });
    expect(Object.keys(list.body[0])).not.toContain('excerpt');
    expect(seen).toEqual(['rest_book_query', 'rest_prepare_book']);
    const options = await t.http.options('/cms-json/cms/v2/books').expect(200);
    expect(options.body.schema.title).toBe('book');
    expectRestError(await t.http.get(`/cms-json/cms/v2/posts/${book}`), 'rest_post_invalid_id', 404);
  });

  it('lists the routes of every post type in the index', async () => {
    const res = await t.http.get('/cms-json/cms/v2').expect(200);
    expect(Object.keys(res.body.routes)).toEqual(
      expect.arrayContaining([
        '/cms/v2/posts',
        '/cms/v2/posts/(?P<id>[\\d]+)',
        '/cms/v2/pages',
        '/cms/v2/books',
        '/cms/v2/books/(?P<id>[\\d]+)',
      ]),
    );
  });
});
