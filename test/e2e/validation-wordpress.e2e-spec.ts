import { Injectable, Module, OnModuleInit } from '@nestjs/common';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CmsExtensionRegistry } from '../../src';
import { createTestApp, expectRestError, TestApp, TEST_PREFIX } from '../utils/test-app';
import { testDatabaseKind, testDatabaseUrl } from '../utils/test-db';

/*
 * Argument validation in the wire dialect: with WordPress's names, WordPress 6.1's messages, check order and
 * `data.details` (the bodies below are what WordPress 6.1 answered to the same requests); with the spec's names,
 * the spec's messages and no details.
 */

/** A route whose argument has its own check answering `false` (WordPress: "Invalid parameter.", no details entry). */
@Injectable()
class ChecksExtension implements OnModuleInit {
  constructor(private readonly cms: CmsExtensionRegistry) {}

  onModuleInit(): void {
    this.cms.registerRoute('checks/v1', '/own', {
      methods: 'GET',
      args: {
        flag: { type: 'string', validate: (value) => value === 'ok' },
        count: { type: 'integer', minimum: 1, maximum: 100 },
      },
      handler: (req) => ({ flag: req.get('flag'), count: req.get('count') }),
    });
  }
}

@Module({ providers: [ChecksExtension] })
class ChecksExtensionModule {}

/** A page template (as a theme offers one) and a typed meta key on each kind of object (as a plugin registers). */
@Injectable()
class TemplateAndMetaExtension implements OnModuleInit {
  constructor(private readonly cms: CmsExtensionRegistry) {}

  onModuleInit(): void {
    this.cms.registerPageTemplate('templates/wide.php', 'Wide', ['page', 'post']);
    for (const type of ['post', 'term', 'comment', 'user'])
      this.cms.registerMeta(type, 'rating', { type: 'integer', single: true, showInRest: true });
  }
}

@Module({ providers: [TemplateAndMetaExtension] })
class TemplateAndMetaModule {}

/** WordPress 6.1's `rest_invalid_param` body for these failures (`[name, message, code, data]`, in order). */
function wordpressBody(failures: Array<[string, string, string | null, Record<string, unknown> | null]>) {
  const params: Record<string, string> = {};
  const details: Record<string, unknown> = {};
  for (const [name, message, code, data] of failures) {
    params[name] = message;
    if (code) details[name] = { code, message, data };
  }
  return {
    code: 'rest_invalid_param',
    message: `Invalid parameter(s): ${Object.keys(params).join(', ')}`,
    data: { status: 400, params, details: Object.keys(details).length ? details : [] },
  };
}

/** The spec's `rest_invalid_param` body: the messages only. */
function specBody(params: Record<string, string>) {
  return {
    code: 'rest_invalid_param',
    message: `Invalid parameter(s): ${Object.keys(params).join(', ')}`,
    data: { status: 400, params },
  };
}

const CONTEXT_WP = 'context is not one of view, embed, and edit.';
const PER_PAGE_RANGE = 'per_page must be between 1 (inclusive) and 100 (inclusive)';
const STATUSES_WP =
  'publish, future, draft, pending, private, trash, auto-draft, inherit, request-pending, request-confirmed, ' +
  'request-failed, request-completed, and any';

describe('argument validation in the wire dialect', () => {
  const file = join(tmpdir(), `cms-validation-wordpress-${process.pid}.sqlite`);
  let wp: TestApp;
  let cms: TestApp;
  const extensions = [ChecksExtensionModule, TemplateAndMetaModule];

  beforeAll(async () => {
    const databaseUrl = testDatabaseKind() === 'sqlite' ? `sqlite:${file}` : await testDatabaseUrl('validation_wp');
    cms = await createTestApp('validation_wp', { databaseUrl, extensions });
    wp = await createTestApp('validation_wp', {
      cms: { wireNames: 'wordpress' },
      databaseUrl,
      users: cms.users,
      extensions,
    });
  });
  afterAll(async () => {
    await wp.app.close();
    await cms.close();
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
  });

  const asAdmin = (t: TestApp) => t.users.administrator.authorization;

  describe("with WordPress's names", () => {
    it('answers ?context=bogus&per_page=0 exactly as WordPress 6.1, params and details, to anyone', async () => {
      const expected = wordpressBody([
        ['context', CONTEXT_WP, 'rest_not_in_enum', null],
        ['per_page', PER_PAGE_RANGE, 'rest_out_of_bounds', null],
      ]);
      const anonymous = await wp.http.get('/wp-json/wp/v2/posts?context=bogus&per_page=0');
      expect([anonymous.status, anonymous.body]).toEqual([400, expected]);
      const admin = await wp.http
        .get('/wp-json/wp/v2/posts?context=bogus&per_page=0')
        .set('Authorization', asAdmin(wp));
      expect([admin.status, admin.body]).toEqual([400, expected]);
    });

    it.each([
      ['status[]=bogus', 'status', `status[0] is not one of ${STATUSES_WP}.`, 'rest_not_in_enum', null],
      ['page=0', 'page', 'page must be greater than or equal to 1', 'rest_out_of_bounds', null],
      ['include=abc', 'include', 'include[0] is not of type integer.', 'rest_invalid_type', { param: 'include[0]' }],
      [
        'include[]=1&include[]=x',
        'include',
        'include[1] is not of type integer.',
        'rest_invalid_type',
        { param: 'include[1]' },
      ],
      ['after=notadate', 'after', 'Invalid date.', 'rest_invalid_date', null],
      ['before=2020-13-01T00:00:00', 'before', 'Invalid date.', 'rest_invalid_date', null],
      ['per_page=0.5', 'per_page', PER_PAGE_RANGE, 'rest_out_of_bounds', null],
      ['per_page=1.5', 'per_page', 'per_page is not of type integer.', 'rest_invalid_type', { param: 'per_page' }],
      ['per_page=', 'per_page', 'per_page is not of type integer.', 'rest_invalid_type', { param: 'per_page' }],
      ['sticky=maybe', 'sticky', 'sticky is not of type boolean.', 'rest_invalid_type', { param: 'sticky' }],
      ['tax_relation=XOR', 'tax_relation', 'tax_relation is not one of AND and OR.', 'rest_not_in_enum', null],
    ])('answers GET posts?%s as WordPress 6.1', async (query, name, message, code, data) => {
      const res = await wp.http.get(`/wp-json/wp/v2/posts?${query}`).set('Authorization', asAdmin(wp));
      expect([res.status, res.body]).toEqual([400, wordpressBody([[name, message, code, data]])]);
    });

    it('accepts the whole numbers WordPress takes for integers (?per_page=2.0, 1e1, " 5")', async () => {
      for (const perPage of ['2.0', '1e1', '%205']) {
        const res = await wp.http.get(`/wp-json/wp/v2/posts?per_page=${perPage}&_fields=id`);
        expect([perPage, res.status]).toEqual([perPage, 200]);
      }
    });

    it('answers ?author_email=bad on comments as WordPress 6.1', async () => {
      const res = await wp.http.get('/wp-json/wp/v2/comments?author_email=bad').set('Authorization', asAdmin(wp));
      expect([res.status, res.body]).toEqual([
        400,
        wordpressBody([['author_email', 'Invalid email address.', 'rest_invalid_email', null]]),
      ]);
    });

    it("answers an administrator's invalid post as WordPress 6.1, in the route's order of arguments", async () => {
      const res = await wp.http
        .post('/wp-json/wp/v2/posts')
        .set('Authorization', asAdmin(wp))
        .send({
          status: 'bogus',
          comment_status: 'x',
          date: 'notadate',
          sticky: 'maybe',
          slug: ['a'],
          categories: 'abc',
          format: 'bogus',
          author: 'x',
        });
      const formats = 'standard, aside, chat, gallery, link, image, quote, status, video, and audio';
      expect([res.status, res.body]).toEqual([
        400,
        wordpressBody([
          ['date', 'Invalid date.', 'rest_invalid_date', null],
          ['slug', 'slug is not of type string.', 'rest_invalid_type', { param: 'slug' }],
          ['status', 'status is not one of publish, future, draft, pending, and private.', 'rest_not_in_enum', null],
          ['author', 'author is not of type integer.', 'rest_invalid_type', { param: 'author' }],
          ['comment_status', 'comment_status is not one of open and closed.', 'rest_not_in_enum', null],
          ['format', `format is not one of ${formats}.`, 'rest_not_in_enum', null],
          ['sticky', 'sticky is not of type boolean.', 'rest_invalid_type', { param: 'sticky' }],
          ['categories', 'categories[0] is not of type integer.', 'rest_invalid_type', { param: 'categories[0]' }],
        ]),
      ]);
    });

    it('answers an anonymous invalid post with the same 400 (arguments are checked before permissions)', async () => {
      const res = await wp.http.post('/wp-json/wp/v2/posts').send({ status: 'bogus' });
      const message = 'status is not one of publish, future, draft, pending, and private.';
      expect([res.status, res.body]).toEqual([400, wordpressBody([['status', message, 'rest_not_in_enum', null]])]);
    });

    it('answers invalid comments and users as WordPress 6.1 (IP named by parameter, one-value lists)', async () => {
      const comment = await wp.http
        .post('/wp-json/wp/v2/comments')
        .set('Authorization', asAdmin(wp))
        .send({ post: 1, author_ip: 'notanip', status: 5 });
      expect([comment.status, comment.body]).toEqual([
        400,
        wordpressBody([
          ['author_ip', 'author_ip is not a valid IP address.', 'rest_invalid_ip', null],
          ['status', 'status is not of type string.', 'rest_invalid_type', { param: 'status' }],
        ]),
      ]);
      const user = await wp.http
        .post('/wp-json/wp/v2/users')
        .set('Authorization', asAdmin(wp))
        .send({ username: 'zz_never', password: 'x', email: 'bad', locale: 'xx' });
      expect([user.status, user.body]).toEqual([
        400,
        wordpressBody([
          ['email', 'Invalid email address.', 'rest_invalid_email', null],
          ['locale', 'locale is not one of  and en_US.', 'rest_not_in_enum', null],
        ]),
      ]);
    });

    it("sends details as [] when no failure has an entry (an argument's own check answering false)", async () => {
      const res = await wp.http.get('/wp-json/checks/v1/own?flag=no');
      expect([res.status, res.body]).toEqual([400, wordpressBody([['flag', 'Invalid parameter.', null, null]])]);
      expect(res.body.data.details).toEqual([]);
      // Two passes: `flag` has a validate callback (the first pass), `count` is checked while sanitizing (the
      // second, reached only when the first found nothing).
      const both = await wp.http.get('/wp-json/checks/v1/own?flag=no&count=0');
      expect(both.body).toEqual(wordpressBody([['flag', 'Invalid parameter.', null, null]]));
      const second = await wp.http.get('/wp-json/checks/v1/own?flag=ok&count=0');
      expect(second.body).toEqual(
        wordpressBody([
          ['count', 'count must be between 1 (inclusive) and 100 (inclusive)', 'rest_out_of_bounds', null],
        ]),
      );
      await wp.http.get('/wp-json/checks/v1/own?flag=ok&count=3').expect(200);
    });

    it("checks in WordPress's two passes: validate callbacks in the route's order, then the rest in the request's", async () => {
      // per_page has a validate callback, hide_empty is checked while sanitizing: WordPress names per_page only.
      const tags = await wp.http.get('/wp-json/wp/v2/tags?hide_empty=perhaps&per_page=-1');
      expect(tags.body).toEqual(wordpressBody([['per_page', PER_PAGE_RANGE, 'rest_out_of_bounds', null]]));
      // Neither has one: both, in the order the request sent them (the route declares order first).
      const posts = await wp.http.get('/wp-json/wp/v2/posts?orderby=bogus&order=up');
      expect(posts.body.message).toBe('Invalid parameter(s): orderby, order');
      const swapped = await wp.http.get('/wp-json/wp/v2/posts?order=up&orderby=bogus');
      expect(swapped.body.message).toBe('Invalid parameter(s): order, orderby');
      // The users controller checks username and password while sanitizing: an invalid email alone is named.
      const user = await wp.http
        .post('/wp-json/wp/v2/users')
        .set('Authorization', asAdmin(wp))
        .send({ username: '', email: 'x', password: '' });
      expect(user.body).toEqual(wordpressBody([['email', 'Invalid email address.', 'rest_invalid_email', null]]));
      // With the spec's names every invalid argument is named, in the route's order.
      const spec = await cms.http.get('/cms-json/cms/v2/tags?hide_empty=perhaps&per_page=-1');
      expect(Object.keys(spec.body.data.params)).toEqual(['per_page', 'hide_empty']);
      const specPosts = await cms.http.get('/cms-json/cms/v2/posts?orderby=bogus&order=up');
      expect(specPosts.body.message).toBe('Invalid parameter(s): order, orderby');
    });
  });

  describe("with WordPress's names: template and meta as WordPress 6.1 checks them", () => {
    const WP = '/wp-json/wp/v2';
    const refusedTemplate = wordpressBody([
      ['template', 'template is not one of templates/wide.php.', 'rest_invalid_param', null],
    ]);
    const post = (path: string, body: Record<string, unknown>) =>
      wp.http.post(`${WP}/${path}`).set('Authorization', asAdmin(wp)).send(body);
    const storedTemplate = async (id: number) =>
      (
        await wp.dataSource.query(
          `SELECT meta_value FROM ${TEST_PREFIX}postmeta WHERE post_id = ? AND meta_key = '_wp_page_template'`,
          [id],
        )
      ).map((row: { meta_value: string }) => row.meta_value);

    it('refuses an unknown template on create (check_template: a number too, before its type), keeps an offered one', async () => {
      for (const template of ['templates/unknown.php', 5, ['x']]) {
        const res = await post('pages', { title: 'T', template });
        expect([res.status, res.body]).toEqual([400, refusedTemplate]);
      }
      // With the other invalid arguments, in the first pass.
      const mixed = await post('posts', { author: 'me', template: 'nope.php' });
      expect(mixed.body).toEqual(
        wordpressBody([
          ['author', 'author is not of type integer.', 'rest_invalid_type', { param: 'author' }],
          ['template', 'template is not one of templates/wide.php.', 'rest_invalid_param', null],
        ]),
      );
      const wide = await post('pages', { title: 'Wide', template: 'templates/wide.php' });
      expect([wide.status, wide.body.template]).toEqual([201, 'templates/wide.php']);
      expect(await storedTemplate(wide.body.id)).toEqual(['templates/wide.php']);
      const none = await post('pages', { title: 'None', template: '' });
      expect([none.status, none.body.template]).toEqual([201, '']);
    });

    it("keeps a post's current template on update though no theme offers it, and refuses another", async () => {
      const page = await post('pages', { title: 'Legacy' });
      await wp.dataSource.query(
        `INSERT INTO ${TEST_PREFIX}postmeta (post_id, meta_key, meta_value) VALUES (?, '_wp_page_template', 'legacy.php')`,
        [page.body.id],
      );
      const same = await post(`pages/${page.body.id}`, { title: 'Legacy, again', template: 'legacy.php' });
      expect([same.status, same.body.template]).toEqual([200, 'legacy.php']);
      const other = await post(`pages/${page.body.id}`, { title: 'Changed', template: 'other.php' });
      expect([other.status, other.body]).toEqual([400, refusedTemplate]);
      // Nothing of the refused update was written.
      const read = await wp.http.get(`${WP}/pages/${page.body.id}`).set('Authorization', asAdmin(wp));
      expect([read.body.title.rendered, read.body.template]).toEqual(['Legacy, again', 'legacy.php']);
      const offered = await post(`pages/${page.body.id}`, { template: 'templates/wide.php' });
      expect([offered.status, await storedTemplate(page.body.id)]).toEqual([200, ['templates/wide.php']]);
    });

    it('takes any object or list as meta (check_meta_is_array) and refuses anything else without details', async () => {
      for (const path of ['posts', 'categories', 'users/me']) {
        const res = await post(path, { name: 'n', title: 't', meta: 5 });
        expect([path, res.status, res.body]).toEqual([
          path,
          400,
          wordpressBody([['meta', 'Invalid parameter.', null, null]]),
        ]);
        expect(res.body.data.details).toEqual([]);
      }
      const list = await post('posts', { title: 'Listed meta', meta: ['a'] });
      expect([list.status, list.body.meta]).toEqual([201, { rating: null }]);
    });

    it('checks each registered meta value as it is written: its own code, named meta.<key>, nothing written', async () => {
      const page = await post('posts', { title: 'Rated', status: 'publish' });
      const term = await post('categories', { name: 'Rated' });
      const comment = await post('comments', { post: page.body.id, content: 'Rated' });
      expect(comment.body).toMatchObject({ post: page.body.id });
      for (const path of [
        `posts/${page.body.id}`,
        `categories/${term.body.id}`,
        `comments/${comment.body.id}`,
        'users/me',
      ]) {
        const res = await post(path, { meta: { rating: 'high' } });
        expect([path, res.status, res.body]).toEqual([
          path,
          400,
          {
            code: 'rest_invalid_type',
            message: 'meta.rating is not of type integer.',
            data: { status: 400 },
            additional_data: [{ param: 'meta.rating' }],
          },
        ]);
        const read = await wp.http.get(`${WP}/${path}?context=edit`).set('Authorization', asAdmin(wp));
        expect([path, read.body.meta.rating]).toEqual([path, null]);
        const ok = await post(path, { meta: { rating: '4' } });
        expect([path, ok.status, ok.body.meta.rating]).toEqual([path, 200, 4]);
      }
      // A new user's invalid meta: refused before the user is created.
      const user = await post('users', {
        username: 'rated_user',
        email: 'rated@example.org',
        password: 'secret-pass',
        meta: { rating: [1] },
      });
      expect([user.status, user.body.code]).toEqual([400, 'rest_invalid_type']);
      const found = await wp.http.get(`${WP}/users?search=rated_user`).set('Authorization', asAdmin(wp));
      expect(found.body).toEqual([]);
    });
  });

  describe("with the spec's names", () => {
    it('answers ?context=bogus&per_page=0 in the spec words, without details', async () => {
      const res = await cms.http.get('/cms-json/cms/v2/posts?context=bogus&per_page=0');
      expect([res.status, res.body]).toEqual([
        400,
        specBody({ context: 'context is not one of view, embed, edit.', per_page: PER_PAGE_RANGE }),
      ]);
    });

    it.each([
      ['page=0', 'page', 'page must be greater than 1 (inclusive)'],
      ['include=abc', 'include', 'include[0] is not of type integer'],
      ['after=notadate', 'after', 'The date you provided is invalid.'],
      ['per_page=0.5', 'per_page', 'per_page is not of type integer'],
      ['per_page=2.0', 'per_page', 'per_page is not of type integer'],
      ['sticky=maybe', 'sticky', 'maybe is not of type boolean'],
    ])('answers GET posts?%s as today', async (query, name, message) => {
      const res = await cms.http.get(`/cms-json/cms/v2/posts?${query}`).set('Authorization', asAdmin(cms));
      expect([res.status, res.body]).toEqual([400, specBody({ [name]: message })]);
    });

    it('answers status[]=bogus with the spec list and no details', async () => {
      const res = await cms.http.get('/cms-json/cms/v2/posts?status[]=bogus').set('Authorization', asAdmin(cms));
      expectRestError(res, 'rest_invalid_param', 400);
      expect(res.body.data.params.status).toMatch(/^status\[0\] is not one of publish, future, draft, .*, any\.$/);
      expect(res.body.data.params.status).not.toContain(', and any');
      expect(res.body.data).not.toHaveProperty('details');
    });

    it("answers an administrator's invalid post in the spec words", async () => {
      const res = await cms.http
        .post('/cms-json/cms/v2/posts')
        .set('Authorization', asAdmin(cms))
        .send({
          date: 'notadate',
          slug: ['a'],
          comment_status: 'x',
          sticky: 'maybe',
          categories: 'abc',
        });
      expect([res.status, res.body]).toEqual([
        400,
        specBody({
          date: 'date is not of type string,null.',
          slug: 'slug is not of type string',
          comment_status: 'comment_status is not one of open, closed.',
          sticky: 'maybe is not of type boolean',
          categories: 'categories[0] is not of type integer',
        }),
      ]);
    });

    it('answers invalid comments and own checks in the spec words', async () => {
      const comment = await cms.http
        .post('/cms-json/cms/v2/comments')
        .set('Authorization', asAdmin(cms))
        .send({ post: 1, author_ip: 'notanip' });
      expect([comment.status, comment.body]).toEqual([
        400,
        specBody({ author_ip: 'notanip is not a valid IP address.' }),
      ]);
      const own = await cms.http.get('/cms-json/checks/v1/own?flag=no&count=0');
      expect([own.status, own.body]).toEqual([
        400,
        specBody({ flag: 'Invalid parameter.', count: 'count must be between 1 (inclusive) and 100 (inclusive)' }),
      ]);
    });

    it('checks meta as an argument and stores an unknown template as ""', async () => {
      const post = (path: string, body: Record<string, unknown>) =>
        cms.http.post(`/cms-json/cms/v2/${path}`).set('Authorization', asAdmin(cms)).send(body);
      const notObject = await post('posts', { title: 't', meta: ['a'] });
      expect([notObject.status, notObject.body]).toEqual([400, specBody({ meta: 'meta is not of type object' })]);
      const badValue = await post('users/me', { meta: { rating: 'high' } });
      expect([badValue.status, badValue.body]).toEqual([
        400,
        specBody({ meta: 'meta[rating] is not of type integer' }),
      ]);
      const page = await post('pages', { title: 'Unknown template', template: 'templates/unknown.php' });
      expect([page.status, page.body.template]).toEqual([201, '']);
      const inherited = await post('pages', { title: 'Prototype key', template: 'constructor' });
      expect([inherited.status, inherited.body.template]).toEqual([201, '']);
    });
  });
});
