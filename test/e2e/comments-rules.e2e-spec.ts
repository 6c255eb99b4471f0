import { Injectable, Module, OnModuleInit } from '@nestjs/common';
import { CmsExtensionRegistry, HookRegistry, RestException, RestRequest, RestResponse } from '../../src';
import { CommentEntity } from '../../src/core/database/entities/comment.entity';
import { CommentMetaEntity } from '../../src/core/database/entities/comment-meta.entity';
import { PostEntity } from '../../src/core/database/entities/post.entity';
import { OptionsService } from '../../src/core/options/options.service';
import { insertComment, unflood } from '../factories/comment.factory';
import { createPost } from '../factories/post.factory';
import { createUser, TestUser } from '../factories/user.factory';
import { createTestApp, expectRestError, TEST_PREFIX, TestApp } from '../utils/test-app';

/**
 * Rules of the comments resource: the role × action permission matrix, the moderation of new comments by the
 * discussion settings, the hooks (with an anti-spam fixture extension), registered meta and fields, and trash
 * refused by rest_comment_trashable.
 */

const API = '/cms-json/cms/v2';

type Role = 'administrator' | 'editor' | 'author' | 'contributor' | 'subscriber';

// --- fixture extensions ---------------------------------------------------------------------------------------------

/** The text of a comment as the hooks see it (entity-like `content`, or WordPress's `comment_content`). */
function textOf(comment: unknown): string {
  const c = (comment ?? {}) as Record<string, unknown>;
  const content = c.comment_content ?? c.content;
  if (typeof content === 'string') return content;
  if (content && typeof content === 'object' && typeof (content as { raw?: unknown }).raw === 'string')
    return (content as { raw: string }).raw;
  return '';
}

function withText<T>(comment: T, text: string): T {
  const c = { ...(comment as Record<string, unknown>) };
  if ('comment_content' in c) c.comment_content = text;
  else c.content = text;
  return c as T;
}

function idOf(comment: unknown): number {
  const c = (comment ?? {}) as Record<string, unknown>;
  return Number(c.id ?? c.comment_ID);
}

/** An anti-spam extension: holds comments that mention viagra, rejects those that mention casino. */
@Injectable()
class AntiSpamExtension implements OnModuleInit {
  constructor(private readonly hooks: HookRegistry) {}

  onModuleInit(): void {
    this.hooks.addFilter('rest_pre_insert_comment', (comment: unknown) => {
      if (comment instanceof RestException) return comment;
      const text = textOf(comment).toLowerCase();
      if (text.includes('casino'))
        return new RestException('comment_spam_rejected', 'Sorry, this comment looks like spam.', 403);
      if (text.includes('viagra')) {
        const c = { ...(comment as Record<string, unknown>) };
        if ('comment_approved' in c) c.comment_approved = '0';
        else c.approved = '0';
        return c;
      }
      return comment;
    });
  }
}

/** Records every comment hook, and changes what some of them receive so that the tests can see the effect. */
@Injectable()
class CommentHooksExtension implements OnModuleInit {
  static readonly events: string[] = [];
  static readonly customInts = new Map<number, number>();

  constructor(
    private readonly hooks: HookRegistry,
    private readonly cms: CmsExtensionRegistry,
  ) {}

  onModuleInit(): void {
    const events = CommentHooksExtension.events;
    this.cms.registerMeta('comment', 'mood', {
      type: 'string',
      single: true,
      showInRest: true,
      description: 'Mood of the comment.',
    });
    this.cms.registerRestField('comment', 'my_custom_int', {
      schema: {
        type: 'integer',
        description: 'Some integer of mine',
        enum: [1, 2, 3, 4, 123],
        context: ['view', 'edit'],
      },
      get: (data) => CommentHooksExtension.customInts.get(Number(data.id)) ?? 0,
      update: (value, comment) => {
        CommentHooksExtension.customInts.set(idOf(comment), Number(value));
        return undefined;
      },
    });
    this.hooks.addFilter('rest_preprocess_comment', (prepared: unknown, req: RestRequest) => {
      events.push(`preprocess:${req instanceof RestRequest}`);
      const text = textOf(prepared);
      return text.includes('[preprocess]')
        ? withText(prepared, text.replace('[preprocess]', '[preprocessed]'))
        : prepared;
    });
    this.hooks.addFilter('rest_pre_insert_comment', (comment: unknown) => {
      if (!(comment instanceof RestException)) events.push(`pre_insert:${textOf(comment)}`);
      return comment;
    });
    this.hooks.addAction('rest_insert_comment', (comment: unknown, req: RestRequest, creating: boolean) => {
      events.push(`insert:${idOf(comment)}:${creating}:${req instanceof RestRequest}`);
    });
    this.hooks.addAction('rest_delete_comment', (comment: unknown, response: RestResponse) => {
      events.push(`delete:${idOf(comment)}:${(response.data as { id: number }).id}`);
    });
    this.hooks.addFilter('rest_prepare_comment', (response: RestResponse, comment: unknown) => {
      if (textOf(comment).includes('[prepare]')) (response.data as Record<string, unknown>).prepared_by_hook = true;
      return response;
    });
    this.hooks.addFilter('rest_comment_query', (query: Record<string, unknown>) => {
      events.push('query');
      return query.search === 'hook-query' ? { ...query, search: 'rewritten-by-query-hook' } : query;
    });
    this.hooks.addFilter('rest_comment_trashable', (trashable: boolean, comment: unknown) =>
      textOf(comment).includes('untrashable') ? false : trashable,
    );
  }
}

@Module({ providers: [AntiSpamExtension, CommentHooksExtension] })
class CommentFixturesModule {}

// --- helpers -------------------------------------------------------------------------------------------------------

let t: TestApp;
let owner: TestUser;
let adminPost: PostEntity;
let authorPost: PostEntity;
let privatePost: PostEntity;
let ipSeq = 0;
let textSeq = 0;

const nextIp = () => `198.18.${Math.floor(ipSeq / 250) % 250}.${(ipSeq++ % 250) + 1}`;
const text = (label = 'Comment') => `${label} number ${++textSeq}.`;
const guest = () => ({ author_name: `Visitor ${++textSeq}`, author_email: `visitor${textSeq}@example.com` });

type Caller = 'anonymous' | Role | TestUser;

function call(
  method: 'get' | 'post' | 'put' | 'patch' | 'delete' | 'options',
  path: string,
  who: Caller = 'anonymous',
  headers: Record<string, string> = {},
) {
  let req = t.http[method](`${API}${path}`).set('X-Forwarded-For', headers['X-Forwarded-For'] ?? nextIp());
  for (const [k, v] of Object.entries(headers)) if (k !== 'X-Forwarded-For') req = req.set(k, v);
  if (who !== 'anonymous')
    req = req.set('Authorization', typeof who === 'string' ? t.users[who].authorization : who.authorization);
  return req;
}
const stored = (id: number) => t.dataSource.getRepository(CommentEntity).findOneBy({ id });
const setOption = (name: string, value: unknown) => t.app.get(OptionsService).set(name, value);

beforeAll(async () => {
  t = await createTestApp('comments_rules', { extensions: [CommentFixturesModule] });
  owner = await createUser(t.dataSource, TEST_PREFIX, 'commenter', 'subscriber');
  adminPost = await createPost(t.dataSource, { author: t.users.administrator.id, name: 'admin-post' });
  authorPost = await createPost(t.dataSource, { author: t.users.author.id, name: 'author-post' });
  privatePost = await createPost(t.dataSource, {
    author: t.users.administrator.id,
    status: 'private',
    name: 'private-post',
  });
});
afterAll(() => t.close());
beforeEach(() => unflood(t.dataSource));

// --- the permission matrix -----------------------------------------------------------------------------------------

/**
 * Expectations follow WordPress's capabilities and map_meta_cap: administrator and editor have moderate_comments
 * (and edit_others_posts); author and contributor have edit_posts; subscriber has read. edit_comment maps to
 * edit_post of the comment's post, so the author may edit comments of their own published post but not change their
 * status. "owner" is the subscriber who wrote the (held) target comment. Refusals: 401 anonymous, 403 logged in.
 */
type Who = 'anonymous' | Role | 'owner';
const WHO: Who[] = ['anonymous', 'subscriber', 'contributor', 'author', 'editor', 'administrator', 'owner'];
type Cell = number | [number, string];

interface Row {
  name: string;
  method: 'get' | 'post' | 'put' | 'delete';
  /** `<held>` is replaced by the target comment's id. */
  path: string;
  /** The post of the held target comment (a new one per cell). */
  target?: 'admin' | 'author';
  body?: (who: Who) => object;
  /** anonymous, subscriber, contributor, author, editor, administrator, owner. */
  expected: [Cell, Cell, Cell, Cell, Cell, Cell, Cell];
}

const rows: Row[] = [
  { name: 'list', method: 'get', path: '/comments', expected: [200, 200, 200, 200, 200, 200, 200] },
  {
    name: 'list held comments',
    method: 'get',
    path: '/comments?status=hold',
    expected: [
      [401, 'rest_forbidden_param'],
      [403, 'rest_forbidden_param'],
      200,
      200,
      200,
      200,
      [403, 'rest_forbidden_param'],
    ],
  },
  {
    name: 'list by author',
    method: 'get',
    path: '/comments?author=1',
    expected: [
      [401, 'rest_forbidden_param'],
      [403, 'rest_forbidden_param'],
      200,
      200,
      200,
      200,
      [403, 'rest_forbidden_param'],
    ],
  },
  {
    name: 'list in edit context',
    method: 'get',
    path: '/comments?context=edit',
    expected: [
      [401, 'rest_forbidden_context'],
      [403, 'rest_forbidden_context'],
      [403, 'rest_forbidden_context'],
      [403, 'rest_forbidden_context'],
      200,
      200,
      [403, 'rest_forbidden_context'],
    ],
  },
  {
    name: 'list comments without a post',
    method: 'get',
    path: '/comments?post=0',
    expected: [
      [401, 'rest_cannot_read'],
      [403, 'rest_cannot_read'],
      [403, 'rest_cannot_read'],
      [403, 'rest_cannot_read'],
      200,
      200,
      [403, 'rest_cannot_read'],
    ],
  },
  {
    name: 'get an approved comment',
    method: 'get',
    path: '/comments/<approved>',
    expected: [200, 200, 200, 200, 200, 200, 200],
  },
  {
    name: 'get a held comment (admin post)',
    method: 'get',
    path: '/comments/<held>',
    target: 'admin',
    expected: [
      [401, 'rest_cannot_read'],
      [403, 'rest_cannot_read'],
      [403, 'rest_cannot_read'],
      [403, 'rest_cannot_read'],
      200,
      200,
      200,
    ],
  },
  {
    name: 'get a held comment (author post)',
    method: 'get',
    path: '/comments/<held>',
    target: 'author',
    expected: [[401, 'rest_cannot_read'], [403, 'rest_cannot_read'], [403, 'rest_cannot_read'], 200, 200, 200, 200],
  },
  {
    name: 'get a held comment in edit context',
    method: 'get',
    path: '/comments/<held>?context=edit',
    target: 'admin',
    // The reference's order: whether the comment may be read at all comes before the context.
    expected: [
      [401, 'rest_cannot_read'],
      [403, 'rest_cannot_read'],
      [403, 'rest_cannot_read'],
      [403, 'rest_cannot_read'],
      200,
      200,
      [403, 'rest_forbidden_context'],
    ],
  },
  {
    name: 'create',
    method: 'post',
    path: '/comments',
    body: (who) => ({
      post: adminPost.id,
      content: text(`Matrix create by ${who}`),
      ...(who === 'anonymous' ? guest() : {}),
    }),
    expected: [201, 201, 201, 201, 201, 201, 201],
  },
  {
    name: 'create on a private post',
    method: 'post',
    path: '/comments',
    body: (who) => ({
      post: privatePost.id,
      content: text(`Matrix private by ${who}`),
      ...(who === 'anonymous' ? guest() : {}),
    }),
    expected: [
      [401, 'rest_cannot_read_post'],
      [403, 'rest_cannot_read_post'],
      [403, 'rest_cannot_read_post'],
      [403, 'rest_cannot_read_post'],
      201,
      201,
      [403, 'rest_cannot_read_post'],
    ],
  },
  {
    name: 'create with a status',
    method: 'post',
    path: '/comments',
    body: (who) => ({
      post: adminPost.id,
      status: 'approved',
      content: text(`Matrix status by ${who}`),
      ...(who === 'anonymous' ? guest() : {}),
    }),
    expected: [
      [401, 'rest_comment_invalid_status'],
      [403, 'rest_comment_invalid_status'],
      [403, 'rest_comment_invalid_status'],
      [403, 'rest_comment_invalid_status'],
      201,
      201,
      [403, 'rest_comment_invalid_status'],
    ],
  },
  {
    name: 'update (admin post)',
    method: 'put',
    path: '/comments/<held>',
    target: 'admin',
    body: () => ({ content: 'Edited in the matrix' }),
    expected: [
      [401, 'rest_cannot_edit'],
      [403, 'rest_cannot_edit'],
      [403, 'rest_cannot_edit'],
      [403, 'rest_cannot_edit'],
      200,
      200,
      [403, 'rest_cannot_edit'],
    ],
  },
  {
    name: 'update (author post)',
    method: 'put',
    path: '/comments/<held>',
    target: 'author',
    body: () => ({ content: 'Edited in the matrix' }),
    expected: [
      [401, 'rest_cannot_edit'],
      [403, 'rest_cannot_edit'],
      [403, 'rest_cannot_edit'],
      200,
      200,
      200,
      [403, 'rest_cannot_edit'],
    ],
  },
  {
    name: 'change status (admin post)',
    method: 'put',
    path: '/comments/<held>',
    target: 'admin',
    body: () => ({ status: 'approved' }),
    expected: [
      [401, 'rest_cannot_edit'],
      [403, 'rest_cannot_edit'],
      [403, 'rest_cannot_edit'],
      [403, 'rest_cannot_edit'],
      200,
      200,
      [403, 'rest_cannot_edit'],
    ],
  },
  {
    name: 'change status (author post)',
    method: 'put',
    path: '/comments/<held>',
    target: 'author',
    body: () => ({ status: 'approved' }),
    expected: [
      [401, 'rest_cannot_edit'],
      [403, 'rest_cannot_edit'],
      [403, 'rest_cannot_edit'],
      [403, 'rest_comment_invalid_status'],
      200,
      200,
      [403, 'rest_cannot_edit'],
    ],
  },
  {
    name: 'trash (admin post)',
    method: 'delete',
    path: '/comments/<held>',
    target: 'admin',
    expected: [
      [401, 'rest_cannot_delete'],
      [403, 'rest_cannot_delete'],
      [403, 'rest_cannot_delete'],
      [403, 'rest_cannot_delete'],
      200,
      200,
      [403, 'rest_cannot_delete'],
    ],
  },
  {
    name: 'trash (author post)',
    method: 'delete',
    path: '/comments/<held>',
    target: 'author',
    expected: [
      [401, 'rest_cannot_delete'],
      [403, 'rest_cannot_delete'],
      [403, 'rest_cannot_delete'],
      200,
      200,
      200,
      [403, 'rest_cannot_delete'],
    ],
  },
  {
    name: 'delete for good (admin post)',
    method: 'delete',
    path: '/comments/<held>?force=true',
    target: 'admin',
    expected: [
      [401, 'rest_cannot_delete'],
      [403, 'rest_cannot_delete'],
      [403, 'rest_cannot_delete'],
      [403, 'rest_cannot_delete'],
      200,
      200,
      [403, 'rest_cannot_delete'],
    ],
  },
  {
    name: 'delete for good (author post)',
    method: 'delete',
    path: '/comments/<held>?force=true',
    target: 'author',
    expected: [
      [401, 'rest_cannot_delete'],
      [403, 'rest_cannot_delete'],
      [403, 'rest_cannot_delete'],
      200,
      200,
      200,
      [403, 'rest_cannot_delete'],
    ],
  },
];

const cells = rows.flatMap((row) => WHO.map((who, i) => ({ row, who, cell: row.expected[i] })));

describe('comments: permission matrix (role × action)', () => {
  it('covers every action for anonymous callers, the five roles and the comment author', () => {
    expect(cells).toHaveLength(rows.length * 7);
    expect(new Set(rows.map((r) => r.name)).size).toBe(rows.length);
  });

  it.each(cells.map((c) => [c.row.name, c.who, Array.isArray(c.cell) ? c.cell.join(' ') : String(c.cell), c] as const))(
    '%s as %s → %s',
    async (_name, who, _label, { row, cell }) => {
      const [status, code] = Array.isArray(cell) ? cell : [cell, undefined];
      let path = row.path;
      let targetId: number | undefined;
      if (path.includes('<approved>'))
        path = path.replace('<approved>', String((await insertComment(t.dataSource, { postId: adminPost.id })).id));
      if (row.target) {
        const target = await insertComment(t.dataSource, {
          postId: row.target === 'admin' ? adminPost.id : authorPost.id,
          approved: '0',
          userId: owner.id,
          author: owner.login,
          authorEmail: `${owner.login}@example.org`,
          content: 'Held matrix target',
        });
        targetId = target.id;
        path = path.replace('<held>', String(target.id));
      }
      const caller: Caller = who === 'owner' ? owner : who;
      let req = call(row.method, path, caller);
      if (row.body) req = req.send(row.body(who));
      const res = await req;
      expect({ status: res.status, code: res.body?.code }).toEqual({ status, code: code ?? res.body?.code });
      if (status >= 400) {
        expectRestError(res, code!, status);
        // A refused write changes nothing.
        if (targetId !== undefined)
          expect(await stored(targetId)).toMatchObject({ approved: '0', content: 'Held matrix target' });
      }
    },
  );
});

// --- moderation ------------------------------------------------------------------------------------------------------

describe('comments: moderation of new comments by the discussion settings', () => {
  const baseline: Record<string, unknown> = {
    comment_moderation: 0,
    comment_previously_approved: 0,
    comment_max_links: 2,
    moderation_keys: '',
    disallowed_keys: '',
    require_name_email: 1,
    comment_registration: 0,
  };
  async function settings(values: Record<string, unknown> = {}): Promise<void> {
    for (const [name, value] of Object.entries({ ...baseline, ...values })) await setOption(name, value);
  }
  beforeEach(() => settings());
  afterAll(async () => {
    await settings({ comment_previously_approved: 1 });
  });

  /** Creates a comment and answers its status (from the response and the stored row, which must agree). */
  async function statusOf(
    who: Caller,
    body: Record<string, unknown>,
    headers: Record<string, string> = {},
  ): Promise<string> {
    const res = await call('post', '/comments', who, headers)
      .send({ post: adminPost.id, ...(who === 'anonymous' ? guest() : {}), ...body })
      .expect(201);
    const row = await stored(res.body.id);
    const mapped = row!.approved === '1' ? 'approved' : row!.approved === '0' ? 'hold' : row!.approved;
    expect(res.body.status).toBe(mapped);
    await unflood(t.dataSource);
    return res.body.status;
  }

  it('approves everyone when no setting asks for moderation', async () => {
    expect(await statusOf('anonymous', { content: text() })).toBe('approved');
    expect(await statusOf('subscriber', { content: text() })).toBe('approved');
  });

  it('holds the comments of non-moderators who are not the post author when comment_moderation is on', async () => {
    await settings({ comment_moderation: 1 });
    expect(await statusOf('anonymous', { content: text() })).toBe('hold');
    expect(await statusOf('subscriber', { content: text() })).toBe('hold');
    expect(await statusOf('contributor', { content: text() })).toBe('hold');
    expect(await statusOf('author', { content: text() })).toBe('hold');
    expect(await statusOf('editor', { content: text() })).toBe('approved');
    expect(await statusOf('administrator', { content: text() })).toBe('approved');
    // The post's own author is trusted on their post.
    expect(await statusOf('author', { post: authorPost.id, content: text() })).toBe('approved');
  });

  it('holds comments with more links than comment_max_links', async () => {
    const links = (n: number) =>
      Array.from({ length: n }, (_, i) => `<a href="http://l${i}.example">link ${i}</a>`).join(' ') + ` ${text()}`;
    expect(await statusOf('anonymous', { content: links(1) })).toBe('approved');
    expect(await statusOf('anonymous', { content: links(3) })).toBe('hold');
    expect(await statusOf('subscriber', { content: links(5) })).toBe('hold');
    expect(await statusOf('editor', { content: links(5) })).toBe('approved');
    await settings({ comment_max_links: 0 });
    expect(await statusOf('anonymous', { content: links(5) })).toBe('approved');
  });

  it('holds comments with a moderation_keys word in the name, e-mail, URL, content or IP', async () => {
    await settings({ moderation_keys: 'bargain\nshady.example\n203.0.113.99' });
    expect(await statusOf('anonymous', { content: text() })).toBe('approved');
    expect(await statusOf('anonymous', { content: `A real BARGAIN. ${text()}` })).toBe('hold');
    expect(
      await statusOf('anonymous', {
        author_name: 'Bargain Hunter',
        author_email: 'hunter@example.com',
        content: text(),
      }),
    ).toBe('hold');
    expect(
      await statusOf('anonymous', { author_name: 'Mailer', author_email: 'someone@shady.example', content: text() }),
    ).toBe('hold');
    expect(await statusOf('anonymous', { author_url: 'http://shady.example/page', content: text() })).toBe('hold');
    expect(await statusOf('anonymous', { content: text() }, { 'X-Forwarded-For': '203.0.113.99' })).toBe('hold');
    expect(await statusOf('subscriber', { content: `bargain ${text()}` })).toBe('hold');
    expect(await statusOf('administrator', { content: `bargain ${text()}` })).toBe('approved');
  });

  it('holds comments whose user agent contains a moderation_keys word', async () => {
    await settings({ moderation_keys: 'EvilBot' });
    expect(
      await statusOf('anonymous', { content: text() }, { 'User-Agent': 'Mozilla/5.0 (compatible; EvilBot/1.0)' }),
    ).toBe('hold');
    expect(
      await statusOf('anonymous', { content: text() }, { 'User-Agent': 'Mozilla/5.0 (compatible; GoodBot/1.0)' }),
    ).toBe('approved');
  });

  it('sends comments with a disallowed_keys word to the trash, except those of moderators and the post author', async () => {
    await settings({ disallowed_keys: 'forbiddenword\nblocked.example' });
    expect(await statusOf('anonymous', { content: `Some forbiddenword here. ${text()}` })).toBe('trash');
    expect(await statusOf('anonymous', { author_url: 'http://blocked.example', content: text() })).toBe('trash');
    expect(await statusOf('subscriber', { content: `forbiddenword ${text()}` })).toBe('trash');
    expect(await statusOf('editor', { content: `forbiddenword ${text()}` })).toBe('approved');
    expect(await statusOf('author', { post: authorPost.id, content: `forbiddenword ${text()}` })).toBe('approved');
    // A trashed new comment does not count.
    const post = await t.dataSource.getRepository(PostEntity).findOneByOrFail({ id: adminPost.id });
    const approvedCount = await t.dataSource
      .getRepository(CommentEntity)
      .countBy({ postId: adminPost.id, approved: '1' });
    expect(Number(post.commentCount)).toBe(approvedCount);
  });

  it('holds a first comment when comment_previously_approved is on, and approves an author already approved', async () => {
    await settings({ comment_previously_approved: 1 });
    const newcomer = { author_name: 'Newcomer', author_email: 'newcomer@example.com' };
    expect(await statusOf('anonymous', { ...newcomer, content: text() })).toBe('hold');
    // Same name and e-mail with an approved comment: approved.
    await insertComment(t.dataSource, {
      postId: adminPost.id,
      author: 'Regular',
      authorEmail: 'regular@example.com',
      approved: '1',
    });
    expect(
      await statusOf('anonymous', { author_name: 'Regular', author_email: 'regular@example.com', content: text() }),
    ).toBe('approved');
    // Only the name matching is not enough.
    expect(
      await statusOf('anonymous', { author_name: 'Regular', author_email: 'impostor@example.com', content: text() }),
    ).toBe('hold');
    // A logged-in user, by user id.
    const fresh = await createUser(t.dataSource, TEST_PREFIX, 'fresh-commenter', 'subscriber');
    expect(await statusOf(fresh, { content: text() })).toBe('hold');
    await insertComment(t.dataSource, {
      postId: adminPost.id,
      userId: fresh.id,
      author: 'fresh-commenter',
      authorEmail: 'fresh-commenter@example.org',
      approved: '1',
    });
    expect(await statusOf(fresh, { content: text() })).toBe('approved');
    expect(await statusOf('editor', { content: text() })).toBe('approved');
  });
});

// --- hooks -----------------------------------------------------------------------------------------------------------

describe('comments: hooks and the anti-spam fixture extension', () => {
  const events = CommentHooksExtension.events;
  beforeAll(async () => {
    await setOption('comment_previously_approved', 0);
  });
  afterAll(async () => {
    await setOption('comment_previously_approved', 1);
  });
  beforeEach(() => (events.length = 0));

  it("holds a comment the anti-spam extension holds through rest_pre_insert_comment, even a moderator's", async () => {
    const anon = await call('post', '/comments')
      .send({ post: adminPost.id, ...guest(), content: text('Cheap viagra') })
      .expect(201);
    expect(anon.body.status).toBe('hold');
    expect((await stored(anon.body.id))!.approved).toBe('0');
    const admin = await call('post', '/comments', 'administrator')
      .send({ post: adminPost.id, content: text('Viagra for admins') })
      .expect(201);
    expect(admin.body.status).toBe('hold');
    const clean = await call('post', '/comments')
      .send({ post: adminPost.id, ...guest(), content: text('Clean words') })
      .expect(201);
    expect(clean.body.status).toBe('approved');
  });

  it('rejects a comment the anti-spam extension rejects with a RestException, and stores nothing', async () => {
    const content = text('Visit my casino');
    const res = await call('post', '/comments').send({ post: adminPost.id, ...guest(), content });
    expectRestError(res, 'comment_spam_rejected', 403);
    expect(res.body.message).toBe('Sorry, this comment looks like spam.');
    expect(await t.dataSource.getRepository(CommentEntity).countBy({ content })).toBe(0);
    expectRestError(
      await call('post', '/comments', 'administrator').send({ post: adminPost.id, content: text('casino night') }),
      'comment_spam_rejected',
      403,
    );
  });

  it('passes the prepared comment through rest_preprocess_comment with the request', async () => {
    const res = await call('post', '/comments', 'administrator')
      .send({ post: adminPost.id, content: 'Before [preprocess] after' })
      .expect(201);
    expect(res.body.content.raw).toBe('Before [preprocessed] after');
    expect(events).toContain('preprocess:true');
    const upd = await call('put', `/comments/${res.body.id}`, 'administrator')
      .send({ content: 'Again [preprocess]' })
      .expect(200);
    expect(upd.body.content.raw).toBe('Again [preprocessed]');
  });

  it('fires rest_pre_insert_comment on create with the comment to insert', async () => {
    const content = text('Pre insert');
    await call('post', '/comments', 'editor').send({ post: adminPost.id, content }).expect(201);
    expect(events).toContain(`pre_insert:${content}`);
  });

  it('fires rest_insert_comment with the stored comment, the request and creating true, then false on update', async () => {
    const res = await call('post', '/comments', 'administrator')
      .send({ post: adminPost.id, content: text() })
      .expect(201);
    await call('put', `/comments/${res.body.id}`, 'administrator').send({ content: 'Changed' }).expect(200);
    await call('put', `/comments/${res.body.id}`, 'administrator').send({ status: 'hold' }).expect(200);
    expect(events.filter((e) => e.startsWith('insert:'))).toEqual([
      `insert:${res.body.id}:true:true`,
      `insert:${res.body.id}:false:true`,
      `insert:${res.body.id}:false:true`,
    ]);
  });

  it('does not fire rest_insert_comment for refused writes', async () => {
    await call('post', '/comments', 'subscriber').send({ post: adminPost.id, content: '' }).expect(400);
    expect(events.filter((e) => e.startsWith('insert:'))).toEqual([]);
  });

  it('fires rest_delete_comment with the comment and the prepared response, on trash and on force', async () => {
    const a = await insertComment(t.dataSource, { postId: adminPost.id });
    const b = await insertComment(t.dataSource, { postId: adminPost.id });
    await call('delete', `/comments/${a.id}`, 'administrator').expect(200);
    await call('delete', `/comments/${b.id}?force=true`, 'administrator').expect(200);
    expect(events.filter((e) => e.startsWith('delete:'))).toEqual([`delete:${a.id}:${a.id}`, `delete:${b.id}:${b.id}`]);
  });

  it('passes every prepared comment through rest_prepare_comment (items, lists, create responses, embeds)', async () => {
    const c = await insertComment(t.dataSource, { postId: adminPost.id, content: 'Mark me [prepare]' });
    expect((await call('get', `/comments/${c.id}`).expect(200)).body.prepared_by_hook).toBe(true);
    const list = await call('get', `/comments?include=${c.id}`).expect(200);
    expect(list.body[0].prepared_by_hook).toBe(true);
    const created = await call('post', '/comments', 'administrator')
      .send({ post: adminPost.id, content: 'New [prepare]' })
      .expect(201);
    expect(created.body.prepared_by_hook).toBe(true);
    const plain = await call(
      'get',
      `/comments/${(await insertComment(t.dataSource, { postId: adminPost.id })).id}`,
    ).expect(200);
    expect(plain.body.prepared_by_hook).toBeUndefined();
    const embedded = await call('get', `/posts/${adminPost.id}?_embed`).expect(200);
    expect(embedded.body._embedded.replies[0].some((r: { prepared_by_hook?: boolean }) => r.prepared_by_hook)).toBe(
      true,
    );
  });

  it('lets rest_comment_query change the collection query', async () => {
    const target = await insertComment(t.dataSource, {
      postId: adminPost.id,
      content: 'Found through rewritten-by-query-hook',
    });
    const res = await call('get', '/comments?search=hook-query').expect(200);
    expect(res.body.map((c: { id: number }) => c.id)).toEqual([target.id]);
    expect(events).toContain('query');
  });

  it('refuses trash when rest_comment_trashable says no (rest_trash_not_supported 501); force still deletes', async () => {
    const c = await insertComment(t.dataSource, { postId: adminPost.id, content: 'An untrashable comment' });
    const res = await call('delete', `/comments/${c.id}`, 'administrator');
    expectRestError(res, 'rest_trash_not_supported', 501);
    expect(res.body.message).toBe('The comment does not support trashing.');
    expect((await stored(c.id))!.approved).toBe('1');
    await call('delete', `/comments/${c.id}?force=true`, 'administrator').expect(200);
    expect(await stored(c.id)).toBeNull();
  });
});

// --- meta and registered fields --------------------------------------------------------------------------------------

describe('comments: registered meta and additional fields', () => {
  it('describes registered comment meta and the registered field in the schema', async () => {
    const res = await call('options', '/comments').expect(200);
    expect(res.body.schema.properties.meta.properties.mood).toMatchObject({
      type: 'string',
      description: 'Mood of the comment.',
      context: ['view', 'edit'],
    });
    expect(res.body.schema.properties.my_custom_int).toEqual({
      type: 'integer',
      description: 'Some integer of mine',
      enum: [1, 2, 3, 4, 123],
      context: ['view', 'edit'],
    });
  });

  it('reads registered meta (the default when nothing is stored) and writes it on update; force delete removes it', async () => {
    const c = await insertComment(t.dataSource, { postId: adminPost.id });
    const before = await call('get', `/comments/${c.id}`).expect(200);
    expect(Object.keys(before.body.meta)).toEqual(['mood']);
    expect([null, '']).toContain(before.body.meta.mood);
    const updated = await call('put', `/comments/${c.id}`, 'editor')
      .send({ meta: { mood: 'calm', unknown: 'x' } })
      .expect(200);
    expect(updated.body.meta).toEqual({ mood: 'calm' });
    expect(await t.dataSource.getRepository(CommentMetaEntity).countBy({ commentId: c.id, key: 'mood' })).toBe(1);
    expect(await t.dataSource.getRepository(CommentMetaEntity).countBy({ commentId: c.id, key: 'unknown' })).toBe(0);
    const removed = await call('delete', `/comments/${c.id}?force=true`, 'administrator').expect(200);
    expect(removed.body.meta).toEqual({ mood: 'calm' });
    expect(await t.dataSource.getRepository(CommentMetaEntity).countBy({ commentId: c.id })).toBe(0);
  });

  it('writes meta sent with a new comment, on the new comment', async () => {
    const created = await call('post', '/comments', 'administrator').send({
      post: adminPost.id,
      content: text(),
      meta: { mood: 'happy' },
    });
    expect({ status: created.status, code: created.body.code }).toEqual({ status: 201, code: undefined });
    expect(created.body.meta).toEqual({ mood: 'happy' });
    expect(
      await t.dataSource.getRepository(CommentMetaEntity).countBy({ commentId: created.body.id, key: 'mood' }),
    ).toBe(1);
  });

  it('refuses meta writes from callers who cannot edit the comment', async () => {
    const c = await insertComment(t.dataSource, { postId: adminPost.id });
    expectRestError(
      await call('put', `/comments/${c.id}`, 'subscriber').send({ meta: { mood: 'angry' } }),
      'rest_cannot_edit',
      403,
    );
    expect(await t.dataSource.getRepository(CommentMetaEntity).countBy({ commentId: c.id })).toBe(0);
  });

  it('reads and updates a registered field, and validates it (rest_invalid_param 400)', async () => {
    const c = await insertComment(t.dataSource, { postId: adminPost.id });
    expect((await call('get', `/comments/${c.id}`).expect(200)).body.my_custom_int).toBe(0);
    const res = await call('put', `/comments/${c.id}`, 'administrator').send({ my_custom_int: 123 }).expect(200);
    expect(res.body.my_custom_int).toBe(123);
    const created = await call('post', '/comments', 'administrator')
      .send({ post: adminPost.id, content: text(), my_custom_int: 2 })
      .expect(201);
    expect(created.body.my_custom_int).toBe(2);
    expectRestError(
      await call('put', `/comments/${c.id}`, 'administrator').send({ my_custom_int: 'returnError' }),
      'rest_invalid_param',
      400,
    );
  });
});

describe('comments: behaviours checked against WordPress with the oracle', () => {
  let post: PostEntity;
  const ids: number[] = [];

  beforeAll(async () => {
    post = await createPost(t.dataSource, { author: t.users.administrator.id, name: 'oracle-checks' });
    // Six approved comments, two sharing each parent value, all at the same time; one spam, one in the trash.
    const root = await insertComment(t.dataSource, { postId: post.id, date: '2024-04-01 10:00:00' });
    ids.push(root.id);
    for (let i = 0; i < 5; i++)
      ids.push(
        (
          await insertComment(t.dataSource, {
            postId: post.id,
            parent: i < 3 ? root.id : 0,
            date: '2024-04-01 10:00:00',
          })
        ).id,
      );
    await insertComment(t.dataSource, { postId: post.id, approved: 'spam' });
    await insertComment(t.dataSource, { postId: post.id, approved: 'trash' });
  });
  const listed = async (query: string, who: Caller = 'administrator') =>
    (await call('get', `/comments?post=${post.id}&${query}`, who).expect(200)).body.map((c: { id: number }) => c.id);

  it('takes the Link header page from the request, also with an offset', async () => {
    const res = await call('get', `/comments?post=${post.id}&offset=2&per_page=3`).expect(200);
    expect(res.headers['x-cms-total']).toBe('6');
    expect(res.headers.link).toContain('rel="next"');
    expect(res.headers.link).not.toContain('rel="prev"');
  });

  it('reads a negative offset as its absolute value (absint)', async () => {
    const all = await listed('orderby=id&order=asc');
    expect(await listed('orderby=id&order=asc&offset=-1')).toEqual(all.slice(1));
  });

  it('breaks ties of a non-date order by id, descending, whatever the order asked', async () => {
    const byParentAsc = await listed('orderby=parent&order=asc&per_page=20');
    // Parent 0 first (the root and the two top-level comments, newest id first), then the root's three replies.
    expect(byParentAsc).toEqual([ids[5], ids[4], ids[0], ids[3], ids[2], ids[1]]);
    // A date order keeps its own direction for the ties.
    expect(await listed('orderby=date_gmt&order=asc&per_page=20')).toEqual([...ids].sort((a, b) => a - b));
  });

  it('gives every status with status=any, and approved or held ones with status=all', async () => {
    expect((await listed('status=any&per_page=20')).length).toBe(8);
    expect((await listed('status=all&per_page=20')).length).toBe(6);
  });

  it('takes karma=0 as no karma filter from callers without edit_posts, as ! empty() does', async () => {
    expect((await listed('karma=0', 'anonymous')).length).toBe(6);
    expectRestError(await call('get', `/comments?post=${post.id}&karma=2`), 'rest_forbidden_param', 401);
  });

  it('answers an Allow header with GET on refused and invalid creates', async () => {
    const invalid = await call('post', '/comments', 'administrator').send({ post: post.id, content: '' });
    expectRestError(invalid, 'rest_comment_content_invalid', 400);
    expect(invalid.headers.allow).toBe('GET, POST');
    const draft = await createPost(t.dataSource, { author: t.users.administrator.id, status: 'draft' });
    const refused = await call('post', '/comments', 'administrator').send({ post: draft.id, content: text() });
    expectRestError(refused, 'rest_comment_draft_post', 403);
    expect(refused.headers.allow).toBe('GET');
  });

  it('stores links with rel="nofollow ugc" (links to the site itself as they are), for every caller', async () => {
    const content = 'See <a href="https://one.example/">one</a> and <a href="http://example.org/about/">us</a>.';
    for (const who of ['administrator', 'subscriber'] as const) {
      const res = await call('post', '/comments', who)
        .send({ post: post.id, content: `${content} ${text()}` })
        .expect(201);
      expect((await stored(res.body.id))!.content).toMatch(
        /^See <a href="https:\/\/one\.example\/" rel="nofollow ugc">one<\/a> and <a href="http:\/\/example\.org\/about\/">us<\/a>\./,
      );
    }
  });
});
