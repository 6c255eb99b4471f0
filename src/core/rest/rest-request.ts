import type { AnswerSources } from '../cache/answer-sources';
import type { RequestContext } from '../auth/request-context';
import type { RouteEndpoint } from './route-types';

/** An uploaded file of a multipart request. */
export interface UploadedFile {
  fieldName: string;
  originalName: string;
  mimeType: string;
  size: number;
  /** A temporary file holding the bytes (removed once the request is answered). */
  path: string;
}

type Bucket = Record<string, unknown>;

/**
 * One API request, transport-free: the same object serves HTTP requests, the `?rest_route=` form and the
 * internal requests of `_embed`. Parameters live in buckets looked up in the reference's order:
 * JSON body, then form body (POST/PUT/PATCH only), then query, then path, then defaults.
 */
export class RestRequest {
  /** Upper-case method (after `_method` / `X-HTTP-Method-Override`). */
  method: string;
  /** The route, always starting with `/` (e.g. `/cms/v2/types/post`). */
  route: string;
  readonly query: Bucket;
  readonly body: Bucket;
  readonly json: Bucket | null;
  urlParams: Bucket = {};
  defaults: Bucket = {};
  readonly files: UploadedFile[];
  /** Header names lower-cased. */
  readonly headers: Record<string, string>;
  readonly rawBody: Buffer | null;
  /** The body of a route that takes files, when it is not parameters: streamed to a temporary file. */
  readonly rawFile: { path: string; size: number } | null;
  /** The endpoint that matched, once dispatched. */
  endpoint?: RouteEndpoint;
  /** The registered route key that matched (e.g. `/cms/v2/types/(?P<type>[\w-]+)`). */
  matchedRoute?: string;
  /**
   * Whether items (of a collection, or the one item) may come as serialized JSON (`JsonText`, see json-text.ts): set by the server for a top-level
   * request whose response nothing looks into after the handler (no `_embed`, `_fields`, `_envelope` or
   * `rest_post_dispatch` listener).
   */
  itemsAsText = false;
  /**
   * What this request's answer is made from when it is kept apart from its context's (an `_embed` sub-request whose
   * answer the response cache keeps by itself); `undefined`: the context's.
   */
  ownSources?: AnswerSources;
  /**
   * The parameters a handler may read, when its endpoint has strict arguments (see `EndpointDefinition.strictArgs`):
   * the declared ones; path parameters and names the handler sets itself are readable too. `null`: every name.
   */
  private readable: ReadonlySet<string> | null = null;
  private setNames: Set<string> | null = null;

  constructor(
    init: {
      method?: string;
      route?: string;
      query?: Bucket;
      body?: Bucket;
      json?: Bucket | null;
      files?: UploadedFile[];
      headers?: Record<string, string>;
      rawBody?: Buffer | null;
      rawFile?: { path: string; size: number } | null;
    },
    /** Who is asking, and what they may do. Shared by a request and its internal sub-requests. */
    readonly ctx: RequestContext,
  ) {
    this.method = (init.method ?? 'GET').toUpperCase();
    this.route = init.route ?? '/';
    this.query = init.query ?? {};
    this.body = init.body ?? {};
    this.json = init.json ?? null;
    this.files = init.files ?? [];
    this.headers = init.headers ?? {};
    this.rawBody = init.rawBody ?? null;
    this.rawFile = init.rawFile ?? null;
  }

  private buckets(): Bucket[] {
    const order: Bucket[] = [];
    if (this.json) order.push(this.json);
    if (['POST', 'PUT', 'PATCH'].includes(this.method)) order.push(this.body);
    order.push(this.query, this.urlParams, this.defaults);
    return order;
  }

  /**
   * Limits what `get`, `has`, `params` and `paramNames` see to the declared arguments `names` (plus path
   * parameters and names set later); `null` lifts the limit. The server calls it before the permission check.
   */
  restrictTo(names: ReadonlySet<string> | null): void {
    this.readable = names;
    this.setNames = null;
  }

  /** Whether a handler may read the parameter (always, without strict arguments). */
  private readableName(name: string): boolean {
    const readable = this.readable;
    return (
      readable === null ||
      readable.has(name) ||
      (this.setNames !== null && this.setNames.has(name)) ||
      Object.prototype.hasOwnProperty.call(this.urlParams, name)
    );
  }

  /** The buckets the client sent, in the order a parameter is looked up (the JSON body, the form body, the query). */
  sentBuckets(): Bucket[] {
    const order: Bucket[] = [];
    if (this.json) order.push(this.json);
    if (['POST', 'PUT', 'PATCH'].includes(this.method)) order.push(this.body);
    order.push(this.query);
    return order;
  }

  /** The value of a parameter, or `undefined`. A `null` value counts as absent. */
  get<T = unknown>(name: string): T | undefined {
    if (this.readable !== null && !this.readableName(name)) return undefined;
    // The buckets of buckets(), in the same order, without building the list (this runs many times a request).
    let value: unknown;
    if (this.json !== null && (value = this.json[name]) !== undefined && value !== null) return value as T;
    if (
      (this.method === 'POST' || this.method === 'PUT' || this.method === 'PATCH') &&
      (value = this.body[name]) !== undefined &&
      value !== null
    ) {
      return value as T;
    }
    if ((value = this.query[name]) !== undefined && value !== null) return value as T;
    if ((value = this.urlParams[name]) !== undefined && value !== null) return value as T;
    if ((value = this.defaults[name]) !== undefined && value !== null) return value as T;
    return undefined;
  }

  /** `true` when the parameter is given (not null) in any bucket, defaults included. */
  has(name: string): boolean {
    return this.get(name) !== undefined;
  }

  /** `true` when the client itself sent the parameter (defaults excluded). */
  sent(name: string): boolean {
    if (this.readable !== null && !this.readableName(name)) return false;
    // The buckets of buckets() but the defaults, as in get().
    let value: unknown;
    if (this.json !== null && (value = this.json[name]) !== undefined && value !== null) return true;
    if (
      (this.method === 'POST' || this.method === 'PUT' || this.method === 'PATCH') &&
      (value = this.body[name]) !== undefined &&
      value !== null
    ) {
      return true;
    }
    return (
      ((value = this.query[name]) !== undefined && value !== null) ||
      ((value = this.urlParams[name]) !== undefined && value !== null)
    );
  }

  /**
   * The value the client sent for a parameter, declared or not, for refusing what an endpoint does not take (`id`
   * on create, `parent` on a flat taxonomy): only whether it is there (PHP's `isset()`, or `! empty()` with
   * `nonEmpty`), never the value itself.
   */
  sentAtAll(name: string, nonEmpty = false): boolean {
    const readable = this.readable;
    this.readable = null;
    try {
      if (!this.sent(name)) return false;
      const value = this.get(name);
      return (
        !nonEmpty ||
        !(value === '' || value === '0' || value === 0 || value === false || (Array.isArray(value) && !value.length))
      );
    } finally {
      this.readable = readable;
    }
  }

  /** Sets a parameter in the bucket that wins for this method. */
  set(name: string, value: unknown): void {
    if (this.readable !== null && !this.readable.has(name)) (this.setNames ??= new Set()).add(name);
    for (const bucket of this.buckets()) {
      if (bucket[name] !== undefined && bucket[name] !== null) {
        bucket[name] = value;
        return;
      }
    }
    (this.json ?? (this.method === 'POST' ? this.body : this.query))[name] = value;
  }

  /** All parameters merged, highest priority winning. */
  params(): Bucket {
    const out: Bucket = {};
    for (const bucket of [...this.buckets()].reverse()) Object.assign(out, bucket);
    if (this.readable !== null) for (const name of Object.keys(out)) if (!this.readableName(name)) delete out[name];
    return out;
  }

  /**
   * The declared arguments as the dispatcher left them (validated, coerced, defaults filled; a null value
   * absent, as {@link get} reads them), typed by the handler (`CollectionArgs` and a resource's own). Read it once.
   */
  args<A extends object>(): A {
    const out: Bucket = {};
    // As get() reads them: the bucket that wins, a null value absent.
    for (const name of Object.keys(this.params())) {
      const value = this.get(name);
      if (value !== undefined) out[name] = value;
    }
    return out as A;
  }

  /** Names of every parameter sent or defaulted. */
  paramNames(): string[] {
    return Object.keys(this.params());
  }

  header(name: string): string | undefined {
    return this.headers[name.toLowerCase()];
  }

  /** Where what the answer is made from is noted (see {@link ownSources}). */
  get sources(): AnswerSources {
    return this.ownSources ?? this.ctx.sources;
  }

  /** The `context` the response is shaped for. */
  get context(): string {
    return String(this.get('context') ?? 'view');
  }
}
