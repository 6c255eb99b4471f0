import { ItemSchema } from '../../core/json-schema/json-schema';
import { metaProperty } from '../../core/rest/meta-property';

/** Item schema of users (title `user`), as the reference (WordPress 6.1) publishes it; `meta` properties come from registered user meta. */
export const USER_SCHEMA: ItemSchema = {
  $schema: 'http://json-schema.org/draft-04/schema#',
  title: 'user',
  type: 'object',
  properties: {
    id: {
      description: 'Unique identifier for the user.',
      type: 'integer',
      context: ['embed', 'view', 'edit'],
      readonly: true,
    },
    username: {
      description: 'Login name for the user.',
      type: 'string',
      context: ['edit'],
      required: true,
    },
    name: {
      description: 'Display name for the user.',
      type: 'string',
      context: ['embed', 'view', 'edit'],
    },
    first_name: {
      description: 'First name for the user.',
      type: 'string',
      context: ['edit'],
    },
    last_name: {
      description: 'Last name for the user.',
      type: 'string',
      context: ['edit'],
    },
    email: {
      description: 'The email address for the user.',
      type: 'string',
      format: 'email',
      context: ['edit'],
      required: true,
    },
    url: {
      description: 'URL of the user.',
      type: 'string',
      format: 'uri',
      context: ['embed', 'view', 'edit'],
    },
    description: {
      description: 'Description of the user.',
      type: 'string',
      context: ['embed', 'view', 'edit'],
    },
    link: {
      description: 'Author URL of the user.',
      type: 'string',
      format: 'uri',
      context: ['embed', 'view', 'edit'],
      readonly: true,
    },
    locale: {
      description: 'Locale for the user.',
      type: 'string',
      enum: ['', 'en_US'],
      context: ['edit'],
    },
    nickname: {
      description: 'The nickname for the user.',
      type: 'string',
      context: ['edit'],
    },
    slug: {
      description: 'An alphanumeric identifier for the user.',
      type: 'string',
      context: ['embed', 'view', 'edit'],
    },
    registered_date: {
      description: 'Registration date for the user.',
      type: 'string',
      format: 'date-time',
      context: ['edit'],
      readonly: true,
    },
    roles: {
      description: 'Roles assigned to the user.',
      type: 'array',
      items: {
        type: 'string',
      },
      context: ['edit'],
    },
    password: {
      description: 'Password for the user (never included).',
      type: 'string',
      context: [],
      required: true,
    },
    capabilities: {
      description: 'All capabilities assigned to the user.',
      type: 'object',
      context: ['edit'],
      readonly: true,
    },
    extra_capabilities: {
      description: 'Any extra capabilities assigned to the user.',
      type: 'object',
      context: ['edit'],
      readonly: true,
    },
    avatar_urls: {
      description: 'Avatar URLs for the user.',
      type: 'object',
      context: ['embed', 'view', 'edit'],
      readonly: true,
      properties: {
        '24': {
          description: 'Avatar URL with image size of 24 pixels.',
          type: 'string',
          format: 'uri',
          context: ['embed', 'view', 'edit'],
        },
        '48': {
          description: 'Avatar URL with image size of 48 pixels.',
          type: 'string',
          format: 'uri',
          context: ['embed', 'view', 'edit'],
        },
        '96': {
          description: 'Avatar URL with image size of 96 pixels.',
          type: 'string',
          format: 'uri',
          context: ['embed', 'view', 'edit'],
        },
      },
    },
    meta: metaProperty([]),
  },
};

/**
 * The arguments of `POST /users`, `PUT /users/<id>` and `PUT /users/me`: the item schema's writable properties, as
 * validated and sanitized (`roles` a list of known role names; `meta` the registered meta's object).
 */
export interface UserWriteArgs {
  username?: string;
  name?: string;
  first_name?: string;
  last_name?: string;
  email?: string;
  url?: string;
  description?: string;
  locale?: string;
  nickname?: string;
  slug?: string;
  roles?: string[];
  password?: string;
  meta?: unknown;
}

/** The arguments of `POST /users`: its required properties are there. */
export interface UserCreateArgs extends UserWriteArgs {
  username: string;
  email: string;
  password: string;
}

/**
 * The arguments of `DELETE /users/<id>` and `DELETE /users/me` (`force` defaults to `false`; `reassign` is `false`,
 * from `false` or empty, when the user's content is deleted with them).
 */
export interface UserDeleteArgs {
  force: boolean;
  reassign: number | false;
}

/**
 * The route's user, as {@link loadUser} reads it: an integer on `users/<id>` once validated, but the path's string on
 * `users/me` (set by UserPolicies.withCurrentId) and wherever a permission check runs on arguments not validated (the
 * `Allow` header), so it is converted where used.
 */
export interface UserIdArgs {
  id?: number | string;
}

/**
 * What the users' permission checks read. Those checks also run for the `Allow` header on a request made to another
 * endpoint of the route, on an OPTIONS request, or on one whose arguments failed validation (then as sent), so no
 * value's type is taken for granted.
 */
export interface UserCheckArgs {
  roles?: unknown;
  capabilities?: unknown;
  orderby?: unknown;
  who?: unknown;
}
