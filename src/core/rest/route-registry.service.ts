import { Injectable } from '@nestjs/common';
import { RouteArg } from '../schema/json-schema';
import { EndpointDefinition, RouteDefinition, RouteEndpoint, RouteOptions } from './route-types';

/** Converts the reference's PCRE route pattern (`(?P<id>[\d]+)`) into a JavaScript regular expression. */
export function routePatternToRegExp(route: string): RegExp {
  const source = route.replace(/\(\?P<([A-Za-z_][A-Za-z0-9_]*)>/g, '(?<$1>');
  return new RegExp(`^${source}$`, 'i');
}

/**
 * The table of every API route: namespace, pattern, endpoints (methods, args, permission, handler) and schema,
 * the reference's `register_rest_route`. Routes are matched in registration order. The table is frozen when the
 * application has bootstrapped; registering later throws.
 */
@Injectable()
export class RouteRegistry {
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
  register(namespace: string, path: string, endpoints: EndpointDefinition | EndpointDefinition[], options: RouteOptions = {}): void {
    if (this.frozen) {
      throw new Error(`Route ${namespace}${path} registered after the application bootstrapped; register routes in onModuleInit.`);
    }
    const ns = namespace.replace(/^\/+|\/+$/g, '');
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
    this.routes.set(key, { namespace: ns, route: key, regex: routePatternToRegExp(key), endpoints: list, schema: options.schema });
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
    };
  }

  /** Every route, in registration order (one list once the table is frozen). */
  all(): readonly RouteDefinition[] {
    return (this.frozenList ??= this.frozen ? [...this.routes.values()] : undefined) ?? [...this.routes.values()];
  }

  private frozenList?: RouteDefinition[];

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
      for (const endpoint of route.endpoints) if (endpoint.argsFactory) endpoint.args = endpoint.argsFactory();
    }
  }

  get isFrozen(): boolean {
    return this.frozen;
  }
}
