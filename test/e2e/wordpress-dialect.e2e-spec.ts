import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { insertComment } from '../factories/comment.factory';
import { createPost, createTerm } from '../factories/post.factory';
import { CommentEntity } from '../../src/core/database/entities/comment.entity';
import { HookRegistry } from '../../src/core/hooks/hook-registry.service';
import { createTestApp, expectRestError, TestApp } from '../utils/test-app';
import { testDatabaseKind, testDatabaseUrl } from '../utils/test-db';

/**
 * The behaviour the wire names choose (the WireDialect): with WordPress's names WordPress 6.1's, with the spec's names
 * the spec's, on the same database and for the same requests.
 */
describe('WordPress 6.1 behaviour with WordPress names, the spec with cms names (the wire dialect)', () => {
  const file = join(tmpdir(), `cms-wordpress-dialect-${process.pid}.sqlite`);
  let wp: TestApp;
  let cms: TestApp;
  let postId: number;
  let blockPostId: number;
  let pageId: number;
  let commentId: number;
  let tagId: number;
  const WP = '/wp-json/wp/v2';
  const CMS = '/cms-json/cms/v2';
  const admin = () => wp.users.administrator.authorization;

  beforeAll(async () => {
    const databaseUrl = testDatabaseKind() === 'sqlite' ? `sqlite:${file}` : await testDatabaseUrl('wordpress_dialect');
    cms = await createTestApp('wordpress_dialect', { databaseUrl });
    wp = await createTestApp('wordpress_dialect', { cms: { wireNames: 'wordpress' }, databaseUrl, users: cms.users });
    postId = (await createPost(cms.dataSource, { title: 'Hello river', name: 'hello-river' })).id;
    blockPostId = (
      await createPost(cms.dataSource, { title: 'Blocks', name: 'blocks', content: '<!-- wp:paragraph --><p>x</p>' })
    ).id;
    pageId = (await createPost(cms.dataSource, { title: 'About', name: 'about', type: 'page' })).id;
    commentId = (await insertComment(cms.dataSource, { postId, approved: '1' })).id;
    await insertComment(cms.dataSource, { postId, parent: commentId, approved: '1' });
    tagId = await createTerm(cms.dataSource, 'post_tag', 'River');
  });
  afterAll(async () => {
    await wp.app.close();
    await cms.close();
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
  });

  it('words errors and descriptions as WordPress 6.1 does, and as the spec with cms names', async () => {
    expect((await wp.http.get(`${WP}/posts/999999`).expect(404)).body.message).toBe('Invalid post ID.');
    expect((await cms.http.get(`${CMS}/posts/999999`).expect(404)).body.message).toBe('Invalid post id.');
    expect((await wp.http.get(`${WP}/types/nope`).expect(404)).body.message).toBe('Invalid post type.');
    expect((await cms.http.get(`${CMS}/types/nope`).expect(404)).body.message).toBe('Invalid resource.');
    const wpComments = await wp.http.options(`${WP}/comments/${commentId}`).expect(200);
    expect(wpComments.body.endpoints[0].args.id.description).toBe('Unique identifier for the comment.');
    expect(wpComments.body.schema.properties.content.description).toBe('The content for the comment.');
    const cmsComments = await cms.http.options(`${CMS}/comments/${commentId}`).expect(200);
    expect(cmsComments.body.endpoints[0].args.id.description).toBe('Unique identifier for the object.');
    const wpTags = await wp.http.options(`${WP}/tags/${tagId}`).expect(200);
    expect(wpTags.body.endpoints[2].args.force.description).toBe(
      'Required to be true, as terms do not support trashing.',
    );
  });

  it('gives posts no parent (pages keep theirs), and post collections no password, filter or parent_exclude', async () => {
    const post = await wp.http.get(`${WP}/posts/${postId}`).expect(200);
    expect(post.body).not.toHaveProperty('parent');
    expect((await cms.http.get(`${CMS}/posts/${postId}`).expect(200)).body.parent).toBe(0);
    expect((await wp.http.get(`${WP}/pages/${pageId}`).expect(200)).body.parent).toBe(0);
    const args = (await wp.http.options(`${WP}/posts`).expect(200)).body.endpoints[0].args;
    for (const name of ['password', 'filter', 'parent_exclude', 'parent']) expect(args).not.toHaveProperty(name);
    const cmsArgs = (await cms.http.options(`${CMS}/posts`).expect(200)).body.endpoints[0].args;
    for (const name of ['password', 'filter', 'parent_exclude']) expect(cmsArgs).toHaveProperty(name);
    expect((await wp.http.options(`${WP}/pages`).expect(200)).body.endpoints[0].args).toHaveProperty('parent_exclude');
  });

  it("gives comments WordPress 6.1's shape and rules", async () => {
    const [wpComment] = (
      await wp.http.get(`${WP}/comments?context=edit&parent=0`).set('Authorization', admin()).expect(200)
    ).body;
    expect(wpComment).not.toHaveProperty('karma');
    expect(wpComment._links.children).toEqual([
      { embeddable: true, href: `http://example.org${WP}/comments?parent=${commentId}` },
    ]);
    const [cmsComment] = (
      await cms.http.get(`${CMS}/comments?context=edit&parent=0`).set('Authorization', admin()).expect(200)
    ).body;
    expect(cmsComment.karma).toBe(0);
    expect(cmsComment._links.children).toEqual([{ href: `http://example.org${CMS}/comments?parent=${commentId}` }]);
    const schema = (await wp.http.options(`${WP}/comments`).expect(200)).body.schema.properties;
    expect(schema.type).toEqual({
      description: 'Type of the comment.',
      type: 'string',
      context: ['view', 'edit', 'embed'],
      readonly: true,
    });
    expect(schema.author_user_agent.readonly).toBeUndefined();

    // Creating a comment needs a post for every caller: an administrator's Allow leaves POST out.
    const refused = await wp.http.post(`${WP}/comments`).set('Authorization', admin()).send({ content: 'No post' });
    expectRestError(refused, 'rest_comment_invalid_post_id', 403);
    expect((await wp.http.get(`${WP}/comments`).set('Authorization', admin())).headers.allow).toBe('GET');
    expect((await cms.http.get(`${CMS}/comments`).set('Authorization', admin())).headers.allow).toBe('GET, POST');
    // A missing comment fails its read check: no Allow (the spec's still allows GET).
    const missing = await wp.http.get(`${WP}/comments/999999`).set('Authorization', admin());
    expectRestError(missing, 'rest_comment_invalid_id', 404);
    expect(missing.headers.allow).toBeUndefined();
    expect((await cms.http.get(`${CMS}/comments/999999`).set('Authorization', admin())).headers.allow).toBe('GET');
  });

  it('adds the edit-context extras and the schema links of WordPress 5.0+', async () => {
    const res = await wp.http.get(`${WP}/posts/${blockPostId}?context=edit`).set('Authorization', admin()).expect(200);
    expect(res.body.permalink_template).toBe('http://example.org/%postname%/');
    expect(res.body.generated_slug).toBe('blocks');
    expect(res.body.content.block_version).toBe(1);
    expect(res.body._links['wp:action-publish']).toEqual([{ href: `http://example.org${WP}/posts/${blockPostId}` }]);
    expect(
      Object.keys(res.body._links)
        .filter((rel) => rel.startsWith('wp:action-'))
        .sort(),
    ).toEqual([
      'wp:action-assign-author',
      'wp:action-assign-categories',
      'wp:action-assign-tags',
      'wp:action-create-categories',
      'wp:action-create-tags',
      'wp:action-publish',
      'wp:action-sticky',
      'wp:action-unfiltered-html',
    ]);
    const plain = await wp.http.get(`${WP}/posts/${postId}?context=edit`).set('Authorization', admin()).expect(200);
    expect(plain.body.content.block_version).toBe(0);
    // An author may publish but not change authors or make posts sticky.
    const author = await wp.http
      .get(`${WP}/posts/${postId}?context=edit`)
      .set('Authorization', wp.users.editor.authorization)
      .expect(200);
    expect(author.body._links['wp:action-publish']).toBeDefined();
    expect(author.body._links['wp:action-unfiltered-html']).toBeDefined();
    const schema = (await wp.http.options(`${WP}/posts`).expect(200)).body.schema;
    expect(schema.links[0]).toEqual({
      rel: 'https://api.w.org/action-publish',
      title: 'The current user can publish this post.',
      href: `http://example.org${WP}/posts/{id}`,
      targetSchema: { type: 'object', properties: { status: { type: 'string', enum: ['publish', 'future'] } } },
    });
    expect(schema.properties.permalink_template).toMatchObject({ context: ['edit'], readonly: true });

    const spec = await cms.http
      .get(`${CMS}/posts/${blockPostId}?context=edit`)
      .set('Authorization', admin())
      .expect(200);
    expect(spec.body).not.toHaveProperty('permalink_template');
    expect(spec.body.content).not.toHaveProperty('block_version');
    expect(Object.keys(spec.body._links).filter((rel) => rel.includes('action-'))).toEqual([]);
    expect((await cms.http.options(`${CMS}/posts`).expect(200)).body.schema).not.toHaveProperty('links');
  });

  it('answers a permanent delete with {deleted, previous} and trashing with the trashed post', async () => {
    const trashMe = (await createPost(cms.dataSource, { title: 'Trash me' })).id;
    const trashed = await wp.http.delete(`${WP}/posts/${trashMe}`).set('Authorization', admin()).expect(200);
    expect(trashed.body).toMatchObject({ id: trashMe, status: 'trash' });
    const deleted = await wp.http.delete(`${WP}/posts/${trashMe}?force=true`).set('Authorization', admin()).expect(200);
    expect(deleted.body).toMatchObject({ deleted: true, previous: { id: trashMe, status: 'trash' } });
    expect(deleted.body.previous).not.toHaveProperty('_links');
    const tag = await createTerm(cms.dataSource, 'post_tag', 'Gone');
    const term = await wp.http.delete(`${WP}/tags/${tag}?force=true`).set('Authorization', admin()).expect(200);
    expect(term.body).toMatchObject({ deleted: true, previous: { id: tag, name: 'Gone' } });

    const specPost = (await createPost(cms.dataSource, { title: 'Spec trash' })).id;
    const specTrashed = await cms.http.delete(`${CMS}/posts/${specPost}`).set('Authorization', admin()).expect(200);
    expect(specTrashed.body).toMatchObject({ id: specPost, status: 'publish' });
    const specDeleted = await cms.http.delete(`${CMS}/posts/${specPost}?force=true`).set('Authorization', admin());
    expect(specDeleted.body).toMatchObject({ id: specPost });
    expect(specDeleted.body).not.toHaveProperty('deleted');
  });

  it("leaves out a written post's unknown term ids as WordPress does, and refuses them with cms names", async () => {
    const body = { title: 'Tagged', categories: [999999, 1], tags: [tagId, 888888] };
    const wpPost = await wp.http.post(`${WP}/posts`).set('Authorization', admin()).send(body);
    expect([wpPost.status, wpPost.body.categories, wpPost.body.tags]).toEqual([201, [1], [tagId]]);
    const emptied = await wp.http
      .post(`${WP}/posts/${wpPost.body.id}`)
      .set('Authorization', admin())
      .send({ categories: [999999] });
    expect([emptied.status, emptied.body.categories]).toEqual([200, []]);
    const cmsPost = await cms.http.post(`${CMS}/posts`).set('Authorization', admin()).send(body);
    expectRestError(cmsPost, 'rest_invalid_param', 400);
    expect(cmsPost.body.data.params).toEqual({ categories: '999999 is not a term of the category taxonomy.' });
  });

  it('shapes terms as WordPress 6.1: offset on flat taxonomies only, their own taxonomy, parent ignored on tags', async () => {
    const categories = (await wp.http.options(`${WP}/categories`).expect(200)).body;
    expect(categories.endpoints[0].args).not.toHaveProperty('offset');
    expect(categories.schema.properties.taxonomy.enum).toEqual(['category']);
    expect((await cms.http.options(`${CMS}/categories`).expect(200)).body.endpoints[0].args).toHaveProperty('offset');
    await wp.http.get(`${WP}/tags?parent=0`).expect(200);
    expectRestError(await cms.http.get(`${CMS}/tags?parent=0`), 'rest_taxonomy_not_hierarchical', 400);
    const missing = await wp.http.get(`${WP}/tags/999999`);
    expectRestError(missing, 'rest_term_invalid', 404);
    expect(missing.body.message).toBe('Term does not exist.');
    expect(missing.headers.allow).toBeUndefined();
    // A null default shows in WordPress's descriptions.
    expect((await wp.http.options(`${WP}/tags`).expect(200)).body.endpoints[0].args.post.default).toBeNull();
    expect((await cms.http.options(`${CMS}/tags`).expect(200)).body.endpoints[0].args.post).not.toHaveProperty(
      'default',
    );
  });

  it("serves the index, namespace index and settings as WordPress 6.1's", async () => {
    const index = await wp.http.get('/wp-json/?context=bogus').expect(200);
    expect(index.body.authentication).toEqual({
      'application-passwords': {
        endpoints: { authorization: 'http://example.org/wp-admin/authorize-application.php' },
      },
    });
    expect(index.body).toMatchObject({ site_logo: 0, site_icon: 0, site_icon_url: '' });
    expect(index.body.routes['/'].endpoints[0].args).toEqual({ context: { default: 'view', required: false } });
    const spec = await cms.http.get('/cms-json/').expect(200);
    expect(spec.body.authentication).toEqual([]);
    expect(spec.body).not.toHaveProperty('site_logo');
    expectRestError(await cms.http.get('/cms-json/?context=bogus'), 'rest_invalid_param', 400);
    expect((await wp.http.get(WP).expect(200)).body).not.toHaveProperty('namespaces');
    expect((await cms.http.get(CMS).expect(200)).body.namespaces).toContain('cms/v2');
    expect((await wp.http.options(`${WP}/settings`).expect(200)).body.endpoints[0].args).toEqual([]);
    expect((await cms.http.options(`${CMS}/settings`).expect(200)).body.endpoints[0].args).toHaveProperty('context');
  });

  it('refuses a posts page past the last, writes a false argument bare in Link headers, and gives media a template', async () => {
    expectRestError(await wp.http.get(`${WP}/posts?page=99`), 'rest_post_invalid_page_number', 400);
    expect((await cms.http.get(`${CMS}/posts?page=99`).expect(200)).body).toEqual([]);
    const sticky = await wp.http.get(`${WP}/posts?sticky=false&per_page=1`).expect(200);
    expect(sticky.headers.link).toContain(`${WP}/posts?sticky&per_page=1&page=2>; rel="next"`);
    const specSticky = await cms.http.get(`${CMS}/posts?sticky=false&per_page=1`).expect(200);
    expect(specSticky.headers.link).toContain(`${CMS}/posts?sticky=0&per_page=1&page=2>; rel="next"`);
    const media = (await wp.http.options(`${WP}/media/1`).expect(200)).body;
    expect(media.endpoints[0].args).not.toHaveProperty('password');
    expect(media.schema.properties).toHaveProperty('template');
    const specMedia = (await cms.http.options(`${CMS}/media/1`).expect(200)).body;
    expect(specMedia.endpoints[0].args).toHaveProperty('password');
    expect(specMedia.schema.properties).not.toHaveProperty('template');
  });

  it("applies WordPress 6.1's rules: authors make posts sticky and create tags, refusals of user creation 403", async () => {
    const author = wp.users.author.authorization;
    const sticky = await wp.http
      .post(`${WP}/posts`)
      .set('Authorization', author)
      .send({ title: 'Pinned', status: 'publish', sticky: true })
      .expect(201);
    expect(sticky.body.sticky).toBe(true);
    expectRestError(
      await cms.http
        .post(`${CMS}/posts`)
        .set('Authorization', author)
        .send({ title: 'Pinned', status: 'publish', sticky: true }),
      'rest_cannot_assign_sticky',
      403,
    );
    expectRestError(
      await wp.http.post(`${WP}/posts`).set('Authorization', wp.users.contributor.authorization).send({ sticky: true }),
      'rest_cannot_assign_sticky',
      403,
    );
    // Flat taxonomies: assign_terms (edit_posts); hierarchical ones: edit_terms (manage_categories).
    await wp.http.post(`${WP}/tags`).set('Authorization', author).send({ name: 'Author tag' }).expect(201);
    expectRestError(
      await wp.http.post(`${WP}/categories`).set('Authorization', author).send({ name: 'No' }),
      'rest_cannot_create',
      403,
    );
    expectRestError(
      await cms.http.post(`${CMS}/tags`).set('Authorization', author).send({ name: 'Spec tag' }),
      'rest_cannot_create',
      403,
    );
    const newUser = { username: 'dialect-new', email: 'dialect-new@example.org', password: 'x-Dialect-1' };
    expectRestError(
      await wp.http.post(`${WP}/users`).set('Authorization', author).send(newUser),
      'rest_cannot_create_user',
      403,
    );
    expectRestError(await wp.http.post(`${WP}/users`).send(newUser), 'rest_cannot_create_user', 401);
    expectRestError(
      await cms.http.post(`${CMS}/users`).set('Authorization', author).send(newUser),
      'rest_cannot_create_user',
      401,
    );
  });

  it('sends the no-cache headers to logged-in callers only with WordPress names, to everyone with cms names', async () => {
    const anonymous = await wp.http.get(`${WP}/posts`).expect(200);
    expect(anonymous.headers['cache-control']).toBeUndefined();
    expect(anonymous.headers.expires).toBeUndefined();
    const loggedIn = await wp.http.get(`${WP}/posts`).set('Authorization', admin()).expect(200);
    expect(loggedIn.headers['cache-control']).toBe('no-cache, must-revalidate, max-age=0');
    expect(loggedIn.headers.expires).toBe('Wed, 11 Jan 1984 05:00:00 GMT');
    const spec = await cms.http.get(`${CMS}/posts`).expect(200);
    expect(spec.headers['cache-control']).toBe('no-cache, must-revalidate, max-age=0');
  });

  it('lets anonymous visitors comment only through rest_allow_anonymous_comments with WordPress names', async () => {
    const comment = { post: postId, content: 'Hi there', author_name: 'Ann', author_email: 'ann@example.org' };
    expectRestError(await wp.http.post(`${WP}/comments`).send(comment), 'rest_comment_login_required', 401);
    const hooks = wp.app.get(HookRegistry);
    const remove = hooks.addFilter('rest_allow_anonymous_comments', () => true);
    let allowed: number;
    try {
      allowed = (
        await wp.http
          .post(`${WP}/comments`)
          .send({ ...comment, content: 'Allowed by a filter' })
          .expect(201)
      ).body.id;
    } finally {
      remove();
    }
    // Older than the flood interval, so that the next comment from this address is taken.
    const comments = cms.dataSource.getMetadata(CommentEntity).tableName;
    await cms.dataSource.query(
      `UPDATE ${comments} SET comment_date = '2001-01-01 00:00:00', comment_date_gmt = '2001-01-01 00:00:00' WHERE comment_ID = ?`,
      [allowed],
    );
    await cms.http
      .post(`${CMS}/comments`)
      .send({ ...comment, content: 'The spec lets me' })
      .expect(201);
  });
});
