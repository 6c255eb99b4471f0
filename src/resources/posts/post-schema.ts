import type { PostsDialect } from '../../core/wire-dialect';
import { BLOCKS_CONTROLLER } from './post-access';
import { EDIT_EXTRA_PROPERTIES, hasSamplePermalink } from './post-edit-extras';
import { PostTypeObject, TaxonomyObject } from '../../core/registry/content-types';
import { ItemSchema, JsonSchema } from '../../core/json-schema/json-schema';
import { POST_CONTENT_BYTES, TEXT_COLUMN_BYTES } from '../../core/text/text-limits';
import { POST_PROPERTIES } from './post-properties';

/** The post formats of the reference (`format` enum). */
export const POST_FORMATS = [
  'standard',
  'aside',
  'chat',
  'gallery',
  'link',
  'image',
  'quote',
  'status',
  'video',
  'audio',
];

/** Field sets the reference fixes for built-in types (WP_REST_Posts_Controller::get_item_schema). */
export const FIXED_FEATURES: Record<string, string[]> = {
  post: ['title', 'editor', 'author', 'excerpt', 'thumbnail', 'comments', 'revisions', 'post-formats', 'custom-fields'],
  page: [
    'title',
    'editor',
    'author',
    'excerpt',
    'thumbnail',
    'comments',
    'revisions',
    'page-attributes',
    'custom-fields',
  ],
  attachment: ['title', 'author', 'comments', 'revisions', 'custom-fields'],
};

/**
 * The arguments of a post's create and update routes (`id` on update), as the dispatcher leaves them: one per
 * writable property of the type's schema, coerced to its type. `title`, `content` and `excerpt` come as sent (a
 * string or `{ raw }`), `meta` as its object; each REST taxonomy's term ids (`number[]`) under its `rest_base`.
 */
export interface PostWriteArgs {
  [taxonomyBase: string]: unknown;
  id?: number;
  title?: unknown;
  content?: unknown;
  excerpt?: unknown;
  status?: string;
  date?: string;
  date_gmt?: string;
  slug?: string;
  author?: number;
  password?: string;
  sticky?: boolean;
  parent?: number;
  menu_order?: number;
  comment_status?: string;
  ping_status?: string;
  featured_media?: number;
  format?: string;
  template?: string;
  meta?: unknown;
}

/** The arguments of `GET` on one post. */
export interface PostReadArgs {
  id: number;
  context: string;
  password?: string;
}

/** The arguments of `DELETE` on one post (`force` defaults to `false`). */
export interface PostDeleteArgs {
  id: number;
  force: boolean;
}

/** Whether the posts controller treats `feature` as supported by the type (fixed sets for built-ins). */
export function typeSupports(type: PostTypeObject, feature: string): boolean {
  const fixed = FIXED_FEATURES[type.name];
  return fixed ? fixed.includes(feature) : type.supports[feature] !== undefined;
}

/**
 * The item schema of a post type, built the way the reference's posts controller builds it: base properties, then
 * those its `supports` ask for, `sticky` for posts, and one term-id array per REST taxonomy of the type.
 */
export function buildPostSchema(
  type: PostTypeObject,
  taxonomies: TaxonomyObject[],
  statuses: string[],
  dialect: PostsDialect,
): ItemSchema {
  const props: Record<string, JsonSchema> = {};
  const take = (name: string) => (props[name] = structuredClone(POST_PROPERTIES[name]));
  for (const name of [
    'date',
    'date_gmt',
    'guid',
    'id',
    'link',
    'modified',
    'modified_gmt',
    'slug',
    'status',
    'type',
    'password',
  ])
    take(name);
  props.status.enum = statuses;
  // The spec: every post has a `parent` (0 when none), pages and plain posts alike; WordPress: hierarchical types.
  if (dialect.parentOn === 'every-type' || type.hierarchical) take('parent');
  const supports = (feature: string) => typeSupports(type, feature);
  if (supports('title')) take('title');
  if (supports('editor')) take('content');
  if (supports('author')) take('author');
  if (supports('excerpt')) take('excerpt');
  if (supports('thumbnail')) take('featured_media');
  if (supports('comments')) {
    take('comment_status');
    take('ping_status');
  }
  if (supports('page-attributes')) take('menu_order');
  if (supports('post-formats')) {
    take('format');
    props.format.enum = POST_FORMATS;
  }
  if (supports('custom-fields')) take('meta');
  if (type.name === 'post') take('sticky');
  take('template');
  // WP_REST_Blocks_Controller::get_item_schema: `raw` in every context, no `rendered`.
  if (type.rest_controller_class === BLOCKS_CONTROLLER) {
    for (const name of ['title', 'content']) {
      const own = props[name]?.properties;
      if (!own) continue;
      delete own.rendered;
      if (own.raw && Array.isArray(own.raw.context) && !own.raw.context.includes('view'))
        own.raw.context.unshift('view');
    }
  }
  if (dialect.editExtras) {
    if (props.content?.properties) props.content.properties.block_version = { ...EDIT_EXTRA_PROPERTIES.block_version };
    if (hasSamplePermalink(type)) {
      props.permalink_template = { ...EDIT_EXTRA_PROPERTIES.permalink_template };
      props.generated_slug = { ...EDIT_EXTRA_PROPERTIES.generated_slug };
    }
  }
  for (const tax of taxonomies) {
    const base = tax.rest_base || tax.name;
    props[base] = {
      description: `The terms assigned to the post in the ${tax.name} taxonomy.`,
      type: 'array',
      items: { type: 'integer' },
      context: ['view', 'edit'],
    };
  }
  // Titles, contents and excerpts are objects with `raw`, also accepted as plain strings on write; their size is
  // bounded before the save filters run (text-limits.ts).
  for (const name of ['title', 'content', 'excerpt']) {
    const maxBytes = name === 'content' ? POST_CONTENT_BYTES : TEXT_COLUMN_BYTES;
    if (props[name]) props[name].arg_options = { validate: () => true, sanitize: (value) => value, maxBytes };
  }
  // The slug goes through sanitize_title, the password is stored as given: both within a TEXT column's size.
  for (const name of ['slug', 'password'])
    props[name].arg_options = { ...props[name].arg_options, maxBytes: TEXT_COLUMN_BYTES };
  return { $schema: 'http://json-schema.org/draft-04/schema#', title: type.name, type: 'object', properties: props };
}
