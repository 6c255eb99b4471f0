import type { PostsDialect } from '../../core/wire-dialect';
import { wpKsesPost } from '../../core/formatting';
import { sanitizeTextField } from '../../core/formatting/sanitize-text';
import type { ItemSchema, JsonSchema, RouteArg } from '../../core/json-schema/json-schema';
import { DESCRIPTION_BYTES, TEXT_COLUMN_BYTES } from '../../core/text/text-limits';
import { mediaTypes } from './file-names';
import type { PostListArgs, PostWriteArgs } from '../posts';

/**
 * The arguments of the media create and update routes: the posts' (without `parent`, `password` and `template`,
 * which {@link attachmentSchema} removes), and the attachment's own. `caption` and `description` come as a string
 * (through wp_filter_post_kses) or as sent (`{ raw }`); `alt_text` through sanitize_text_field.
 */
export interface MediaWriteArgs extends PostWriteArgs {
  post?: number;
  alt_text?: string;
  caption?: unknown;
  description?: unknown;
}

/** The arguments of `GET /media`, as {@link attachmentCollectionArgs} declares them. */
export interface MediaListArgs extends PostListArgs {
  media_type?: string;
  mime_type?: string;
}

/** A `{ raw, rendered }` text field of an attachment (caption, description). */
const textObject = (description: string, raw: string, rendered: string): JsonSchema => ({
  description,
  type: 'object',
  context: ['view', 'edit', 'embed'],
  // A plain string, or an object with `raw`; through wp_filter_post_kses, in the request's thread: bounded to a
  // TEXT column's size before it runs.
  arg_options: {
    validate: () => true,
    sanitize: (v: unknown) => (typeof v === 'string' ? wpKsesPost(v) : v),
    maxBytes: DESCRIPTION_BYTES,
  },
  properties: {
    raw: { description: raw, type: 'string', context: ['edit'] },
    rendered: { description: rendered, type: 'string', context: ['view', 'edit', 'embed'], readonly: true },
  },
});

/** The attachment schema: the post schema of the `attachment` type, changed as the reference's media controller does. */
export function attachmentSchema(schema: ItemSchema, dialect: PostsDialect): ItemSchema {
  const props = schema.properties;
  delete props.password;
  if (!dialect.mediaTemplate) delete props.template;
  // An attachment's parent is `post`.
  delete props.parent;
  const all: Array<'view' | 'edit' | 'embed'> = ['view', 'edit', 'embed'];
  props.alt_text = {
    description: 'Alternative text to display when attachment is not displayed.',
    type: 'string',
    context: all,
    arg_options: { sanitize: (v) => sanitizeTextField(String(v)), maxBytes: TEXT_COLUMN_BYTES },
  };
  props.caption = textObject(
    'The attachment caption.',
    'Caption for the attachment, as it exists in the database.',
    'HTML caption for the attachment, transformed for display.',
  );
  props.description = textObject(
    'The attachment description.',
    'Description for the attachment, as it exists in the database.',
    'HTML description for the attachment, transformed for display.',
  );
  props.description.context = ['view', 'edit'];
  (props.description.properties as Record<string, JsonSchema>).rendered.context = ['view', 'edit'];
  props.media_type = {
    description: 'Attachment type.',
    type: 'string',
    enum: ['image', 'file'],
    context: all,
    readonly: true,
  };
  props.mime_type = { description: 'The attachment MIME type.', type: 'string', context: all, readonly: true };
  props.media_details = {
    description: 'Details about the media file, specific to its type.',
    type: 'object',
    context: all,
    readonly: true,
  };
  props.post = {
    description: 'The ID for the associated post of the attachment.',
    type: 'integer',
    context: ['view', 'edit'],
  };
  props.source_url = {
    description: 'URL to the original attachment file.',
    type: 'string',
    format: 'uri',
    context: all,
    readonly: true,
  };
  props.missing_image_sizes = {
    description: 'List of the missing image sizes of the attachment.',
    type: 'array',
    items: { type: 'string' },
    context: ['edit'],
    readonly: true,
  };
  return schema;
}

/** The collection arguments of `GET /media`: the posts' ones, changed and added to as the reference's. */
export function attachmentCollectionArgs(
  args: Record<string, RouteArg>,
  allowedTypes: Readonly<Record<string, string>>,
): Record<string, RouteArg> {
  args.status = {
    default: 'inherit',
    description: 'Limit result set to posts assigned one or more statuses.',
    type: 'array',
    items: { enum: ['inherit', 'private', 'trash'], type: 'string' },
  };
  args.media_type = {
    default: null,
    description: 'Limit result set to attachments of a particular media type.',
    type: 'string',
    enum: mediaTypes(allowedTypes),
  };
  args.mime_type = {
    default: null,
    description: 'Limit result set to attachments of a particular MIME type.',
    type: 'string',
  };
  args.parent = {
    description: 'Limit result set to items with particular parent IDs.',
    type: 'array',
    items: { type: 'integer' },
    default: [],
  };
  args.parent_exclude = {
    description: 'Limit result set to all items except those of a particular parent ID.',
    type: 'array',
    items: { type: 'integer' },
    default: [],
  };
  return args;
}
