/** The settings post types and taxonomies derive alike from their arguments: rewrite and REST. */
import { DEFAULT_REST_NAMESPACE } from './content-basics';

/**
 * The rewrite settings of a `rewrite` argument (`true` or missing: the defaults; `false`: none), each setting
 * `fill` does not take from the given ones defaulted by it.
 */
export function rewriteSettings<T>(arg: boolean | Partial<T> | undefined, fill: (given: Partial<T>) => T): T | false {
  const rewriteArg = arg ?? true;
  if (rewriteArg === false) {
    return false;
  }
  return fill(rewriteArg === true ? {} : rewriteArg);
}

/**
 * Who serves the routes of a REST post type or taxonomy: a resource of its own (`own`, as WordPress's menus and menu
 * items controllers), or nobody (`none`: `types` and `taxonomies` list it, its routes are not served). Without it,
 * the posts or terms routes serve it.
 */
export type RestRoutesOwner = 'own' | 'none';

/** The REST arguments post types and taxonomies share, and the registry's marks they carry. */
export interface RestArgs {
  show_in_rest?: boolean;
  rest_base?: string | false;
  rest_namespace?: string | false;
  rest_controller_class?: string | false;
  /** Who serves its routes when not the posts or terms routes ({@link RestRoutesOwner}). */
  restRoutes?: RestRoutesOwner;
  /**
   * The WordPress version that added it (or, for an object the seed has, its REST exposure), for those added after
   * the seed: listed only where the wire dialect says so (`listsLaterContentTypes`).
   */
  addedIn?: string;
  /**
   * Served by its routes but not listed (`types` neither lists nor reads it): a later type served with the seed's
   * names too, whose `types` stays the seed's (reusable blocks).
   */
  unlisted?: boolean;
}

/**
 * The registry's own marks of an object ({@link RestArgs.restRoutes}, {@link RestArgs.addedIn},
 * {@link RestArgs.unlisted}), when given.
 */
export interface RegistryMarks {
  restRoutes?: RestRoutesOwner;
  addedIn?: string;
  unlisted?: boolean;
}

/** The REST settings of an object named `name`: shown or not, its base (the name) and namespace by default. */
export function restSettings(
  name: string,
  args: RestArgs,
): { show_in_rest: boolean; rest_base: string; rest_namespace: string } {
  return {
    show_in_rest: args.show_in_rest ?? false,
    rest_base: args.rest_base || name,
    rest_namespace: args.rest_namespace || DEFAULT_REST_NAMESPACE,
  };
}

/**
 * The object with its `rest_controller_class` and the registry's marks when the arguments give them (the keys are
 * left out otherwise).
 */
export function withControllerClass<T extends { rest_controller_class?: string } & RegistryMarks>(
  object: T,
  args: RestArgs,
): T {
  if (args.rest_controller_class) {
    object.rest_controller_class = args.rest_controller_class;
  }
  if (args.restRoutes) object.restRoutes = args.restRoutes;
  if (args.addedIn) object.addedIn = args.addedIn;
  if (args.unlisted) object.unlisted = true;
  return object;
}

/** Whether the posts or terms routes serve a REST object (none of its own serves it, and it is not listed only). */
export function servedByGenericRoutes(object: { show_in_rest: boolean } & RegistryMarks): boolean {
  return object.show_in_rest && !object.restRoutes;
}
