import { PostEntity } from '../../core/database/entities/post.entity';
import { PostTypeObject, TaxonomyObject } from '../../core/registry/content-types';
import { RestRequest } from '../../core/rest/rest-request';
import { LinkMap, linkMap } from '../../core/rest/rest-response';
import { PostExtras } from './post-extras';
import { typeSupports } from './post-schema';

/** Where the routes of a post type's items are, for their links. */
export interface PostRoutes {
  type: PostTypeObject;
  namespace: string;
  restBase: string;
  taxonomies: () => TaxonomyObject[];
  /** The prefix of the API's own link relations (`featuredmedia`, `attachment`, `term`). */
  linkRelBase: string;
}

/**
 * A post's links, as the reference's prepare_links makes them: itself, its collection and type, its author,
 * replies, revisions, parent, featured media, attachments and terms. `featuredMedia`: the response's
 * `featured_media`.
 */
export function postLinks(
  post: PostEntity,
  req: RestRequest,
  routes: PostRoutes,
  extras: PostExtras,
  featuredMedia: unknown,
): LinkMap {
  const { type, namespace: ns, restBase } = routes;
  const rel = routes.linkRelBase;
  const url = (path: string) => req.ctx.restUrl(path);
  const links = linkMap({
    self: { href: url(`${ns}/${restBase}/${post.id}`) },
    collection: { href: url(`${ns}/${restBase}`) },
    about: { href: url(`${ns}/types/${type.name}`) },
  });
  const add = (relName: string, href: string, attrs: Record<string, unknown> = {}) => {
    const list = links.get(relName) ?? [];
    list.push({ href, attributes: attrs });
    links.set(relName, list);
  };
  if (typeSupports(type, 'author') && post.author && extras.authorExists) {
    add('author', url(`${ns}/users/${post.author}`), { embeddable: true });
  }
  if (typeSupports(type, 'comments')) add('replies', url(`${ns}/comments?post=${post.id}`), { embeddable: true });
  if (typeSupports(type, 'revisions')) {
    const revisions = extras.revisions;
    add('version-history', url(`${ns}/${restBase}/${post.id}/revisions`), { count: revisions?.count ?? 0 });
    if (revisions)
      add('predecessor-version', url(`${ns}/${restBase}/${post.id}/revisions/${revisions.last}`), {
        id: revisions.last,
      });
  }
  if (type.hierarchical && post.parent > 0) add('up', url(`${ns}/${restBase}/${post.parent}`), { embeddable: true });
  if (Number(featuredMedia) > 0)
    add(`${rel}featuredmedia`, url(`${ns}/media/${Number(featuredMedia)}`), { embeddable: true });
  add(`${rel}attachment`, url(`${ns}/media?parent=${post.id}`));
  for (const tax of routes.taxonomies()) {
    add(`${rel}term`, url(`${tax.rest_namespace}/${tax.rest_base || tax.name}?post=${post.id}`), {
      taxonomy: tax.name,
      embeddable: true,
    });
  }
  return links;
}
