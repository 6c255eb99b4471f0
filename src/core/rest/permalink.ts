import type { PostEntity } from '../database/entities/post.entity';
import type { PostTypeObject } from '../registry/content-types';

/**
 * A post's address on the site with `/%postname%/` permalinks (WordPress's `get_permalink()`): the pretty form for
 * a post that has a slug and is shown as published, else the plain `?p=` form. `parents` holds the ancestors of
 * hierarchical posts (by id) for their path.
 */
export function permalink(
  post: PostEntity,
  type: PostTypeObject,
  home: string,
  parents: ReadonlyMap<number, PostEntity>,
  pretty: boolean,
): string {
  if (pretty && post.name) {
    // get_permalink(): built-in types other than pages and attachments take the posts' structure (`wp_block`).
    if (type.name === 'post' || (type._builtin && !type.hierarchical && type.name !== 'attachment'))
      return `${home}/${post.name}/`;
    if (type.hierarchical) {
      const path: string[] = [post.name];
      let parent = post.parent ? parents.get(post.parent) : undefined;
      for (let i = 0; parent && i < 20; i++) {
        path.unshift(parent.name);
        parent = parent.parent ? parents.get(parent.parent) : undefined;
      }
      return type.name === 'page' ? `${home}/${path.join('/')}/` : `${home}/${type.name}/${path.join('/')}/`;
    }
    return `${home}/${type.name}/${post.name}/`;
  }
  if (type.name === 'post') return `${home}/?p=${post.id}`;
  if (type.name === 'page') return `${home}/?page_id=${post.id}`;
  return `${home}/?post_type=${type.name}&p=${post.id}`;
}

/** Statuses whose posts keep the plain address (`get_permalink()` does not build a pretty one for them). */
export const PLAIN_LINK_STATUSES = ['draft', 'pending', 'auto-draft', 'future'];
