import { EntityManager } from 'typeorm';
import { PostEntity } from '../../core/database/entities/post.entity';
import { PostMetaEntity } from '../../core/database/entities/post-meta.entity';
import { OptionsService } from '../../core/options/options.service';
import { ContentRegistry } from '../../core/registry/content-registry.service';
import { applyMetaWrites } from '../../core/rest/meta-fields';
import { recountTerms } from '../terms';
import { ensureTerm, postTermTaxonomyIds, replacePostTerms } from './post-terms';
import { NeedsTurn } from './post-write-turn';
import type { PostRelations, WriteContext } from './post-writer.service';

// Everything a post's write changes around its row: the sticky list, featured image, page template, format, terms
// with their counts, and meta.

/** The services the writes around a post's row use. */
export interface PostWriteServices {
  content: ContentRegistry;
  options: OptionsService;
}

/** Writes what a save changes besides the row (see {@link PostRelations}); `turn`: whether the posts' turn is held. */
export async function applyRelations(
  em: EntityManager,
  services: PostWriteServices,
  post: PostEntity,
  before: PostEntity | null,
  r: PostRelations,
  ctx: WriteContext,
  turn = true,
): Promise<void> {
  const meta = em.getRepository(PostMetaEntity);
  if (r.sticky !== undefined && post.type === 'post') {
    await services.options.updateWithin(em, 'sticky_posts', (current) => {
      const ids = stickyIds(current);
      const has = ids.includes(post.id);
      if (r.sticky && !has) return [...ids, post.id];
      if (!r.sticky && has) return ids.filter((id) => id !== post.id);
      return undefined;
    });
  }
  if (r.featuredMedia !== undefined) {
    if (r.featuredMedia === 0) await meta.delete({ postId: post.id, key: '_thumbnail_id' });
    else {
      // set_post_thumbnail(): an image is kept, another existing post removes the featured image, a missing id changes nothing.
      const media = await em
        .getRepository(PostEntity)
        .findOne({ select: { id: true, type: true, mimeType: true }, where: { id: r.featuredMedia } });
      if (media?.type === 'attachment' && media.mimeType.startsWith('image/'))
        await setSingleMeta(em, post.id, '_thumbnail_id', String(r.featuredMedia));
      else if (media) await meta.delete({ postId: post.id, key: '_thumbnail_id' });
    }
  }
  if (r.template !== undefined) {
    await setSingleMeta(em, post.id, '_wp_page_template', r.template);
  }
  const changed = new Set<number>();
  if (r.format) {
    const slug = r.format === 'standard' ? null : `post-format-${r.format}`;
    const ids = slug ? [await ensureTerm(em, 'post_format', slug)] : [];
    for (const id of await replacePostTerms(em, post.id, 'post_format', ids)) changed.add(id);
  }
  for (const [taxonomy, termIds] of r.terms ?? []) {
    for (const id of await replacePostTerms(em, post.id, taxonomy, termIds)) changed.add(id);
  }
  if (before && before.status !== post.status) for (const id of await postTermTaxonomyIds(em, post.id)) changed.add(id);
  // Counts are read from the transaction's snapshot: only a writer that took the turn first may write them.
  if (changed.size && !turn) throw new NeedsTurn();
  await recountTerms(em, services.content, [...changed]);
  if (r.meta?.length) await applyMetaWrites(em, PostMetaEntity, 'postId', post.id, r.meta);
}

async function setSingleMeta(em: EntityManager, postId: number, key: string, value: string): Promise<void> {
  await applyMetaWrites(em, PostMetaEntity, 'postId', postId, [{ key, action: 'single', value }]);
}

/** Takes a post out of the sticky list. */
export async function unstick(em: EntityManager, options: OptionsService, postId: number): Promise<void> {
  await options.updateWithin(em, 'sticky_posts', (current) => {
    const ids = stickyIds(current);
    return ids.includes(postId) ? ids.filter((id) => id !== postId) : undefined;
  });
}

/** The ids in the `sticky_posts` option. */
export function stickyIds(value: unknown): number[] {
  const list = Array.isArray(value) ? value : value && typeof value === 'object' ? Object.values(value) : [];
  return list.map(Number).filter((n) => Number.isInteger(n) && n > 0);
}
