import { Injectable, Module, OnModuleInit } from '@nestjs/common';
import { CmsExtensionRegistry, OptionsService } from '../../src';
import { assignTerms, createPost, createTerm } from '../factories/post.factory';
import { createTestApp, expectRestError, TestApp } from '../utils/test-app';

/**
 * Clauses of the spec that differ from current WordPress, followed as the spec says (issue 17): `parent` on every
 * post, `parent_exclude` on posts, the reference's `rest_query_vars` in `filter[]` for everyone, and the site's
 * roles as the enum of users' `roles`.
 */

const API = '/cms-json/cms/v2';

/** An extension that adds a role in code. */
@Injectable()
class ShopRoleExtension implements OnModuleInit {
  constructor(private readonly cms: CmsExtensionRegistry) {}

  onModuleInit(): void {
    this.cms.registerRole('shop_manager', { name: 'Shop manager', capabilities: { read: true, edit_posts: true } });
  }
}

@Module({ providers: [ShopRoleExtension] })
class ShopRoleModule {}

describe('spec clauses followed over current WordPress', () => {
  let t: TestApp;
  const auth = (role: keyof TestApp['users']) => t.users[role].authorization;

  beforeAll(async () => {
    t = await createTestApp('spec_clauses', { extensions: [ShopRoleModule] });
  });
  afterAll(() => t.close());

  describe('post parent (spec: an integer, 0 when none, for posts as well as pages)', () => {
    it('answers parent 0 for a post without one, and describes parent in the posts schema', async () => {
      const post = await createPost(t.dataSource, { title: 'Alone' });
      const res = await t.http.get(`${API}/posts/${post.id}`).expect(200);
      expect(res.body.parent).toBe(0);
      const options = await t.http.options(`${API}/posts`).expect(200);
      expect(options.body.schema.properties.parent).toMatchObject({ type: 'integer', context: ['view', 'edit'] });
    });

    it('takes parent on create and update, reads it back, and refuses a parent that does not exist', async () => {
      const parent = await createPost(t.dataSource, { title: 'Parent' });
      const created = await t.http
        .post(`${API}/posts`)
        .set('Authorization', auth('editor'))
        .send({ title: 'Child', status: 'publish', parent: parent.id })
        .expect(201);
      expect(created.body.parent).toBe(parent.id);
      expect((await t.http.get(`${API}/posts/${created.body.id}`).expect(200)).body.parent).toBe(parent.id);
      const updated = await t.http
        .post(`${API}/posts/${created.body.id}`)
        .set('Authorization', auth('editor'))
        .send({ parent: 0 })
        .expect(200);
      expect(updated.body.parent).toBe(0);
      expectRestError(
        await t.http
          .post(`${API}/posts`)
          .set('Authorization', auth('editor'))
          .send({ title: 'Orphan', parent: 999999 }),
        'rest_post_invalid_id',
        400,
      );
    });
  });

  describe('parent_exclude on posts', () => {
    it('is an argument of the posts collection, and leaves out the children of the parents given', async () => {
      const options = await t.http.options(`${API}/posts`).expect(200);
      const args = options.body.endpoints[0].args;
      expect(args.parent_exclude).toMatchObject({ type: 'array', items: { type: 'integer' } });
      expect(args.parent).toBeUndefined();
      const parent = await createPost(t.dataSource, { title: 'Exclude parent' });
      const child = await createPost(t.dataSource, { title: 'Excluded child', parent: parent.id });
      const all = (await t.http.get(`${API}/posts?per_page=100`).expect(200)).body.map((p: { id: number }) => p.id);
      const without = (await t.http.get(`${API}/posts?per_page=100&parent_exclude=${parent.id}`).expect(200)).body.map(
        (p: { id: number }) => p.id,
      );
      expect(all).toContain(child.id);
      expect(without).not.toContain(child.id);
      expect(without).toContain(parent.id);
    });
  });

  describe('filter[] rest_query_vars for every caller', () => {
    it('honours filter[posts_per_page] for anonymous callers, in the totals and the Link header', async () => {
      const total = Number((await t.http.get(`${API}/posts`).expect(200)).headers['x-cms-total']);
      expect(total).toBeGreaterThan(2);
      const res = await t.http.get(`${API}/posts?filter[posts_per_page]=2`).expect(200);
      expect(res.body).toHaveLength(2);
      expect(res.headers['x-cms-total']).toBe(String(total));
      expect(res.headers['x-cms-totalpages']).toBe(String(Math.ceil(total / 2)));
      expect(res.headers.link).toContain('page=2>; rel="next"');
      const second = await t.http.get(`${API}/posts?filter[posts_per_page]=2&page=2`).expect(200);
      expect(second.body.map((p: { id: number }) => p.id)).not.toEqual(res.body.map((p: { id: number }) => p.id));
      expect(second.headers.link).toContain('rel="prev"');
    });

    it('honours post__in, post__not_in, post_parent, author__in and date_query for anonymous callers, not post_status', async () => {
      const a = await createPost(t.dataSource, {
        title: 'Filter A',
        author: t.users.author.id,
        date: '2020-03-10 10:00:00',
      });
      const b = await createPost(t.dataSource, {
        title: 'Filter B',
        author: t.users.editor.id,
        date: '2020-03-12 10:00:00',
        parent: a.id,
      });
      const draft = await createPost(t.dataSource, { title: 'Filter draft', status: 'draft' });
      const ids = async (query: string) =>
        (await t.http.get(`${API}/posts?per_page=100&${query}`).expect(200)).body
          .map((p: { id: number }) => p.id)
          .sort();
      expect(await ids(`filter[post__in][]=${a.id}&filter[post__in][]=${b.id}`)).toEqual([a.id, b.id].sort());
      expect(await ids(`filter[post__in]=${a.id},${b.id}&filter[post__not_in][]=${a.id}`)).toEqual([b.id]);
      expect(await ids(`filter[post_parent]=${a.id}`)).toEqual([b.id]);
      expect(await ids(`filter[post__in]=${a.id},${b.id}&filter[author__in][]=${t.users.author.id}`)).toEqual([a.id]);
      expect(await ids(`filter[date_query][after]=2020-03-11&filter[date_query][before]=2020-03-13`)).toEqual([b.id]);
      expect(await ids(`filter[date_query][0][after]=2020-03-09&filter[date_query][0][before]=2020-03-11`)).toEqual([
        a.id,
      ]);
      // A private query variable stays the type's edit_posts': ignored for anonymous callers.
      expect(await ids('filter[post_status]=draft')).not.toContain(draft.id);
      expect(
        (
          await t.http
            .get(`${API}/posts?per_page=100&filter[post_status]=draft`)
            .set('Authorization', auth('editor'))
            .expect(200)
        ).body.map((p: { id: number }) => p.id),
      ).toContain(draft.id);
    });
    it('takes filter[paged] from anyone, counted in the page size, and leaves it out of the Link header so page moves on', async () => {
      const all = (await t.http.get(`${API}/posts?per_page=100`).expect(200)).body.map((p: { id: number }) => p.id);
      expect(all.length).toBeGreaterThan(4);
      const res = await t.http.get(`${API}/posts?per_page=2&filter[paged]=2`).expect(200);
      expect(res.body.map((p: { id: number }) => p.id)).toEqual(all.slice(2, 4));
      expect(res.headers['x-cms-total']).toBe(String(all.length));
      expect(res.headers.link).toContain(`${API}/posts?per_page=2&page=1>; rel="prev"`);
      expect(res.headers.link).toContain(`${API}/posts?per_page=2&page=3>; rel="next"`);
      expect(res.headers.link).not.toContain('paged');
      // With filter[posts_per_page] too: the third page of three.
      const third = await t.http.get(`${API}/posts?filter[posts_per_page]=1&filter[paged]=3`).expect(200);
      expect(third.body.map((p: { id: number }) => p.id)).toEqual(all.slice(2, 3));
    });

    it('floats sticky posts to the top of the first page with filter[ignore_sticky_posts]=0, as WP_Query does, and only then', async () => {
      const options = t.app.get(OptionsService);
      const old = await createPost(t.dataSource, { title: 'Old sticky', date: '2001-01-01 00:00:00' });
      const onPage = await createPost(t.dataSource, {
        title: 'Sticky zephyr on the page',
        date: '2030-01-01 00:00:00',
      });
      const draft = await createPost(t.dataSource, { title: 'Sticky draft', status: 'draft' });
      const page = await createPost(t.dataSource, { title: 'Sticky page', type: 'page' });
      await options.set('sticky_posts', [old.id, onPage.id, draft.id, page.id]);
      try {
        const plain = (await t.http.get(`${API}/posts?per_page=3`).expect(200)).body.map((p: { id: number }) => p.id);
        const total = (await t.http.get(`${API}/posts?per_page=3`).expect(200)).headers['x-cms-total'];
        expect(plain).not.toContain(old.id);
        for (const off of ['0', 'false']) {
          const res = await t.http.get(`${API}/posts?per_page=3&filter[ignore_sticky_posts]=${off}`).expect(200);
          const ids = res.body.map((p: { id: number }) => p.id);
          // The one on the page first, then the published sticky post of the type the page lacks; the draft and the page never.
          expect(ids.slice(0, 2)).toEqual([onPage.id, old.id]);
          expect(ids.slice(2)).toEqual(plain.filter((id: number) => id !== onPage.id));
          expect(ids).not.toContain(draft.id);
          expect(ids).not.toContain(page.id);
          expect(res.headers['x-cms-total']).toBe(total);
        }
        // Not on a later page, not in a search or a term archive, not excluded ones, and not by default.
        const second = await t.http.get(`${API}/posts?per_page=3&page=2&filter[ignore_sticky_posts]=0`).expect(200);
        expect(second.body.map((p: { id: number }) => p.id)).not.toContain(old.id);
        const search = await t.http
          .get(`${API}/posts?per_page=3&search=zephyr&filter[ignore_sticky_posts]=0`)
          .expect(200);
        expect(search.body.map((p: { id: number }) => p.id)).toEqual([onPage.id]);
        const term = await createTerm(t.dataSource, 'category', 'Sticky archive');
        await assignTerms(t.dataSource, onPage.id, 'category', [term]);
        const category = await t.http
          .get(`${API}/posts?per_page=3&categories=${term}&filter[ignore_sticky_posts]=0`)
          .expect(200);
        expect(category.body.map((p: { id: number }) => p.id)).toEqual([onPage.id]);
        const excluded = await t.http
          .get(`${API}/posts?per_page=3&exclude=${old.id}&filter[ignore_sticky_posts]=0`)
          .expect(200);
        expect(excluded.body.map((p: { id: number }) => p.id)).not.toContain(old.id);
        expect(
          (await t.http.get(`${API}/posts?per_page=3&filter[ignore_sticky_posts]=1`).expect(200)).body.map(
            (p: { id: number }) => p.id,
          ),
        ).toEqual(plain);
      } finally {
        await options.set('sticky_posts', []);
      }
    });
  });

  describe('user roles come from the schema enum', () => {
    it('lists the site roles, with the ones extensions add, as the enum of roles in OPTIONS and context=help', async () => {
      const options = await t.http.options(`${API}/users`).expect(200);
      const enumOf = options.body.schema.properties.roles.items.enum;
      expect(enumOf).toEqual(
        expect.arrayContaining(['administrator', 'editor', 'author', 'contributor', 'subscriber', 'shop_manager']),
      );
      const help = await t.http.get('/cms-json/?context=help').expect(200);
      const usersRoute = help.body.routes['/cms/v2/users'];
      expect(usersRoute.schema.properties.roles.items.enum).toEqual(enumOf);
    });

    it('gives a user a role an extension added, and refuses one outside the enum with rest_invalid_param', async () => {
      const created = await t.http
        .post(`${API}/users`)
        .set('Authorization', auth('administrator'))
        .send({
          username: 'manager',
          email: 'manager@example.org',
          password: 'manager-password',
          roles: ['shop_manager'],
        });
      expect([created.status, created.body.code, created.body.message]).toEqual([201, undefined, undefined]);
      expect(created.body.roles).toEqual(['shop_manager']);
      const refused = await t.http
        .post(`${API}/users`)
        .set('Authorization', auth('administrator'))
        .send({ username: 'nobody', email: 'nobody@example.org', password: 'nobody-password', roles: ['wizard'] });
      expectRestError(refused, 'rest_invalid_param', 400);
      expect(JSON.stringify(refused.body.data.params)).toContain('roles');
    });
  });

  describe('other clauses found going through the spec', () => {
    it('refuses an invalid context on settings, as on every GET', async () => {
      expectRestError(
        await t.http.get(`${API}/settings?context=bogus`).set('Authorization', auth('administrator')),
        'rest_invalid_param',
        400,
      );
      await t.http.get(`${API}/settings?context=view`).set('Authorization', auth('administrator')).expect(200);
    });

    it('takes offset on the terms of a hierarchical taxonomy too', async () => {
      for (const name of ['Offset A', 'Offset B', 'Offset C']) {
        await t.http.post(`${API}/categories`).set('Authorization', auth('administrator')).send({ name }).expect(201);
      }
      const all = (await t.http.get(`${API}/categories?per_page=100`).expect(200)).body.map(
        (c: { id: number }) => c.id,
      );
      const offset = (await t.http.get(`${API}/categories?per_page=100&offset=2`).expect(200)).body.map(
        (c: { id: number }) => c.id,
      );
      expect(offset).toEqual(all.slice(2));
      expect((await t.http.get(`${API}/categories?offset=1000`).expect(200)).body).toEqual([]);
    });

    it('writes boolean parameters of the Link header as 1 and 0, as the reference does', async () => {
      const res = await t.http.get(`${API}/posts?sticky=false&per_page=1`).expect(200);
      expect(res.headers.link).toContain('sticky=0&per_page=1&page=2>; rel="next"');
    });

    it('ignores an invalid filter[posts_per_page] (-1, 0): the page keeps per_page, as the reference tests it', async () => {
      const total = Number((await t.http.get(`${API}/posts`).expect(200)).headers['x-cms-total']);
      expect(total).toBeGreaterThan(3);
      for (const size of ['-1', '0']) {
        const res = await t.http.get(`${API}/posts?per_page=3&filter[posts_per_page]=${size}`).expect(200);
        expect(res.body).toHaveLength(3);
        expect(res.headers['x-cms-totalpages']).toBe(String(Math.ceil(total / 3)));
      }
    });
  });
});
