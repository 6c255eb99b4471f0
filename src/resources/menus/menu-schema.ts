import { sanitizeTitle } from '../../core/formatting';
import { sanitizeTextField } from '../../core/formatting/sanitize-text';
import { escUrlRaw } from '../../core/formatting/esc-url';
import type { ItemSchema, JsonSchema, RouteArg } from '../../core/json-schema/json-schema';
import { validateValue } from '../../core/json-schema/validate';
import { offsetArg, orderArg, orderbyArg } from '../../core/rest/collection-query';
import { TEXT_COLUMN_BYTES } from '../../core/text/text-limits';
import { POST_ORDERBY } from '../posts';
import { TERM_ORDERBY } from '../terms';

const ALL: Array<'view' | 'embed' | 'edit'> = ['view', 'edit', 'embed'];
const SCHEMA = 'http://json-schema.org/draft-04/schema#';

/** The `id` of a menu's routes (WP_REST_Terms_Controller's). */
export const MENU_ID: RouteArg = { description: 'Unique identifier for the term.', type: 'integer' };
/** The `id` of a menu item's routes (WP_REST_Posts_Controller's). */
export const MENU_ITEM_ID: RouteArg = { description: 'Unique identifier for the post.', type: 'integer' };

/** `POST menus` / `PUT menus/<id>`, validated. */
export interface MenuWriteArgs {
  id?: number;
  name?: string;
  slug?: string;
  description?: string;
  locations?: string[];
  auto_add?: boolean;
  meta?: unknown;
}

/** `GET menus`, validated. */
export interface MenuListArgs {
  hide_empty?: boolean;
  post?: number | null;
}

/** `POST menu-items` / `PUT menu-items/<id>`, validated. */
export interface MenuItemWriteArgs {
  id?: number;
  title?: string | { raw?: string };
  type?: string;
  status?: string;
  parent?: number;
  attr_title?: string;
  classes?: string[];
  description?: string;
  menu_order?: number;
  object?: string;
  object_id?: number;
  target?: string;
  url?: string;
  xfn?: string[];
  menus?: number;
}

/** WP_REST_Menus_Controller::get_item_schema(): the terms schema without count, link, taxonomy; with locations, auto_add. */
export function menuSchema(validLocation: (name: string) => boolean): ItemSchema {
  const props: Record<string, JsonSchema> = {
    id: {
      description: 'Unique identifier for the term.',
      type: 'integer',
      context: ['view', 'embed', 'edit'],
      readonly: true,
    },
    description: { description: 'HTML description of the term.', type: 'string', context: ['view', 'edit'] },
    name: {
      description: 'HTML title for the term.',
      type: 'string',
      context: ['view', 'embed', 'edit'],
      required: true,
    },
    slug: {
      description: 'An alphanumeric identifier for the term unique to its type.',
      type: 'string',
      context: ['view', 'embed', 'edit'],
    },
    meta: { description: 'Meta fields.', type: 'object', context: ['view', 'edit'], properties: {} },
    locations: {
      description: 'The locations assigned to the menu.',
      type: 'array',
      items: { type: 'string' },
      context: ['view', 'edit'],
    },
    auto_add: {
      description: 'Whether to automatically add top level pages to this menu.',
      context: ['view', 'edit'],
      type: 'boolean',
    },
  };
  props.name.arg_options = { sanitize: (v) => sanitizeTextField(String(v)), maxBytes: TEXT_COLUMN_BYTES };
  props.slug.arg_options = { sanitize: (v) => sanitizeTitle(String(v)), maxBytes: TEXT_COLUMN_BYTES };
  props.locations.arg_options = {
    validate: (value: unknown, name: string) => {
      const invalid = validateValue(value, { type: 'array', items: { type: 'string' } }, name);
      if (invalid) return invalid;
      for (const location of Array.isArray(value) ? value : []) {
        if (!validLocation(String(location))) return 'Invalid menu location.';
      }
      return true;
    },
  };
  return { $schema: SCHEMA, title: 'nav_menu', type: 'object', properties: props };
}

/** The collection arguments of `GET menus` (WP_REST_Terms_Controller's for a flat taxonomy). */
export function menuCollectionArgs(
  shared: Record<string, RouteArg>,
  idList: (description: string) => RouteArg,
): Record<string, RouteArg> {
  return {
    ...shared,
    exclude: idList('Ensure result set excludes specific IDs.'),
    include: idList('Limit result set to specific IDs.'),
    offset: offsetArg(),
    order: orderArg('asc'),
    orderby: orderbyArg('Sort collection by term attribute.', 'name', [...TERM_ORDERBY]),
    hide_empty: { description: 'Whether to hide terms not assigned to any posts.', type: 'boolean', default: false },
    post: { description: 'Limit result set to terms assigned to a specific post.', type: 'integer', default: null },
    slug: {
      description: 'Limit result set to terms with one or more specific slugs.',
      type: 'array',
      items: { type: 'string' },
    },
  };
}

/** WP_REST_Menu_Items_Controller::get_item_schema() (`statuses`: the non-internal ones). */
export function menuItemSchema(statuses: string[]): ItemSchema {
  const props: Record<string, JsonSchema> = {
    title: {
      description: 'The title for the object.',
      type: ['string', 'object'],
      context: ALL,
      properties: {
        raw: { description: 'Title for the object, as it exists in the database.', type: 'string', context: ['edit'] },
        rendered: {
          description: 'HTML title for the object, transformed for display.',
          type: 'string',
          context: ALL,
          readonly: true,
        },
      },
    },
    id: {
      description: 'Unique identifier for the object.',
      type: 'integer',
      default: 0,
      minimum: 0,
      context: ALL,
      readonly: true,
    },
    type_label: {
      description: 'The singular label used to describe this type of menu item.',
      type: 'string',
      context: ALL,
      readonly: true,
    },
    type: {
      description: 'The family of objects originally represented, such as "post_type" or "taxonomy".',
      type: 'string',
      enum: ['taxonomy', 'post_type', 'post_type_archive', 'custom'],
      context: ALL,
      default: 'custom',
    },
    status: {
      description: 'A named status for the object.',
      type: 'string',
      enum: statuses,
      default: 'publish',
      context: ALL,
    },
    parent: {
      description: 'The ID for the parent of the object.',
      type: 'integer',
      minimum: 0,
      default: 0,
      context: ALL,
    },
    attr_title: {
      description: 'Text for the title attribute of the link element for this menu item.',
      type: 'string',
      context: ALL,
    },
    classes: {
      description: 'Class names for the link element of this menu item.',
      type: 'array',
      items: { type: 'string' },
      context: ALL,
    },
    description: { description: 'The description of this menu item.', type: 'string', context: ALL },
    menu_order: {
      description: "The DB ID of the nav_menu_item that is this item's menu parent, if any, otherwise 0.",
      context: ALL,
      type: 'integer',
      minimum: 1,
      default: 1,
    },
    object: {
      description: 'The type of object originally represented, such as "category", "post", or "attachment".',
      context: ALL,
      type: 'string',
    },
    object_id: {
      description:
        'The database ID of the original object this menu item represents, for example the ID for posts or the term_id for categories.',
      context: ALL,
      type: 'integer',
      minimum: 0,
      default: 0,
    },
    target: {
      description: 'The target attribute of the link element for this menu item.',
      type: 'string',
      context: ALL,
      enum: ['_blank', ''],
    },
    url: { description: 'The URL to which this menu item points.', type: 'string', format: 'uri', context: ALL },
    xfn: {
      description: 'The XFN relationship expressed in the link of this menu item.',
      type: 'array',
      items: { type: 'string' },
      context: ALL,
    },
    invalid: {
      description: 'Whether the menu item represents an object that no longer exists.',
      context: ALL,
      type: 'boolean',
      readonly: true,
    },
    menus: {
      description: 'The terms assigned to the object in the nav_menu taxonomy.',
      type: 'integer',
      context: ['view', 'edit'],
    },
    meta: { description: 'Meta fields.', type: 'object', context: ['view', 'edit'], properties: {} },
  };
  const classList = (v: unknown) => wpParseList(v).map(sanitizeHtmlClass);
  props.classes.arg_options = { sanitize: classList };
  props.xfn.arg_options = { sanitize: classList };
  // The reference's callbacks: any string is taken (an empty one too), sanitized as an address (esc_url_raw).
  props.url.arg_options = {
    validate: (v: unknown, name: string) => validateValue(v, { type: 'string' }, name) ?? true,
    sanitize: (v: unknown) => (v === '' ? '' : escUrlRaw(String(v))),
  };
  return { $schema: SCHEMA, title: 'nav_menu_item', type: 'object', properties: props };
}

/**
 * The collection arguments of `GET menu-items`: the posts controller's for `nav_menu_item` (`posts`, made by the
 * posts resource, without the spec's `password` and `filter`), with WordPress's changes: `menu_order`, ascending by
 * `menu_order`, 100 a page.
 */
export function menuItemCollectionArgs(posts: Record<string, RouteArg>): Record<string, RouteArg> {
  const { password: _password, filter: _filter, ...args } = posts;
  return {
    ...args,
    per_page: { ...args.per_page, default: 100 },
    menu_order: { description: 'Limit result set to posts with a specific menu_order value.', type: 'integer' },
    order: orderArg('asc'),
    orderby: orderbyArg('Sort collection by object attribute.', 'menu_order', [...POST_ORDERBY, 'menu_order']),
  };
}

/** The schema of `menu-locations` (WP_REST_Menu_Locations_Controller's). */
export const MENU_LOCATION_SCHEMA: ItemSchema = {
  $schema: SCHEMA,
  title: 'menu-location',
  type: 'object',
  properties: {
    name: {
      description: 'The name of the menu location.',
      type: 'string',
      context: ['embed', 'view', 'edit'],
      readonly: true,
    },
    description: {
      description: 'The description of the menu location.',
      type: 'string',
      context: ['embed', 'view', 'edit'],
      readonly: true,
    },
    menu: {
      description: 'The ID of the assigned menu.',
      type: 'integer',
      context: ['embed', 'view', 'edit'],
      readonly: true,
    },
  },
};

/** `wp_parse_list()`: an array as is, a string split on commas and spaces. */
export function wpParseList(value: unknown): string[] {
  if (Array.isArray(value)) return value.map(String);
  return (typeof value === 'string' ? value : '').split(/[\s,]+/).filter((s) => s !== '');
}

/** `sanitize_html_class()`: percent-encoded octets and characters other than `A-Za-z0-9_-` stripped. */
export function sanitizeHtmlClass(value: string): string {
  return value.replace(/%[a-fA-F0-9][a-fA-F0-9]/g, '').replace(/[^A-Za-z0-9_-]/g, '');
}
