import type { JsonSchema } from '../json-schema/json-schema';
import { ExposedMetaKey, metaSchemaProperties } from './meta-fields';

/** The `meta` property of a resource's schema: its registered keys (see {@link metaSchemaProperties}). */
export function metaProperty(keys: ExposedMetaKey[]): JsonSchema {
  return {
    description: 'Meta fields.',
    type: 'object',
    context: ['view', 'edit'],
    properties: metaSchemaProperties(keys),
  };
}
