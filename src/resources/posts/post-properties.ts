import { JsonSchema } from '../../core/json-schema/json-schema';

/**
 * Every property the posts controller may declare, as the reference (WordPress 6.1) describes it for posts and
 * pages; `buildPostSchema` picks those a post type supports. Generated from the reference's OPTIONS output.
 */
export const POST_PROPERTIES: Record<string, JsonSchema> = {
  date: {
    description: "The date the post was published, in the site's timezone.",
    type: ['string', 'null'],
    format: 'date-time',
    context: ['view', 'edit', 'embed'],
  },
  date_gmt: {
    description: 'The date the post was published, as GMT.',
    type: ['string', 'null'],
    format: 'date-time',
    context: ['view', 'edit'],
  },
  guid: {
    description: 'The globally unique identifier for the post.',
    type: 'object',
    context: ['view', 'edit'],
    readonly: true,
    properties: {
      raw: {
        description: 'GUID for the post, as it exists in the database.',
        type: 'string',
        context: ['edit'],
        readonly: true,
      },
      rendered: {
        description: 'GUID for the post, transformed for display.',
        type: 'string',
        context: ['view', 'edit'],
        readonly: true,
      },
    },
  },
  id: {
    description: 'Unique identifier for the post.',
    type: 'integer',
    context: ['view', 'edit', 'embed'],
    readonly: true,
  },
  link: {
    description: 'URL to the post.',
    type: 'string',
    format: 'uri',
    context: ['view', 'edit', 'embed'],
    readonly: true,
  },
  modified: {
    description: "The date the post was last modified, in the site's timezone.",
    type: 'string',
    format: 'date-time',
    context: ['view', 'edit'],
    readonly: true,
  },
  modified_gmt: {
    description: 'The date the post was last modified, as GMT.',
    type: 'string',
    format: 'date-time',
    context: ['view', 'edit'],
    readonly: true,
  },
  slug: {
    description: 'An alphanumeric identifier for the post unique to its type.',
    type: 'string',
    context: ['view', 'edit', 'embed'],
  },
  status: {
    description: 'A named status for the post.',
    type: 'string',
    enum: ['publish', 'future', 'draft', 'pending', 'private'],
    context: ['view', 'edit'],
  },
  type: {
    description: 'Type of post.',
    type: 'string',
    context: ['view', 'edit', 'embed'],
    readonly: true,
  },
  password: {
    description: 'A password to protect access to the content and excerpt.',
    type: 'string',
    context: ['edit'],
  },
  title: {
    description: 'The title for the post.',
    type: 'object',
    context: ['view', 'edit', 'embed'],
    properties: {
      raw: {
        description: 'Title for the post, as it exists in the database.',
        type: 'string',
        context: ['edit'],
      },
      rendered: {
        description: 'HTML title for the post, transformed for display.',
        type: 'string',
        context: ['view', 'edit', 'embed'],
        readonly: true,
      },
    },
  },
  content: {
    description: 'The content for the post.',
    type: 'object',
    context: ['view', 'edit'],
    properties: {
      raw: {
        description: 'Content for the post, as it exists in the database.',
        type: 'string',
        context: ['edit'],
      },
      rendered: {
        description: 'HTML content for the post, transformed for display.',
        type: 'string',
        context: ['view', 'edit'],
        readonly: true,
      },
      block_version: {
        description: 'Version of the content block format used by the post.',
        type: 'integer',
        context: ['edit'],
        readonly: true,
      },
      protected: {
        description: 'Whether the content is protected with a password.',
        type: 'boolean',
        context: ['view', 'edit', 'embed'],
        readonly: true,
      },
    },
  },
  author: {
    description: 'The ID for the author of the post.',
    type: 'integer',
    context: ['view', 'edit', 'embed'],
  },
  excerpt: {
    description: 'The excerpt for the post.',
    type: 'object',
    context: ['view', 'edit', 'embed'],
    properties: {
      raw: {
        description: 'Excerpt for the post, as it exists in the database.',
        type: 'string',
        context: ['edit'],
      },
      rendered: {
        description: 'HTML excerpt for the post, transformed for display.',
        type: 'string',
        context: ['view', 'edit', 'embed'],
        readonly: true,
      },
      protected: {
        description: 'Whether the excerpt is protected with a password.',
        type: 'boolean',
        context: ['view', 'edit', 'embed'],
        readonly: true,
      },
    },
  },
  featured_media: {
    description: 'The ID of the featured media for the post.',
    type: 'integer',
    context: ['view', 'edit', 'embed'],
  },
  comment_status: {
    description: 'Whether or not comments are open on the post.',
    type: 'string',
    enum: ['open', 'closed'],
    context: ['view', 'edit'],
  },
  ping_status: {
    description: 'Whether or not the post can be pinged.',
    type: 'string',
    enum: ['open', 'closed'],
    context: ['view', 'edit'],
  },
  format: {
    description: 'The format for the post.',
    type: 'string',
    enum: ['standard', 'aside', 'chat', 'gallery', 'link', 'image', 'quote', 'status', 'video', 'audio'],
    context: ['view', 'edit'],
  },
  meta: {
    description: 'Meta fields.',
    type: 'object',
    context: ['view', 'edit'],
    properties: {},
  },
  sticky: {
    description: 'Whether or not the post should be treated as sticky.',
    type: 'boolean',
    context: ['view', 'edit'],
  },
  template: {
    description: 'The theme file to use to display the post.',
    type: 'string',
    context: ['view', 'edit'],
  },
  categories: {
    description: 'The terms assigned to the post in the category taxonomy.',
    type: 'array',
    items: {
      type: 'integer',
    },
    context: ['view', 'edit'],
  },
  tags: {
    description: 'The terms assigned to the post in the post_tag taxonomy.',
    type: 'array',
    items: {
      type: 'integer',
    },
    context: ['view', 'edit'],
  },
  parent: {
    description: 'The ID for the parent of the post.',
    type: 'integer',
    context: ['view', 'edit'],
  },
  menu_order: {
    description: 'The order of the post in relation to other posts.',
    type: 'integer',
    context: ['view', 'edit'],
  },
};
