import { Injectable, Module, OnModuleInit } from '@nestjs/common';
import { CapabilityService, CmsExtensionRegistry, HookRegistry, RestRequest, RestResponse } from '../../src';
import { ResponseCache } from '../../src/core/cache/response-cache';
import { TermMetaEntity } from '../../src/core/database/entities/term-meta.entity';
import { TermTaxonomyEntity } from '../../src/core/database/entities/term-taxonomy.entity';
import { TermEntity } from '../../src/core/database/entities/term.entity';
import { PostsService } from '../../src/resources/posts/posts.service';
import { TermRow } from '../../src/resources/terms/terms.service';
import { assignTerms, createPost, createTerm } from '../factories/post.factory';
import { createTestApp, expectRestError, TestApp } from '../utils/test-app';

const API = '/cms-json/cms/v2';
const ROOT = `http://example.org${API}`;
type Role = keyof TestApp['users'] | 'anonymous';
const ROLES: Role[] = ['administrator', 'editor', 'author', 'contributor', 'subscriber', 'anonymous'];
const TERM_MANAGERS: Role[] = ['administrator', 'editor'];

/** What the category hooks saw, in order. */
const events: string[] = [];

/**
 * Registers the custom taxonomies (`genre`: hierarchical, own rewrite slug, on a REST and a non-REST post type;
 * `mood`: flat, no rewrite; `secret`: not in REST), term meta, and listeners on the category hooks.
 */
@Injectable()
class TermRulesExtension implements OnModuleInit {
  constructor(
    private readonly cms: CmsExtensionRegistry,
    private readonly hooks: HookRegistry,
    private readonly caps: CapabilityService,
  ) {}

  onModuleInit(): void {
    this.cms.registerPostType('record', {
      public: true,
      show_in_rest: true,
      rest_base: 'records',
      supports: ['title', 'editor'],
    });
    this.cms.registerPostType('ledger', { public: false, show_in_rest: false, supports: ['title'] });
    this.cms.registerTaxonomy('genre', ['post', 'record', 'ledger'], {
      show_in_rest: true,
      rest_base: 'genres',
      hierarchical: true,
      rewrite: { slug: 'music-genre' },
      labels: { name: 'Genres', singular_name: 'Genre' },
    });
    this.cms.registerTaxonomy('mood', 'post', { show_in_rest: true, rest_base: 'moods', rewrite: false });
    this.cms.registerTaxonomy('secret', 'post', { show_in_rest: false });

    this.cms.registerMeta('term', 'color', { type: 'string', single: true, showInRest: true });
    this.cms.registerMeta('term', 'ratings', { type: 'integer', single: false, showInRest: true });
    this.cms.registerMeta('term', '_secret', { type: 'string', single: true, showInRest: true });
    this.cms.registerMeta('term', '_blessed', { type: 'string', single: true, showInRest: true });
    this.cms.registerMeta('term', 'bpm', { type: 'integer', single: true, showInRest: true, subtype: 'genre' });
    this.cms.registerMeta('term', 'hidden_note', { type: 'string', single: true });
    this.caps.registerMetaAuth('term', '_blessed', () => true);

    const hooked = (name: string | undefined) => String(name ?? '').startsWith('Hooked');
    this.hooks.addFilter(
      'rest_pre_insert_category',
      (input: { name?: string; description?: string; slug?: string }) => {
        if (!hooked(input.name)) return input;
        events.push(`pre_insert:${input.name}`);
        return { ...input, description: 'Set by rest_pre_insert_category', slug: `${input.slug ?? 'hooked'}-by-hook` };
      },
    );
    this.hooks.addAction('rest_insert_category', (term: TermRow, req: RestRequest, creating: boolean) => {
      if (hooked(term.name))
        events.push(`insert:${term.termId}:${term.name}:${creating}:${req instanceof RestRequest}`);
    });
    this.hooks.addAction('rest_delete_category', (term: TermRow, previous: RestResponse) => {
      if (hooked(term.name)) events.push(`delete:${term.termId}:${(previous.data as { name: string }).name}`);
    });
    this.hooks.addFilter('rest_prepare_category', (response: RestResponse, term: TermRow) => {
      if (hooked(term.name)) (response.data as Record<string, unknown>).prepared_by_hook = term.termId;
      return response;
    });
    this.hooks.addFilter('rest_category_query', (query: { include: number[]; search?: string }, req: RestRequest) => {
      if (req.get('search') !== 'hook-query') return query;
      events.push('query');
      return { ...query, search: undefined, include: [1] };
    });
  }
}

@Module({ providers: [TermRulesExtension] })
class TermRulesModule {}

describe('terms: rules of the categories, tags and custom taxonomy routes', () => {
  let t: TestApp;
  const call = (method: 'get' | 'post' | 'put' | 'delete' | 'options', path: string, role: Role = 'anonymous') => {
    const req = t.http[method](`${API}${path}`);
    return role === 'anonymous' ? req : req.set('Authorization', t.users[role].authorization);
  };
  const ids = async (path: string, role: Role = 'anonymous') =>
    (await call('get', path, role).expect(200)).body.map((x: { id: number }) => x.id);
  const stored = (termId: number) => t.dataSource.getRepository(TermEntity).findOneBy({ id: termId });
  const storedTt = (termId: number, taxonomy: string) =>
    t.dataSource.getRepository(TermTaxonomyEntity).findOneBy({ termId, taxonomy });

  /** A term with chosen slug, description, count and parent, written straight into the tables. */
  const term = async (
    taxonomy: string,
    name: string,
    fields: { slug?: string; description?: string; count?: number; parent?: number } = {},
  ) => {
    const saved = await t.dataSource
      .getRepository(TermEntity)
      .save({ name, slug: fields.slug ?? name.toLowerCase().replace(/\W+/g, '-'), group: 0 });
    await t.dataSource.getRepository(TermTaxonomyEntity).save({
      termId: saved.id,
      taxonomy,
      description: fields.description ?? '',
      parent: fields.parent ?? 0,
      count: fields.count ?? 0,
    });
    return saved.id;
  };

  beforeAll(async () => {
    t = await createTestApp('terms_rules', { extensions: [TermRulesModule] });
  });
  afterAll(() => t.close());

  describe('routes and schema', () => {
    it('registers collection and item routes for categories, tags and the extension taxonomies genres and moods, none for secret', async () => {
      const res = await t.http.get(`${API}`).expect(200);
      const routes = Object.keys(res.body.routes);
      for (const base of ['categories', 'tags', 'genres', 'moods']) {
        expect(routes).toEqual(expect.arrayContaining([`/cms/v2/${base}`, `/cms/v2/${base}/(?P<id>[\\d]+)`]));
        expect(res.body.routes[`/cms/v2/${base}`].methods).toEqual(['GET', 'POST']);
        expect(res.body.routes[`/cms/v2/${base}/(?P<id>[\\d]+)`].methods).toEqual([
          'GET',
          'POST',
          'PUT',
          'PATCH',
          'DELETE',
        ]);
      }
      expect(routes.filter((r) => /secret|\/terms\b/.test(r))).toEqual([]);
      expectRestError(await call('get', '/secrets'), 'rest_no_route', 404);
      expectRestError(await call('get', '/secret'), 'rest_no_route', 404);
      expectRestError(await call('get', '/terms/category'), 'rest_no_route', 404);
      expectRestError(await call('post', '/terms/genre', 'administrator').send({ name: 'x' }), 'rest_no_route', 404);
    });

    it('lists the categories query params: context, exclude, hide_empty, include, offset (the spec gives every terms collection offset), order, orderby, page, parent, per_page, post, search, slug', async () => {
      const res = await call('options', '/categories').expect(200);
      expect(Object.keys(res.body.endpoints[0].args).sort()).toEqual([
        'context',
        'exclude',
        'hide_empty',
        'include',
        'offset',
        'order',
        'orderby',
        'page',
        'parent',
        'per_page',
        'post',
        'search',
        'slug',
      ]);
      expect(Object.keys((await call('options', '/genres').expect(200)).body.endpoints[0].args)).toContain('parent');
    });

    it('lists the tags query params with offset instead of parent (and the same for the flat moods)', async () => {
      const expected = [
        'context',
        'exclude',
        'hide_empty',
        'include',
        'offset',
        'order',
        'orderby',
        'page',
        'per_page',
        'post',
        'search',
        'slug',
      ];
      expect(Object.keys((await call('options', '/tags').expect(200)).body.endpoints[0].args).sort()).toEqual(expected);
      expect(Object.keys((await call('options', '/moods').expect(200)).body.endpoints[0].args).sort()).toEqual(
        expected,
      );
    });

    it('gives the context param default view and enum view, embed, edit on collection and item routes', async () => {
      for (const path of ['/categories', '/categories/1', '/tags', '/genres']) {
        const context = (await call('options', path).expect(200)).body.endpoints[0].args.context;
        expect(context).toMatchObject({ default: 'view', enum: ['view', 'embed', 'edit'] });
      }
    });

    it('describes categories with 9 properties titled category, tags with 8 titled tag, genres with 9 titled genre, moods with 8', async () => {
      const schema = async (base: string) => (await call('options', `/${base}`).expect(200)).body.schema;
      const category = await schema('categories');
      expect(category.title).toBe('category');
      expect(Object.keys(category.properties).sort()).toEqual([
        'count',
        'description',
        'id',
        'link',
        'meta',
        'name',
        'parent',
        'slug',
        'taxonomy',
      ]);
      expect(category.properties.taxonomy.enum).toEqual(
        expect.arrayContaining(['category', 'post_tag', 'genre', 'mood', 'secret']),
      );
      const tag = await schema('tags');
      expect(tag.title).toBe('tag');
      expect(Object.keys(tag.properties)).toHaveLength(8);
      expect(tag.properties.parent).toBeUndefined();
      const genre = await schema('genres');
      expect(genre.title).toBe('genre');
      expect(Object.keys(genre.properties)).toHaveLength(9);
      const mood = await schema('moods');
      expect(mood.title).toBe('mood');
      expect(Object.keys(mood.properties)).toHaveLength(8);
    });
  });

  describe('permissions by role', () => {
    let fixtures: Record<string, number>;
    beforeAll(async () => {
      fixtures = {
        categories: await createTerm(t.dataSource, 'category', 'Matrix Cat'),
        tags: await createTerm(t.dataSource, 'post_tag', 'Matrix Tag'),
      };
    });
    const expectAllowedOr = (res: { status: number; body: unknown }, role: Role, ok: number, code: string) => {
      if (TERM_MANAGERS.includes(role)) expect(res.status).toBe(ok);
      else expectRestError(res, code, role === 'anonymous' ? 401 : 403);
    };

    describe.each(['categories', 'tags'])('%s', (base) => {
      it.each(ROLES)(
        'create as %s: 201 for administrator and editor, else rest_cannot_create (401 anonymous, 403 logged in)',
        async (role) => {
          const res = await call('post', `/${base}`, role).send({ name: `Created ${base} by ${role}` });
          expectAllowedOr(res, role, 201, 'rest_cannot_create');
          if (res.status === 201) expect(res.body.name).toBe(`Created ${base} by ${role}`);
        },
      );

      it.each(ROLES)(
        'update as %s: 200 for administrator and editor, else rest_cannot_update (401 anonymous, 403 logged in)',
        async (role) => {
          const res = await call('put', `/${base}/${fixtures[base]}`, role).send({ description: `by ${role}` });
          expectAllowedOr(res, role, 200, 'rest_cannot_update');
          const tt = await storedTt(fixtures[base], base === 'tags' ? 'post_tag' : 'category');
          if (res.status === 200) expect(tt!.description).toBe(`by ${role}`);
          else expect(tt!.description).not.toBe(`by ${role}`);
        },
      );

      it.each(ROLES)(
        'delete as %s: 200 for administrator and editor, else rest_cannot_delete (401 anonymous, 403 logged in)',
        async (role) => {
          const taxonomy = base === 'tags' ? 'post_tag' : 'category';
          const id = await createTerm(t.dataSource, taxonomy, `Doomed ${base} ${role}`);
          const res = await call('delete', `/${base}/${id}?force=true`, role);
          expectAllowedOr(res, role, 200, 'rest_cannot_delete');
          expect(Boolean(await storedTt(id, taxonomy))).toBe(!TERM_MANAGERS.includes(role));
        },
      );

      it.each(ROLES)(
        'context=edit on the list and an item as %s: 200 with edit_terms, else rest_forbidden_context 401/403',
        async (role) => {
          const list = await call('get', `/${base}?context=edit`, role);
          const item = await call('get', `/${base}/${fixtures[base]}?context=edit`, role);
          for (const res of [list, item]) expectAllowedOr(res, role, 200, 'rest_forbidden_context');
          if (item.status === 200)
            expect(item.body).toMatchObject({
              id: fixtures[base],
              name: base === 'tags' ? 'Matrix Tag' : 'Matrix Cat',
            });
        },
      );
    });

    it.each(ROLES)('refuses to delete the default category (id 1) as %s with rest_cannot_delete', async (role) => {
      expectRestError(
        await call('delete', '/categories/1?force=true', role),
        'rest_cannot_delete',
        role === 'anonymous' ? 401 : 403,
      );
      expect(await storedTt(1, 'category')).not.toBeNull();
    });
  });

  describe('collection params', () => {
    // Fruit tags, created in the order A..E; names, slugs, descriptions and counts sort differently.
    let A: number, B: number, C: number, D: number, E: number;
    let fruitPost: number;
    let parentCat: number;
    let childCat: number;
    let leafCat: number;

    beforeAll(async () => {
      A = await term('post_tag', 'Fruit Banana', { slug: 'fruit-banana', description: 'c', count: 3 });
      B = await term('post_tag', 'Fruit Apple', { slug: 'fruit-zz-apple', description: 'a', count: 1 });
      C = await term('post_tag', 'Fruit Cherry', { slug: 'fruit-cherry', description: 'b', count: 0 });
      D = await term('post_tag', 'Fruit Date', { slug: 'fruit-date', description: 'd', count: 5 });
      E = await term('post_tag', 'Fruit Elder', { slug: 'fruit-aa-elder', description: 'aa', count: 2 });
      fruitPost = (await createPost(t.dataSource, { title: 'Fruit salad' })).id;
      await assignTerms(t.dataSource, fruitPost, 'post_tag', [A, B, E]);
      parentCat = await term('category', 'Level One', { slug: 'level-one' });
      childCat = await term('category', 'Level Two', { slug: 'level-two', parent: parentCat });
      leafCat = await term('category', 'Level Three', { slug: 'level-three', parent: childCat });
    });

    it('pages tags with per_page/page: X-CMS-Total 5, X-CMS-TotalPages 3, Link prev/next keeping the query', async () => {
      const page = (n: number) => call('get', `/tags?search=fruit&per_page=2${n ? `&page=${n}` : ''}`).expect(200);
      const url = (n: number) => `<${ROOT}/tags?search=fruit&per_page=2&page=${n}>`;
      const first = await page(0);
      expect(first.body.map((x: { id: number }) => x.id)).toEqual([B, A]);
      expect([first.headers['x-cms-total'], first.headers['x-cms-totalpages']]).toEqual(['5', '3']);
      expect(first.headers.link).toBe(`${url(2)}; rel="next"`);
      const second = await page(2);
      expect(second.body.map((x: { id: number }) => x.id)).toEqual([C, D]);
      expect(second.headers.link).toBe(`${url(1)}; rel="prev", ${url(3)}; rel="next"`);
      const last = await page(3);
      expect(last.body.map((x: { id: number }) => x.id)).toEqual([E]);
      expect(last.headers.link).toBe(`${url(2)}; rel="prev"`);
      const beyond = await page(7);
      expect(beyond.body).toEqual([]);
      expect([beyond.headers['x-cms-total'], beyond.headers['x-cms-totalpages']]).toEqual(['5', '3']);
      expect(beyond.headers.link).toBe(`${url(3)}; rel="prev"`);
    });

    it('lets offset override page on tags: offset=1&per_page=2 gives Banana, Cherry as page 2; offset past the end gives []', async () => {
      const res = await call('get', '/tags?search=fruit&per_page=2&offset=1&page=3').expect(200);
      expect(res.body.map((x: { id: number }) => x.id)).toEqual([A, C]);
      expect(res.headers['x-cms-total']).toBe('5');
      const base = `${ROOT}/tags?search=fruit&per_page=2&offset=1`;
      expect(res.headers.link).toBe(`<${base}&page=1>; rel="prev", <${base}&page=3>; rel="next"`);
      expect(await ids('/tags?search=fruit&offset=3')).toEqual([D, E]);
      const past = await call('get', '/tags?search=fruit&offset=10').expect(200);
      expect(past.body).toEqual([]);
      expect(past.headers['x-cms-total']).toBe('5');
    });

    it.each([
      ['name', 'asc', ['B', 'A', 'C', 'D', 'E']],
      ['name', 'desc', ['E', 'D', 'C', 'A', 'B']],
      ['id', 'asc', ['A', 'B', 'C', 'D', 'E']],
      ['id', 'desc', ['E', 'D', 'C', 'B', 'A']],
      ['slug', 'asc', ['E', 'A', 'C', 'D', 'B']],
      ['slug', 'desc', ['B', 'D', 'C', 'A', 'E']],
      ['count', 'asc', ['C', 'B', 'E', 'A', 'D']],
      ['count', 'desc', ['D', 'A', 'E', 'B', 'C']],
      ['description', 'asc', ['B', 'E', 'C', 'A', 'D']],
      ['description', 'desc', ['D', 'A', 'C', 'E', 'B']],
    ] as Array<[string, string, string[]]>)('orders tags by %s %s', async (orderby, order, expected) => {
      const byLetter: Record<string, number> = { A, B, C, D, E };
      expect(await ids(`/tags?search=fruit&orderby=${orderby}&order=${order}`)).toEqual(
        expected.map((l) => byLetter[l]),
      );
    });

    it('orders by include (C, A, E; reversed with order=desc) and by include_slugs (date, banana)', async () => {
      expect(await ids(`/tags?include=${C},${A},${E}&orderby=include`)).toEqual([C, A, E]);
      expect(await ids(`/tags?include=${C},${A},${E}`)).toEqual([A, C, E]);
      expect(await ids('/tags?slug=fruit-date,fruit-banana&orderby=include_slugs')).toEqual([D, A]);
      expect(await ids('/tags?slug[]=fruit-date&slug[]=fruit-banana')).toEqual([A, D]);
      expect(await ids(`/tags?include[]=${C}&include[]=${A}&include[]=${E}&orderby=include&order=desc`)).toEqual([
        E,
        A,
        C,
      ]);
    });

    it('searches names and slugs, case-insensitively: zz finds Apple by slug, CHERR finds Cherry by name, nothing finds []', async () => {
      expect(await ids('/tags?search=zz')).toEqual([B]);
      expect(await ids('/tags?search=CHERR')).toEqual([C]);
      expect(await ids('/tags?search=aa-eld')).toEqual([E]);
      const none = await call('get', '/tags?search=no-such-fruit').expect(200);
      expect([none.body, none.headers['x-cms-total'], none.headers['x-cms-totalpages']]).toEqual([[], '0', '0']);
    });

    it('hides empty terms with hide_empty=true: Apple, Banana, Date, Elder (Cherry has count 0)', async () => {
      expect(await ids('/tags?search=fruit&hide_empty=true')).toEqual([B, A, D, E]);
      expect(await ids('/tags?search=fruit&hide_empty=false')).toEqual([B, A, C, D, E]);
    });

    it('treats parent=0 as top level (total = categories with parent 0), parent=<leaf> as [] and parent=<id> as its children', async () => {
      const top = await t.dataSource.getRepository(TermTaxonomyEntity).countBy({ taxonomy: 'category', parent: 0 });
      const res = await call('get', '/categories?parent=0&per_page=100').expect(200);
      expect(res.headers['x-cms-total']).toBe(String(top));
      expect(res.body.every((c: { parent: number }) => c.parent === 0)).toBe(true);
      expect(res.body.map((c: { id: number }) => c.id)).toContain(parentCat);
      expect(await ids(`/categories?parent=${parentCat}`)).toEqual([childCat]);
      expect(await ids(`/categories?parent=${childCat}`)).toEqual([leafCat]);
      const empty = await call('get', `/categories?parent=${leafCat}`).expect(200);
      expect([empty.body, empty.headers['x-cms-total']]).toEqual([[], '0']);
    });

    it.each([
      ['', ['B', 'A', 'E']],
      ['&order=desc', ['E', 'A', 'B']],
      ['&orderby=id', ['A', 'B', 'E']],
      ['&orderby=id&order=desc', ['E', 'B', 'A']],
      ['&orderby=slug', ['E', 'A', 'B']],
      ['&orderby=count', ['B', 'E', 'A']],
      ['&orderby=count&order=desc', ['A', 'E', 'B']],
      ['&orderby=description', ['B', 'E', 'A']],
      ['&orderby=id&per_page=2&page=2', ['E']],
    ] as Array<[string, string[]]>)('sorts and pages the terms of a post: post=<id>%s', async (query, expected) => {
      const byLetter: Record<string, number> = { A, B, E };
      const res = await call('get', `/tags?post=${fruitPost}${query}`).expect(200);
      expect(res.body.map((x: { id: number }) => x.id)).toEqual(expected.map((l) => byLetter[l]));
      expect(res.headers['x-cms-total']).toBe('3');
    });

    it('answers post=<id without terms> with [] and total 0', async () => {
      const bare = (await createPost(t.dataSource, { title: 'Bare' })).id;
      const res = await call('get', `/tags?post=${bare}`).expect(200);
      expect([res.body, res.headers['x-cms-total'], res.headers['x-cms-totalpages']]).toEqual([[], '0', '0']);
    });

    it.each([
      'per_page=0',
      'per_page=101',
      'per_page=abc',
      'page=0',
      'order=sideways',
      'orderby=term_id',
      'orderby=banana',
      'context=banana',
      'post=abc',
      'include=abc',
      'exclude=1,x',
      'hide_empty=maybe',
      'offset=abc',
    ])('rejects tags?%s with rest_invalid_param 400', async (query) => {
      const res = await call('get', `/tags?${query}`);
      expectRestError(res, 'rest_invalid_param', 400);
      expect(Object.keys(res.body.data.params)).toEqual([query.split('=')[0]]);
    });

    it('rejects categories?page=0 with the message "page must be greater than 1 (inclusive)"', async () => {
      const res = await call('get', '/categories?page=0');
      expectRestError(res, 'rest_invalid_param', 400);
      expect(res.body.data.params.page).toContain('page must be greater than 1 (inclusive)');
    });
  });

  describe('items', () => {
    it('uses the term id, not the term_taxonomy id, as id (a term whose term_taxonomy_id differs)', async () => {
      const menu = await createTerm(t.dataSource, 'nav_menu', 'Main Menu');
      await t.dataSource
        .getRepository(TermTaxonomyEntity)
        .save({ termId: menu, taxonomy: 'link_category', description: '', parent: 0, count: 0 });
      const created = await call('post', '/categories', 'editor').send({ name: 'Offset Id' }).expect(201);
      const termId = created.body.id;
      const tt = await storedTt(termId, 'category');
      expect(tt).not.toBeNull();
      expect(tt!.id).not.toBe(termId);
      expect(created.headers.location).toBe(`${ROOT}/categories/${termId}`);
      expect((await call('get', `/categories/${termId}`).expect(200)).body).toMatchObject({
        id: termId,
        name: 'Offset Id',
      });
      expect(await ids(`/categories?include=${termId}`)).toEqual([termId]);
      const byTt = await call('get', `/categories/${tt!.id}`);
      expect(byTt.body.id).not.toBe(termId);

      const post = await call('post', '/posts', 'editor')
        .send({ title: 'Filed by term id', status: 'publish', categories: [termId] })
        .expect(201);
      expect(post.body.categories).toEqual([termId]);
      expect(await ids(`/posts?categories=${termId}`)).toEqual([post.body.id]);
      expect(await ids(`/categories?post=${post.body.id}`)).toEqual([termId]);
      expect((await call('get', `/categories/${termId}`).expect(200)).body.count).toBe(1);
    });

    it('builds links: category path with ancestors, tag path, custom rewrite slug without ancestors, query var without rewrite', async () => {
      const a = await term('category', 'Link A', { slug: 'link-a' });
      const b = await term('category', 'Link B', { slug: 'link-b', parent: a });
      const c = await term('category', 'Link C', { slug: 'link-c', parent: b });
      expect((await call('get', `/categories/${c}`).expect(200)).body.link).toBe(
        'http://example.org/category/link-a/link-b/link-c/',
      );
      const tag = await term('post_tag', 'Link Tag', { slug: 'link-tag' });
      expect((await call('get', `/tags/${tag}`).expect(200)).body.link).toBe('http://example.org/tag/link-tag/');
      const rock = await term('genre', 'Rock', { slug: 'rock' });
      const punk = await term('genre', 'Punk', { slug: 'punk', parent: rock });
      expect((await call('get', `/genres/${rock}`).expect(200)).body.link).toBe('http://example.org/music-genre/rock/');
      expect((await call('get', `/genres/${punk}`).expect(200)).body).toMatchObject({
        link: 'http://example.org/music-genre/punk/',
        parent: rock,
        taxonomy: 'genre',
      });
      const calm = await term('mood', 'Calm', { slug: 'calm' });
      expect((await call('get', `/moods/${calm}`).expect(200)).body).toMatchObject({
        link: 'http://example.org/?mood=calm',
        taxonomy: 'mood',
      });
      expect((await call('get', `/moods/${calm}`).expect(200)).body.parent).toBeUndefined();
    });

    it('links self, collection, about, up (only when the parent exists) and cms:post_type per REST object type', async () => {
      const parent = await term('category', 'Up Parent');
      const child = await term('category', 'Up Child', { parent });
      const orphan = await term('category', 'Up Orphan', { parent: 999999 });
      const links = async (path: string) => (await call('get', path).expect(200)).body._links;
      const withUp = await links(`/categories/${child}`);
      expect(Object.keys(withUp)).toEqual(['self', 'collection', 'about', 'up', 'cms:post_type', 'curies']);
      expect(withUp).toMatchObject({
        self: [{ href: `${ROOT}/categories/${child}` }],
        collection: [{ href: `${ROOT}/categories` }],
        about: [{ href: `${ROOT}/taxonomies/category` }],
        up: [{ href: `${ROOT}/categories/${parent}`, embeddable: true }],
        'cms:post_type': [{ href: `${ROOT}/posts?categories=${child}` }],
      });
      const noUp = await links(`/categories/${orphan}`);
      expect(Object.keys(noUp)).toEqual(['self', 'collection', 'about', 'cms:post_type', 'curies']);
      expect((await call('get', `/categories/${orphan}`).expect(200)).body.parent).toBe(999999);
      expect(Object.keys(await links(`/categories/${parent}`))).not.toContain('up');
      const tag = await term('post_tag', 'Up Tag');
      expect((await links(`/tags/${tag}`))['cms:post_type']).toEqual([{ href: `${ROOT}/posts?tags=${tag}` }]);
      const genre = await term('genre', 'Up Genre');
      expect(await links(`/genres/${genre}`)).toMatchObject({
        about: [{ href: `${ROOT}/taxonomies/genre` }],
        'cms:post_type': [{ href: `${ROOT}/posts?genres=${genre}` }, { href: `${ROOT}/records?genres=${genre}` }],
      });
    });

    it('embeds the parent under up in embed context (id, link, name, slug, taxonomy)', async () => {
      const parent = await term('category', 'Embed Parent', { slug: 'embed-parent', description: 'hidden in embed' });
      const child = await term('category', 'Embed Child', { parent });
      const res = await call('get', `/categories/${child}?_embed`).expect(200);
      const up = res.body._embedded.up;
      expect(up).toHaveLength(1);
      expect(Object.keys(up[0]).filter((k) => k !== '_links')).toEqual(['id', 'link', 'name', 'slug', 'taxonomy']);
      expect(up[0]).toMatchObject({
        id: parent,
        link: 'http://example.org/category/embed-parent/',
        name: 'Embed Parent',
        slug: 'embed-parent',
        taxonomy: 'category',
      });
      const list = await call('get', `/categories?include=${child}&_embed`).expect(200);
      expect(list.body[0]._embedded.up[0].id).toBe(parent);
    });
  });

  describe('writes', () => {
    it('strips tags from the name and stores &, < and > as entities: "Tom & Jerry" → "Tom &amp; Jerry"', async () => {
      const res = await call('post', '/categories', 'editor').send({ name: '  <b>Bold</b> Name  ' }).expect(201);
      expect(res.body).toMatchObject({ name: 'Bold Name', slug: 'bold-name' });
      const amp = await call('post', '/tags', 'editor').send({ name: 'Tom & Jerry' }).expect(201);
      expect(amp.body).toMatchObject({ name: 'Tom &amp; Jerry', slug: 'tom-jerry' });
      expect((await stored(amp.body.id))!.name).toBe('Tom &amp; Jerry');
      const less = await call('post', '/tags', 'editor').send({ name: 'a < b' }).expect(201);
      expect((await stored(less.body.id))!.name).toBe('a &lt; b');
      const renamed = await call('put', `/tags/${amp.body.id}`, 'editor')
        .send({ name: 'Tom &amp; Jerry & Co' })
        .expect(200);
      expect(renamed.body.name).toBe('Tom &amp; Jerry &amp; Co');
    });

    it('runs the description through kses: script tags go, and for terms only the basic inline tags stay', async () => {
      const description = '<p>Para <em>em</em> <strong>s</strong></p><script>alert(1)</script><h2>Head</h2>';
      const res = await call('post', '/categories', 'administrator')
        .send({ name: 'Described', description })
        .expect(201);
      expect(res.body.description).toBe('Para <em>em</em> <strong>s</strong>alert(1)Head');
      expect((await storedTt(res.body.id, 'category'))!.description).toBe(
        'Para <em>em</em> <strong>s</strong>alert(1)Head',
      );
      const updated = await call('put', `/categories/${res.body.id}`, 'editor')
        .send({ description: '<em>ok</em><script>x</script>' })
        .expect(200);
      expect(updated.body.description).toBe('<em>ok</em>x');
    });

    it('sanitizes a given slug with sanitize_title and makes slugs unique in the taxonomy with -2, -3', async () => {
      const custom = await call('post', '/tags', 'editor')
        .send({ name: 'Slugged', slug: 'My Custom Slug!' })
        .expect(201);
      expect(custom.body.slug).toBe('my-custom-slug');
      const second = await call('post', '/tags', 'editor')
        .send({ name: 'Slugged Two', slug: 'my-custom-slug' })
        .expect(201);
      expect(second.body.slug).toBe('my-custom-slug-2');
      const third = await call('post', '/tags', 'editor').send({ name: 'My Custom Slug' }).expect(201);
      expect(third.body.slug).toBe('my-custom-slug-3');
      // Slugs are unique per taxonomy only.
      const cat = await call('post', '/categories', 'editor').send({ name: 'My Custom Slug' }).expect(201);
      expect(cat.body.slug).toBe('my-custom-slug');
    });

    it('refuses a duplicate name at the same level with term_exists 400 and data.term_id, whatever the case', async () => {
      const first = await call('post', '/tags', 'editor').send({ name: 'Jazz Fusion' }).expect(201);
      for (const name of ['Jazz Fusion', 'JAZZ FUSION']) {
        const dup = await call('post', '/tags', 'editor').send({ name });
        expectRestError(dup, 'term_exists', 400);
        expect(dup.body.message).toBe('A term with the name provided already exists in this taxonomy.');
        expect(dup.body.data.term_id).toBe(first.body.id);
      }
      const cat = await call('post', '/categories', 'editor').send({ name: 'Jazz Fusion' }).expect(201);
      const dupCat = await call('post', '/categories', 'editor').send({ name: 'Jazz Fusion' });
      expectRestError(dupCat, 'term_exists', 400);
      expect(dupCat.body.message).toBe('A term with the name provided already exists with this parent.');
      expect(dupCat.body.data.term_id).toBe(cat.body.id);
    });

    it('allows a duplicate name when a new unique slug is given explicitly (wp_insert_term rule)', async () => {
      const first = await call('post', '/tags', 'editor').send({ name: 'Bebop' }).expect(201);
      const again = await call('post', '/tags', 'editor').send({ name: 'Bebop', slug: 'bebop-music' }).expect(201);
      expect(again.body).toMatchObject({ name: 'Bebop', slug: 'bebop-music' });
      expect(again.body.id).not.toBe(first.body.id);
    });

    it('allows the same category name under another parent, its slug suffixed with the parent slug', async () => {
      const one = await call('post', '/categories', 'editor').send({ name: 'Branch One' }).expect(201);
      const two = await call('post', '/categories', 'editor').send({ name: 'Branch Two' }).expect(201);
      const leafOne = await call('post', '/categories', 'editor')
        .send({ name: 'Leaf', parent: one.body.id })
        .expect(201);
      expect(leafOne.body.slug).toBe('leaf');
      const leafTwo = await call('post', '/categories', 'editor')
        .send({ name: 'Leaf', parent: two.body.id })
        .expect(201);
      expectRestError(
        await call('post', '/categories', 'editor').send({ name: 'Leaf', parent: two.body.id }),
        'term_exists',
        400,
      );
      expect(leafTwo.body).toMatchObject({ name: 'Leaf', parent: two.body.id, slug: 'leaf-branch-two' });
      expect(leafTwo.body.link).toBe('http://example.org/category/branch-two/leaf-branch-two/');
    });

    it('refuses an update to a slug taken in the taxonomy (duplicate_term_slug 400) and accepts one taken in another taxonomy', async () => {
      await term('post_tag', 'Taken Slug', { slug: 'taken-slug' });
      await term('category', 'Taken Elsewhere', { slug: 'taken-elsewhere' });
      const mine = await call('post', '/tags', 'editor').send({ name: 'Wants Slug' }).expect(201);
      expectRestError(
        await call('put', `/tags/${mine.body.id}`, 'editor').send({ slug: 'taken-slug' }),
        'duplicate_term_slug',
        400,
      );
      expect((await stored(mine.body.id))!.slug).toBe('wants-slug');
      const ok = await call('put', `/tags/${mine.body.id}`, 'editor').send({ slug: 'taken-elsewhere' }).expect(200);
      expect(ok.body.slug).toBe('taken-elsewhere');
      // Its own slug again is not a conflict.
      await call('put', `/tags/${mine.body.id}`, 'editor')
        .send({ slug: 'taken-elsewhere', name: 'Wants Slug' })
        .expect(200);
    });

    it('regenerates the slug from the name when an update sends an empty slug', async () => {
      const created = await call('post', '/tags', 'editor').send({ name: 'Fresh Name', slug: 'odd-slug' }).expect(201);
      const res = await call('put', `/tags/${created.body.id}`, 'editor').send({ slug: '' }).expect(200);
      expect(res.body.slug).toBe('fresh-name');
    });

    it('lets an update rename a term to the name of another term (wp_update_term has no name check)', async () => {
      await call('post', '/tags', 'editor').send({ name: 'Same Name' }).expect(201);
      const other = await call('post', '/tags', 'editor').send({ name: 'Other Name' }).expect(201);
      const res = await call('put', `/tags/${other.body.id}`, 'editor').send({ name: 'Same Name' }).expect(200);
      expect(res.body).toMatchObject({ name: 'Same Name', slug: 'other-name' });
    });

    it('refuses an empty name with empty_term_name 400 on create and on update', async () => {
      expectRestError(await call('post', '/tags', 'editor').send({ name: '   ' }), 'empty_term_name', 400);
      expectRestError(await call('post', '/tags', 'editor').send({ name: '<b></b>' }), 'empty_term_name', 400);
      expectRestError(
        await call('post', '/tags', 'editor').send({ description: 'no name' }),
        'rest_missing_callback_param',
        400,
      );
      const created = await call('post', '/tags', 'editor').send({ name: 'Keeps Its Name' }).expect(201);
      expectRestError(
        await call('put', `/tags/${created.body.id}`, 'editor').send({ name: '' }),
        'empty_term_name',
        400,
      );
      expect((await stored(created.body.id))!.name).toBe('Keeps Its Name');
    });

    it('moves a category between parents, to the top with parent 0, and refuses a missing parent or one of another taxonomy', async () => {
      const a = (await call('post', '/categories', 'editor').send({ name: 'Move A' }).expect(201)).body.id;
      const b = (await call('post', '/categories', 'editor').send({ name: 'Move B' }).expect(201)).body.id;
      const c = (await call('post', '/categories', 'editor').send({ name: 'Move C', parent: a }).expect(201)).body.id;
      const moved = await call('put', `/categories/${c}`, 'editor').send({ parent: b }).expect(200);
      expect(moved.body).toMatchObject({ parent: b, link: 'http://example.org/category/move-b/move-c/' });
      expect(await ids(`/categories?parent=${a}`)).toEqual([]);
      expect(await ids(`/categories?parent=${b}`)).toEqual([c]);
      expect((await call('put', `/categories/${c}`, 'editor').send({ parent: 0 }).expect(200)).body.parent).toBe(0);
      expectRestError(
        await call('put', `/categories/${c}`, 'editor').send({ parent: 999999 }),
        'rest_term_invalid',
        400,
      );
      const tag = await term('post_tag', 'Not A Parent');
      expectRestError(await call('put', `/categories/${c}`, 'editor').send({ parent: tag }), 'rest_term_invalid', 400);
      expectRestError(
        await call('put', `/tags/${tag}`, 'editor').send({ parent: 0 }),
        'rest_taxonomy_not_hierarchical',
        400,
      );
      expect((await storedTt(c, 'category'))!.parent).toBe(0);
    });

    it('keeps a category set as its own parent at parent 0 (wp_check_term_hierarchy_for_loops)', async () => {
      const self = (await call('post', '/categories', 'editor').send({ name: 'Loop Self' }).expect(201)).body.id;
      expect((await call('put', `/categories/${self}`, 'editor').send({ parent: self }).expect(200)).body.parent).toBe(
        0,
      );
      expect(Number((await storedTt(self, 'category'))!.parent)).toBe(0);
    });

    it('keeps a category moved under its own child at parent 0, the child staying below it', async () => {
      const top = (await call('post', '/categories', 'editor').send({ name: 'Loop Top' }).expect(201)).body.id;
      const below = (await call('post', '/categories', 'editor').send({ name: 'Loop Below', parent: top }).expect(201))
        .body.id;
      expect((await call('put', `/categories/${top}`, 'editor').send({ parent: below }).expect(200)).body.parent).toBe(
        0,
      );
      expect(Number((await storedTt(top, 'category'))!.parent)).toBe(0);
      expect(Number((await storedTt(below, 'category'))!.parent)).toBe(top);
      expect((await call('get', `/categories/${below}`).expect(200)).body.link).toBe(
        'http://example.org/category/loop-top/loop-below/',
      );
    });
  });

  describe('meta', () => {
    let cat: number;
    beforeEach(async () => {
      cat = await term('category', `Meta Holder ${Date.now()}-${Math.random()}`);
    });
    const metaRows = async (key: string, termId = cat) =>
      (await t.dataSource.getRepository(TermMetaEntity).find({ where: { termId, key }, order: { id: 'ASC' } })).map(
        (r) => r.value,
      );

    it('describes the registered term meta in OPTIONS: color string, ratings integer list, bpm only on genres', async () => {
      const schema = (await call('options', '/categories').expect(200)).body.schema.properties.meta;
      expect(schema).toMatchObject({ type: 'object', context: ['view', 'edit'] });
      expect(Object.keys(schema.properties).sort()).toEqual(['_blessed', '_secret', 'color', 'ratings']);
      expect(schema.properties.color).toMatchObject({ type: 'string', context: ['view', 'edit'] });
      expect(schema.properties.ratings).toMatchObject({ type: 'array', items: { type: 'integer' } });
      const genre = (await call('options', '/genres').expect(200)).body.schema.properties.meta.properties;
      expect(genre.bpm).toMatchObject({ type: 'integer' });
      const args = (await call('options', `/categories/${cat}`).expect(200)).body.endpoints[1].args;
      expect(args.meta).toMatchObject({ type: 'object' });
    });

    it('reads stored meta: single value, integer list, null and [] when nothing is stored, unexposed keys left out', async () => {
      const empty = await call('get', `/categories/${cat}`).expect(200);
      expect(empty.body.meta).toEqual({ color: null, ratings: [], _secret: null, _blessed: null });
      const repo = t.dataSource.getRepository(TermMetaEntity);
      await repo.save([
        { termId: cat, key: 'color', value: 'green' },
        { termId: cat, key: 'ratings', value: '4' },
        { termId: cat, key: 'ratings', value: '2' },
        { termId: cat, key: 'hidden_note', value: 'not exposed' },
      ]);
      const res = await call('get', `/categories/${cat}`).expect(200);
      expect(res.body.meta).toEqual({ color: 'green', ratings: [4, 2], _secret: null, _blessed: null });
      expect((await call('get', `/categories?include=${cat}`).expect(200)).body[0].meta.color).toBe('green');
    });

    it('writes meta on update, deletes a key sent as null', async () => {
      const res = await call('put', `/categories/${cat}`, 'editor')
        .send({ meta: { color: 'red', ratings: [3, 5] } })
        .expect(200);
      expect(res.body.meta).toMatchObject({ color: 'red', ratings: [3, 5] });
      expect(await metaRows('color')).toEqual(['red']);
      expect(await metaRows('ratings')).toEqual(['3', '5']);
      const again = await call('put', `/categories/${cat}`, 'editor')
        .send({ meta: { color: null, ratings: [5] } })
        .expect(200);
      expect(again.body.meta).toMatchObject({ color: null, ratings: [5] });
      expect(await metaRows('color')).toEqual([]);
      expect(await metaRows('ratings')).toEqual(['5']);
    });

    it('writes meta on create', async () => {
      const res = await call('post', '/tags', 'editor')
        .send({ name: 'Born With Meta', meta: { color: 'blue', ratings: [1] } })
        .expect(201);
      expect(res.body.meta).toMatchObject({ color: 'blue', ratings: [1] });
      expect(await metaRows('color', res.body.id)).toEqual(['blue']);
      const genre = await call('post', '/genres', 'editor')
        .send({ name: 'Drum and Bass', meta: { bpm: 174 } })
        .expect(201);
      expect(genre.body.meta.bpm).toBe(174);
    });

    it('refuses a protected key with rest_cannot_update 403 and writes nothing; an auth callback opens one', async () => {
      const refused = await call('put', `/categories/${cat}`, 'administrator').send({
        meta: { _secret: 'x', color: 'red' },
      });
      expectRestError(refused, 'rest_cannot_update', 403);
      expect(refused.body.data.key).toBe('_secret');
      expect(await metaRows('_secret')).toEqual([]);
      const blessed = await call('put', `/categories/${cat}`, 'administrator')
        .send({ meta: { _blessed: 'yes' } })
        .expect(200);
      expect(blessed.body.meta._blessed).toBe('yes');
      expect(await metaRows('_blessed')).toEqual(['yes']);
    });
  });

  describe('hooks', () => {
    beforeEach(() => {
      events.length = 0;
    });

    it('lets rest_pre_insert_category change the term before it is saved, and fires rest_insert_category with creating true then false', async () => {
      const res = await call('post', '/categories', 'editor')
        .send({ name: 'Hooked One', description: 'from the client' })
        .expect(201);
      expect(res.body).toMatchObject({
        name: 'Hooked One',
        slug: 'hooked-one-by-hook',
        description: 'Set by rest_pre_insert_category',
      });
      expect((await storedTt(res.body.id, 'category'))!.description).toBe('Set by rest_pre_insert_category');
      await call('put', `/categories/${res.body.id}`, 'editor').send({ name: 'Hooked Again' }).expect(200);
      expect(events).toEqual([
        'pre_insert:Hooked One',
        `insert:${res.body.id}:Hooked One:true:true`,
        'pre_insert:Hooked Again',
        `insert:${res.body.id}:Hooked Again:false:true`,
      ]);
    });

    it('passes prepared categories through rest_prepare_category (a field added by the listener shows)', async () => {
      const id = await term('category', 'Hooked Prepared');
      expect((await call('get', `/categories/${id}`).expect(200)).body.prepared_by_hook).toBe(id);
      expect((await call('get', `/categories?include=${id}`).expect(200)).body[0].prepared_by_hook).toBe(id);
      expect((await call('get', '/categories/1').expect(200)).body.prepared_by_hook).toBeUndefined();
    });

    it('fires rest_delete_category with the term and the response as it was', async () => {
      const id = await term('category', 'Hooked Doomed');
      const res = await call('delete', `/categories/${id}?force=true`, 'editor').expect(200);
      expect(res.body).toMatchObject({ id, name: 'Hooked Doomed' });
      expect(events).toEqual([`delete:${id}:Hooked Doomed`]);
    });

    it('lets rest_category_query change the query (search replaced by include=[1])', async () => {
      const res = await call('get', '/categories?search=hook-query').expect(200);
      expect(res.body.map((c: { id: number }) => c.id)).toEqual([1]);
      expect(res.headers['x-cms-total']).toBe('1');
      expect(events).toEqual(['query']);
    });
  });

  describe('term counts', () => {
    const count = async (base: string, id: number) => (await call('get', `/${base}/${id}`).expect(200)).body.count;
    const publishedWith = async (id: number) =>
      Number((await call('get', `/posts?categories=${id}`).expect(200)).headers['x-cms-total']);

    it('keeps count equal to the published posts with the term through create, publish, trash, delete and reassignment', async () => {
      const cat = (await call('post', '/categories', 'editor').send({ name: 'Counted' }).expect(201)).body.id;
      const tag = (await call('post', '/tags', 'editor').send({ name: 'Counted Tag' }).expect(201)).body.id;
      const write = (body: Record<string, unknown>, id?: number) =>
        call(id ? 'put' : 'post', id ? `/posts/${id}` : '/posts', 'editor').send(body);
      const check = async (expected: number) => {
        expect(await count('categories', cat)).toBe(expected);
        expect(await count('tags', tag)).toBe(expected);
        expect(await publishedWith(cat)).toBe(expected);
      };
      await check(0);
      const p1 = (await write({ title: 'C1', status: 'publish', categories: [cat], tags: [tag] }).expect(201)).body.id;
      await check(1);
      const p2 = (await write({ title: 'C2', status: 'draft', categories: [cat], tags: [tag] }).expect(201)).body.id;
      await check(1);
      await write({ status: 'private', title: 'C3' }).expect(201);
      await write({ status: 'publish' }, p2).expect(200);
      await check(2);
      await call('delete', `/posts/${p1}`, 'editor').expect(200);
      await check(1);
      await write({ status: 'publish' }, p1).expect(200);
      await check(2);
      await call('delete', `/posts/${p2}?force=true`, 'editor').expect(200);
      await check(1);
      await write({ categories: [1], tags: [] }, p1).expect(200);
      await check(0);
      const priv = (await write({ title: 'Private', status: 'private', categories: [cat], tags: [tag] }).expect(201))
        .body.id;
      await check(0);
      await write({ status: 'draft' }, priv).expect(200);
      await check(0);
    });

    it('moves the posts of a deleted category to the default category and recounts it', async () => {
      const doomed = (await call('post', '/categories', 'editor').send({ name: 'Counted Doomed' }).expect(201)).body.id;
      const before = await count('categories', 1);
      const post = (
        await call('post', '/posts', 'editor')
          .send({ title: 'Orphaned', status: 'publish', categories: [doomed] })
          .expect(201)
      ).body.id;
      expect(await count('categories', doomed)).toBe(1);
      await call('delete', `/categories/${doomed}?force=true`, 'editor').expect(200);
      expect((await call('get', `/posts/${post}`).expect(200)).body.categories).toEqual([1]);
      expect(await count('categories', 1)).toBe(before + 1);
    });

    it('agrees between posts?categories=, categories?post= and the post categories array', async () => {
      const x = (await call('post', '/categories', 'editor').send({ name: 'Agree X' }).expect(201)).body.id;
      const y = (await call('post', '/categories', 'editor').send({ name: 'Agree Y' }).expect(201)).body.id;
      const g = (await call('post', '/genres', 'editor').send({ name: 'Agree Genre' }).expect(201)).body.id;
      const post = await call('post', '/posts', 'editor')
        .send({ title: 'Agreeing', status: 'publish', categories: [y, x], genres: [g] })
        .expect(201);
      expect([...post.body.categories].sort((a: number, b: number) => a - b)).toEqual([x, y].sort((a, b) => a - b));
      expect(await ids(`/categories?post=${post.body.id}`)).toEqual([x, y]);
      expect(await ids(`/posts?categories=${x}`)).toEqual([post.body.id]);
      expect(await ids(`/posts?categories=${y}`)).toEqual([post.body.id]);
      expect(await ids(`/genres?post=${post.body.id}`)).toEqual([g]);
      expect(post.body.genres).toEqual([g]);
      expect(await count('genres', g)).toBe(1);
      expect(await count('categories', x)).toBe(1);
    });
  });

  describe('query counts', () => {
    // One author on purpose: this measures the embedded terms (three taxonomies, term meta registered), not the users.
    it('costs the same number of SQL queries for GET posts?per_page=20&_embed as for per_page=2 (embedded terms with meta)', async () => {
      const cats = [await term('category', 'Qc Cat A'), await term('category', 'Qc Cat B', { parent: 1 })];
      const tags = [await term('post_tag', 'Qc Tag A'), await term('post_tag', 'Qc Tag B')];
      const genres = [await term('genre', 'Qc Genre A'), await term('genre', 'Qc Genre B')];
      for (let i = 0; i < 22; i++) {
        const post = (await createPost(t.dataSource, { author: t.users.author.id, date: '2030-01-01 10:00:00' })).id;
        await assignTerms(t.dataSource, post, 'category', [cats[i % 2]]);
        await assignTerms(t.dataSource, post, 'post_tag', tags.slice(0, i % 3));
        await assignTerms(t.dataSource, post, 'genre', [genres[i % 2]]);
      }
      const posts = t.app.get(PostsService);
      // Each measured request builds its embedded answers: none is kept from another.
      const answers = t.app.get(ResponseCache);
      // One request first, so that options known to be missing are known on both measured requests.
      await t.http.get(`${API}/posts?per_page=1&_embed`).expect(200);
      posts.clearCounts();
      answers.clear();
      const small = await t.queries.during(() => t.http.get(`${API}/posts?per_page=2&_embed`).expect(200));
      posts.clearCounts();
      answers.clear();
      let embedded: { body: Array<{ _embedded: Record<string, unknown> }> } | undefined;
      const large = await t.queries.during(async () => {
        embedded = await t.http.get(`${API}/posts?per_page=20&_embed`).expect(200);
      });
      expect(embedded!.body).toHaveLength(20);
      expect(Object.keys(embedded!.body[0]._embedded)).toEqual(expect.arrayContaining(['author', 'cms:term']));
      expect(large).toBe(small);
    });

    it('costs the same number of SQL queries for 2 and for 20 tags of a list', async () => {
      for (let i = 0; i < 22; i++) await term('post_tag', `Qt ${String(i).padStart(2, '0')}`);
      const small = await t.queries.during(() => t.http.get(`${API}/tags?search=qt&per_page=2&_embed`).expect(200));
      let res: { body: unknown[] } | undefined;
      const large = await t.queries.during(async () => {
        res = await t.http.get(`${API}/tags?search=qt-&per_page=20&_embed`).expect(200);
      });
      expect(res!.body).toHaveLength(20);
      expect(large).toBe(small);
    });
  });
});
