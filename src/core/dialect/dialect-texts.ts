import type { RouteDefinition } from '../rest/route-types';
import type { WireDialect } from '../wire-dialect';
import { textGroupOf, type TextGroup, type TextGroupLookup } from './text-groups';

/**
 * The dialect's wording of what the API says: error messages and the descriptions of route arguments and schemas,
 * translated from the spec's by the dialect's tables (see {@link WireDialect.messages}) after the text group of the
 * route that says them. With the spec's dialect (no tables) everything is left as it is.
 */
export class DialectTexts {
  private readonly groups = new WeakMap<RouteDefinition, TextGroup | null>();

  constructor(
    private readonly dialect: WireDialect,
    private readonly lookup: TextGroupLookup,
  ) {}

  /** The texts of a dialect, telling post types and taxonomies apart with the content registry. */
  static of(
    dialect: WireDialect,
    content: { postType(name: string): unknown; taxonomy(name: string): unknown },
  ): DialectTexts {
    return new DialectTexts(dialect, {
      isPostType: (name) => content.postType(name) !== undefined,
      isTaxonomy: (name) => content.taxonomy(name) !== undefined,
    });
  }

  /** Whether this dialect words anything otherwise than the spec. */
  get active(): boolean {
    return this.dialect.messages !== null || this.dialect.descriptions !== null;
  }

  /** The text group of a route, from the title of its item schema (kept per route). */
  groupOf(route: RouteDefinition | undefined): TextGroup | undefined {
    if (!route) return undefined;
    let group = this.groups.get(route);
    if (group === undefined) {
      const title = route.schema?.().title;
      group = textGroupOf(typeof title === 'string' ? title : undefined, this.lookup) ?? null;
      this.groups.set(route, group);
    }
    return group ?? undefined;
  }

  /** The dialect's message for an error of `code` the spec words `message`. */
  message(code: string, message: string, route?: RouteDefinition): string {
    const translation = this.dialect.messages?.[code]?.[message];
    if (translation === undefined) return message;
    if (typeof translation === 'string') return translation;
    const group = this.groupOf(route);
    return (group && translation[group]) ?? message;
  }

  /** Rewrites an error body's `message` (and its additional errors') in place. */
  translateErrorBody(body: unknown, route?: RouteDefinition): void {
    if (!this.dialect.messages || !body || typeof body !== 'object') return;
    const error = body as { code?: unknown; message?: unknown; additional_errors?: unknown };
    if (typeof error.code === 'string' && typeof error.message === 'string')
      error.message = this.message(error.code, error.message, route);
    if (Array.isArray(error.additional_errors))
      for (const more of error.additional_errors) this.translateErrorBody(more, route);
  }

  /**
   * A copy of a description (route arguments, an item schema) with every `description` in the dialect's wording;
   * the value itself when the dialect has no descriptions of its own.
   */
  describe<T>(value: T, route?: RouteDefinition): T {
    const tables = this.dialect.descriptions;
    if (!tables) return value;
    const group = this.groupOf(route);
    const own = group ? tables[group] : undefined;
    const common = tables['*'];
    const walk = (v: unknown): unknown => {
      if (Array.isArray(v)) return v.map(walk);
      if (!v || typeof v !== 'object') return v;
      const out: Record<string, unknown> = {};
      for (const [key, inner] of Object.entries(v)) {
        out[key] =
          key === 'description' && typeof inner === 'string' ? (own?.[inner] ?? common?.[inner] ?? inner) : walk(inner);
      }
      return out;
    };
    return walk(value) as T;
  }
}
