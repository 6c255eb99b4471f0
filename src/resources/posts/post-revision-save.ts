import { EntityManager } from 'typeorm';
import { PostEntity } from '../../core/database/entities/post.entity';
import { insertRow, updateRow } from '../../core/database/query-helpers';
import { rawEntities } from '../../core/database/raw-query';
import { normalizeWhitespace } from '../../core/formatting';
import { PostTypeObject } from '../../core/registry/content-types';
import { EMPTY_COLUMNS } from './post-insert-rules';
import type { WriteContext } from './post-writer.service';

/** Whether posts of `type` keep revisions. */
export function keepsRevisions(type: PostTypeObject): boolean {
  return type.supports.revisions !== undefined;
}

/**
 * The id of a post's latest revision (not its autosave), as `wp_get_post_revisions()` orders them, through the
 * revisions' key: a subquery of the post's id (`parent`: a column or `?`) and then the autosave's slug (`?`).
 */
export function latestRevisionSql(posts: string, parent: string): string {
  return `SELECT r.ID FROM ${posts} r WHERE r.post_parent = ${parent} AND r.post_type = 'revision' AND r.post_status = 'inherit' AND r.post_name <> ? ORDER BY r.post_date DESC, r.ID DESC LIMIT 1`;
}

/**
 * The write context of an autosave that updates the post itself (the author's own draft): WordPress defines
 * `DOING_AUTOSAVE` for it, and `wp_save_post_revision()` stores no revision then.
 */
export interface AutosaveWriteContext extends WriteContext {
  readonly doingAutosave: true;
}

/**
 * `wp_save_post_revision()`: after an update (not an autosave's, see {@link AutosaveWriteContext}), stores the post's title, content and excerpt as a revision when they
 * differ from the latest revision (`wp_get_post_revisions()`: status `inherit`, newest first), or when there is none yet.
 */
export async function saveRevision(
  em: EntityManager,
  type: PostTypeObject,
  post: PostEntity,
  ctx: WriteContext,
  known?: PostEntity | null,
): Promise<void> {
  if (!keepsRevisions(type) || post.status === 'auto-draft' || ('doingAutosave' in ctx && ctx.doingAutosave)) return;
  // The latest revision (not the autosave), unless read with the post's row.
  const metadata = em.connection.getMetadata(PostEntity);
  const latest =
    known !== undefined
      ? known
      : (
          await rawEntities<PostEntity>(
            em,
            metadata,
            `SELECT ID, post_title, post_content, post_excerpt FROM ${metadata.tableName} WHERE ID = (${latestRevisionSql(metadata.tableName, '?')})`,
            [post.id, `${post.id}-autosave-v1`],
          )
        )[0];
  if (latest) {
    const same = (['title', 'content', 'excerpt'] as const).every(
      (k) => normalizeWhitespace(post[k]) === normalizeWhitespace(latest[k]),
    );
    if (same) return;
  }
  const id = await insertRow(em, PostEntity, {
    ...EMPTY_COLUMNS,
    author: ctx.actor,
    date: post.modified,
    dateGmt: post.modifiedGmt,
    content: post.content,
    title: post.title,
    excerpt: post.excerpt,
    status: 'inherit',
    type: 'revision',
    commentStatus: 'closed',
    pingStatus: 'closed',
    name: `${post.id}-revision-v1`,
    modified: post.modified,
    modifiedGmt: post.modifiedGmt,
    parent: post.id,
  });
  await updateRow(em, PostEntity, id, { guid: `${ctx.home}/?p=${id}` });
}
