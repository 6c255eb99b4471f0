import { CanActivate, HttpException, Inject, Injectable, OnModuleInit, Type } from '@nestjs/common';
import { GUARDS_METADATA } from '@nestjs/common/constants';
import { DiscoveryService, ModuleRef } from '@nestjs/core';
import { GuardsConsumer } from '@nestjs/core/guards';
import { CMS_NAMESPACE } from '../config/cms-options';
import { RestException } from '../errors/rest.exception';
import { ContentRegistry } from '../registry/content-registry.service';
import type { RestRequest } from './rest-request';
import {
  ALLOW_POLICY,
  PermissionPolicy,
  RestRouteDeclaration,
  restRoutesOf,
  RouteTarget,
} from './rest-route.decorator';
import { CapabilityGuard } from '../auth/capability.guard';
import { RouteRegistry } from './route-registry.service';
import type { EndpointDefinition, PermissionResult } from './route-types';

/** A handler method, as discovery finds it on a handlers instance. */
type Handler = (...args: never[]) => unknown;

/** The context type guards see for an API handler (`context.getType()`). */
export const REST_CONTEXT_TYPE = 'cms-rest';

interface Found {
  instance: Record<string, unknown>;
  declaration: RestRouteDeclaration;
}

/**
 * Finds the handlers classes among the application's providers (methods declared with `@RestRoute`) and
 * registers their routes: plain routes when the module initialises, routes declared per post type or taxonomy
 * just before the table freezes, once for every REST type or taxonomy extensions registered. Each handler runs
 * behind its Nest guards (`@UseGuards`, and `CapabilityGuard` for `@Allow`) through Nest's `GuardsConsumer`,
 * with the arguments `[RestRequest, handlers, RouteTarget]` (context type `cms-rest`); the host's global guards
 * stay on the API's HTTP route and do not run again for each handler or `_embed` sub-request.
 */
@Injectable()
export class RestHandlerExplorer implements OnModuleInit {
  private readonly guards = new GuardsConsumer();

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly moduleRef: ModuleRef,
    private readonly registry: RouteRegistry,
    @Inject(ContentRegistry) private readonly content: ContentRegistry,
  ) {}

  onModuleInit(): void {
    const plain: Found[] = [];
    const perType: Found[] = [];
    const perTaxonomy: Found[] = [];
    for (const wrapper of this.discovery.getProviders()) {
      const instance = wrapper.instance as Record<string, unknown> | undefined;
      if (!instance || typeof instance !== 'object' || !wrapper.metatype) continue;
      for (const declaration of restRoutesOf(instance.constructor)) {
        if (declaration.options.perPostType) perType.push({ instance, declaration });
        else if (declaration.options.perTaxonomy) perTaxonomy.push({ instance, declaration });
        else plain.push({ instance, declaration });
      }
    }
    // The API's own namespace first, so that the index lists `cms/v2` before the namespaces of other modules.
    const own = (found: Found) => (found.declaration.options.namespace ?? CMS_NAMESPACE) === CMS_NAMESPACE;
    for (const found of [...plain.filter(own), ...plain.filter((f) => !own(f))]) this.register(found, {});
    if (!perType.length && !perTaxonomy.length) return;
    this.registry.beforeFreeze(() => {
      for (const postType of this.content.restPostTypes()) {
        for (const found of perType) {
          const keep = found.declaration.options.perPostType;
          if (typeof keep === 'function' && !keep(postType)) continue;
          this.register(found, { postType });
        }
      }
      for (const taxonomy of this.content.restTaxonomies()) {
        for (const found of perTaxonomy) {
          const keep = found.declaration.options.perTaxonomy;
          if (typeof keep === 'function' && !keep(taxonomy)) continue;
          this.register(found, { taxonomy });
        }
      }
    });
  }

  private register({ instance, declaration }: Found, target: RouteTarget): void {
    const { pattern, options, methodName } = declaration;
    const handler = instance[methodName] as (req: RestRequest, target: RouteTarget) => unknown;
    const object = target.postType ?? target.taxonomy;
    const base = object ? object.rest_base || object.name : '';
    const namespace =
      typeof options.namespace === 'function'
        ? options.namespace(instance, target)
        : (options.namespace ?? object?.rest_namespace ?? CMS_NAMESPACE);
    const guards = this.guardsOf(instance, handler);
    const policy = Reflect.getMetadata(ALLOW_POLICY, handler) as PermissionPolicy | undefined;
    // Only CapabilityGuard: its policy is called as the guard would call it, without building an execution context.
    const onlyPolicy = policy && guards.length === 1 && guards[0] instanceof CapabilityGuard;
    const args = options.args;
    const endpoint: EndpointDefinition = {
      methods: options.methods,
      args: typeof args === 'function' ? () => args(instance, target) : args,
      permission: onlyPolicy
        ? (req) => policy(req, instance, target)
        : guards.length
          ? (req) => this.activate(guards, instance, handler, req, target)
          : undefined,
      handler: (req) => handler.call(instance, req, target),
      showInIndex: options.showInIndex,
      strictArgs: options.strictArgs,
      acceptsFiles: options.acceptsFiles,
      readsPostContent: options.readsPostContent,
      returns: options.returns,
      allowBatch: options.allowBatch,
    };
    const schema = options.schema;
    this.registry.register(
      namespace,
      pattern.replace('{base}', `/${base}`),
      endpoint,
      schema ? { schema: () => schema(instance, target) } : {},
    );
  }

  /** The guards of a handler (its class's, then its own), as instances from the container. */
  private guardsOf(instance: object, handler: Handler): CanActivate[] {
    const guardsOn = (target: object) =>
      (Reflect.getMetadata(GUARDS_METADATA, target) as Array<Type<CanActivate> | CanActivate> | undefined) ?? [];
    const declared = [...guardsOn(instance.constructor), ...guardsOn(handler)];
    return declared.map((guard) =>
      typeof guard === 'function' ? this.moduleRef.get(guard, { strict: false }) : guard,
    );
  }

  /** Runs the guards: `true`, `false` (the generic refusal), or the refusal a guard threw. */
  private async activate(
    guards: CanActivate[],
    instance: object,
    handler: Handler,
    req: RestRequest,
    target: RouteTarget,
  ): Promise<PermissionResult> {
    try {
      return await this.guards.tryActivate(
        guards,
        [req, instance, target],
        instance,
        handler as never,
        REST_CONTEXT_TYPE,
      );
    } catch (error) {
      if (error instanceof RestException) return error;
      if (error instanceof HttpException) return new RestException('rest_forbidden', error.message, error.getStatus());
      throw error;
    }
  }
}
