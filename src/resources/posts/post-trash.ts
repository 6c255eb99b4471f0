import { EntityManager, In } from 'typeorm';
import { CommentEntity } from '../../core/database/entities/comment.entity';
import { CommentMetaEntity } from '../../core/database/entities/comment-meta.entity';
import { PostEntity } from '../../core/database/entities/post.entity';
import { PostMetaEntity } from '../../core/database/entities/post-meta.entity';
import { TermRelationshipEntity } from '../../core/database/entities/term-relationship.entity';
import { ZERO_DATE } from '../../core/database/mysql-date';
import { maybeSerialize } from '../../core/formatting/php-serialize';
import { PostTypeObject } from '../../core/registry/content-types';
import { recountTerms } from '../terms';
import { FLOATING } from './post-insert-rules';
import { PostWriteServices, unstick } from './post-relations';
import { saveRevision } from './post-revision-save';
import { postWithin } from './post-rows-within';
import { truncateSlug } from './post-slugs';
import { postTermTaxonomyIds } from './post-terms';
import type { WriteContext } from './post-writer.service';

// Trash and deletion within a write's transaction, once it holds the posts' turn (see `PostWriter`).

/** Moves a post to the trash (`wp_trash_post()`): remembers its status and slug, and hides its comments. */
export async function trashPost(
  em: EntityManager,
  services: PostWriteServices,
  type: PostTypeObject,
  post: PostEntity,
  ctx: WriteContext,
): Promise<void> {
  const meta = em.getRepository(PostMetaEntity);
  await meta.insert([
    { postId: post.id, key: '_wp_trash_meta_status', value: post.status },
    { postId: post.id, key: '_wp_trash_meta_time', value: String(Math.floor(Date.now() / 1000)) },
  ]);
  const now = ctx.clock.now();
  let name = post.name;
  if (!name.endsWith('__trashed')) {
    await meta.insert({ postId: post.id, key: '_wp_desired_post_slug', value: name });
    name = `${truncateSlug(name, 191)}__trashed`;
  }
  // A draft whose date floated takes the time it was trashed, as any update of it would.
  const dates =
    FLOATING.includes(post.status) && post.dateGmt === ZERO_DATE ? { date: now.local, dateGmt: now.gmt } : {};
  await em
    .getRepository(PostEntity)
    .update({ id: post.id }, { status: 'trash', name, modified: now.local, modifiedGmt: now.gmt, ...dates });
  const trashed = await postWithin(em, post.id);
  await unstick(em, services.options, post.id);
  await recountTerms(em, services.content, await postTermTaxonomyIds(em, post.id));
  await saveRevision(em, type, trashed, ctx);
  // wp_trash_post_comments(): comments wait in `post-trashed`, their statuses kept on the post.
  const comments = await em
    .getRepository(CommentEntity)
    .find({ select: { id: true, approved: true }, where: { postId: post.id } });
  if (comments.length) {
    const statuses = Object.fromEntries(comments.map((c) => [c.id, c.approved]));
    await meta.insert({ postId: post.id, key: '_wp_trash_meta_comments_status', value: maybeSerialize(statuses) });
    await em.getRepository(CommentEntity).update({ postId: post.id }, { approved: 'post-trashed' });
  }
}

/**
 * Deletes a post for good (`wp_delete_post()`): its terms (recounted), revisions, comments and meta; children of a
 * hierarchical type and attachments move up to its parent; it leaves the sticky list.
 */
export async function deletePost(
  em: EntityManager,
  services: PostWriteServices,
  type: PostTypeObject,
  post: PostEntity,
): Promise<void> {
  const posts = em.getRepository(PostEntity);
  const ttIds = await postTermTaxonomyIds(em, post.id);
  await em.getRepository(TermRelationshipEntity).delete({ objectId: post.id });
  await recountTerms(em, services.content, ttIds);
  if (type.hierarchical) await posts.update({ parent: post.id, type: type.name }, { parent: post.parent });
  const revisions = await posts.find({ select: { id: true }, where: { parent: post.id, type: 'revision' } });
  await deletePostRows(em, [post.id, ...revisions.map((r) => r.id)]);
  await posts.update({ parent: post.id, type: 'attachment' }, { parent: post.parent });
  await unstick(em, services.options, post.id);
}

/** Deletes posts' rows with their comments (and the comments' meta), meta and term relationships. */
export async function deletePostRows(em: EntityManager, ids: number[]): Promise<void> {
  if (!ids.length) return;
  const comments = await em.getRepository(CommentEntity).find({ select: { id: true }, where: { postId: In(ids) } });
  if (comments.length) await em.getRepository(CommentMetaEntity).delete({ commentId: In(comments.map((c) => c.id)) });
  await em.getRepository(CommentEntity).delete({ postId: In(ids) });
  await em.getRepository(PostMetaEntity).delete({ postId: In(ids) });
  await em.getRepository(TermRelationshipEntity).delete({ objectId: In(ids) });
  await em.getRepository(PostEntity).delete({ id: In(ids) });
}
