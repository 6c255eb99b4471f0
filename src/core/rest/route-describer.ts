import type { RequestContext } from '../auth/request-context';
import type { RouteDefinition } from './route-types';

/**
 * What describes a route for `OPTIONS` (its endpoints, arguments and schema): provided by `SchemaModule` (the
 * SchemaRegistry), so that the dispatcher does not depend on the module that describes it.
 */
export abstract class RouteDescriber {
  abstract describe(route: RouteDefinition, context: string, ctx: RequestContext): Record<string, unknown>;
}

/**
 * A route's description with `allow_batch: { v1: true }` after the `methods` of each endpoint a `batch/v1` request
 * may call, as WordPress 5.6+ describes them (WP_REST_Server::get_data_for_route), when the wire dialect says so
 * (`describesAllowBatch`). The description's endpoints are the route's shown in the index, in order.
 */
export function describeAllowBatch(
  route: RouteDefinition,
  description: Record<string, unknown>,
  ctx: RequestContext,
): Record<string, unknown> {
  const described = description.endpoints;
  if (!ctx.wire.dialect.describesAllowBatch || !Array.isArray(described)) return description;
  const shown = route.endpoints.filter((e) => e.showInIndex);
  if (!shown.some((e) => e.allowBatch)) return description;
  const endpoints = described.map((endpoint: Record<string, unknown>, i) => {
    if (!shown[i]?.allowBatch) return endpoint;
    const { methods, ...rest } = endpoint;
    return { methods, allow_batch: { v1: true }, ...rest };
  });
  return { ...description, endpoints };
}
