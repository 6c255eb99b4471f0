import { recordEvent } from '../../core/webhooks/outbox';
import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { CMS_DATA_SOURCE } from '../../core/database/cms-data-source';
import { OptionEntity } from '../../core/database/entities/option.entity';
import { maybeSerialize } from '../../core/formatting/php-serialize';
import { HookRegistry } from '../../core/hooks/hook-registry.service';
import { RestException } from '../../core/errors/rest.exception';
import { OptionsService } from '../../core/options/options.service';
import { RestResource } from '../../core/rest/rest-resource';
import { RestRequest } from '../../core/rest/rest-request';
import { RestServer } from '../../core/rest/rest-server.service';
import { Methods } from '../../core/rest/route-types';
import { ItemSchema, JSON_SCHEMA_DRAFT, JsonSchema, RouteArg } from '../../core/json-schema/json-schema';
import { sanitizeValue, validateValue } from '../../core/json-schema/validate';
import { CmsExtensionRegistry } from '../../extensions/extension-registry.service';
import type { SettingDefinition } from '../../extensions/extension.types';
import { CORE_SETTINGS, CoreSettingDefinition, KEEP_CURRENT_VALUE } from './core-settings';
import { writeTransaction } from '../../core/database/write-transaction';

/** The setting types the API exposes (others, and untyped settings, are skipped). */
const REST_TYPES = ['number', 'integer', 'string', 'boolean', 'array', 'object'];

/** A setting as the API exposes it (the reference's `get_registered_options()` entry). */
export interface RestSetting {
  /** Name in the API (`show_in_rest.name`, else the option name). */
  name: string;
  /** The option it is stored in. */
  option: string;
  /** `{ type, description, default }` merged with `show_in_rest.schema`. */
  schema: JsonSchema;
  /** The registration. */
  definition: SettingDefinition;
}

/** The body of a write, in setting order: a value to store, or the option to delete. */
type Write = { option: string; delete: true } | { option: string; delete?: false; value: unknown };

/**
 * `settings`: the site's settings as one object `{name: value}` (WordPress's `WP_REST_Settings_Controller`).
 * Exposed settings are WordPress's own ({@link CORE_SETTINGS}) followed by those registered with
 * `CmsExtensionRegistry.registerSetting` and `showInRest`. Reading and writing need `manage_options`. Routes in
 * SettingsHandlers.
 */
@Injectable()
export class SettingsResource extends RestResource {
  readonly restBase = 'settings';
  private settingsCache?: RestSetting[];

  constructor(
    server: RestServer,
    private readonly cms: CmsExtensionRegistry,
    hooks: HookRegistry,
    private readonly options: OptionsService,
    @Inject(CMS_DATA_SOURCE) private readonly dataSource: DataSource,
  ) {
    super(server, cms, hooks);
  }

  protected baseSchema(): ItemSchema {
    const properties: Record<string, JsonSchema> = {};
    for (const setting of this.restSettings()) properties[setting.name] = structuredClone(setting.schema);
    return { $schema: JSON_SCHEMA_DRAFT, title: 'settings', type: 'object', properties };
  }

  readonly updateArgs = () => this.getEndpointArgsForItemSchema(Methods.EDITABLE);

  /** The spec: a GET with an invalid `context` is refused; WordPress's settings route takes none (the dialect). */
  readonly readArgs = (): Record<string, RouteArg> =>
    this.server.options.wire.dialect.indexesTakeContext
      ? {
          context: {
            description: 'Scope under which the request is made; determines fields present in response.',
            type: 'string',
            enum: ['view', 'embed', 'edit'],
            default: 'view',
          },
        }
      : {};

  /**
   * The exposed settings, in registration order: WordPress's, then the extensions'. A registration of an option
   * that is already registered replaces it in place; a later setting with the same API name replaces the earlier.
   */
  restSettings(): RestSetting[] {
    if (this.settingsCache) return this.settingsCache;
    const registered = new Map<string, SettingDefinition>(CORE_SETTINGS.map((s) => [s.option, s]));
    for (const [option, definition] of this.cms.settings()) registered.set(option, definition);
    const byName = new Map<string, RestSetting>();
    for (const [option, definition] of registered) {
      const show = definition.showInRest;
      if (!show) continue;
      const rest = typeof show === 'object' ? show : {};
      const name = rest.name || option;
      const schema: JsonSchema = {
        type: definition.type || undefined,
        description: definition.description || '',
        default: definition.default ?? null,
        ...(rest.schema ?? {}),
      };
      if (!schema.type || !REST_TYPES.includes(String(schema.type))) continue;
      byName.set(name, { name, option, schema: defaultAdditionalPropertiesToFalse(schema), definition });
    }
    const settings = [...byName.values()];
    if (this.server.registry.isFrozen) this.settingsCache = settings;
    return settings;
  }

  /** GET: every exposed setting's value, stored or default, prepared for its schema. */
  async getItem(_req: RestRequest): Promise<Record<string, unknown>> {
    const settings = this.restSettings();
    const stored = await this.options.getMany(settings.map((s) => s.option));
    const out: Record<string, unknown> = {};
    for (const setting of settings) {
      const { name, option, schema } = setting;
      let value = await this.hooks.applyFilters<unknown>('rest_pre_get_setting', null, name, setting);
      if (value === null || value === undefined) value = hasOwn(stored, option) ? stored[option] : schema.default;
      out[name] = prepareSettingValue(value, schema);
    }
    return out;
  }

  /**
   * POST/PUT/PATCH: each exposed setting present in the request is stored (after WordPress's `sanitize_option()`
   * and the registration's `sanitize`), or deleted when `null`. Arguments were validated by the engine; every
   * check here runs before the first write, and all writes share one transaction. Answers the new GET body.
   */
  async updateItem(req: RestRequest): Promise<Record<string, unknown>> {
    const params = req.params();
    const present = this.restSettings().filter((s) => hasOwn(params, s.name));
    const stored = present.length ? await this.options.getMany(present.map((s) => s.option)) : {};
    const writes: Write[] = [];
    for (const setting of present) {
      const { name, option, schema, definition } = setting;
      const value = params[name] ?? null;
      if (await this.hooks.applyFilters('rest_pre_update_setting', false, name, value, setting)) continue;
      if (value === null) {
        // A null in a response means the stored value does not fit the schema; sending it back must not delete it.
        const current = hasOwn(stored, option) ? stored[option] : false;
        if (!isValidStoredValue(current, schema)) {
          throw new RestException(
            'rest_invalid_stored_value',
            `The ${name} property has an invalid stored value, and cannot be updated to null.`,
            500,
          );
        }
        writes.push({ option, delete: true });
        continue;
      }
      let next: unknown = value;
      const core = CORE_SETTINGS.find((s): s is CoreSettingDefinition => s.option === option);
      if (core?.sanitizeOption) next = core.sanitizeOption(next);
      if (next === KEEP_CURRENT_VALUE) continue;
      if (definition.sanitize) next = await definition.sanitize(next);
      writes.push({ option, value: next });
    }
    await this.write(writes);
    return this.getItem(req);
  }

  /** Applies the writes in one transaction (an option that does not exist yet is added, autoloaded). */
  private async write(writes: Write[]): Promise<void> {
    if (!writes.length) return;
    try {
      await writeTransaction(this.dataSource, async (manager) => {
        const repo = manager.getRepository(OptionEntity);
        for (const write of writes) {
          if (write.delete) {
            await repo.delete({ name: write.option });
            continue;
          }
          const value = maybeSerialize(write.value);
          const row = await repo.findOne({ where: { name: write.option }, select: { id: true, value: true } });
          if (!row) await repo.insert({ name: write.option, value, autoload: 'yes' });
          else if (row.value !== value) await repo.update({ id: row.id }, { value });
        }
        await recordEvent(manager, { event: 'settings.updated', objectType: 'settings', id: 0 });
      });
    } finally {
      this.options.invalidate();
    }
  }
}

function hasOwn(object: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(object, key);
}

/**
 * The reference's `rest_default_additional_properties_to_false()`: objects (at any depth) accept only their
 * declared properties unless the schema says otherwise.
 */
function defaultAdditionalPropertiesToFalse(schema: JsonSchema): JsonSchema {
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  const out: JsonSchema = { ...schema };
  if (types.includes('object')) {
    if (out.properties) {
      out.properties = Object.fromEntries(
        Object.entries(out.properties).map(([key, child]) => [key, defaultAdditionalPropertiesToFalse(child)]),
      );
    }
    if (out.additionalProperties === undefined) out.additionalProperties = false;
  }
  if (types.includes('array') && out.items) out.items = defaultAdditionalPropertiesToFalse(out.items);
  return out;
}

/**
 * `true` when a stored value fits the setting's schema. WordPress stores `false` as `''`, so `''` counts as a
 * boolean. The `uri` format is not checked (WordPress only sanitises it).
 */
function isValidStoredValue(value: unknown, schema: JsonSchema): boolean {
  if (schema.type === 'boolean' && value === '') return true;
  const checked = schema.format === 'uri' ? { ...schema, format: undefined } : schema;
  return validateValue(value, checked, '') === null;
}

/** A stored value as the API shows it: cast to the schema's type, or `null` when it does not fit the schema. */
export function prepareSettingValue(value: unknown, schema: JsonSchema): unknown {
  if (!isValidStoredValue(value, schema)) return null;
  if (schema.type === 'boolean' && value === '') return false;
  return sanitizeValue(value, schema);
}
