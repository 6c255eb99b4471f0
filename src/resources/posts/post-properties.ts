import type { JsonSchema, RestContext } from '../../core/json-schema/json-schema';
import { metaProperty } from '../../core/rest/meta-property';

/** The contexts a property is shown in: all three, `view` and `edit`, or `edit` only. */
const ALL: readonly RestContext[] = ['view', 'edit', 'embed'];
const VIEW_EDIT: readonly RestContext[] = ['view', 'edit'];
const EDIT: readonly RestContext[] = ['edit'];

/** What a property may declare besides its description, type and contexts. */
type PropertyDetails = Pick<JsonSchema, 'format' | 'enum' | 'items' | 'readonly' | 'properties'>;

/**
 * One property of an item schema, its keys in the reference's order (description, type, then format, enum or
 * items, context, readonly, properties); each call makes a new object.
 */
function property(
  description: string,
  type: JsonSchema['type'],
  context: readonly RestContext[],
  details: PropertyDetails = {},
): JsonSchema {
  const { readonly, properties, ...shape } = details;
  return {
    description,
    type,
    ...shape,
    context: [...context],
    ...(readonly !== undefined && { readonly }),
    ...(properties !== undefined && { properties }),
  };
}

const READONLY = { readonly: true };
const DATE_TIME = { format: 'date-time' };
const OPEN_CLOSED = { enum: ['open', 'closed'] };

/**
 * Every property the posts controller may declare, as the reference (WordPress 6.1) describes it for posts and
 * pages; `buildPostSchema` picks those a post type supports. Generated from the reference's OPTIONS output.
 */
export const POST_PROPERTIES: Record<string, JsonSchema> = {
  date: property("The date the post was published, in the site's timezone.", ['string', 'null'], ALL, DATE_TIME),
  date_gmt: property('The date the post was published, as GMT.', ['string', 'null'], VIEW_EDIT, DATE_TIME),
  guid: property('The globally unique identifier for the post.', 'object', VIEW_EDIT, {
    readonly: true,
    properties: {
      raw: property('GUID for the post, as it exists in the database.', 'string', EDIT, READONLY),
      rendered: property('GUID for the post, transformed for display.', 'string', VIEW_EDIT, READONLY),
    },
  }),
  id: property('Unique identifier for the post.', 'integer', ALL, READONLY),
  link: property('URL to the post.', 'string', ALL, { format: 'uri', readonly: true }),
  modified: property("The date the post was last modified, in the site's timezone.", 'string', VIEW_EDIT, {
    ...DATE_TIME,
    ...READONLY,
  }),
  modified_gmt: property('The date the post was last modified, as GMT.', 'string', VIEW_EDIT, {
    ...DATE_TIME,
    ...READONLY,
  }),
  slug: property('An alphanumeric identifier for the post unique to its type.', 'string', ALL),
  status: property('A named status for the post.', 'string', VIEW_EDIT, {
    enum: ['publish', 'future', 'draft', 'pending', 'private'],
  }),
  type: property('Type of post.', 'string', ALL, READONLY),
  password: property('A password to protect access to the content and excerpt.', 'string', EDIT),
  title: property('The title for the post.', 'object', ALL, {
    properties: {
      raw: property('Title for the post, as it exists in the database.', 'string', EDIT),
      rendered: property('HTML title for the post, transformed for display.', 'string', ALL, READONLY),
    },
  }),
  content: property('The content for the post.', 'object', VIEW_EDIT, {
    properties: {
      raw: property('Content for the post, as it exists in the database.', 'string', EDIT),
      rendered: property('HTML content for the post, transformed for display.', 'string', VIEW_EDIT, READONLY),
      block_version: property('Version of the content block format used by the post.', 'integer', EDIT, READONLY),
      protected: property('Whether the content is protected with a password.', 'boolean', ALL, READONLY),
    },
  }),
  author: property('The ID for the author of the post.', 'integer', ALL),
  excerpt: property('The excerpt for the post.', 'object', ALL, {
    properties: {
      raw: property('Excerpt for the post, as it exists in the database.', 'string', EDIT),
      rendered: property('HTML excerpt for the post, transformed for display.', 'string', ALL, READONLY),
      protected: property('Whether the excerpt is protected with a password.', 'boolean', ALL, READONLY),
    },
  }),
  featured_media: property('The ID of the featured media for the post.', 'integer', ALL),
  comment_status: property('Whether or not comments are open on the post.', 'string', VIEW_EDIT, OPEN_CLOSED),
  ping_status: property('Whether or not the post can be pinged.', 'string', VIEW_EDIT, OPEN_CLOSED),
  format: property('The format for the post.', 'string', VIEW_EDIT, {
    enum: ['standard', 'aside', 'chat', 'gallery', 'link', 'image', 'quote', 'status', 'video', 'audio'],
  }),
  meta: metaProperty([]),
  sticky: property('Whether or not the post should be treated as sticky.', 'boolean', VIEW_EDIT),
  template: property('The theme file to use to display the post.', 'string', VIEW_EDIT),
  categories: property('The terms assigned to the post in the category taxonomy.', 'array', VIEW_EDIT, {
    items: { type: 'integer' },
  }),
  tags: property('The terms assigned to the post in the post_tag taxonomy.', 'array', VIEW_EDIT, {
    items: { type: 'integer' },
  }),
  parent: property('The ID for the parent of the post.', 'integer', VIEW_EDIT),
  menu_order: property('The order of the post in relation to other posts.', 'integer', VIEW_EDIT),
};

/**
 * The properties a revision declares of its own, as the reference's revisions controller describes them (`guid`,
 * `title`, `content` and `excerpt` are then copied from the parent type's schema); a new object on every call.
 */
export function revisionProperties(): Record<string, JsonSchema> {
  return {
    author: property('The ID for the author of the revision.', 'integer', ALL),
    date: property("The date the revision was published, in the site's timezone.", 'string', ALL, DATE_TIME),
    date_gmt: property('The date the revision was published, as GMT.', 'string', VIEW_EDIT, DATE_TIME),
    guid: property('GUID for the object, as it exists in the database.', 'string', VIEW_EDIT),
    id: property('Unique identifier for the revision.', 'integer', ALL),
    modified: property(
      "The date the revision was last modified, in the site's timezone.",
      'string',
      VIEW_EDIT,
      DATE_TIME,
    ),
    modified_gmt: property('The date the revision was last modified, as GMT.', 'string', VIEW_EDIT, DATE_TIME),
    parent: property('The ID for the parent of the revision.', 'integer', ALL),
    slug: property('An alphanumeric identifier for the revision unique to its type.', 'string', ALL),
  };
}
