/** What names a post type's or taxonomy's routes: its name, `rest_base` and `rest_namespace`. */
interface RestNamed {
  name: string;
  rest_base: string;
  rest_namespace: string;
}

/**
 * Where the routes of a post type or taxonomy live: its `rest_namespace`, and its `rest_base` as the route base (its
 * name when it has none).
 */
export function restRouteOf(object: RestNamed): { namespace: string; restBase: string } {
  return { namespace: object.rest_namespace, restBase: object.rest_base || object.name };
}
