import { applyDecorators, SetMetadata, UseGuards } from '@nestjs/common';
import type { PostTypeObject, TaxonomyObject } from '../registry/content-types';
import type { ItemSchema, RouteArg } from '../json-schema/json-schema';
import { ALLOW_POLICY, CapabilityGuard } from '../auth/capability.guard';
import type { RestRequest } from './rest-request';
import type { PermissionResult } from './route-types';

/** Metadata key of the routes a handlers class declares (in declaration order). */
export const REST_ROUTES = 'cms:rest_routes';
export { ALLOW_POLICY };

/**
 * What a route was registered for: the post type or taxonomy of routes declared once for every one of them
 * (`perPostType`, `perTaxonomy`); empty for other routes.
 */
export interface RouteTarget {
  postType?: PostTypeObject;
  taxonomy?: TaxonomyObject;
}

/** A value given as is, or made from the handlers instance and the route's target when the route table freezes. */
export type PerRoute<T, H> = T | ((handlers: H, target: RouteTarget) => T);

/** Options of {@link RestRoute}. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a policy's handlers are `any` unless it names their type
export interface RestRouteOptions<H = any> {
  /** HTTP methods (`'GET'`, `'POST, PUT, PATCH'`, or one of the `Methods` sets). */
  methods: string | readonly string[];
  /** Namespace (default: the post type's or taxonomy's `rest_namespace`, else `cms/v2`). */
  namespace?: PerRoute<string, H>;
  /** Arguments (JSON Schema + options); derived lazily so registered fields are included. */
  args?: PerRoute<Record<string, RouteArg>, H>;
  /** The item schema answered by OPTIONS and `context=help`. */
  schema?: (handlers: H, target: RouteTarget) => ItemSchema;
  /**
   * Register the route once per REST post type (`true`, or the types a predicate keeps); `{base}` in the pattern
   * stands for the type's `rest_base`.
   */
  perPostType?: boolean | ((type: PostTypeObject) => boolean);
  /** Register the route once per REST taxonomy; `{base}` in the pattern stands for its `rest_base`. */
  perTaxonomy?: boolean | ((taxonomy: TaxonomyObject) => boolean);
  showInIndex?: boolean;
  strictArgs?: boolean;
  acceptsFiles?: boolean;
  /** See `EndpointDefinition.readsPostContent`. */
  readsPostContent?: boolean | ((query: Record<string, unknown>) => boolean);
  /** What a successful answer holds, for the OpenAPI document (see `EndpointDefinition.returns`). */
  returns?: 'item' | 'list' | 'map';
  /** A `batch/v1` request may call the endpoint (WordPress's `allow_batch: { v1: true }`; see `EndpointDefinition`). */
  allowBatch?: boolean;
}

/** One declared route: a method of a handlers class with its pattern and options. */
export interface RestRouteDeclaration {
  pattern: string;
  options: RestRouteOptions;
  methodName: string;
}

/**
 * Declares a handler method as an endpoint of a route in the reference's pattern form, e.g.
 * `@RestRoute('/types/(?P<type>[\\w-]+)', { methods: 'GET', args })`. The route registry discovers it when the
 * application starts. The handler is called with the request and the route's {@link RouteTarget}.
 *
 * @example
 * @RestRoute('{base}/(?P<id>[\\d]+)', { methods: Methods.READABLE, perTaxonomy: true, args: (h, t) => h.terms.readArgs(t) })
 * @Allow((req, h, t) => h.terms.of(t).canRead(req))
 * get(req: RestRequest, target: RouteTarget) { return this.terms.of(target).getItem(req); }
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a policy's handlers are `any` unless it names their type
export function RestRoute<H = any>(pattern: string, options: RestRouteOptions<H>): MethodDecorator {
  return (prototype, methodName) => {
    const ctor = prototype.constructor;
    const own = (Reflect.getOwnMetadata(REST_ROUTES, ctor) as RestRouteDeclaration[] | undefined) ?? [];
    Reflect.defineMetadata(REST_ROUTES, [...own, { pattern, options, methodName: String(methodName) }], ctor);
  };
}

/** The routes a handlers class declares. */
export function restRoutesOf(ctor: object): readonly RestRouteDeclaration[] {
  return (Reflect.getMetadata(REST_ROUTES, ctor) as RestRouteDeclaration[] | undefined) ?? [];
}

/**
 * A permission policy: the reference's `permission_callback`. `true` allows; `false` refuses with `rest_forbidden`
 * (401 anonymous, 403 logged in); a `RestException` refuses with its own code and status.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a policy's handlers are `any` unless it names their type
export type PermissionPolicy<H = any> = (
  req: RestRequest,
  handlers: H,
  target: RouteTarget,
) => PermissionResult | Promise<PermissionResult>;

/**
 * Puts a permission policy on a handler, evaluated by {@link CapabilityGuard} through the capability service
 * (`map_meta_cap`) after the request's arguments are validated, before the handler runs; the same policy decides
 * the `Allow` header. A handler without `@Allow` is open to everyone, as a route without `permission_callback`.
 *
 * The common cases are declared, not written: `@Allow.cap('manage_options')` (the caller has the capability, else
 * the generic refusal: `rest_forbidden`, 401 anonymous, 403 logged in) and `@Allow.public()` (everyone, said
 * outright). A closure stays for the object-level checks WordPress's `map_meta_cap` needs (`edit_post` of this
 * post, with the reference's own codes).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a policy's handlers are `any` unless it names their type
export function Allow<H = any>(policy: PermissionPolicy<H>): MethodDecorator {
  return applyDecorators(SetMetadata(ALLOW_POLICY, policy), UseGuards(CapabilityGuard));
}

/** `@Allow.cap(capability)`: callers with the (primitive or meta) capability; others get the generic refusal. */
Allow.cap = (capability: string): MethodDecorator => {
  const policy: PermissionPolicy<unknown> = (req) => req.ctx.can(capability);
  return Allow(Object.assign(policy, { capability }));
};

/** `@Allow.public()`: everyone, anonymous callers included. */
Allow.public = (): MethodDecorator => Allow(() => true);
