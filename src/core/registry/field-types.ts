import type { RestRequest } from '../rest/rest-request';
import type { JsonSchema } from '../json-schema/json-schema';

/**
 * A field added to the responses (and accepted in the requests) of an object type, the reference's
 * `register_rest_field`. The object type is the schema title: `post`, `page`, `attachment`, `comment`, `user`,
 * `category`, `tag`, `type`, `status`, `taxonomy`, a custom post type or taxonomy name, ...
 */
export interface RestFieldDefinition {
  /** Returns the value for a prepared item (the item's data, the field name, the request, the object type). */
  get?: (data: Record<string, unknown>, field: string, req: RestRequest, objectType: string) => unknown;
  /** Stores a value sent by the client (value, the stored object, field name, request, object type). */
  update?: (value: unknown, object: unknown, field: string, req: RestRequest, objectType: string) => unknown;
  /** Schema of the field, merged into the object type's schema (and so validated as an argument). */
  schema?: JsonSchema | null;
}

/** A meta key exposed in the `meta` field of an object type (`post`, `comment`, `user`, `term`). */
export interface MetaKeyDefinition {
  /** Value type: `string`, `boolean`, `integer`, `number`, `array`, `object`. */
  type: 'string' | 'boolean' | 'integer' | 'number' | 'array' | 'object';
  /** One value (`true`) or a list of values (`false`). */
  single?: boolean;
  default?: unknown;
  description?: string;
  /** Exposed to the API; an object may rename it (`name`) or refine its schema. */
  showInRest?: boolean | { name?: string; schema?: JsonSchema };
  /** Cleans a value before it is stored. */
  sanitize?: (value: unknown) => unknown;
  /** Restricts the post type / taxonomy the key applies to (all of the object type when absent). */
  subtype?: string;
}

/** A site option exposed in the `settings` resource (the reference's `register_setting` with `show_in_rest`). */
export interface SettingDefinition {
  /** Value type of the setting. */
  type: 'string' | 'boolean' | 'integer' | 'number' | 'array' | 'object';
  description?: string;
  default?: unknown;
  /** Exposed to the API; an object may rename it (`name`) or refine its schema. */
  showInRest?: boolean | { name?: string; schema?: JsonSchema };
  /** Cleans a value before it is stored. */
  sanitize?: (value: unknown) => unknown;
}

/**
 * What the engine reads of the fields and meta keys registered for object types (the extension registry
 * implements it): registered fields join an object type's schema and responses, exposed meta keys its `meta`.
 */
export interface RegisteredFields {
  /** The additional fields of an object type. */
  restFields(objectType: string): ReadonlyMap<string, RestFieldDefinition>;
  /** The meta keys of an object type (of one subtype, and those of every subtype). */
  metaKeys(objectType: string, subtype?: string): Array<[string, MetaKeyDefinition]>;
}
