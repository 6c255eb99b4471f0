/** The request contexts a response can be shaped for. */
export type RestContext = 'view' | 'embed' | 'edit';

/** A JSON Schema (draft-04 subset) as the reference uses it for item schemas and route arguments. */
export interface JsonSchema {
  $schema?: string;
  title?: string;
  description?: string;
  type?: JsonSchemaType | JsonSchemaType[];
  /** A format the validator knows (`date-time`, `email`, `uri`, `ip`, `ipv4`, `hex-color`, `uuid`), or any other. */
  format?: string;
  enum?: readonly unknown[];
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  additionalProperties?: boolean | JsonSchema;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  default?: unknown;
  required?: boolean | string[];
  readonly?: boolean;
  context?: RestContext[];
  /** Options merged into the route argument built from this property (reference: `arg_options`). */
  arg_options?: Partial<RouteArg>;
  [key: string]: unknown;
}

export type JsonSchemaType = 'string' | 'integer' | 'number' | 'boolean' | 'array' | 'object' | 'null';

/** A route argument: a JSON Schema plus the request-handling options of the reference. */
export interface RouteArg extends JsonSchema {
  /**
   * Custom validation; return `true`, or an error message / `false`, or an error of its own code (WordPress: a
   * validate callback's WP_Error, which `data.details` reports with its code). Runs instead of the schema validation.
   */
  validate?: (value: unknown, name: string) => true | false | string | { code: string; message: string };
  /** Custom sanitising; runs after validation instead of the schema coercion. */
  sanitize?: (value: unknown, name: string) => unknown;
  /**
   * Largest size of the value's text in UTF-8 bytes (a string, or the strings inside an object or list), checked
   * before any other validation; not published in the schema. Bounds the work of the filters the value goes through.
   */
  maxBytes?: number;
  /**
   * Checked in WordPress's first pass: the argument has a validate callback there (the item schema's arguments,
   * `context`, `page`, `per_page`, `search`, and by default any with its own `validate`), checked in the route's
   * order before the others; the others are
   * checked while sanitizing, in the order the request sent them (`WP_REST_Request::has_valid_params()`, then
   * `sanitize_params()`). Only a dialect with two validation passes reads it; not published in the schema.
   */
  checkedFirst?: boolean;
}

/** The item schema of a route, as answered by OPTIONS. */
export interface ItemSchema extends JsonSchema {
  $schema: string;
  title: string;
  type: 'object';
  properties: Record<string, JsonSchema>;
  /** Links described by the schema (WordPress's `get_schema_links`): `href` relative to the API root until shown. */
  links?: Array<{ rel: string; title: string; href: string; targetSchema: JsonSchema }>;
}

export const JSON_SCHEMA_DRAFT = 'http://json-schema.org/draft-04/schema#';
