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
  return (await uniquePostSlugs(em, [{ slug, post, type }], permalinkStructure))[0];
}

/** One slug to make unique for a post (see {@link uniquePostSlugs}). */
export interface SlugWanted {
  slug: string;
  post: PostEntity;
  type: PostTypeObject | undefined;
}

/**
 * `wp_unique_post_slug()` for several posts at once, with one query for all of them: the rows whose name is one of
 * the slugs or one of them followed by `-…`, then each post's rules (its type, its parent) applied to those rows.
 */
export async function uniquePostSlugs(
  em: EntityManager,
  wanted: readonly SlugWanted[],
  permalinkStructure: string,
): Promise<string[]> {
  const checked = wanted.filter(({ post }) => !keepsSlug(post));
  const rows = checked.length ? await namesLike(em, [...new Set(checked.map((w) => w.slug))]) : [];
  return wanted.map((w) => (keepsSlug(w.post) ? w.slug : freeSlug(w, rows, permalinkStructure)));
}

/** Posts whose slug WordPress does not make unique (floating drafts, revisions). */
function keepsSlug(post: PostEntity): boolean {
  return FLOATING.includes(post.status) || (post.status === 'inherit' && post.type === 'revision');
}

interface NamedRow {
  id: number;
  name: string;
  type: string;
  parent: number;
}

/** The rows named one of `slugs`, or one of them followed by `-` and anything. */
async function namesLike(em: EntityManager, slugs: string[]): Promise<NamedRow[]> {
  const qb = em
    .getRepository(PostEntity)
    .createQueryBuilder('p')
    .select(['p.id AS id', 'p.name AS name', 'p.type AS type', 'p.parent AS parent']);
  const conditions: string[] = [];
  const params: Record<string, string> = {};
  slugs.forEach((slug, i) => {
    const [condition, values] = slugOrSuffixed(em, slug, `s${i}`);
    conditions.push(condition);
    Object.assign(params, values);
  });
  qb.where(`(${conditions.join(' OR ')})`, params);
  return (await qb.getRawMany<NamedRow>()).map((r) => ({ ...r, id: Number(r.id), parent: Number(r.parent) }));
}

/** The slug of one post, free among `rows` under its type's rules. */
function freeSlug({ slug, post, type }: SlugWanted, rows: readonly NamedRow[], permalinkStructure: string): string {
  const others = rows.filter((r) => r.id !== (post.id || 0));
  let conflicts: NamedRow[];
  let reserved = FEEDS.includes(slug) || slug === 'embed';
  if (post.type === 'attachment') {
    // Attachment slugs are unique across every type.
    conflicts = others;
  } else if (type?.hierarchical) {
    if (post.type === 'nav_menu_item') return slug;
    conflicts = others.filter(
      (r) => (r.type === post.type || r.type === 'attachment') && r.parent === (post.parent || 0),
    );
    reserved ||= /^(page)?\d+$/.test(slug);
  } else {
    conflicts = others.filter((r) => r.type === post.type);
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
  const taken = new Set(conflicts.map((r) => r.name));
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
function slugOrSuffixed(em: EntityManager, slug: string, key: string): [string, Record<string, string>] {
  if (em.connection.options.type === 'better-sqlite3' || em.connection.options.type === 'sqlite') {
    return [
      `(p.name = :${key} OR (p.name >= :${key}from AND p.name < :${key}to))`,
      { [key]: slug, [`${key}from`]: `${slug}-`, [`${key}to`]: `${slug}.` },
    ];
  }
  return [
    `(p.name = :${key} OR p.name LIKE :${key}like ESCAPE '!')`,
    { [key]: slug, [`${key}like`]: `${escapeLike(slug)}-%` },
  ];
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
