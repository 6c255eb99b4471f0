import { Injectable, Module, OnModuleInit } from '@nestjs/common';
import { CapabilityService } from '../../src';
import { PostEntity } from '../../src/core/database/entities/post.entity';
import { createPost } from '../factories/post.factory';
import { createTestApp, expectRestError, TestApp } from '../utils/test-app';

const WP = '/wp-json/wp/v2';
const CMS = '/cms-json/cms/v2';

/** The revisions of a post as stored, oldest first. */
async function storedRevisions(t: TestApp, parent: number): Promise<PostEntity[]> {
  const rows = await t.dataSource
    .getRepository(PostEntity)
    .find({ where: { parent, type: 'revision' }, order: { id: 'ASC' } });
  return rows.map((r) => ({ ...r, id: Number(r.id), parent: Number(r.parent) }));
}

/** A post with one revision (made by an update through the API); returns both ids. */
async function postWithRevision(t: TestApp, api: string): Promise<{ post: number; revision: number }> {
  const post = (await createPost(t.dataSource, { author: t.users.editor.id, title: 'First', content: 'One.' })).id;
  await t.http
    .put(`${api}/posts/${post}`)
    .set('Authorization', t.users.editor.authorization)
    .send({ content: 'Two.' })
    .expect(200);
  const [revision] = await storedRevisions(t, post);
  return { post, revision: revision.id };
}

describe('revisions with WordPress names: deleting', () => {
  let wp: TestApp;
  let cms: TestApp;

  beforeAll(async () => {
    wp = await createTestApp('revisions_wp', { cms: { wireNames: 'wordpress' } });
    cms = await createTestApp('revisions_wp_cms');
  });
  afterAll(async () => {
    await wp.close();
    await cms.close();
  });

  it('answers Allow: GET to an administrator, as WordPress 6.1 (delete_post of a revision maps to do_not_allow)', async () => {
    const { post, revision } = await postWithRevision(wp, WP);
    const res = await wp.http
      .get(`${WP}/posts/${post}/revisions/${revision}`)
      .set('Authorization', wp.users.administrator.authorization)
      .expect(200);
    expect(res.headers.allow).toBe('GET');
  });

  it('keeps the spec’s Allow: GET, DELETE with the cms names', async () => {
    const { post, revision } = await postWithRevision(cms, CMS);
    const res = await cms.http
      .get(`${CMS}/posts/${post}/revisions/${revision}`)
      .set('Authorization', cms.users.administrator.authorization)
      .expect(200);
    expect(res.headers.allow?.split(', ').sort()).toEqual(['DELETE', 'GET']);
  });

  it('refuses to delete a revision, even to an administrator: rest_cannot_delete', async () => {
    const { post, revision } = await postWithRevision(wp, WP);
    const res = await wp.http
      .delete(`${WP}/posts/${post}/revisions/${revision}?force=true`)
      .set('Authorization', wp.users.administrator.authorization);
    expectRestError(res, 'rest_cannot_delete', 403);
    expect(res.body.message).toBe('Sorry, you are not allowed to delete this revision.');
    expect(await storedRevisions(wp, post)).toHaveLength(1);
  });

  it('checks delete_post of the post first: 401 anonymous, 403 to a contributor (rest_cannot_delete)', async () => {
    const { post, revision } = await postWithRevision(wp, WP);
    const path = `${WP}/posts/${post}/revisions/${revision}?force=true`;
    expectRestError(await wp.http.delete(path), 'rest_cannot_delete', 401);
    expectRestError(
      await wp.http.delete(path).set('Authorization', wp.users.contributor.authorization),
      'rest_cannot_delete',
      403,
    );
    expectRestError(
      await wp.http
        .delete(`${WP}/posts/99999999/revisions/${revision}?force=true`)
        .set('Authorization', wp.users.editor.authorization),
      'rest_post_invalid_parent',
      404,
    );
    expectRestError(
      await wp.http
        .delete(`${WP}/posts/${post}/revisions/99999999?force=true`)
        .set('Authorization', wp.users.editor.authorization),
      'rest_post_invalid_id',
      404,
    );
    expect(await storedRevisions(wp, post)).toHaveLength(1);
  });
});

/** Lets editors delete revisions again, as a site may through the `map_meta_cap` filter. */
@Injectable()
class RevisionDeletion implements OnModuleInit {
  constructor(private readonly caps: CapabilityService) {}

  onModuleInit(): void {
    this.caps.registerMetaCap('delete_post', () => ['delete_others_posts']);
  }
}

@Module({ providers: [RevisionDeletion] })
class RevisionDeletionModule {}

describe('revisions with WordPress names: deleting where a site allows it', () => {
  let wp: TestApp;

  beforeAll(async () => {
    wp = await createTestApp('revisions_wp_delete', {
      cms: { wireNames: 'wordpress' },
      extensions: [RevisionDeletionModule],
    });
  });
  afterAll(() => wp.close());

  it('answers Allow: GET, DELETE then', async () => {
    const { post, revision } = await postWithRevision(wp, WP);
    const res = await wp.http
      .get(`${WP}/posts/${post}/revisions/${revision}`)
      .set('Authorization', wp.users.editor.authorization)
      .expect(200);
    expect(res.headers.allow?.split(', ').sort()).toEqual(['DELETE', 'GET']);
  });

  it('refuses to trash a revision: rest_trash_not_supported', async () => {
    const { post, revision } = await postWithRevision(wp, WP);
    const res = await wp.http
      .delete(`${WP}/posts/${post}/revisions/${revision}`)
      .set('Authorization', wp.users.editor.authorization);
    expectRestError(res, 'rest_trash_not_supported', 501);
    expect(await storedRevisions(wp, post)).toHaveLength(1);
  });

  it('answers { deleted: true, previous } with the revision as it was, in the view context', async () => {
    const { post, revision } = await postWithRevision(wp, WP);
    const res = await wp.http
      .delete(`${WP}/posts/${post}/revisions/${revision}?force=true`)
      .set('Authorization', wp.users.editor.authorization)
      .expect(200);
    expect(Object.keys(res.body)).toEqual(['deleted', 'previous']);
    expect(res.body.deleted).toBe(true);
    expect(res.body.previous).toMatchObject({ id: revision, parent: post, content: { rendered: '<p>Two.</p>\n' } });
    // The view context: no raw values, and no links in `previous`.
    expect(res.body.previous.content.raw).toBeUndefined();
    expect(res.body.previous._links).toBeUndefined();
    expect(await storedRevisions(wp, post)).toHaveLength(0);
  });
});
