import { Injectable } from '@nestjs/common';
import { SESSION_COOKIE } from '../auth/session.service';
import { RouteRegistry } from '../rest/route-registry.service';
import { WireNames } from '../wire-names';
import type { RouteDefinition, RouteEndpoint } from '../rest/route-types';
import type { RouteArg } from '../json-schema/json-schema';
import { operationText } from './openapi-operation-text';
import { OpenApiSchema, pathParamSchema, toOpenApiProperties, toOpenApiSchema, toPathTemplate } from './openapi-schema';

/** The API's names on the wire that the document repeats: one place to change them. */
export interface OpenApiWireNames {
  /** The API's own namespace (its routes are tagged by resource, other namespaces by namespace). */
  namespace: string;
  totalHeader: string;
  totalPagesHeader: string;
  nonceHeader: string;
  sessionCookie: string;
}

/** The wire names the document repeats, from the route table's (the spec's, or WordPress's: `CMS_WIRE_NAMES`). */
export function wireNames(wire: WireNames = WireNames.of('cms')): OpenApiWireNames {
  return {
    namespace: wire.ownNamespace,
    totalHeader: wire.totalHeader,
    totalPagesHeader: wire.totalPagesHeader,
    nonceHeader: wire.nonceHeader,
    sessionCookie: SESSION_COOKIE,
  };
}

/** An OpenAPI 3.1 document (the parts this server writes). */
export interface OpenApiDoc {
  openapi: string;
  info: { title: string; version: string; description?: string };
  servers: Array<{ url: string }>;
  paths: Record<string, Record<string, unknown>>;
  components: Record<string, Record<string, unknown>>;
  security: Array<Record<string, string[]>>;
  tags: Array<{ name: string }>;
}

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH']);
const ERROR_RESPONSES = { '400': 'BadRequest', '401': 'Unauthorized', '403': 'Forbidden', '404': 'NotFound' } as const;

/**
 * The OpenAPI 3.1 description of every route in the route table, built once the table is frozen from what feeds
 * the index and `OPTIONS` — so the routes, fields and types extensions register appear by themselves:
 * - paths with typed path parameters, GET and DELETE arguments as query parameters, JSON bodies for writes, and
 *   `multipart/form-data` (a `file` part) or a raw body with `Content-Disposition` for routes that take files;
 * - item schemas as components (`readOnly`, the `view` context's properties required), `201` for creates,
 *   the total headers on collections, the `{code, message, data}` error as a component for 400/401/403/404;
 * - security schemes: application passwords (HTTP Basic), and the session cookie with its nonce header.
 *
 * The document is built once per process; `servers` is set per request, from the base URL links are written with.
 */
@Injectable()
export class OpenApiDocument {
  private built?: Omit<OpenApiDoc, 'servers'>;
  private readonly names: OpenApiWireNames;

  constructor(private readonly routes: RouteRegistry) {
    this.names = wireNames(routes.wire);
  }

  /** The document for an API root URL (`https://example.com/cms-json`). */
  forServer(apiRoot: string): OpenApiDoc {
    // Before the table freezes (nothing is served yet) the document may still change: built each time.
    const built = this.routes.isFrozen ? (this.built ??= this.build()) : this.build();
    const { openapi, info, ...rest } = built;
    return { openapi, info, servers: [{ url: apiRoot.replace(/\/+$/, '') }], ...rest };
  }

  private build(): Omit<OpenApiDoc, 'servers'> {
    const schemas: Record<string, OpenApiSchema> = { Error: ERROR_SCHEMA };
    const schemaNames = new Map<string, string>();
    const operationIds = new Set<string>();
    const tags: string[] = [];
    const paths: OpenApiDoc['paths'] = {};
    for (const route of this.routes.all()) {
      const endpoints = route.endpoints.filter((e) => e.showInIndex);
      if (!endpoints.length) continue;
      const template = toPathTemplate(route.route);
      if (!template) continue;
      const itemRef = route.schema ? this.componentRef(route, schemas, schemaNames) : undefined;
      const tag = this.tagOf(route);
      if (!tags.includes(tag)) tags.push(tag);
      const listed = endpoints.some((e) => e.methods.includes('GET') && returnsOf(e) === 'list');
      const item: Record<string, unknown> = paths[template.path] ?? {};
      for (const endpoint of endpoints) {
        for (const method of endpoint.methods) {
          const verb = method.toLowerCase();
          if (!['get', 'post', 'put', 'patch', 'delete'].includes(verb) || item[verb]) continue;
          const creates = method === 'POST' && endpoint.methods.length === 1 && listed;
          item[verb] = this.operation(
            route,
            endpoint,
            method,
            template.params,
            itemRef,
            tag,
            listed,
            creates,
            operationIds,
          );
        }
      }
      paths[template.path] = item;
    }
    return {
      openapi: '3.1.0',
      info: {
        title: 'cms-api',
        version: this.routes.namespaces().join(' ') || this.names.namespace,
        description:
          'Every route of this server, as registered (extensions included). Answers are shaped by `context` (`view` by default; ' +
          'item schemas require the properties of the `view` context), `_fields` and `_embed`; errors are `{code, message, data: {status}}`.',
      },
      paths,
      components: {
        schemas,
        responses: Object.fromEntries(
          Object.entries(ERROR_RESPONSES).map(([status, name]) => [
            name,
            {
              description: ERROR_DESCRIPTIONS[status as keyof typeof ERROR_RESPONSES],
              content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
            },
          ]),
        ),
        securitySchemes: {
          applicationPassword: {
            type: 'http',
            scheme: 'basic',
            description: 'A user login and one of their application passwords.',
          },
          sessionCookie: {
            type: 'apiKey',
            in: 'cookie',
            name: this.names.sessionCookie,
            description: 'The session cookie set by logging in; needs the nonce too.',
          },
          nonce: {
            type: 'apiKey',
            in: 'header',
            name: this.names.nonceHeader,
            description: 'The nonce answered by logging in, with the session cookie.',
          },
        },
      },
      // Anonymous callers are welcome; credentials are one of these.
      security: [{}, { applicationPassword: [] }, { sessionCookie: [], nonce: [] }],
      tags: tags.map((name) => ({ name })),
    };
  }

  private operation(
    route: RouteDefinition,
    endpoint: RouteEndpoint,
    method: string,
    pathParams: Array<{ name: string; pattern: string }>,
    itemRef: string | undefined,
    tag: string,
    listed: boolean,
    creates: boolean,
    operationIds: Set<string>,
  ): Record<string, unknown> {
    const names = new Set(pathParams.map((p) => p.name));
    const parameters: Array<Record<string, unknown>> = pathParams.map((p) => {
      const declared = endpoint.args[p.name];
      const schema = pathParamSchema(p.pattern);
      return {
        name: p.name,
        in: 'path',
        required: true,
        ...(declared?.description ? { description: declared.description } : {}),
        schema,
      };
    });
    const bodyArgs: Record<string, RouteArg> = {};
    for (const [name, arg] of Object.entries(endpoint.args)) {
      if (names.has(name)) continue;
      if (WRITE_METHODS.has(method)) bodyArgs[name] = arg;
      else parameters.push(queryParameter(name, arg));
    }
    const item = route.schema?.();
    const text = operationText({
      route,
      endpoint,
      method,
      returns: method === 'GET' ? returnsOf(endpoint) : 'item',
      creates,
      onCollection: method !== 'GET' && listed && !creates,
      schema: item ? { title: item.title, description: item.description } : undefined,
      ownNamespace: this.names.namespace,
      totalHeader: this.names.totalHeader,
      totalPagesHeader: this.names.totalPagesHeader,
    });
    const operation: Record<string, unknown> = {
      operationId: uniqueId(operationIdOf(method, route.route), operationIds),
      summary: text.summary,
      description: text.description,
      tags: [tag],
    };
    if (WRITE_METHODS.has(method)) {
      const { properties, required } = toOpenApiProperties(bodyArgs, 'request');
      const body: OpenApiSchema = { type: 'object', properties, ...(required.length ? { required } : {}) };
      if (endpoint.acceptsFiles) {
        parameters.push({
          name: 'Content-Disposition',
          in: 'header',
          description: 'With a raw file body: `attachment; filename="photo.jpg"`.',
          schema: { type: 'string' },
        });
        operation.requestBody = {
          content: {
            'multipart/form-data': {
              schema: {
                ...body,
                properties: { file: { type: 'string', format: 'binary', description: 'The file.' }, ...properties },
                required: ['file', ...required],
              },
            },
            '*/*': {
              schema: {
                type: 'string',
                format: 'binary',
                description: 'The file itself, named by `Content-Disposition`.',
              },
            },
          },
        };
      } else if (Object.keys(properties).length) {
        operation.requestBody = { content: { 'application/json': { schema: body } } };
      }
    }
    if (parameters.length) operation.parameters = parameters;
    const returns = method === 'GET' ? returnsOf(endpoint) : 'item';
    // A write or delete on a collection's route that creates nothing (deleting them all) answers something else.
    const other = !itemRef || (method !== 'GET' && listed && !creates);
    const schema = other
      ? {}
      : returns === 'list'
        ? { type: 'array', items: { $ref: itemRef } }
        : returns === 'map'
          ? { type: 'object', additionalProperties: { $ref: itemRef } }
          : { $ref: itemRef };
    const ok: Record<string, unknown> = {
      description: creates ? 'Created.' : 'OK.',
      content: { 'application/json': { schema } },
    };
    if (method === 'GET' && returns === 'list' && 'per_page' in endpoint.args) {
      ok.headers = {
        [this.names.totalHeader]: {
          description: 'The number of items in the collection.',
          schema: { type: 'integer' },
        },
        [this.names.totalPagesHeader]: {
          description: 'The number of pages at this `per_page`.',
          schema: { type: 'integer' },
        },
      };
    }
    const responses: Record<string, unknown> = { [creates ? '201' : '200']: ok };
    for (const [status, name] of Object.entries(ERROR_RESPONSES)) {
      if (status === '404' && !pathParams.length) continue;
      responses[status] = { $ref: `#/components/responses/${name}` };
    }
    operation.responses = responses;
    return operation;
  }

  /** The component of a route's item schema (one per distinct schema, named by its title). */
  private componentRef(
    route: RouteDefinition,
    schemas: Record<string, OpenApiSchema>,
    byContent: Map<string, string>,
  ): string {
    const item = route.schema!();
    const converted = toOpenApiSchema(item, 'response');
    converted.type = 'object';
    converted.properties = { ...(converted.properties as object), ...LINK_PROPERTIES };
    const key = JSON.stringify(converted);
    let name = byContent.get(key);
    if (!name) {
      const base = String(item.title || route.route).replace(/[^A-Za-z0-9._-]+/g, '_') || 'item';
      name = base;
      for (let n = 2; schemas[name]; n++) name = `${base}_${n}`;
      schemas[name] = converted;
      byContent.set(key, name);
    }
    return `#/components/schemas/${name}`;
  }

  /** Routes of the API's own namespace are tagged by resource (`posts`), others by namespace; the indexes `index`. */
  private tagOf(route: RouteDefinition): string {
    const rest = route.route.slice(route.namespace.length + 1).replace(/^\/+/, '');
    if (!route.namespace || !rest) return 'index';
    if (route.namespace !== this.names.namespace) return route.namespace;
    return rest.split('/')[0];
  }
}

/** What a GET answers: as declared, else a list when it pages (`per_page`), else one item. */
function returnsOf(endpoint: RouteEndpoint): 'item' | 'list' | 'map' {
  return endpoint.returns ?? ('per_page' in endpoint.args ? 'list' : 'item');
}

/**
 * A query parameter: lists are sent comma-separated (`status=publish,draft`; the API reads a repeated name
 * without brackets as its last value, as PHP does), objects with brackets (`filter[s]=x`).
 */
function queryParameter(name: string, arg: RouteArg): Record<string, unknown> {
  const { description, ...schema } = toOpenApiSchema(arg, 'parameter');
  const types = Array.isArray(arg.type) ? arg.type : [arg.type];
  const style = types.includes('array')
    ? { style: 'form', explode: false }
    : types.includes('object')
      ? { style: 'deepObject', explode: true }
      : {};
  return {
    name,
    in: 'query',
    ...(description ? { description } : {}),
    ...(arg.required === true ? { required: true } : {}),
    ...style,
    schema,
  };
}

/** `get` + `/cms/v2/posts/(?P<id>…)` → `getCmsV2PostsById`. */
function operationIdOf(method: string, route: string): string {
  const words = route
    .replace(/\(\?P<([A-Za-z_][A-Za-z0-9_]*)>(?:[^()]|\([^()]*\))*\)/g, ' by $1 ')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean);
  return method.toLowerCase() + words.map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('');
}

function uniqueId(id: string, used: Set<string>): string {
  let unique = id;
  for (let n = 2; used.has(unique); n++) unique = `${id}${n}`;
  used.add(unique);
  return unique;
}

const ERROR_DESCRIPTIONS = {
  '400': 'Invalid arguments (`rest_invalid_param`, `rest_missing_callback_param`, …).',
  '401': 'Not allowed to anonymous callers: send credentials.',
  '403': 'Not allowed to this user.',
  '404': 'No such item (or route).',
} as const;

/** The API's error body. */
const ERROR_SCHEMA: OpenApiSchema = {
  type: 'object',
  properties: {
    code: { type: 'string', description: 'A stable error code, e.g. `rest_invalid_param`.' },
    message: { type: 'string', description: 'A human-readable message.' },
    data: {
      type: 'object',
      properties: {
        status: { type: 'integer', description: 'The HTTP status.' },
        params: {
          type: 'object',
          additionalProperties: { type: 'string' },
          description: 'Invalid parameters and why.',
        },
      },
      required: ['status'],
    },
  },
  required: ['code', 'message', 'data'],
};

/** `_links` and `_embedded` on every item answered. */
const LINK_PROPERTIES: Record<string, OpenApiSchema> = {
  _links: {
    type: 'object',
    readOnly: true,
    additionalProperties: {
      type: 'array',
      items: { type: 'object', properties: { href: { type: 'string' }, embeddable: { type: 'boolean' } } },
    },
  },
  _embedded: { type: 'object', readOnly: true, additionalProperties: { type: 'array' } },
};
