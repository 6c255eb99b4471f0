import { EntityManager } from 'typeorm';
import { PostEntity } from '../../core/database/entities/post.entity';
import { isMySql } from '../../core/database/query-helpers';
import { hydrate, rawEntities, rawQuery } from '../../core/database/raw-query';
import { PostTypeObject } from '../../core/registry/content-types';
import { keepsRevisions, latestRevisionSql } from './post-revision-save';
import { postTermsFrom } from './post-terms';

// A post's row as a write reads it within its transaction, and as an update stored it.

/** The post a save reads within its transaction is gone. */
export class MissingPost extends Error {}

/**
 * A post's row read through the transaction, as plain SQL (TypeORM's query building was a good part of a save's
 * CPU). An update locks its row with {@link lockedWithin}.
 */
export async function postWithin(em: EntityManager, id: number): Promise<PostEntity> {
  const metadata = em.connection.getMetadata(PostEntity);
  const [post] = await rawEntities<PostEntity>(em, metadata, `SELECT * FROM ${metadata.tableName} WHERE ID = ?`, [id]);
  if (!post) throw new MissingPost();
  return post;
}

/**
 * A post's row locked for an update (on MySQL, until the commit), read in one statement with what its save needs
 * to know besides: whether it has categories (`categories`: of a type that has them), and its latest revision when
 * its type keeps revisions (see {@link latestRevisionSql}). Neither changes before the save looks at them: the
 * update writes no terms unless asked, and a post's revisions are written by saves of the post, which wait for
 * its lock.
 */
export async function lockedWithin(
  em: EntityManager,
  type: PostTypeObject,
  id: number,
  categories: boolean,
): Promise<LockedPost> {
  const metadata = em.connection.getMetadata(PostEntity);
  const posts = metadata.tableName;
  const extra: string[] = [];
  const params: unknown[] = [];
  if (categories) extra.push(`EXISTS (SELECT 1 ${postTermsFrom(em, 'p.ID', "'category'")}) AS x_has_category`);
  const revisions = keepsRevisions(type);
  let join = '';
  if (revisions) {
    extra.push(
      'lr.ID AS x_revision_id',
      'lr.post_title AS x_revision_title',
      'lr.post_content AS x_revision_content',
      'lr.post_excerpt AS x_revision_excerpt',
    );
    join = ` LEFT JOIN ${posts} lr ON lr.ID = (${latestRevisionSql(posts, 'p.ID')})`;
    params.push(`${id}-autosave-v1`);
  }
  params.push(id);
  const rows = await rawQuery(
    em,
    `SELECT p.*${extra.map((e) => `, ${e}`).join('')} FROM ${posts} p${join} WHERE p.ID = ?${isMySql(em.connection) ? ' FOR UPDATE' : ''}`,
    params,
  );
  const [found] = rows;
  if (!found) throw new MissingPost();
  const [post] = hydrate<PostEntity>(metadata, rows);
  const latestRevision =
    !revisions || found.x_revision_id === null || found.x_revision_id === undefined
      ? null
      : ({
          id: Number(found.x_revision_id),
          title: found.x_revision_title,
          content: found.x_revision_content,
          excerpt: found.x_revision_excerpt,
        } as PostEntity);
  return {
    post,
    hasCategory: categories ? Number(found.x_has_category) > 0 : false,
    latestRevision: revisions ? latestRevision : undefined,
  };
}

/** A post's row read under its lock for an update, with what the save needs besides (see {@link lockedWithin}). */
export interface LockedPost {
  post: PostEntity;
  /** Whether it has categories (`false` for a type without them). */
  hasCategory: boolean;
  /** Its latest revision's id, title, content and excerpt (`null`: none); `undefined` for a type without revisions. */
  latestRevision: PostEntity | null | undefined;
}

/**
 * Whether every text written is well-formed UTF-16: both drivers store a lone surrogate as replacement characters,
 * without a warning, so a row written with one is read back.
 */
export function wellFormed(written: Partial<PostEntity>): boolean {
  for (const value of Object.values(written)) if (typeof value === 'string' && LONE_SURROGATE.test(value)) return false;
  return true;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** A post's row as an update stored it: the row read under its lock, with the columns written. */
export function storedRow(current: PostEntity, written: Partial<PostEntity>): PostEntity {
  const post = Object.assign(Object.create(Object.getPrototypeOf(current) as object) as PostEntity, current);
  for (const [key, value] of Object.entries(written))
    if (value !== undefined) (post as unknown as Record<string, unknown>)[key] = value;
  return post;
}
