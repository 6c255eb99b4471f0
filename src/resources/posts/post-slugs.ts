import { EntityManager } from 'typeorm';
import { PostEntity } from '../../core/database/entities/post.entity';
import { PostMetaEntity } from '../../core/database/entities/post-meta.entity';
import { escapeLike } from '../../core/database/query-helpers';
import { PostTypeObject } from '../../core/registry/content-types';

const FLOATING = ['draft', 'pending', 'auto-draft'];
const FEEDS = ['feed', 'rdf', 'rss', 'rss2', 'atom'];

/** `wp_unique_post_slug()`: the slug, or the slug with the first free `-N` suffix (`type`: the post's type object). */
export async function uniquePostSlug(
  em: EntityManager,
  slug: string,
  post: PostEntity,
  type: PostTypeObject | undefined,
  permalinkStructure: string,
): Promise<string> {
  if (FLOATING.includes(post.status) || (post.status === 'inherit' && post.type === 'revision')) return slug;
  const qb = em
    .getRepository(PostEntity)
    .createQueryBuilder('p')
    .select('p.name', 'name')
    .where(...slugOrSuffixed(em, slug))
    .andWhere('p.id != :id', { id: post.id || 0 });
  let reserved = FEEDS.includes(slug) || slug === 'embed';
  if (post.type === 'attachment') {
    // Attachment slugs are unique across every type.
  } else if (type?.hierarchical) {
    if (post.type === 'nav_menu_item') return slug;
    qb.andWhere("p.type IN (:type, 'attachment')", { type: post.type }).andWhere('p.parent = :parent', {
      parent: post.parent || 0,
    });
    reserved ||= /^(page)?\d+$/.test(slug);
  } else {
    qb.andWhere('p.type = :type', { type: post.type });
    if (post.type === 'post' && /^[0-9]+$/.test(slug) && Number(slug) > 0) {
      const structure = permalinkStructure.split('/').filter(Boolean);
      const at = structure.indexOf('%postname%');
      const n = Number(slug);
      reserved ||=
        at === 0 ||
        (at > 0 && structure[at - 1] === '%year%' && n < 13) ||
        (at > 0 && structure[at - 1] === '%monthnum%' && n < 32);
    }
  }
  const taken = new Set((await qb.getRawMany<{ name: string }>()).map((r) => r.name));
  if (!taken.has(slug) && !reserved) return slug;
  for (let suffix = 2; ; suffix++) {
    const candidate = `${truncateSlug(slug, 200 - (String(suffix).length + 1))}-${suffix}`;
    if (!taken.has(candidate)) return candidate;
  }
}

/**
 * The condition "the slug, or the slug followed by `-` and anything". SQLite does not search an index for LIKE
 * (case-insensitive by default), so there the suffixed slugs are the range between `slug-` and `slug.` (the next
 * character), which its binary collation orders that way; MySQL searches its index for a LIKE prefix under any
 * collation.
 */
function slugOrSuffixed(em: EntityManager, slug: string): [string, Record<string, string>] {
  if (em.connection.options.type === 'better-sqlite3' || em.connection.options.type === 'sqlite') {
    return ['(p.name = :slug OR (p.name >= :from AND p.name < :to))', { slug, from: `${slug}-`, to: `${slug}.` }];
  }
  return ["(p.name = :slug OR p.name LIKE :like ESCAPE '!')", { slug, like: `${escapeLike(slug)}-%` }];
}

/** Whether `parent` is the post itself or one of its descendants. */
export async function isOwnAncestor(em: EntityManager, postId: number, parent: number): Promise<boolean> {
  const seen = new Set<number>();
  for (let id = parent; id > 0 && !seen.has(id);) {
    if (id === postId) return true;
    seen.add(id);
    const row = await em.getRepository(PostEntity).findOne({ select: { id: true, parent: true }, where: { id } });
    id = row ? Number(row.parent) : 0;
  }
  return false;
}

/** `wp_check_for_changed_slugs()`: a published post remembers its former slugs in `_wp_old_slug`. */
export async function recordOldSlug(
  em: EntityManager,
  type: PostTypeObject,
  before: PostEntity,
  post: PostEntity,
): Promise<void> {
  if (post.name === before.name || type.hierarchical) return;
  if (!(post.status === 'publish' || (post.type === 'attachment' && post.status === 'inherit'))) return;
  const meta = em.getRepository(PostMetaEntity);
  const old = (await meta.find({ where: { postId: post.id, key: '_wp_old_slug' } })).map((m) => m.value);
  if (before.name && !old.includes(before.name))
    await meta.insert({ postId: post.id, key: '_wp_old_slug', value: before.name });
  if (old.includes(post.name)) await meta.delete({ postId: post.id, key: '_wp_old_slug', value: post.name });
}

/** `_truncate_post_slug()`: at most `length` characters, without cutting a percent-encoded octet. */
export function truncateSlug(slug: string, length: number): string {
  if (slug.length <= length) return slug;
  return slug.slice(0, length).replace(/%[0-9a-f]?$/i, '');
}
