/** The definitions extensions register (they live with the engine that reads them). */
export type { MetaKeyDefinition, RestFieldDefinition, SettingDefinition } from '../core/registry/field-types';
