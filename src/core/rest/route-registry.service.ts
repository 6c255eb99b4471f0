import { Inject, Injectable, Optional } from '@nestjs/common';
import { CMS_OPTIONS, type ResolvedCmsOptions } from '../config/cms-options';
import { WireNames } from '../wire-names';
import { RouteArg } from '../json-schema/json-schema';
import { EndpointDefinition, RouteDefinition, RouteEndpoint, RouteOptions } from './route-types';

/** Converts the reference's PCRE route pattern (`(?P<id>[\d]+)`) into a JavaScript regular expression. */
export function routePatternToRegExp(route: string): RegExp {
  const source = route.replace(/\(\?P<([A-Za-z_][A-Za-z0-9_]*)>/g, '(?<$1>');
  return new RegExp(`^${source}$`, 'i');
}

/** A path's first three segments (`/cms/v2/posts` of `/cms/v2/posts/7`), lower-cased as routes match any case. */
function leadingSegments(path: string): string {
  return path.split('/', 4).join('/').toLowerCase();
}

/** A route pattern's first three segments when they are literal text (no pattern syntax), else `null`. */
function literalLeadingSegments(pattern: string): string | null {
  const leading = pattern.split('/', 4);
  return leading.some((segment) => /[\\^$.|?*+()[\]{}]/.test(segment)) ? null : leading.join('/').toLowerCase();
}

/**
 * The table of every API route: namespace, pattern, endpoints (methods, args, permission, handler) and schema,
 * the reference's `register_rest_route`. Routes are matched in registration order. The table is frozen when the
 * application has bootstrapped; registering later throws. Namespaces are kept by their wire names
 * ({@link WireNames.namespace}): routes declared in `cms/v2` are served in `wp/v2` with WordPress's names.
 */
@Injectable()
export class RouteRegistry {
  /** The names on the wire. */
  readonly wire: WireNames;

  constructor(@Optional() @Inject(CMS_OPTIONS) options?: ResolvedCmsOptions) {
    this.wire = options?.wire ?? WireNames.of('cms');
  }

  private readonly routes = new Map<string, RouteDefinition>();
  private readonly namespaceOrder: string[] = [];
  private frozen = false;
  private readonly beforeFreezeCallbacks: Array<() => void> = [];
  /** Called for the first route of a namespace, so the server can add the namespace index. */
  onNewNamespace?: (namespace: string) => void;

  /**
   * Registers a route.
   *
   * @example
   * registry.register('cms/v2', '/types/(?P<type>[\\w-]+)', { methods: 'GET', handler: (req) => ..., args: {...} });
   */
  register(
    namespace: string,
    path: string,
    endpoints: EndpointDefinition | EndpointDefinition[],
    options: RouteOptions = {},
  ): void {
    if (this.frozen) {
      throw new Error(
        `Route ${namespace}${path} registered after the application bootstrapped; register routes in onModuleInit.`,
      );
    }
    const ns = this.wire.namespace(namespace.replace(/^\/+|\/+$/g, ''));
    const trimmed = path.replace(/^\/+|\/+$/g, '');
    const key = ns ? (trimmed ? `/${ns}/${trimmed}` : `/${ns}`) : `/${trimmed}`;
    if (ns && !this.namespaceOrder.includes(ns)) {
      this.namespaceOrder.push(ns);
      this.onNewNamespace?.(ns);
    }
    const list = (Array.isArray(endpoints) ? endpoints : [endpoints]).map((e) => this.normalise(e));
    const existing = this.routes.get(key);
    if (existing && !options.override) {
      existing.endpoints.push(...list);
      if (options.schema) existing.schema = options.schema;
      return;
    }
    this.routes.set(key, {
      namespace: ns,
      route: key,
      regex: routePatternToRegExp(key),
      endpoints: list,
      schema: options.schema,
    });
  }

  private normalise(e: EndpointDefinition): RouteEndpoint {
    const methods = (typeof e.methods === 'string' ? e.methods.split(',') : [...e.methods])
      .map((m) => m.trim().toUpperCase())
      .filter(Boolean);
    const lazy = typeof e.args === 'function' ? e.args : undefined;
    return {
      methods,
      handler: e.handler,
      permission: e.permission,
      args: lazy ? {} : ((e.args as Record<string, RouteArg> | undefined) ?? {}),
      argsFactory: lazy,
      showInIndex: e.showInIndex ?? true,
      strictArgs: e.strictArgs ?? true,
      acceptsFiles: e.acceptsFiles ?? false,
      readsPostContent: e.readsPostContent ?? true,
      cacheable: e.cacheable ?? true,
      returns: e.returns,
      allowBatch: e.allowBatch ?? false,
      argNames: null,
    };
  }

  /** Every route, in registration order (one list once the table is frozen). */
  all(): readonly RouteDefinition[] {
    return (this.frozenList ??= this.frozen ? [...this.routes.values()] : undefined) ?? [...this.routes.values()];
  }

  private frozenList?: RouteDefinition[];

  /**
   * The routes that may match a path, in registration order: once the table is frozen, the routes whose pattern
   * begins with the path's first three segments (`/cms/v2/posts`), and those whose pattern begins with anything but
   * literal segments. A request tests a few patterns instead of every route's (`_embed` dispatches dozens).
   */
  candidates(path: string): readonly RouteDefinition[] {
    if (!this.frozen) return this.all();
    const key = leadingSegments(path);
    let list = this.byLeadingSegments.get(key);
    if (!list) {
      const literals = (this.literals ??= new Set(this.all().map((route) => literalLeadingSegments(route.route))));
      // A path no route's literal segments begin: the routes beginning with a pattern, one list for every such path
      // (kept by key, the lists could grow with whatever paths requests send).
      if (!literals.has(key))
        return (this.patternsFirst ??= this.all().filter((route) => literalLeadingSegments(route.route) === null));
      list = this.all().filter((route) => {
        const literal = literalLeadingSegments(route.route);
        return literal === null || literal === key;
      });
      if (this.byLeadingSegments.size >= 1000) this.byLeadingSegments.clear();
      this.byLeadingSegments.set(key, list);
    }
    return list;
  }

  /** Candidates by the literal leading segments of a route: a key per such segments, a fixed set once frozen. */
  private readonly byLeadingSegments = new Map<string, readonly RouteDefinition[]>();
  /** The literal leading segments of the routes (`null` for routes beginning with a pattern). */
  private literals?: Set<string | null>;
  /** The routes beginning with a pattern: the candidates of any other path. */
  private patternsFirst?: readonly RouteDefinition[];

  /** Registered namespaces, in registration order. */
  namespaces(): string[] {
    return [...this.namespaceOrder];
  }

  get(route: string): RouteDefinition | undefined {
    return this.routes.get(route);
  }

  /**
   * Runs `register` just before the table freezes, once every module has initialised: for routes that depend on
   * what extensions registered (one set of routes per post type, for example).
   */
  beforeFreeze(register: () => void): void {
    this.beforeFreezeCallbacks.push(register);
  }

  /** Ends registration and resolves lazily declared arguments. */
  freeze(): void {
    if (this.frozen) return;
    for (const register of this.beforeFreezeCallbacks.splice(0)) register();
    this.frozen = true;
    for (const route of this.routes.values()) {
      for (const endpoint of route.endpoints) {
        if (endpoint.argsFactory) endpoint.args = endpoint.argsFactory();
        if (endpoint.strictArgs) endpoint.argNames = new Set(Object.keys(endpoint.args));
      }
    }
  }

  get isFrozen(): boolean {
    return this.frozen;
  }
}
