import { Injectable, Module, OnModuleInit } from '@nestjs/common';
import { In } from 'typeorm';
import { CmsExtensionRegistry } from '../../src';
import { CommentMetaEntity } from '../../src/core/database/entities/comment-meta.entity';
import { CommentEntity } from '../../src/core/database/entities/comment.entity';
import { OptionEntity } from '../../src/core/database/entities/option.entity';
import { PostMetaEntity } from '../../src/core/database/entities/post-meta.entity';
import { PostEntity } from '../../src/core/database/entities/post.entity';
import { TermRelationshipEntity } from '../../src/core/database/entities/term-relationship.entity';
import { TermTaxonomyEntity } from '../../src/core/database/entities/term-taxonomy.entity';
import { TermEntity } from '../../src/core/database/entities/term.entity';
import { OptionsService } from '../../src/core/options/options.service';
import { FuturePosts } from '../../src/resources/posts/future-posts.service';
import { createPost, createTerm, setPostMeta } from '../factories/post.factory';
import { createTestApp, expectRestError, TestApp } from '../utils/test-app';

/**
 * The storage rules WordPress 6.1 applies when posts are written (wp_insert_post, wp_unique_post_slug, kses,
 * wp_trash_post, wp_delete_post, ...), checked in the tables. Expected values come from WordPress's own code.
 */

const API = '/cms-json/cms/v2';
const ZERO = '0000-00-00 00:00:00';

/** Offers a page template (as a theme would) and exposes a protected meta key on posts (as a plugin would). */
@Injectable()
class WriteRulesExtension implements OnModuleInit {
  constructor(private readonly cms: CmsExtensionRegistry) {}

  onModuleInit(): void {
    this.cms.registerPageTemplate('templates/full-width.php', 'Full Width');
    this.cms.registerMeta('post', '_secret_note', { type: 'string', single: true, showInRest: true, subtype: 'post' });
  }
}

@Module({ providers: [WriteRulesExtension] })
class WriteRulesModule {}

type Role = keyof TestApp['users'];
type Body = Record<string, unknown>;

describe('posts: storage rules on write', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp('posts_write_rules', { extensions: [WriteRulesModule] });
  });
  afterAll(() => t.close());
  afterEach(() => jest.restoreAllMocks());

  // --- helpers ---

  /** Freezes the server's clock (it reads Date.now) at an ISO instant. */
  const at = (iso: string) => jest.spyOn(Date, 'now').mockReturnValue(Date.parse(iso));
  const write = (role: Role, path: string, body: Body = {}) =>
    t.http.post(`${API}/${path}`).set('Authorization', t.users[role].authorization).send(body);
  const remove = (role: Role, path: string) =>
    t.http.delete(`${API}/${path}`).set('Authorization', t.users[role].authorization);

  /** Creates through the API and answers the created item (edit context). */
  async function create(role: Role, body: Body, type = 'posts'): Promise<Body & { id: number }> {
    const res = await write(role, type, body);
    if (res.status !== 201) throw new Error(`create ${type} answered ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body;
  }

  async function update(role: Role, id: number, body: Body, type = 'posts'): Promise<Body> {
    const res = await write(role, `${type}/${id}`, body);
    if (res.status !== 200) throw new Error(`update ${type}/${id} answered ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body;
  }

  const stored = (id: number) => t.dataSource.getRepository(PostEntity).findOneByOrFail({ id });
  const exists = async (id: number) => (await t.dataSource.getRepository(PostEntity).countBy({ id })) > 0;
  const postCount = () => t.dataSource.getRepository(PostEntity).count();

  /** A post's meta as `key → values`, in insertion order. */
  async function metaOf(postId: number): Promise<Record<string, Array<string | null>>> {
    const rows = await t.dataSource.getRepository(PostMetaEntity).find({ where: { postId }, order: { id: 'ASC' } });
    const out: Record<string, Array<string | null>> = {};
    for (const row of rows) (out[row.key ?? ''] ??= []).push(row.value);
    return out;
  }

  /** Term ids of a post in a taxonomy, read from term_relationships. */
  async function termIdsOf(postId: number, taxonomy: string): Promise<number[]> {
    const rels = await t.dataSource.getRepository(TermRelationshipEntity).findBy({ objectId: postId });
    if (!rels.length) return [];
    const tts = await t.dataSource
      .getRepository(TermTaxonomyEntity)
      .findBy({ id: In(rels.map((r) => r.termTaxonomyId)), taxonomy });
    return tts.map((tt) => Number(tt.termId)).sort((a, b) => a - b);
  }

  const countOf = async (termId: number, taxonomy: string) =>
    Number((await t.dataSource.getRepository(TermTaxonomyEntity).findOneByOrFail({ termId, taxonomy })).count);

  const rawOption = async (name: string) =>
    (await t.dataSource.getRepository(OptionEntity).findOneByOrFail({ name })).value;

  /** Writes an option's stored value as WordPress would, and drops the server's option cache. */
  async function setRawOption(name: string, value: string): Promise<void> {
    await t.dataSource.getRepository(OptionEntity).update({ name }, { value });
    t.app.get(OptionsService).invalidate();
  }

  async function settings(body: Body): Promise<void> {
    await write('administrator', 'settings', body).expect(200);
  }

  const dates = (p: PostEntity) => ({
    date: p.date,
    dateGmt: p.dateGmt,
    modified: p.modified,
    modifiedGmt: p.modifiedGmt,
  });

  // --- HTML ---

  describe('HTML filtering', () => {
    const title = '  <h1>Big</h1> <strong>bold</strong> <a href="https://example.com/" target="_blank">link</a>  ';
    const content =
      '<p onclick="steal()">Hello <a href="https://example.com/" target="_blank">out</a></p><script>alert(1)</script>';
    const excerpt = '<em onmouseover="x()">Short</em><script>bad()</script>';

    it("limits an author's content and excerpt to wp_kses_post and the title to the short allowed-tags list", async () => {
      const post = await create('author', { title, content, excerpt, status: 'publish' });
      const row = await stored(post.id);
      expect({ title: row.title, content: row.content, excerpt: row.excerpt }).toEqual({
        title: 'Big <strong>bold</strong> <a href="https://example.com/">link</a>',
        content: '<p>Hello <a href="https://example.com/" target="_blank" rel="noopener">out</a></p>alert(1)',
        excerpt: '<em>Short</em>bad()',
      });
      expect((post.title as Body).raw).toBe(row.title);
    });

    it("filters an author's update the same way", async () => {
      const post = await create('author', { title: 'Plain', status: 'publish' });
      await update('author', post.id, { content: { raw: content }, title: { raw: '<h2>Sub</h2> title ' } });
      const row = await stored(post.id);
      expect({ title: row.title, content: row.content }).toEqual({
        title: 'Sub title',
        content: '<p>Hello <a href="https://example.com/" target="_blank" rel="noopener">out</a></p>alert(1)',
      });
    });

    it.each(['editor', 'administrator'] as const)(
      'keeps the HTML of an %s (unfiltered_html), trims the title, adds rel="noopener"',
      async (role) => {
        const post = await create(role, { title, content, excerpt, status: 'publish' });
        const row = await stored(post.id);
        expect({ title: row.title, content: row.content, excerpt: row.excerpt }).toEqual({
          title:
            '<h1>Big</h1> <strong>bold</strong> <a href="https://example.com/" target="_blank" rel="noopener">link</a>',
          content:
            '<p onclick="steal()">Hello <a href="https://example.com/" target="_blank" rel="noopener">out</a></p><script>alert(1)</script>',
          excerpt,
        });
      },
    );
  });

  // --- slugs ---

  describe('slugs', () => {
    it("generates a published post's slug from its title, removing accents and percent-encoding other scripts", async () => {
      const accented = await create('editor', { title: 'tęst-acceńted-chäræcters', status: 'publish' });
      expect(accented.slug).toBe('test-accented-charaecters');
      expect((await stored(accented.id)).name).toBe('test-accented-charaecters');
      const cyrillic = await create('editor', { title: 'Привет мир', status: 'publish' });
      expect((await stored(cyrillic.id)).name).toBe('%d0%bf%d1%80%d0%b8%d0%b2%d0%b5%d1%82-%d0%bc%d0%b8%d1%80');
    });

    it('gives drafts and pending posts no slug unless one is sent, and generates it when they are published', async () => {
      const draft = await create('editor', { title: 'Quiet Draft' });
      const pending = await create('editor', { title: 'Quiet Pending', status: 'pending' });
      expect([(await stored(draft.id)).name, (await stored(pending.id)).name]).toEqual(['', '']);
      expect((await update('editor', draft.id, { status: 'publish' })).slug).toBe('quiet-draft');
      expect((await stored(draft.id)).name).toBe('quiet-draft');
    });

    it('sanitizes a slug sent for a draft and makes it unique as if the draft were published', async () => {
      await create('editor', { title: 'Taken', slug: 'taken-slug', status: 'publish' });
      const first = await create('editor', { title: 'Draft one', slug: 'Taken Slug', status: 'draft' });
      const second = await create('editor', { title: 'Draft two', slug: 'taken-slug', status: 'pending' });
      expect([(await stored(first.id)).name, (await stored(second.id)).name]).toEqual(['taken-slug-2', 'taken-slug-3']);
    });

    it('numbers duplicate slugs -2, -3 within the same post type only', async () => {
      const slugs = [];
      for (let i = 0; i < 3; i++) slugs.push((await create('editor', { title: 'Same Title', status: 'publish' })).slug);
      expect(slugs).toEqual(['same-title', 'same-title-2', 'same-title-3']);
      expect((await create('editor', { title: 'Same Title', status: 'publish' }, 'pages')).slug).toBe('same-title');
    });

    it('keeps page slugs unique among siblings only, and suffixes page slugs that are numbers', async () => {
      const a = await create('editor', { title: 'Parent A', status: 'publish' }, 'pages');
      const b = await create('editor', { title: 'Parent B', status: 'publish' }, 'pages');
      const underA = await create('editor', { title: 'Child', status: 'publish', parent: a.id }, 'pages');
      const underB = await create('editor', { title: 'Child', status: 'publish', parent: b.id }, 'pages');
      const againUnderA = await create('editor', { title: 'Child', status: 'publish', parent: a.id }, 'pages');
      expect([underA.slug, underB.slug, againUnderA.slug]).toEqual(['child', 'child', 'child-2']);
      expect((await create('editor', { title: 'Two', slug: '2', status: 'publish' }, 'pages')).slug).toBe('2-2');
      expect((await create('editor', { title: 'Page three', slug: 'page3', status: 'publish' }, 'pages')).slug).toBe(
        'page3-2',
      );
    });

    it('suffixes post slugs that would clash with date archives (/%postname%/) and the reserved feed and embed', async () => {
      expect((await create('editor', { title: 'Year', slug: '2023', status: 'publish' })).slug).toBe('2023-2');
      expect((await create('editor', { title: 'Feed', slug: 'feed', status: 'publish' })).slug).toBe('feed-2');
      expect((await create('editor', { title: 'Embed', slug: 'embed', status: 'publish' })).slug).toBe('embed-2');
      expect((await create('editor', { title: 'Feed page', slug: 'feed', status: 'publish' }, 'pages')).slug).toBe(
        'feed-2',
      );
    });

    it("drops the slug of a contributor's pending post, not an editor's", async () => {
      const contributor = await create('contributor', { title: 'For review', slug: 'review-slug', status: 'pending' });
      expect((await stored(contributor.id)).name).toBe('');
      const editor = await create('editor', { title: 'For review', slug: 'review-slug', status: 'pending' });
      expect((await stored(editor.id)).name).toBe('review-slug');
    });

    it('remembers the previous slug of a published post in _wp_old_slug when the slug changes', async () => {
      const post = await create('editor', { title: 'Old name', status: 'publish' });
      await update('editor', post.id, { slug: 'new-name' });
      expect((await metaOf(post.id))._wp_old_slug).toEqual(['old-name']);
    });
  });

  // --- dates ---

  describe('dates', () => {
    it('dates a new post now, in both columns, with modified equal to the date', async () => {
      at('2024-07-01T08:00:00Z');
      const post = await create('editor', { title: 'Now', status: 'publish' });
      expect(dates(await stored(post.id))).toEqual({
        date: '2024-07-01 08:00:00',
        dateGmt: '2024-07-01 08:00:00',
        modified: '2024-07-01 08:00:00',
        modifiedGmt: '2024-07-01 08:00:00',
      });
      expect([post.date, post.date_gmt]).toEqual(['2024-07-01T08:00:00', '2024-07-01T08:00:00']);
    });

    it('reads date without offset as site time, date with an offset as that instant, and date_gmt as UTC', async () => {
      const pairs = [];
      for (const body of [
        { date: '2024-03-10T12:00:00' },
        { date: '2024-03-10T12:00:00+02:00' },
        { date_gmt: '2024-03-10T12:00:00' },
      ]) {
        const row = await stored((await create('editor', { title: 'Dated', status: 'publish', ...body })).id);
        pairs.push([row.date, row.dateGmt, row.modified]);
      }
      expect(pairs).toEqual([
        ['2024-03-10 12:00:00', '2024-03-10 12:00:00', '2024-03-10 12:00:00'],
        ['2024-03-10 10:00:00', '2024-03-10 10:00:00', '2024-03-10 10:00:00'],
        ['2024-03-10 12:00:00', '2024-03-10 12:00:00', '2024-03-10 12:00:00'],
      ]);
    });

    it('stores local and UTC dates in the timezone_string zone (Europe/Paris) and answers both', async () => {
      await settings({ timezone: 'Europe/Paris' });
      try {
        const summer = await create('editor', { title: 'Summer', status: 'publish', date: '2024-07-01T12:00:00' });
        expect([summer.date, summer.date_gmt]).toEqual(['2024-07-01T12:00:00', '2024-07-01T10:00:00']);
        const rows = [];
        for (const body of [
          { date: '2024-07-01T12:00:00' },
          { date: '2024-01-15T12:00:00+05:00' },
          { date_gmt: '2024-01-15T12:00:00' },
        ]) {
          const row = await stored((await create('editor', { title: 'Paris', status: 'publish', ...body })).id);
          rows.push([row.date, row.dateGmt]);
        }
        expect(rows).toEqual([
          ['2024-07-01 12:00:00', '2024-07-01 10:00:00'],
          ['2024-01-15 08:00:00', '2024-01-15 07:00:00'],
          ['2024-01-15 13:00:00', '2024-01-15 12:00:00'],
        ]);
        at('2024-07-01T08:00:00Z');
        const now = await create('editor', { title: 'Paris now', status: 'publish' });
        expect(dates(await stored(now.id))).toEqual({
          date: '2024-07-01 10:00:00',
          dateGmt: '2024-07-01 08:00:00',
          modified: '2024-07-01 10:00:00',
          modifiedGmt: '2024-07-01 08:00:00',
        });
      } finally {
        await t.app.get(OptionsService).set('timezone_string', '');
      }
    });

    it('stores local and UTC dates with a gmt_offset of 5.5 hours', async () => {
      await setRawOption('gmt_offset', '5.5');
      try {
        const local = await create('editor', { title: 'Offset', status: 'publish', date: '2024-03-10T12:00:00' });
        expect([local.date, local.date_gmt]).toEqual(['2024-03-10T12:00:00', '2024-03-10T06:30:00']);
        const utc = await stored(
          (await create('editor', { title: 'Offset', status: 'publish', date_gmt: '2024-03-10T12:00:00' })).id,
        );
        expect([utc.date, utc.dateGmt]).toEqual(['2024-03-10 17:30:00', '2024-03-10 12:00:00']);
      } finally {
        await setRawOption('gmt_offset', '0');
      }
    });

    it('keeps a draft date floating (post_date_gmt zero) until it is given one, and date: null makes it float again', async () => {
      at('2024-05-01T10:00:00Z');
      const draft = await create('editor', { title: 'Floating' });
      // wp_insert_post(): a new post's modified dates are its dates, so a floating draft's post_modified_gmt is zero too.
      expect(dates(await stored(draft.id))).toEqual({
        date: '2024-05-01 10:00:00',
        dateGmt: ZERO,
        modified: '2024-05-01 10:00:00',
        modifiedGmt: ZERO,
      });
      expect([draft.date, draft.date_gmt]).toEqual(['2024-05-01T10:00:00', '2024-05-01T10:00:00']);

      at('2024-05-02T11:00:00Z');
      await update('editor', draft.id, { title: 'Still floating' });
      expect(dates(await stored(draft.id))).toEqual({
        date: '2024-05-02 11:00:00',
        dateGmt: ZERO,
        modified: '2024-05-02 11:00:00',
        modifiedGmt: '2024-05-02 11:00:00',
      });

      at('2024-05-03T12:00:00Z');
      await update('editor', draft.id, { date: '2024-06-01T09:00:00' });
      at('2024-05-04T12:00:00Z');
      await update('editor', draft.id, { title: 'Pinned' });
      expect((await stored(draft.id)).date).toBe('2024-06-01 09:00:00');
      expect((await stored(draft.id)).dateGmt).toBe('2024-06-01 09:00:00');

      at('2024-05-05T13:00:00Z');
      await update('editor', draft.id, { date: null });
      expect([(await stored(draft.id)).date, (await stored(draft.id)).dateGmt]).toEqual(['2024-05-05 13:00:00', ZERO]);
    });

    it('sets modified and modified_gmt to now on update and ignores a modified date sent', async () => {
      at('2024-04-01T08:00:00Z');
      const post = await create('editor', { title: 'Edited later', status: 'publish', date: '2024-03-01T00:00:00' });
      expect((await stored(post.id)).modified).toBe('2024-03-01 00:00:00');
      at('2024-04-02T09:30:00Z');
      const res = await update('editor', post.id, {
        title: 'Edited',
        modified: '2000-01-01T00:00:00',
        modified_gmt: '2000-01-01T00:00:00',
      });
      expect([res.modified, res.modified_gmt]).toEqual(['2024-04-02T09:30:00', '2024-04-02T09:30:00']);
      expect(dates(await stored(post.id))).toEqual({
        date: '2024-03-01 00:00:00',
        dateGmt: '2024-03-01 00:00:00',
        modified: '2024-04-02 09:30:00',
        modifiedGmt: '2024-04-02 09:30:00',
      });
    });
  });

  // --- scheduling ---

  describe('scheduling', () => {
    it('stores a post published a minute or more ahead as future, and a future post dated in the past as published', async () => {
      at('2040-08-01T12:00:00Z');
      const statuses = [];
      for (const body of [
        { status: 'publish', date: '2040-08-01T12:00:59' },
        { status: 'publish', date: '2040-08-01T12:01:00' },
        { status: 'future', date: '2040-08-02T00:00:00' },
        { status: 'future', date: '2040-07-01T00:00:00' },
      ]) {
        const post = await create('editor', { title: 'Timed', ...body });
        statuses.push([post.status, (await stored(post.id)).status]);
      }
      expect(statuses).toEqual([
        ['publish', 'publish'],
        ['future', 'future'],
        ['future', 'future'],
        ['publish', 'publish'],
      ]);
    });

    it('publishes a scheduled post when its time comes, and hides it from anonymous readers until then', async () => {
      const tag = await createTerm(t.dataSource, 'post_tag', 'Scheduled news');
      at('2041-01-01T00:00:00Z');
      const post = await create('editor', {
        title: 'Later',
        status: 'publish',
        date: '2041-01-02T00:00:00',
        tags: [tag],
      });
      expect(post.status).toBe('future');
      expect(await countOf(tag, 'post_tag')).toBe(0);
      // check_read_permission() is false: rest_forbidden, 401 to an anonymous caller (the spec; the 4.x reference said 403).
      expectRestError(await t.http.get(`${API}/posts/${post.id}`), 'rest_forbidden', 401);

      at('2041-01-02T00:00:01Z');
      const res = await t.http.get(`${API}/posts/${post.id}`).expect(200);
      expect(res.body.status).toBe('publish');
      expect((await stored(post.id)).status).toBe('publish');
      expect(await countOf(tag, 'post_tag')).toBe(1);
    });

    it('publishes, on a sweep, a scheduled post whose date has passed', async () => {
      const tag = await createTerm(t.dataSource, 'post_tag', 'Swept news');
      const post = await create('editor', {
        title: 'Swept',
        status: 'future',
        date: '2099-01-01T00:00:00',
        tags: [tag],
      });
      expect((await stored(post.id)).status).toBe('future');
      await t.dataSource
        .getRepository(PostEntity)
        .update({ id: post.id }, { date: '2020-01-01 00:00:00', dateGmt: '2020-01-01 00:00:00' });
      await t.app.get(FuturePosts).sweep();
      expect((await stored(post.id)).status).toBe('publish');
      expect(await countOf(tag, 'post_tag')).toBe(1);
    });
  });

  // --- comment and ping status ---

  it('opens comments and pings of new posts as default_comment_status/default_ping_status say, closes pages, keeps values sent', async () => {
    const statuses = async (body: Body, type = 'posts') => {
      const row = await stored((await create('editor', { title: 'Talk', status: 'publish', ...body }, type)).id);
      return [row.commentStatus, row.pingStatus];
    };
    await settings({ default_comment_status: 'closed', default_ping_status: 'closed' });
    try {
      expect(await statuses({})).toEqual(['closed', 'closed']);
      expect(await statuses({}, 'pages')).toEqual(['closed', 'closed']);
      expect(await statuses({ comment_status: 'open', ping_status: 'open' })).toEqual(['open', 'open']);
    } finally {
      await settings({ default_comment_status: 'open', default_ping_status: 'open' });
    }
    expect(await statuses({})).toEqual(['open', 'open']);
    expect(await statuses({}, 'pages')).toEqual(['closed', 'closed']);
    expect(await statuses({ comment_status: 'open' }, 'pages')).toEqual(['open', 'closed']);
    const closed = await create('editor', { title: 'Closed', status: 'publish', comment_status: 'closed' });
    await update('editor', closed.id, { title: 'Closed still' });
    expect((await stored(closed.id)).commentStatus).toBe('closed');
  });

  // --- sticky ---

  describe('sticky posts', () => {
    beforeEach(() => t.app.get(OptionsService).set('sticky_posts', []));

    it('stores sticky posts in the sticky_posts option and keeps the flag on updates that do not send it', async () => {
      const a = await create('editor', { title: 'Sticky A', status: 'publish', sticky: true });
      const b = await create('editor', { title: 'Sticky B', status: 'publish', sticky: true });
      expect(await rawOption('sticky_posts')).toBe(`a:2:{i:0;i:${a.id};i:1;i:${b.id};}`);
      expect((await update('editor', a.id, { title: 'Sticky A again' })).sticky).toBe(true);
      expect(await rawOption('sticky_posts')).toBe(`a:2:{i:0;i:${a.id};i:1;i:${b.id};}`);
      expect((await update('editor', a.id, { sticky: false })).sticky).toBe(false);
      expect(await rawOption('sticky_posts')).toBe(`a:1:{i:0;i:${b.id};}`);
    });

    it('unsticks the id of a post created without sticky', async () => {
      const other = await create('editor', { title: 'Sticky other', status: 'publish', sticky: true });
      const placeholder = await createPost(t.dataSource, { title: 'Placeholder' });
      await t.app.get(OptionsService).set('sticky_posts', [other.id, placeholder.id + 1]);
      const post = await create('editor', { title: 'Not sticky', status: 'publish' });
      expect(post.id).toBe(placeholder.id + 1);
      expect(await rawOption('sticky_posts')).toBe(`a:1:{i:0;i:${other.id};}`);
    });

    it('removes a post from sticky_posts when it is trashed or deleted', async () => {
      const trashed = await create('editor', { title: 'Sticky trashed', status: 'publish', sticky: true });
      const deleted = await create('editor', { title: 'Sticky deleted', status: 'publish', sticky: true });
      const kept = await create('editor', { title: 'Sticky kept', status: 'publish', sticky: true });
      await remove('editor', `posts/${deleted.id}?force=true`).expect(200);
      expect(await rawOption('sticky_posts')).toBe(`a:2:{i:0;i:${trashed.id};i:1;i:${kept.id};}`);
      await remove('editor', `posts/${trashed.id}`).expect(200);
      expect(await rawOption('sticky_posts')).toBe(`a:1:{i:0;i:${kept.id};}`);
    });
  });

  // --- password ---

  it('clears a password sent as an empty string and never keeps a password on a private post', async () => {
    const locked = await create('editor', { title: 'Locked', status: 'publish', password: 'secret' });
    expect((await stored(locked.id)).password).toBe('secret');
    await update('editor', locked.id, { password: '' });
    expect((await stored(locked.id)).password).toBe('');
    const privateOne = await create('editor', { title: 'Private locked', status: 'private', password: 'secret' });
    expect((await stored(privateOne.id)).password).toBe('');
    const madePrivate = await create('editor', { title: 'Soon private', status: 'publish', password: 'secret' });
    await update('editor', madePrivate.id, { status: 'private' });
    expect((await stored(madePrivate.id)).password).toBe('');
  });

  // --- terms ---

  describe('terms', () => {
    it('replaces categories and tags with those sent, and [] clears them', async () => {
      const [c1, c2] = [
        await createTerm(t.dataSource, 'category', 'Cat one'),
        await createTerm(t.dataSource, 'category', 'Cat two'),
      ];
      const [t1, t2] = [
        await createTerm(t.dataSource, 'post_tag', 'Tag one'),
        await createTerm(t.dataSource, 'post_tag', 'Tag two'),
      ];
      const post = await create('editor', { title: 'Termed', status: 'publish', categories: [c1, c2], tags: [t1] });
      expect([await termIdsOf(post.id, 'category'), await termIdsOf(post.id, 'post_tag')]).toEqual([[c1, c2], [t1]]);
      await update('editor', post.id, { categories: [c2], tags: [t2] });
      expect([await termIdsOf(post.id, 'category'), await termIdsOf(post.id, 'post_tag')]).toEqual([[c2], [t2]]);
      await update('editor', post.id, { tags: [] });
      expect([await termIdsOf(post.id, 'category'), await termIdsOf(post.id, 'post_tag')]).toEqual([[c2], []]);
      const cleared = await update('editor', post.id, { categories: [] });
      expect(cleared.categories).toEqual([]);
      expect(await termIdsOf(post.id, 'category')).toEqual([]);
    });

    it('gives a new post the default category when none is sent, and pages none', async () => {
      const draft = await create('editor', { title: 'Uncategorized draft' });
      const published = await create('editor', { title: 'Uncategorized post', status: 'publish', tags: [] });
      expect([draft.categories, published.categories]).toEqual([[1], [1]]);
      expect(await termIdsOf(published.id, 'category')).toEqual([1]);
      const page = await create('editor', { title: 'A page', status: 'publish' }, 'pages');
      expect(await t.dataSource.getRepository(TermRelationshipEntity).countBy({ objectId: page.id })).toBe(0);
    });

    it('puts the default category back when a post left without categories is saved again (wp_update_post)', async () => {
      const post = await create('editor', { title: 'Bare', status: 'publish', categories: [] });
      expect(await termIdsOf(post.id, 'category')).toEqual([]);
      await update('editor', post.id, { title: 'Bare again' });
      expect(await termIdsOf(post.id, 'category')).toEqual([1]);
    });

    it('counts only published posts in a term count, updated on publish, unpublish, trash and delete', async () => {
      const tag = await createTerm(t.dataSource, 'post_tag', 'Counted');
      const cat = await createTerm(t.dataSource, 'category', 'Counted category');
      const counts = async () => [await countOf(tag, 'post_tag'), await countOf(cat, 'category')];
      const first = await create('editor', { title: 'Counted one', tags: [tag], categories: [cat] });
      expect(await counts()).toEqual([0, 0]);
      await update('editor', first.id, { status: 'publish' });
      expect(await counts()).toEqual([1, 1]);
      const second = await create('editor', { title: 'Counted two', status: 'publish', tags: [tag] });
      expect(await counts()).toEqual([2, 1]);
      await update('editor', first.id, { status: 'private' });
      expect(await counts()).toEqual([1, 0]);
      await update('editor', first.id, { status: 'publish' });
      expect(await counts()).toEqual([2, 1]);
      await remove('editor', `posts/${first.id}`).expect(200);
      expect(await counts()).toEqual([1, 0]);
      await remove('editor', `posts/${second.id}?force=true`).expect(200);
      expect(await counts()).toEqual([0, 0]);
    });

    it('stores a post format as the post_format term post-format-<format>, created once, and standard removes it', async () => {
      const first = await create('editor', { title: 'Gallery one', status: 'publish', format: 'gallery' });
      const second = await create('editor', { title: 'Gallery two', status: 'publish', format: 'gallery' });
      expect([first.format, second.format]).toEqual(['gallery', 'gallery']);
      const terms = await t.dataSource.getRepository(TermEntity).findBy({ slug: 'post-format-gallery' });
      expect(terms.map((term) => ({ name: term.name, slug: term.slug }))).toEqual([
        { name: 'post-format-gallery', slug: 'post-format-gallery' },
      ]);
      const termId = terms[0].id;
      expect([await termIdsOf(first.id, 'post_format'), await countOf(termId, 'post_format')]).toEqual([[termId], 2]);
      expect((await update('editor', first.id, { format: 'standard' })).format).toBe('standard');
      expect([await termIdsOf(first.id, 'post_format'), await countOf(termId, 'post_format')]).toEqual([[], 1]);
    });
  });

  // --- featured media ---

  it('keeps only an image as featured media (_thumbnail_id): 0 removes it, an unknown id changes nothing, a non-image removes it', async () => {
    const attachment = async (mimeType: string, file: string) => {
      const guid = `http://example.org/wp-content/uploads/2024/01/${file}`;
      const row = await createPost(t.dataSource, {
        type: 'attachment',
        status: 'inherit',
        mimeType,
        title: file,
        name: file.replace('.', '-'),
        guid,
      });
      await setPostMeta(t.dataSource, row.id, '_wp_attached_file', `2024/01/${file}`);
      return row.id;
    };
    const image = await attachment('image/jpeg', 'photo.jpg');
    const pdf = await attachment('application/pdf', 'paper.pdf');
    const post = await create('editor', { title: 'Illustrated', status: 'publish', featured_media: image });
    expect([post.featured_media, (await metaOf(post.id))._thumbnail_id]).toEqual([image, [String(image)]]);
    expect((await update('editor', post.id, { featured_media: 999999 })).featured_media).toBe(image);
    expect((await metaOf(post.id))._thumbnail_id).toEqual([String(image)]);
    expect((await update('editor', post.id, { featured_media: 0 })).featured_media).toBe(0);
    expect((await metaOf(post.id))._thumbnail_id).toBeUndefined();
    const none = await create('editor', { title: 'Not illustrated', status: 'publish', featured_media: 999999 });
    expect((await metaOf(none.id))._thumbnail_id).toBeUndefined();
    // set_post_thumbnail(): an existing post that is not an image deletes the featured image.
    await update('editor', post.id, { featured_media: image });
    expect((await update('editor', post.id, { featured_media: pdf })).featured_media).toBe(0);
    expect((await metaOf(post.id))._thumbnail_id).toBeUndefined();
  });

  // --- pages ---

  describe('pages', () => {
    it('refuses a parent that does not exist with rest_post_invalid_id and writes nothing', async () => {
      const before = await postCount();
      expectRestError(await write('editor', 'pages', { title: 'Orphan', parent: 999999 }), 'rest_post_invalid_id', 400);
      expect(await postCount()).toBe(before);
      const page = await create('editor', { title: 'Adoptable', status: 'publish' }, 'pages');
      const row = await stored(page.id);
      expectRestError(
        await write('editor', `pages/${page.id}`, { title: 'Changed', parent: 999999 }),
        'rest_post_invalid_id',
        400,
      );
      expect(await stored(page.id)).toEqual(row);
    });

    it('stores parent and menu_order, and resets them to 0', async () => {
      const parent = await create('editor', { title: 'Ordered parent', status: 'publish' }, 'pages');
      const child = await create(
        'editor',
        { title: 'Ordered child', status: 'publish', parent: parent.id, menu_order: 5 },
        'pages',
      );
      expect([(await stored(child.id)).parent, (await stored(child.id)).menuOrder]).toEqual([parent.id, 5]);
      await update('editor', child.id, { parent: 0, menu_order: 0 }, 'pages');
      expect([(await stored(child.id)).parent, (await stored(child.id)).menuOrder]).toEqual([0, 0]);
    });

    it('never stores a page as its own parent or below one of its descendants (parent 0)', async () => {
      const top = await create('editor', { title: 'Loop top', status: 'publish' }, 'pages');
      const below = await create('editor', { title: 'Loop below', status: 'publish', parent: top.id }, 'pages');
      expect((await update('editor', top.id, { parent: top.id }, 'pages')).parent).toBe(0);
      expect((await update('editor', top.id, { parent: below.id }, 'pages')).parent).toBe(0);
      expect([(await stored(top.id)).parent, (await stored(below.id)).parent]).toEqual([0, top.id]);
    });

    it('keeps a template offered by an extension and stores "" for any other', async () => {
      const page = await create(
        'editor',
        { title: 'Wide', status: 'publish', template: 'templates/full-width.php' },
        'pages',
      );
      expect([page.template, (await metaOf(page.id))._wp_page_template]).toEqual([
        'templates/full-width.php',
        ['templates/full-width.php'],
      ]);
      const other = await create(
        'editor',
        { title: 'Unknown template', status: 'publish', template: 'templates/unknown.php' },
        'pages',
      );
      expect([other.template, (await metaOf(other.id))._wp_page_template]).toEqual(['', ['']]);
      await update('editor', page.id, { template: '' }, 'pages');
      expect((await metaOf(page.id))._wp_page_template).toEqual(['']);
    });
  });

  // --- trash ---

  describe('trash', () => {
    it('trashes with the previous status and time, a __trashed slug, the desired slug kept and the comments set aside', async () => {
      at('2024-09-01T10:00:00Z');
      const post = await create('editor', { title: 'Bin me', status: 'publish' });
      const comments = t.dataSource.getRepository(CommentEntity);
      const when = { date: '2024-09-01 10:00:00', dateGmt: '2024-09-01 10:00:00' };
      const c1 = (await comments.save({ postId: post.id, content: 'Approved', approved: '1', ...when })).id;
      const c2 = (await comments.save({ postId: post.id, content: 'Held', approved: '0', ...when })).id;
      at('2024-09-02T10:00:00Z');
      await remove('editor', `posts/${post.id}`).expect(200);
      const row = await stored(post.id);
      expect([row.status, row.name, row.modified, row.modifiedGmt]).toEqual([
        'trash',
        'bin-me__trashed',
        '2024-09-02 10:00:00',
        '2024-09-02 10:00:00',
      ]);
      expect(await metaOf(post.id)).toEqual({
        _wp_trash_meta_status: ['publish'],
        _wp_trash_meta_time: [String(Date.parse('2024-09-02T10:00:00Z') / 1000)],
        _wp_desired_post_slug: ['bin-me'],
        _wp_trash_meta_comments_status: [`a:2:{i:${c1};s:1:"1";i:${c2};s:1:"0";}`],
      });
      expect((await comments.findBy({ postId: post.id })).map((c) => c.approved)).toEqual([
        'post-trashed',
        'post-trashed',
      ]);

      const restored = await update('editor', post.id, { status: 'publish' });
      expect(restored.slug).toBe('bin-me');
      expect((await stored(post.id)).name).toBe('bin-me');
      expect((await metaOf(post.id))._wp_desired_post_slug).toBeUndefined();
    });

    it('gives a trashed draft without a slug the slug __trashed, and its floating date the time it was trashed', async () => {
      at('2024-10-01T00:00:00Z');
      const draft = await create('editor', { title: 'Nameless draft' });
      at('2024-10-02T06:00:00Z');
      await remove('editor', `posts/${draft.id}`).expect(200);
      const row = await stored(draft.id);
      expect([row.name, row.date, row.dateGmt]).toEqual(['__trashed', '2024-10-02 06:00:00', '2024-10-02 06:00:00']);
      expect((await metaOf(draft.id))._wp_desired_post_slug).toEqual(['']);
    });
  });

  // --- permanent delete ---

  describe('permanent delete', () => {
    it('removes the post with its meta, term relationships (recounted), revisions and comments', async () => {
      const tag = await createTerm(t.dataSource, 'post_tag', 'Doomed');
      const post = await create('editor', { title: 'Doomed', status: 'publish', tags: [tag] });
      await setPostMeta(t.dataSource, post.id, 'extra', 'value');
      const revision = await createPost(t.dataSource, {
        type: 'revision',
        status: 'inherit',
        parent: post.id,
        name: `${post.id}-revision-v1`,
      });
      await setPostMeta(t.dataSource, revision.id, '_revision_note', 'x');
      const comment = await t.dataSource
        .getRepository(CommentEntity)
        .save({ postId: post.id, content: 'Bye', approved: '1' });
      await t.dataSource.getRepository(CommentMetaEntity).save({ commentId: comment.id, key: 'rating', value: '5' });
      expect(await countOf(tag, 'post_tag')).toBe(1);

      await remove('editor', `posts/${post.id}?force=true`).expect(200);
      expect({
        post: await exists(post.id),
        revision: await exists(revision.id),
        meta: await t.dataSource.getRepository(PostMetaEntity).countBy({ postId: In([post.id, revision.id]) }),
        relationships: await t.dataSource.getRepository(TermRelationshipEntity).countBy({ objectId: post.id }),
        comments: await t.dataSource.getRepository(CommentEntity).countBy({ postId: post.id }),
        commentMeta: await t.dataSource.getRepository(CommentMetaEntity).countBy({ commentId: comment.id }),
        count: await countOf(tag, 'post_tag'),
      }).toEqual({ post: false, revision: false, meta: 0, relationships: 0, comments: 0, commentMeta: 0, count: 0 });
    });

    it("moves the child pages and attachments of a deleted page up to that page's parent", async () => {
      const grandparent = await create('editor', { title: 'Grandparent', status: 'publish' }, 'pages');
      const parent = await create(
        'editor',
        { title: 'Deleted parent', status: 'publish', parent: grandparent.id },
        'pages',
      );
      const child = await create('editor', { title: 'Moved child', status: 'publish', parent: parent.id }, 'pages');
      const file = await createPost(t.dataSource, {
        type: 'attachment',
        status: 'inherit',
        mimeType: 'image/png',
        parent: parent.id,
      });
      await remove('editor', `pages/${parent.id}?force=true`).expect(200);
      expect([(await stored(child.id)).parent, (await stored(file.id)).parent]).toEqual([
        grandparent.id,
        grandparent.id,
      ]);

      const post = await create('editor', { title: 'With attachment', status: 'publish' });
      const attached = await createPost(t.dataSource, {
        type: 'attachment',
        status: 'inherit',
        mimeType: 'image/png',
        parent: post.id,
      });
      await remove('editor', `posts/${post.id}?force=true`).expect(200);
      expect((await stored(attached.id)).parent).toBe(0);
    });
  });

  // --- failed writes ---

  it('writes nothing when a write is refused for a protected meta key', async () => {
    const post = await create('administrator', { title: 'Original', status: 'publish' });
    const before = { row: await stored(post.id), meta: await metaOf(post.id), posts: await postCount() };
    const refused = await write('administrator', `posts/${post.id}`, {
      title: 'Changed',
      sticky: true,
      meta: { _secret_note: 'x' },
    });
    expectRestError(refused, 'rest_cannot_update', 403);
    expect({ row: await stored(post.id), meta: await metaOf(post.id), posts: await postCount() }).toEqual(before);
    expect(await rawOption('sticky_posts')).not.toContain(`i:${post.id};`);
    const refusedCreate = await write('administrator', 'posts', {
      title: 'New',
      status: 'publish',
      meta: { _secret_note: 'x' },
    });
    expectRestError(refusedCreate, 'rest_cannot_update', 403);
    expect(await postCount()).toBe(before.posts);
  });

  // --- guid ---

  it('sets the guid to the permalink at creation and keeps it afterwards', async () => {
    const published = await create('editor', { title: 'Guid post', status: 'publish' });
    expect((await stored(published.id)).guid).toBe('http://example.org/guid-post/');
    expect((published.guid as Body).raw).toBe('http://example.org/guid-post/');
    const draft = await create('editor', { title: 'Guid draft' });
    expect((await stored(draft.id)).guid).toBe(`http://example.org/?p=${draft.id}`);
    await update('editor', draft.id, { status: 'publish' });
    expect((await stored(draft.id)).guid).toBe(`http://example.org/?p=${draft.id}`);
    const future = await create('editor', { title: 'Guid future', status: 'future', date: '2099-02-01T00:00:00' });
    expect((await stored(future.id)).guid).toBe(`http://example.org/?p=${future.id}`);
    const pageDraft = await create('editor', { title: 'Guid page draft' }, 'pages');
    expect((await stored(pageDraft.id)).guid).toBe(`http://example.org/?page_id=${pageDraft.id}`);
    const parent = await create('editor', { title: 'Guid parent', status: 'publish' }, 'pages');
    const child = await create('editor', { title: 'Guid child', status: 'publish', parent: parent.id }, 'pages');
    expect((await stored(child.id)).guid).toBe('http://example.org/guid-parent/guid-child/');
  });
});
