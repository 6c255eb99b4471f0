import { RouteDescriber } from '../rest/route-describer';
import type { RequestContext } from '../auth/request-context';
import { RouteRegistry } from '../rest/route-registry.service';
import { Inject, Injectable } from '@nestjs/common';
import { CMS_OPTIONS, ResolvedCmsOptions } from '../config/cms-options';
import { DialectTexts } from '../dialect/dialect-texts';
import { ContentRegistry } from '../registry/content-registry.service';
import type { RouteDefinition } from '../rest/route-types';
import type { ItemSchema, JsonSchema, RouteArg } from '../json-schema/json-schema';
import { LENGTH_AND_ITEM_KEYWORDS, pickKeywords } from './schema-keywords';

/** The keywords of an argument's schema that descriptions show (callbacks and options are left out). */
const PUBLIC_ARG_KEYWORDS = [
  'title',
  'description',
  'default',
  'type',
  'format',
  'enum',
  'items',
  'properties',
  'additionalProperties',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  ...LENGTH_AND_ITEM_KEYWORDS,
  'anyOf',
  'oneOf',
];

/**
 * Assembles what the API says about itself from the route table, where the handlers' metadata put it: the
 * description of one route (`OPTIONS`), of every route for the index and each namespace index, and with
 * `context=help` their item schemas. The same argument schemas validate the requests, so there is one source.
 */
@Injectable()
export class SchemaRegistry implements RouteDescriber {
  /** The wire dialect's wording of the descriptions. */
  private readonly texts: DialectTexts;
  /** Whether arguments show a `null` default (the dialect's `describesNullDefaults`). */
  private readonly nullDefaults: boolean;

  constructor(
    private readonly routes: RouteRegistry,
    @Inject(CMS_OPTIONS) options: ResolvedCmsOptions,
    content: ContentRegistry,
  ) {
    this.texts = DialectTexts.of(options.wire.dialect, content);
    this.nullDefaults = options.wire.dialect.describesNullDefaults;
  }

  /** The description of a route, as in the index: methods, endpoints with public args, self link, schema. */
  describe(route: RouteDefinition, context: string, ctx: RequestContext): Record<string, unknown> {
    const endpoints = route.endpoints.filter((e) => e.showInIndex);
    const texts = this.texts;
    const data: Record<string, unknown> = {
      namespace: route.namespace,
      methods: endpoints.flatMap((e) => e.methods),
      endpoints: texts.describe(
        endpoints.map((e) => ({
          methods: e.methods,
          // An endpoint without arguments shows `[]`, as in the reference.
          args: Object.keys(e.args).length
            ? Object.fromEntries(Object.entries(e.args).map(([name, arg]) => [name, publicArg(arg, this.nullDefaults)]))
            : [],
        })),
        route,
      ),
    };
    if (!route.route.includes('(?P<')) data._links = { self: [{ href: ctx.restUrl(route.route.replace(/^\//, '')) }] };
    if (context === 'help' && route.schema) {
      const schema = texts.describe(publicSchema(route.schema()), route) as ItemSchema;
      // Links of the schema (`get_schema_links`) point into the API, absolute as every URL it writes.
      if (schema.links) schema.links = schema.links.map((link) => ({ ...link, href: ctx.restUrl(link.href) }));
      data.schema = schema;
    }
    return data;
  }

  /** Descriptions of all routes (of one namespace, if given), keyed by route, in registration order. */
  describeAll(ctx: RequestContext, context: string, namespace?: string): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const route of this.routes.all()) {
      if (namespace && route.namespace !== namespace) continue;
      if (!route.endpoints.some((e) => e.showInIndex)) continue;
      out[route.route] = this.describe(route, context, ctx);
    }
    return out;
  }
}

function publicArg(arg: RouteArg, nullDefaults: boolean): Record<string, unknown> {
  let out = pickKeywords(arg, PUBLIC_ARG_KEYWORDS);
  // WordPress shows a `null` default as it is; the spec's descriptions leave it out.
  if (nullDefaults && arg.default === null) out = { default: null, ...out };
  // PHP encodes an empty property map (`meta` without registered keys) as an empty JSON array, as in the schema.
  if (
    out.properties &&
    typeof out.properties === 'object' &&
    !Array.isArray(out.properties) &&
    !Object.keys(out.properties).length
  )
    out.properties = [];
  out.required = arg.required === true;
  return out;
}

/** The schema as published: `arg_options` removed from each property. */
export function publicSchema(schema: JsonSchema): JsonSchema {
  if (!schema.properties) return schema;
  const properties: Record<string, JsonSchema> = {};
  for (const [key, prop] of Object.entries(schema.properties)) {
    const { arg_options: _ignored, ...rest } = prop;
    properties[key] = rest;
  }
  return { ...schema, properties };
}
