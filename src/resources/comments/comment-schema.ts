import type { CommentsDialect } from '../../core/wire-dialect';
import { textOf } from '../../core/formatting/php-serialize';
import { sanitizeTextField } from '../../core/formatting/sanitize-text';
import type { JsonSchema, RouteArg } from '../../core/json-schema/json-schema';
import { sanitizeKey } from '../../core/registry/content-types';
import { TEXT_COLUMN_BYTES } from '../../core/text/text-limits';
import type { CollectionArgs } from '../../core/rest/collection-query';
import { COMMENT_FILTERS, type CommentFilterArgs, type CommentListFilters } from './comment-query';
import { orderArg, orderbyArg, offsetArg } from '../../core/rest/collection-query';

/** The `id` path argument of a comment route. */
export const COMMENT_ID: RouteArg = { description: 'Unique identifier for the object.', type: 'integer' };

/** The arguments of `GET /comments`, as {@link commentCollectionArgs} declares them. */
export type CommentListArgs = CollectionArgs & CommentListFilters & CommentFilterArgs;

/**
 * The arguments of `POST /comments` and `PUT /comments/<id>`: the item schema's writable properties, as validated
 * and coerced (on create, `post`, `parent` and `type` have their defaults). `content` is not validated (a string, or
 * an object with `raw`); `meta` is the registered meta's object.
 */
export interface CommentWriteArgs {
  id?: number;
  author_user_agent?: string;
  author?: number;
  author_email?: string;
  author_ip?: string;
  author_name?: string;
  author_url?: string;
  content?: unknown;
  date?: string;
  date_gmt?: string;
  karma?: number;
  parent?: number;
  post?: number;
  status?: string;
  type?: string;
  meta?: unknown;
}

/** The arguments of `DELETE /comments/<id>` (`force` defaults to `false`). */
export interface CommentDeleteArgs {
  id: number;
  force: boolean;
  password?: string;
}

/**
 * What the comments' permission checks (and the loaders of the route's comment) read. Those checks also run for the
 * `Allow` header on a request made to another endpoint of the route (`post` is an id list on the collection, one id on
 * create), on an OPTIONS request, or on one whose arguments failed validation (then as sent: the path's `id` a
 * string), so no value's type is taken for granted: each is converted as it is used.
 */
export interface CommentCheckArgs {
  id?: unknown;
  post?: unknown;
  password?: unknown;
  author?: unknown;
  author_exclude?: unknown;
  author_email?: unknown;
  author_ip?: unknown;
  karma?: unknown;
  status?: unknown;
  type?: unknown;
}

/** The comment schema's properties, as the reference declares them (its `meta` is added by the resource). */
export function commentProperties(dialect: CommentsDialect): Record<string, JsonSchema> {
  const all: Array<'view' | 'edit' | 'embed'> = ['view', 'edit', 'embed'];
  const props: Record<string, JsonSchema> = {
    id: { description: 'Unique identifier for the object.', type: 'integer', context: all, readonly: true },
    author: { description: 'The id of the user object, if author was a user.', type: 'integer', context: all },
    author_email: {
      description: 'Email address for the object author.',
      type: 'string',
      format: 'email',
      context: ['edit'],
      // WordPress checks it with its sanitize callback (check_comment_author_email): in its second pass.
      arg_options: { maxBytes: TEXT_COLUMN_BYTES, checkedFirst: false },
    },
    author_ip: { description: 'IP address for the object author.', type: 'string', format: 'ip', context: ['edit'] },
    author_name: {
      description: 'Display name for the object author.',
      type: 'string',
      context: all,
      arg_options: { sanitize: (v) => sanitizeTextField(String(v)), maxBytes: TEXT_COLUMN_BYTES },
    },
    author_url: {
      description: 'URL for the object author.',
      type: 'string',
      format: 'uri',
      context: all,
      arg_options: { maxBytes: TEXT_COLUMN_BYTES },
    },
    author_user_agent: {
      description: 'User agent for the object author.',
      type: 'string',
      context: ['edit'],
      readonly: true,
    },
    content: {
      description: 'The content for the object.',
      type: 'object',
      context: all,
      // A plain string, or an object with `raw`; kses comes with the save filters (callers without unfiltered_html).
      arg_options: { validate: () => true, sanitize: (v) => v, maxBytes: TEXT_COLUMN_BYTES },
      properties: {
        raw: {
          description: 'Content for the object, as it exists in the database.',
          type: 'string',
          context: ['edit'],
        },
        rendered: {
          description: 'HTML content for the object, transformed for display.',
          type: 'string',
          context: all,
          readonly: true,
        },
      },
    },
    date: {
      description: "The date the object was published, in the site's timezone.",
      type: 'string',
      format: 'date-time',
      context: all,
    },
    date_gmt: {
      description: 'The date the object was published, as GMT.',
      type: 'string',
      format: 'date-time',
      context: ['view', 'edit'],
    },
    karma: { description: 'Karma for the object.', type: 'integer', context: ['edit'] },
    link: { description: 'URL to the object.', type: 'string', format: 'uri', context: all, readonly: true },
    parent: { description: 'The id for the parent of the object.', type: 'integer', context: all, default: 0 },
    post: {
      description: 'The id of the associated post object.',
      type: 'integer',
      context: ['view', 'edit'],
      default: 0,
    },
    status: {
      description: 'State of the object.',
      type: 'string',
      context: ['view', 'edit'],
      arg_options: { sanitize: (v) => sanitizeKey(textOf(v)) },
    },
    type: {
      description: 'Type of Comment for the object.',
      type: 'string',
      context: all,
      default: 'comment',
      arg_options: { sanitize: (v) => sanitizeKey(textOf(v)) },
    },
  };
  props.author_avatar_urls = {
    description: 'Avatar URLs for the object author.',
    type: 'object',
    context: all,
    readonly: true,
    properties: Object.fromEntries(
      ['24', '48', '96'].map((size) => [
        size,
        {
          description: `Avatar URL with image size of ${size} pixels.`,
          type: 'string',
          format: 'uri',
          context: ['embed', 'view', 'edit'],
        },
      ]),
    ),
  };
  if (!dialect.karma) delete props.karma;
  if (!dialect.writableType) {
    props.type = { description: 'Type of the comment.', type: 'string', context: all, readonly: true };
    props.author_user_agent = {
      description: 'User agent for the comment author.',
      type: 'string',
      context: ['edit'],
      arg_options: { sanitize: (v) => sanitizeTextField(textOf(v)) },
    };
  }
  return props;
}

/** The collection arguments of `GET /comments`: the shared ones (`shared`) and the reference's own. */
export function commentCollectionArgs(
  shared: Record<string, RouteArg>,
  idList: (description: string) => RouteArg,
  dialect: CommentsDialect,
): Record<string, RouteArg> {
  // The reference's arguments, in its order (OPTIONS lists them so).
  const args: Record<string, RouteArg> = {
    ...shared,
    after: {
      description: 'Limit response to comments published after a given ISO8601 compliant date.',
      type: 'string',
      format: 'date-time',
    },
    author: {
      description: 'Limit result set to comments assigned to specific user ids. Requires authorization.',
      type: 'array',
      items: { type: 'integer' },
    },
    author_exclude: {
      description: 'Ensure result set excludes comments assigned to specific user ids. Requires authorization.',
      type: 'array',
      items: { type: 'integer' },
    },
    author_email: COMMENT_FILTERS.author_email.arg,
    before: {
      description: 'Limit response to comments published before a given ISO8601 compliant date.',
      type: 'string',
      format: 'date-time',
    },
    exclude: idList('Ensure result set excludes specific ids.'),
    include: idList('Limit result set to specific ids.'),
    karma: COMMENT_FILTERS.karma.arg,
    offset: offsetArg('Offset the result set by a specific number of comments.'),
    order: orderArg('desc'),
    orderby: orderbyArg('Sort collection by object attribute.', 'date_gmt', [
      'date',
      'date_gmt',
      'id',
      'include',
      'post',
      'parent',
      'type',
    ]),
    parent: idList('Limit result set to resources of specific parent ids.'),
    parent_exclude: idList('Ensure result set excludes specific parent ids.'),
    post: idList('Limit result set to resources assigned to specific post ids.'),
    status: {
      description: 'Limit result set to comments assigned a specific status. Requires authorization.',
      type: 'string',
      default: 'approve',
      sanitize: (v) => sanitizeKey(textOf(v)),
    },
    type: {
      description: 'Limit result set to comments assigned a specific type. Requires authorization.',
      type: 'string',
      default: 'comment',
      sanitize: (v) => sanitizeKey(textOf(v)),
    },
    password: { description: 'The password for the post if it is password protected.', type: 'string' },
  };
  // A filter declared only in COMMENT_FILTERS follows them.
  for (const [name, { arg }] of Object.entries(COMMENT_FILTERS)) args[name] ??= arg;
  if (!dialect.karma) delete args.karma;
  return args;
}
