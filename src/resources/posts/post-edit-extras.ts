import { PostEntity } from '../../core/database/entities/post.entity';
import { sanitizeTitle } from '../../core/formatting/sanitize-title';
import type { JsonSchema } from '../../core/json-schema/json-schema';
import type { PostTypeObject, TaxonomyObject } from '../../core/registry/content-types';
import { permalink } from '../../core/rest/permalink';
import type { RestRequest } from '../../core/rest/rest-request';
import type { SlugWanted } from './post-slugs';

/*
 * What WordPress 5.0+ adds to a post in the edit context (WP_REST_Posts_Controller::prepare_item_for_response,
 * get_available_actions, get_schema_links): `permalink_template` and `generated_slug` (get_sample_permalink() with
 * an empty name), `content.block_version`, and the `action-*` links of what the caller may do. With the dialect's
 * `posts.editExtras`.
 */

/** What the edit context adds to a set of posts: the sample slugs (by post id) and the caller's action relations. */
export interface EditExtras {
  samples: Map<number, string>;
  actions: string[];
}

/**
 * `is_post_type_viewable() && public`: the types whose posts get a permalink template and a generated slug
 * (attachments' template is their attachment page's, which the media presenter writes).
 */
export function hasSamplePermalink(type: PostTypeObject): boolean {
  return type.public && (type.publicly_queryable || type._builtin);
}

/**
 * The slug get_sample_permalink() asks wp_unique_post_slug() about: the title sanitized (the id when it gives
 * nothing), for the post as if published when it is a draft, pending or scheduled.
 */
export function sampleSlugWanted(post: PostEntity, type: PostTypeObject): SlugWanted {
  const asPublished = ['draft', 'pending', 'future'].includes(post.status) ? { ...post, status: 'publish' } : post;
  return { slug: sanitizeTitle(post.title, String(post.id)), post: asPublished, type };
}

/** Statuses whose sample permalink is the plain one (neither viewable, private nor protected). */
const PLAIN_SAMPLE_STATUSES = ['trash', 'auto-draft', 'inherit'];

/** The permalink template of a post: its address with its own slug replaced by `%postname%` or `%pagename%`. */
export function permalinkTemplate(
  post: PostEntity,
  type: PostTypeObject,
  home: string,
  parents: ReadonlyMap<number, PostEntity>,
): string {
  const token = type.name === 'post' ? '%postname%' : '%pagename%';
  // wp_force_plain_post_permalink(): statuses neither viewable, private nor protected keep the plain address.
  const pretty = !PLAIN_SAMPLE_STATUSES.includes(post.status);
  return permalink({ ...post, name: token, status: 'publish' }, type, home, parents, pretty);
}

/** The relations (without their base) of the actions the caller may take on posts of the type (get_available_actions). */
export async function availableActions(
  type: PostTypeObject,
  taxonomies: readonly TaxonomyObject[],
  supportsAuthor: boolean,
  req: RestRequest,
): Promise<string[]> {
  const can = (cap: string) => req.ctx.can(cap);
  const rels: string[] = [];
  if (type.name !== 'attachment' && (await can(type.cap.publish_posts))) rels.push('action-publish');
  if (await can('unfiltered_html')) rels.push('action-unfiltered-html');
  if (type.name === 'post' && (await can(type.cap.edit_others_posts)) && (await can(type.cap.publish_posts)))
    rels.push('action-sticky');
  if (supportsAuthor && (await can(type.cap.edit_others_posts))) rels.push('action-assign-author');
  for (const tax of taxonomies) {
    const base = tax.rest_base || tax.name;
    if (await can(tax.hierarchical ? tax.cap.edit_terms : tax.cap.assign_terms)) rels.push(`action-create-${base}`);
    if (await can(tax.cap.assign_terms)) rels.push(`action-assign-${base}`);
  }
  return rels;
}

/** The edit-context properties of the item schema (added where the type has them). */
export const EDIT_EXTRA_PROPERTIES: Readonly<Record<string, JsonSchema>> = {
  permalink_template: {
    description: 'Permalink template for the post.',
    type: 'string',
    context: ['edit'],
    readonly: true,
  },
  generated_slug: {
    description: 'Slug automatically generated from the post title.',
    type: 'string',
    context: ['edit'],
    readonly: true,
  },
  block_version: {
    description: 'Version of the content block format used by the post.',
    type: 'integer',
    context: ['edit'],
    readonly: true,
  },
};

/** A link of the item schema's `links` (get_schema_links): `href` is a path in the API, made absolute when shown. */
export interface SchemaLink {
  rel: string;
  title: string;
  href: string;
  targetSchema: JsonSchema;
}

/** The item schema's `links` of a type (get_schema_links), with `href` relative to the API root. */
export function schemaLinks(
  type: PostTypeObject,
  taxonomies: readonly TaxonomyObject[],
  supportsAuthor: boolean,
  itemPath: string,
  relBase: string,
): SchemaLink[] {
  const link = (rel: string, title: string, properties: Record<string, unknown>): SchemaLink => ({
    rel: `${relBase}${rel}`,
    title,
    href: itemPath,
    targetSchema: { type: 'object', properties } as JsonSchema,
  });
  const links: SchemaLink[] = [];
  if (type.name !== 'attachment')
    links.push(
      link('action-publish', 'The current user can publish this post.', {
        status: { type: 'string', enum: ['publish', 'future'] },
      }),
    );
  links.push(
    link('action-unfiltered-html', 'The current user can post unfiltered HTML markup and JavaScript.', {
      content: { raw: { type: 'string' } },
    }),
  );
  if (type.name === 'post')
    links.push(link('action-sticky', 'The current user can sticky this post.', { sticky: { type: 'boolean' } }));
  if (supportsAuthor)
    links.push(
      link('action-assign-author', 'The current user can change the author on this post.', {
        author: { type: 'integer' },
      }),
    );
  for (const tax of taxonomies) {
    const base = tax.rest_base || tax.name;
    const terms = { [base]: { type: 'array', items: { type: 'integer' } } };
    links.push(link(`action-assign-${base}`, `The current user can assign terms in the ${tax.name} taxonomy.`, terms));
    links.push(link(`action-create-${base}`, `The current user can create terms in the ${tax.name} taxonomy.`, terms));
  }
  return links;
}
