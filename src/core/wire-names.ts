import { WIRE_DIALECTS, WireDialect } from './wire-dialect';

/** Which names the API writes and reads on the wire: the spec's own (`cms`) or WordPress's (`wordpress`). */
export type WireNamesMode = 'cms' | 'wordpress';

/** The namespace the API's own routes are declared in, whatever names the wire uses (`CMS_NAMESPACE`). */
const DECLARED_NAMESPACE = 'cms/v2';

/**
 * The names of the API on the wire, in one place: the API root, the namespace of the API's own routes, the
 * pagination and nonce headers, the nonce parameter and the link-relation curie. The code declares routes and
 * builds URLs in the namespace `cms/v2`; the route table, the URLs it writes and the `rest_namespace` of types
 * and taxonomies go through {@link WireNames.namespace} and {@link WireNames.path}, so that the same server
 * answers as a WordPress site does (`wp-json`, `wp/v2`, `X-WP-Total`, `X-WP-Nonce`, `wp:term`) when configured so.
 *
 * @example
 * const wire = WireNames.of('wordpress');
 * wire.namespace('cms/v2');      // 'wp/v2'
 * wire.path('cms/v2/posts/7');   // 'wp/v2/posts/7'
 * wire.totalHeader;              // 'X-WP-Total'
 */
export class WireNames {
  /** The default API root path segment (`cms-json`, `wp-json`). */
  readonly root: string;
  /** The namespace of the API's own routes (`cms/v2`, `wp/v2`). */
  readonly ownNamespace: string;
  /** The curie of compacted link relations (`cms`, `wp`): `cms:term`, `wp:featuredmedia`. */
  readonly curie: string;
  /** Collection total header (`X-CMS-Total`, `X-WP-Total`). */
  readonly totalHeader: string;
  /** Collection pages header (`X-CMS-TotalPages`, `X-WP-TotalPages`). */
  readonly totalPagesHeader: string;
  /** Header that carries the cookie session's nonce, both ways (`X-CMS-Nonce`, `X-WP-Nonce`). */
  readonly nonceHeader: string;
  /** Parameter that may carry the nonce instead (`_cmsnonce`, `_wpnonce`). */
  readonly nonceParam: string;
  /**
   * Request headers read for the nonce, lower-cased, in order. The spec's names also take WordPress's as aliases
   * (`X-WP-Nonce`), since WordPress clients send those; WordPress's names take only WordPress's.
   */
  readonly nonceHeadersAccepted: readonly string[];
  /** Parameters read for the nonce, in order (`_cmsnonce`, then `_wpnonce`; `_wpnonce` only with WordPress's names). */
  readonly nonceParamsAccepted: readonly string[];
  /** `Access-Control-Allow-Headers`: the request headers a page of another origin may send (the nonces accepted). */
  readonly corsAllowHeaders: string;
  /** `Access-Control-Expose-Headers`: the response headers a page of another origin may read. */
  readonly corsExposeHeaders: string;
  /** The behaviour that goes with these names: the spec's with `cms`, WordPress 6.1's with `wordpress`. */
  readonly dialect: WireDialect;

  private static readonly instances = new Map<WireNamesMode, WireNames>();

  private constructor(readonly mode: WireNamesMode) {
    const wp = mode === 'wordpress';
    this.root = wp ? 'wp-json' : 'cms-json';
    this.ownNamespace = wp ? 'wp/v2' : DECLARED_NAMESPACE;
    this.curie = wp ? 'wp' : 'cms';
    this.totalHeader = wp ? 'X-WP-Total' : 'X-CMS-Total';
    this.totalPagesHeader = wp ? 'X-WP-TotalPages' : 'X-CMS-TotalPages';
    this.nonceHeader = wp ? 'X-WP-Nonce' : 'X-CMS-Nonce';
    this.nonceParam = wp ? '_wpnonce' : '_cmsnonce';
    this.nonceHeadersAccepted = wp ? ['x-wp-nonce'] : ['x-cms-nonce', 'x-wp-nonce'];
    this.nonceParamsAccepted = wp ? ['_wpnonce'] : ['_cmsnonce', '_wpnonce'];
    const nonces = wp ? 'X-WP-Nonce' : 'X-CMS-Nonce, X-WP-Nonce';
    this.corsAllowHeaders = `Authorization, ${nonces}, Content-Disposition, Content-MD5, Content-Type, If-Match, If-None-Match`;
    this.corsExposeHeaders = `${this.totalHeader}, ${this.totalPagesHeader}, Link, ETag`;
    this.dialect = WIRE_DIALECTS[mode];
  }

  /** The names of a mode (one shared instance per mode). */
  static of(mode: WireNamesMode = 'cms'): WireNames {
    let names = this.instances.get(mode);
    if (!names) this.instances.set(mode, (names = new WireNames(mode)));
    return names;
  }

  /** Whether a value names a mode (`cms`, `wordpress`). */
  static isMode(value: unknown): value is WireNamesMode {
    return value === 'cms' || value === 'wordpress';
  }

  /** The wire name of a namespace as declared: the API's own `cms/v2` becomes {@link ownNamespace}; others stay. */
  namespace(declared: string): string {
    return declared === DECLARED_NAMESPACE ? this.ownNamespace : declared;
  }

  /**
   * The wire form of a path within the API (`cms/v2/posts/7`, with or without a leading `/`): its namespace
   * through {@link namespace}; any other path as it is.
   */
  path(declared: string): string {
    if (this.ownNamespace === DECLARED_NAMESPACE) return declared;
    const lead = declared.startsWith('/') ? 1 : 0;
    if (!declared.startsWith(DECLARED_NAMESPACE, lead)) return declared;
    const next = declared.charAt(lead + DECLARED_NAMESPACE.length);
    if (next !== '' && next !== '/' && next !== '?') return declared;
    return `${declared.slice(0, lead)}${this.ownNamespace}${declared.slice(lead + DECLARED_NAMESPACE.length)}`;
  }
}
