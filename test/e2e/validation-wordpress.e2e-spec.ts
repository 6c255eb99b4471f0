import { Injectable, Module, OnModuleInit } from '@nestjs/common';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CmsExtensionRegistry } from '../../src';
import { createTestApp, expectRestError, TestApp } from '../utils/test-app';
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
  const extensions = [ChecksExtensionModule];

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
  });
});
