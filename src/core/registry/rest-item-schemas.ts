/**
 * The item schemas of `/types`, `/taxonomies` and `/statuses`, exactly as WordPress 6.1's
 * `WP_REST_Post_Types_Controller`, `WP_REST_Taxonomies_Controller` and `WP_REST_Post_Statuses_Controller` return
 * them: data generated from the reference's OPTIONS output (rest-item-schemas.json), typed and frozen here.
 */
import schemas from './rest-item-schemas.json';

/** REST request context. */
export type RestContext = 'view' | 'edit' | 'embed';

/** A JSON-schema property as WordPress REST schemas declare them. */
export interface RestSchemaProperty {
  description?: string;
  type: string | string[];
  context?: RestContext[];
  readonly?: boolean;
  items?: RestSchemaProperty;
  properties?: Record<string, RestSchemaProperty>;
}

/** A WordPress REST item schema (the `schema` of an OPTIONS response). */
export interface RestItemSchema {
  $schema: string;
  title: string;
  type: 'object';
  properties: Record<string, RestSchemaProperty>;
}

/** Recursively freezes a plain JSON value. */
function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const child of Object.values(value)) {
      deepFreeze(child);
    }
    Object.freeze(value);
  }
  return value;
}

/** Item schema of `/types` (frozen; clone before extending), exactly as WordPress 6.1 returns it. */
export const POST_TYPE_SCHEMA: RestItemSchema = deepFreeze(schemas.type as RestItemSchema);

/** Item schema of `/taxonomies` (frozen; clone before extending), exactly as WordPress 6.1 returns it. */
export const TAXONOMY_SCHEMA: RestItemSchema = deepFreeze(schemas.taxonomy as RestItemSchema);

/** Item schema of `/statuses` (frozen; clone before extending), exactly as WordPress 6.1 returns it. */
export const POST_STATUS_SCHEMA: RestItemSchema = deepFreeze(schemas.status as RestItemSchema);
