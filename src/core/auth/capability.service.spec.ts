import { DataSource, Logger } from 'typeorm';
import { buildDataSourceOptions } from '../database/data-source-options';
import { CommentEntity } from '../database/entities/comment.entity';
import { PostMetaEntity } from '../database/entities/post-meta.entity';
import { PostEntity } from '../database/entities/post.entity';
import { TermTaxonomyEntity } from '../database/entities/term-taxonomy.entity';
import { TermEntity } from '../database/entities/term.entity';
import { UserEntity } from '../database/entities/user.entity';
import { DEFAULT_ROLES, installSite } from '../database/site-install';
import { OptionsService } from '../options/options.service';
import { ContentRegistry } from '../registry/content-registry.service';
import { CapabilityService } from './capability.service';
import { CurrentUser } from './current-user';

/** Records the SQL statements the DataSource runs. */
class QueryRecorder implements Logger {
  queries: string[] = [];
  logQuery(query: string): void {
    this.queries.push(query);
  }
  logQueryError(): void {}
  logQuerySlow(): void {}
  logSchemaBuild(): void {}
  logMigration(): void {}
  log(): void {}

  /** Statements reading the table `cms_<table>`. */
  reads(table: string): string[] {
    return this.queries.filter((q) => /^\s*SELECT/i.test(q) && q.includes(`"cms_${table}"`));
  }
}

function userWithRole(id: number, role: string, extra: Record<string, boolean> = {}): CurrentUser {
  return new CurrentUser(id, role, [role], { ...DEFAULT_ROLES[role].capabilities, [role]: true, ...extra });
}

describe('CapabilityService (SQLite)', () => {
  const recorder = new QueryRecorder();
  let dataSource: DataSource;
  let options: OptionsService;
  let caps: CapabilityService;
  const ids: Record<string, number> = {};

  const admin = userWithRole(1, 'administrator');
  const editor = userWithRole(2, 'editor');
  const author = userWithRole(3, 'author');
  const contributor = userWithRole(4, 'contributor');
  const subscriber = userWithRole(5, 'subscriber');

  beforeAll(async () => {
    dataSource = new DataSource(
      buildDataSourceOptions({
        databaseUrl: 'sqlite::memory:',
        tablePrefix: 'cms_',
        logger: recorder,
        logging: ['query'],
      }),
    );
    await dataSource.initialize();
    await dataSource.runMigrations();
    await installSite(dataSource, { tablePrefix: 'cms_', siteUrl: 'http://localhost' });

    const users = dataSource.getRepository(UserEntity);
    for (const [id, login] of [
      [1, 'admin'],
      [2, 'editor'],
      [3, 'author'],
      [4, 'contributor'],
      [5, 'subscriber'],
    ] as const) {
      await users.insert({ id, login, email: `${login}@example.com`, nicename: login });
    }

    const posts = dataSource.getRepository(PostEntity);
    const insertPost = async (name: string, values: Partial<PostEntity>) => {
      const result = await posts.insert({ title: name, name, ...values });
      ids[name] = result.identifiers[0].id as number;
    };
    await insertPost('authorDraft', { author: 3, status: 'draft', type: 'post' });
    await insertPost('authorPublished', { author: 3, status: 'publish', type: 'post' });
    await insertPost('editorPrivate', { author: 2, status: 'private', type: 'post' });
    await insertPost('editorDraft', { author: 2, status: 'draft', type: 'post' });
    await insertPost('authorTrashed', { author: 3, status: 'trash', type: 'post' });
    await insertPost('contributorTrashed', { author: 4, status: 'trash', type: 'post' });
    await insertPost('revision', { author: 3, status: 'inherit', type: 'revision', parent: ids.authorPublished });
    await insertPost('attachment', { author: 2, status: 'inherit', type: 'attachment', parent: ids.editorPrivate });
    await insertPost('privacyPage', { author: 2, status: 'publish', type: 'page' });

    const meta = dataSource.getRepository(PostMetaEntity);
    await meta.insert({ postId: ids.authorTrashed, key: '_wp_trash_meta_status', value: 'publish' });
    await meta.insert({ postId: ids.contributorTrashed, key: '_wp_trash_meta_status', value: 'draft' });

    const comments = await dataSource.getRepository(CommentEntity).insert({ postId: ids.authorPublished, userId: 5 });
    ids.comment = comments.identifiers[0].id as number;

    const term = await dataSource.getRepository(TermEntity).insert({ name: 'News', slug: 'news' });
    ids.term = term.identifiers[0].id as number;
    await dataSource.getRepository(TermTaxonomyEntity).insert({ termId: ids.term, taxonomy: 'category' });
    const tag = await dataSource.getRepository(TermEntity).insert({ name: 'Hot', slug: 'hot' });
    ids.tag = tag.identifiers[0].id as number;
    await dataSource.getRepository(TermTaxonomyEntity).insert({ termId: ids.tag, taxonomy: 'post_tag' });

    options = new OptionsService(dataSource);
    await options.set('wp_page_for_privacy_policy', ids.privacyPage);
    caps = new CapabilityService(new ContentRegistry(), dataSource, options);
  });

  afterAll(async () => {
    await dataSource?.destroy();
  });

  beforeEach(async () => {
    // Warm the autoloaded options (kept a few seconds by OptionsService), then count from zero.
    await options.get('siteurl');
    recorder.queries = [];
  });

  it('looks numeric ids up in the posts table', async () => {
    expect(await caps.userCan(author, 'edit_post', ids.authorPublished)).toBe(true);
    expect(await caps.userCan(contributor, 'edit_post', ids.authorPublished)).toBe(false);
    expect(recorder.reads('posts')).toHaveLength(2);
  });

  it('does not query again for rows it is given', async () => {
    const row = await dataSource.getRepository(PostEntity).findOneByOrFail({ id: ids.authorDraft });
    recorder.queries = [];
    expect(await caps.userCan(author, 'edit_post', row)).toBe(true);
    expect(await caps.userCan(author, 'delete_post', row)).toBe(true);
    expect(await caps.userCan(editor, 'read_post', row)).toBe(true);
    expect(await caps.userCan(contributor, 'read_post', row)).toBe(false);
    expect(await caps.userCan(subscriber, 'publish_post', row)).toBe(false);
    expect(recorder.queries).toEqual([]);
  });

  it('reads a row once per check, even when the mapping recurses', async () => {
    // read_post of someone else's draft maps through edit_post: one read of the post.
    expect(await caps.userCan(admin, 'read_post', ids.editorDraft)).toBe(true);
    expect(recorder.reads('posts')).toHaveLength(1);
  });

  it('keeps nothing between checks', async () => {
    await caps.userCan(admin, 'edit_post', ids.editorDraft);
    await caps.userCan(admin, 'edit_post', ids.editorDraft);
    expect(recorder.reads('posts')).toHaveLength(2);
  });

  it('answers unknown ids with false', async () => {
    expect(await caps.userCan(admin, 'edit_post', 987654)).toBe(false);
    expect(await caps.userCan(admin, 'edit_comment', 987654)).toBe(false);
    expect(await caps.userCan(admin, 'edit_term', 987654)).toBe(false);
    expect(await caps.userCan(admin, 'edit_user_meta', 987654, 'description')).toBe(false);
    expect(await caps.userCan(admin, 'edit_post', undefined)).toBe(false);
  });

  it('maps revisions and attachments to their parent', async () => {
    expect(await caps.userCan(author, 'edit_post', ids.revision)).toBe(true);
    expect(await caps.userCan(admin, 'delete_post', ids.revision)).toBe(false);
    expect(await caps.userCan(subscriber, 'read_post', ids.revision)).toBe(true);
    // The attachment inherits the private status of its parent.
    expect(await caps.userCan(subscriber, 'read_post', ids.attachment)).toBe(false);
    expect(await caps.userCan(editor, 'read_post', ids.attachment)).toBe(true);
    expect(await caps.userCan(admin, 'read_post', ids.attachment)).toBe(true);
  });

  it('reads the status a trashed post had from its meta', async () => {
    expect(await caps.mapMetaCap(author, 'edit_post', ids.authorTrashed)).toEqual(['edit_published_posts']);
    expect(await caps.mapMetaCap(contributor, 'edit_post', ids.contributorTrashed)).toEqual(['edit_posts']);
    expect(recorder.reads('postmeta')).toHaveLength(2);
    // Values are bound, never spliced into the SQL (the SQLite driver inlines plain numbers itself).
    expect(recorder.reads('postmeta')[0]).toContain('?');
    expect(recorder.reads('postmeta')[0]).not.toContain('_wp_trash_meta_status');
    expect(await caps.userCan(contributor, 'delete_post', ids.contributorTrashed)).toBe(true);
  });

  it('reads options: the privacy policy page needs manage_options', async () => {
    expect(await caps.mapMetaCap(editor, 'edit_post', ids.privacyPage)).toEqual([
      'edit_published_pages',
      'manage_options',
    ]);
    expect(await caps.userCan(editor, 'edit_post', ids.privacyPage)).toBe(false);
    expect(await caps.userCan(admin, 'edit_post', ids.privacyPage)).toBe(true);
  });

  it('looks comments up and maps them to their post', async () => {
    expect(await caps.userCan(author, 'edit_comment', ids.comment)).toBe(true);
    expect(await caps.userCan(subscriber, 'edit_comment', ids.comment)).toBe(false);
    expect(recorder.reads('comments')).toHaveLength(2);
    recorder.queries = [];
    const comment = await dataSource.getRepository(CommentEntity).findOneByOrFail({ id: ids.comment });
    const post = await dataSource.getRepository(PostEntity).findOneByOrFail({ id: ids.authorPublished });
    recorder.queries = [];
    // A loaded comment still needs its post; a loaded post needs nothing.
    expect(await caps.userCan(author, 'edit_comment', comment)).toBe(true);
    expect(recorder.reads('comments')).toHaveLength(0);
    expect(recorder.reads('posts')).toHaveLength(1);
    recorder.queries = [];
    expect(await caps.userCan(author, 'edit_post_meta', post, 'color')).toBe(true);
    expect(await caps.userCan(author, 'edit_post_meta', post, '_secret')).toBe(false);
    expect(recorder.queries).toEqual([]);
  });

  it('looks terms up: the default category (installSite) cannot be deleted', async () => {
    expect(await caps.userCan(admin, 'delete_term', 1)).toBe(false);
    expect(await caps.userCan(admin, 'edit_term', 1)).toBe(true);
    expect(await caps.userCan(admin, 'delete_term', ids.term)).toBe(true);
    expect(await caps.userCan(author, 'delete_term', ids.term)).toBe(false);
    expect(await caps.userCan(author, 'assign_term', ids.tag)).toBe(true);
    expect(await caps.userCan(editor, 'edit_term', ids.tag)).toBe(true);
    expect(await caps.userCan(editor, 'manage_post_tags')).toBe(true);
    expect(await caps.userCan(author, 'manage_post_tags')).toBe(false);
    expect(recorder.reads('term_taxonomy').length).toBeGreaterThan(0);
    recorder.queries = [];
    expect(await caps.userCan(admin, 'edit_term', { termId: ids.tag, taxonomy: 'post_tag' })).toBe(true);
    expect(recorder.queries).toEqual([]);
  });

  it('looks users up for user meta, but not the current user', async () => {
    expect(await caps.userCan(subscriber, 'edit_user_meta', 5, 'description')).toBe(true);
    expect(recorder.reads('users')).toHaveLength(0);
    expect(await caps.userCan(admin, 'edit_user_meta', 5, 'description')).toBe(true);
    expect(recorder.reads('users')).toHaveLength(1);
    expect(await caps.userCan(subscriber, 'edit_user', 5)).toBe(true);
    expect(await caps.userCan(subscriber, 'edit_user', 1)).toBe(false);
    expect(await caps.userCan(admin, 'promote_user', 5)).toBe(true);
  });

  it('answers primitive capabilities without any query', async () => {
    expect(await caps.userCan(admin, 'manage_options')).toBe(true);
    expect(await caps.userCan(editor, 'manage_options')).toBe(false);
    expect(await caps.userCan(CurrentUser.anonymous(), 'exist')).toBe(true);
    expect(await caps.userCan(CurrentUser.anonymous(), 'read')).toBe(false);
    expect(await caps.userCan(admin, 'edit_files')).toBe(false);
    expect(recorder.queries).toEqual([]);
  });

  it('consults registered meta capabilities first', async () => {
    const own = new CapabilityService(new ContentRegistry(), dataSource, options);
    const seen: unknown[][] = [];
    own.registerMetaCap('edit_post', (user, ...args) => {
      seen.push([user.id, ...args]);
      return ['edit_anything'];
    });
    expect(await own.userCan(admin, 'edit_post', ids.authorDraft)).toBe(false);
    expect(
      await own.userCan(userWithRole(9, 'subscriber', { edit_anything: true }), 'edit_post', ids.authorDraft),
    ).toBe(true);
    // read_post of someone else's draft maps through the override too.
    expect(await own.userCan(admin, 'read_post', ids.editorDraft)).toBe(false);
    expect(seen[0]).toEqual([1, ids.authorDraft]);
    expect(recorder.reads('posts')).toHaveLength(1); // only read_post read a post
    // Other instances are not affected.
    expect(await caps.userCan(admin, 'edit_post', ids.authorDraft)).toBe(true);
  });

  it('lets extensions authorize protected meta keys', async () => {
    expect(await caps.userCan(author, 'edit_post_meta', ids.authorPublished, '_layout')).toBe(false);
    caps.registerMetaAuth('post', '_layout', () => true, 'post');
    expect(await caps.userCan(author, 'edit_post_meta', ids.authorPublished, '_layout')).toBe(true);
    expect(await caps.userCan(contributor, 'edit_post_meta', ids.authorPublished, '_layout')).toBe(false);
    caps.registerMetaAuth('post', 'locked', ({ userId }) => userId === 1);
    expect(await caps.userCan(author, 'edit_post_meta', ids.authorPublished, 'locked')).toBe(false);
    expect(await caps.userCan(admin, 'edit_post_meta', ids.authorPublished, 'locked')).toBe(true);
  });
});
