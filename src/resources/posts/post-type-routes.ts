import type { ItemSchema, RouteArg } from '../../core/json-schema/json-schema';
import type { PostTypeObject } from '../../core/registry/content-types';
import type { RestRouteOptions, RouteTarget } from '../../core/rest/rest-route.decorator';

/** A handlers class that serves each post type through that type's resource. */
interface PerPostTypeHandlers<R> {
  of(target: RouteTarget): R;
}

/**
 * The route options of a handlers class whose routes are declared once for every post type `perPostType` keeps:
 * each route gets its `methods`, and its arguments (`args` of the target type's resource) and item schema read
 * from that resource when the route table freezes.
 */
export function postTypeRoutes<R extends { getPublicItemSchema(): ItemSchema }>(
  perPostType: (type: PostTypeObject) => boolean,
) {
  return (
    methods: string | readonly string[],
    args: (resource: R) => Record<string, RouteArg>,
    more: Pick<RestRouteOptions, 'readsPostContent'> = {},
  ): RestRouteOptions<PerPostTypeHandlers<R>> => ({
    methods,
    perPostType,
    args: (h, t) => args(h.of(t)),
    schema: (h, t) => h.of(t).getPublicItemSchema(),
    ...more,
  });
}
