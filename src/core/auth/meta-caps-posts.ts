/**
 * `map_meta_cap()` for posts: `edit_post`, `delete_post`, `read_post`, `publish_post` (and their `_page` forms), the
 * meta capabilities of post types registered with `map_meta_cap` and the block capabilities; with the port of
 * `get_post_status()` they read.
 */
import type { PostTypeObject } from '../registry/content-types';
import {
  DO_NOT_ALLOW,
  getPost,
  isset,
  looseEqualsId,
  MetaCapCall,
  MetaCapLookups,
  MetaCapRegistry,
  MetaCapUser,
  phpInt,
  PostLike,
  toId,
} from './meta-cap-lookups';

const PUBLISHED = ['publish', 'future'];

/**
 * Port of `get_post_status()`: an attachment with status `inherit` takes its parent's status (the parent's
 * pre-trash status when the parent is trashed; `publish` when unattached); other attachments are `publish`
 * unless private, trashed or auto-drafts.
 */
export async function getPostStatus(post: PostLike, lookups: MetaCapLookups, depth = 0): Promise<string> {
  let status = post.status;
  if (post.type === 'attachment' && status === 'inherit') {
    const parentId = toId(post.parent);
    const parent = parentId === null || parentId === post.id || depth > 8 ? null : await lookups.post(parentId);
    if (!parent) {
      status = 'publish';
    } else if ((await getPostStatus(parent, lookups, depth + 1)) === 'trash') {
      const before = await lookups.postMeta(parent.id, '_wp_trash_meta_status');
      status = typeof before === 'string' && before !== '' ? before : 'publish';
    } else {
      status = await getPostStatus(parent, lookups, depth + 1);
    }
  } else if (post.type === 'attachment' && !['private', 'trash', 'auto-draft'].includes(status)) {
    status = 'publish';
  }
  return status;
}

/** `$post->post_author && $user_id == $post->post_author`. */
function isAuthor(post: PostLike, user: MetaCapUser): boolean {
  const author = Number(post.author);
  return author > 0 && author === user.id;
}

/** `$post_type->cap->$name`, or `do_not_allow` when the post type does not define it (PHP's `null`). */
function typeCap(postType: PostTypeObject, name: string): string {
  return postType.cap[name] ?? DO_NOT_ALLOW;
}

/**
 * The capabilities `edit_post` / `delete_post` need by ownership and status (shared by both, as in the reference):
 * the author needs `<verb>_posts`, or `<verb>_published_posts` once published (a trashed post counts with the
 * status it had before trash); others need `<verb>_others_posts` plus the published or private variant.
 */
async function ownershipCaps(
  verb: 'edit' | 'delete',
  post: PostLike,
  postType: PostTypeObject,
  user: MetaCapUser,
  lookups: MetaCapLookups,
): Promise<string[]> {
  if (isAuthor(post, user)) {
    let status = post.status;
    if (status === 'trash') status = String(await lookups.postMeta(post.id, '_wp_trash_meta_status'));
    return [typeCap(postType, PUBLISHED.includes(status) ? `${verb}_published_posts` : `${verb}_posts`)];
  }
  const caps = [typeCap(postType, `${verb}_others_posts`)];
  if (PUBLISHED.includes(post.status)) caps.push(typeCap(postType, `${verb}_published_posts`));
  else if (post.status === 'private') caps.push(typeCap(postType, `${verb}_private_posts`));
  return caps;
}

/** The privacy policy page also needs `manage_privacy_options`. */
async function privacyPageCaps(
  post: PostLike,
  lookups: MetaCapLookups,
  recurse: (cap: string, args: readonly unknown[]) => Promise<string[]>,
): Promise<string[]> {
  // A post not stored yet (id 0, e.g. checked before it is created) is never the privacy page.
  return post.id > 0 && phpInt(await lookups.option('wp_page_for_privacy_policy')) === post.id
    ? recurse('manage_privacy_options', [])
    : [];
}

const META_CAPS = new WeakMap<MetaCapRegistry, { types: number; map: Map<string, string> }>();

/** {@link buildPostTypeMetaCaps}, worked out again only when post types were added. */
export function postTypeMetaCaps(registry: MetaCapRegistry): Map<string, string> {
  const types = registry.allPostTypes().length;
  const cached = META_CAPS.get(registry);
  if (cached && cached.types === types) return cached.map;
  const map = buildPostTypeMetaCaps(registry);
  META_CAPS.set(registry, { types, map });
  return map;
}

/** `$post_type_meta_caps`: the meta capabilities of post types registered with `map_meta_cap`. */
function buildPostTypeMetaCaps(registry: MetaCapRegistry): Map<string, string> {
  const map = new Map<string, string>();
  for (const type of registry.allPostTypes()) {
    if (!type.map_meta_cap) continue;
    for (const [core, custom] of Object.entries(type.cap)) {
      if (custom && (core === 'read_post' || core === 'delete_post' || core === 'edit_post')) map.set(custom, core);
    }
  }
  return map;
}

export const BLOCK_CAPS = new Set([
  'edit_blocks',
  'edit_others_blocks',
  'publish_blocks',
  'read_private_blocks',
  'delete_blocks',
  'delete_private_blocks',
  'delete_published_blocks',
  'delete_others_blocks',
  'edit_private_blocks',
  'edit_published_blocks',
]);

/**
 * The post `edit_post` or `read_post` is checked for, and its type (a revision stands for its parent); or, as
 * `caps`, the answer when there is nothing more to look at: `do_not_allow` without a post, `edit_others_posts` for a
 * type that is not registered, the type's own capability when it does not map meta capabilities.
 */
async function postAndType({
  cap,
  args,
  lookups,
}: MetaCapCall): Promise<{ post: PostLike; postType: PostTypeObject } | { caps: string[] }> {
  if (!isset(args[0])) return { caps: [DO_NOT_ALLOW] };
  let post = await getPost(lookups, args[0]);
  if (!post) return { caps: [DO_NOT_ALLOW] };
  if (post.type === 'revision') {
    post = await getPost(lookups, post.parent);
    if (!post) return { caps: [DO_NOT_ALLOW] };
  }
  const postType = lookups.registry.postType(post.type);
  if (!postType) return { caps: ['edit_others_posts'] };
  if (!postType.map_meta_cap) return { caps: [typeCap(postType, cap)] };
  return { post, postType };
}

/** {@link ownershipCaps} of `edit_post` or `delete_post`, with what the privacy policy page needs besides. */
async function ownerAndPrivacyCaps(
  verb: 'edit' | 'delete',
  post: PostLike,
  postType: PostTypeObject,
  { user, lookups, recurse }: MetaCapCall,
): Promise<string[]> {
  return [
    ...(await ownershipCaps(verb, post, postType, user, lookups)),
    ...(await privacyPageCaps(post, lookups, recurse)),
  ];
}

/** `delete_post`, `delete_page`. */
export async function deletePostCaps(call: MetaCapCall): Promise<string[]> {
  const { cap, args, lookups } = call;
  if (!isset(args[0])) return [DO_NOT_ALLOW];
  const post = await getPost(lookups, args[0]);
  if (!post) return [DO_NOT_ALLOW];
  if (post.type === 'revision') return [DO_NOT_ALLOW];
  if (
    looseEqualsId(await lookups.option('page_for_posts'), post.id) ||
    looseEqualsId(await lookups.option('page_on_front'), post.id)
  ) {
    return ['manage_options'];
  }
  const postType = lookups.registry.postType(post.type);
  if (!postType) return ['edit_others_posts'];
  if (!postType.map_meta_cap) return [typeCap(postType, cap)];

  return ownerAndPrivacyCaps('delete', post, postType, call);
}

/** `edit_post`, `edit_page`. */
export async function editPostCaps(call: MetaCapCall): Promise<string[]> {
  const found = await postAndType(call);
  return 'caps' in found ? found.caps : ownerAndPrivacyCaps('edit', found.post, found.postType, call);
}

/** `read_post`, `read_page`. */
export async function readPostCaps(call: MetaCapCall): Promise<string[]> {
  const found = await postAndType(call);
  if ('caps' in found) return found.caps;
  const { post, postType } = found;
  const { user, lookups } = call;
  const statusObject = lookups.registry.status(await getPostStatus(post, lookups));
  if (!statusObject) return ['edit_others_posts'];
  if (statusObject.public) return [typeCap(postType, 'read')];
  if (isAuthor(post, user)) return [typeCap(postType, 'read')];
  if (statusObject.private) return [typeCap(postType, 'read_private_posts')];
  return call.recurse('edit_post', [post]);
}

/** `publish_post`. */
export async function publishPostCaps({ args, lookups }: MetaCapCall): Promise<string[]> {
  if (!isset(args[0])) return [DO_NOT_ALLOW];
  const post = await getPost(lookups, args[0]);
  if (!post) return [DO_NOT_ALLOW];
  const postType = lookups.registry.postType(post.type);
  if (!postType) return ['edit_others_posts'];
  return [typeCap(postType, 'publish_posts')];
}
