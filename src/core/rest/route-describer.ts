import type { RequestContext } from '../auth/request-context';
import type { RouteDefinition } from './route-types';

/**
 * What describes a route for `OPTIONS` (its endpoints, arguments and schema): provided by `SchemaModule` (the
 * SchemaRegistry), so that the dispatcher does not depend on the module that describes it.
 */
export abstract class RouteDescriber {
  abstract describe(route: RouteDefinition, context: string, ctx: RequestContext): Record<string, unknown>;
}
