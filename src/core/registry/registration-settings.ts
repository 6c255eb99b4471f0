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

/** The REST arguments post types and taxonomies share. */
export interface RestArgs {
  show_in_rest?: boolean;
  rest_base?: string | false;
  rest_namespace?: string | false;
  rest_controller_class?: string | false;
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

/** The object with its `rest_controller_class` when the arguments name one (the key is left out otherwise). */
export function withControllerClass<T extends { rest_controller_class?: string }>(object: T, args: RestArgs): T {
  if (args.rest_controller_class) {
    object.rest_controller_class = args.rest_controller_class;
  }
  return object;
}
