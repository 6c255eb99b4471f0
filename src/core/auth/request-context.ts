import { AnswerSources } from '../cache/answer-sources';
import DataLoader from 'dataloader';
import { CapabilityService } from './capability.service';
import { CurrentUser } from './current-user';
import { WireNames } from '../wire-names';

/**
 * Answers of `_embed` sub-requests (their JSON) kept by the response cache under the stamps the request read, for an
 * anonymous request in a public context: sub-requests of later requests find them while nothing they show changed.
 */
export interface EmbeddedAnswers {
  /** The JSON kept for a sub-request, its sources noted on the request's; `undefined` when none is valid. */
  find(route: string, query: Record<string, unknown>): Buffer | undefined | Promise<Buffer | undefined>;
  /** Keeps the JSON of a sub-request made from `sources`. */
  keep(route: string, query: Record<string, unknown>, sources: AnswerSources, body: Buffer): void;
}

/** What a request's context is made of (see {@link RequestContext}). */
export interface RequestContextInit {
  user: CurrentUser;
  caps: CapabilityService;
  baseUrl: string;
  apiPrefix: string;
  crossOrigin?: boolean;
  ip?: string;
  wire?: WireNames;
}

/**
 * Per-request state shared by a request and its internal sub-requests (`_embed`): the user, the capability check,
 * the site address, and request-scoped batching loaders, so that embedding N items costs one query per kind of
 * link, not one per item.
 */
export class RequestContext {
  private readonly loaders = new Map<string, DataLoader<unknown, unknown>>();
  /** What the answer is made from, for the response cache (its `_embed` sub-requests share this context). */
  readonly sources = new AnswerSources();
  /** The response cache's answers of `_embed` sub-requests, when the request's own answer may be cached. */
  embeddedAnswers?: EmbeddedAnswers;

  /** The caller. */
  user: CurrentUser;
  private readonly caps: CapabilityService;
  /** The site's base URL, without a trailing slash (e.g. `http://localhost:3000`). */
  readonly baseUrl: string;
  /** The API root path segment (`cms-json`). */
  readonly apiPrefix: string;
  /** `true` when the request came from a browser page of another origin. */
  readonly crossOrigin: boolean;
  /** The client's IP address. */
  readonly ip: string;
  /** The names on the wire (URLs of the API's own namespace are written with them). */
  readonly wire: WireNames;

  constructor(init: RequestContextInit) {
    this.user = init.user;
    this.caps = init.caps;
    this.baseUrl = init.baseUrl;
    this.apiPrefix = init.apiPrefix;
    this.crossOrigin = init.crossOrigin ?? false;
    this.ip = init.ip ?? '';
    this.wire = init.wire ?? WireNames.of('cms');
  }

  get isLoggedIn(): boolean {
    return this.user.isLoggedIn;
  }

  /** The reference's `rest_authorization_required_code()`: 401 for anonymous callers, 403 for logged-in ones. */
  get authorizationRequiredCode(): 401 | 403 {
    return this.user.isLoggedIn ? 403 : 401;
  }

  /** Capability check for the current user (meta capabilities take their object as arguments). */
  can(cap: string, ...args: unknown[]): Promise<boolean> {
    return this.caps.userCan(this.user, cap, ...args);
  }

  /** The URL of an API route, e.g. `restUrl('cms/v2/types')` (`…/wp-json/wp/v2/types` with WordPress's names). */
  restUrl(path = ''): string {
    return `${this.baseUrl}/${this.apiPrefix}/${this.wire.path(path.startsWith('/') ? path.replace(/^\/+/, '') : path)}`;
  }

  /**
   * A request-scoped batching loader: every `load(key)` made in the same tick becomes one `batch(keys)` call.
   *
   * @example
   * const user = await ctx.loader('users', (ids) => repo.findByIds(ids)).load(7);
   */
  loader<K, V>(name: string, batch: (keys: readonly K[]) => Promise<ReadonlyArray<V | Error>>): DataLoader<K, V> {
    let loader = this.loaders.get(name) as DataLoader<K, V> | undefined;
    if (!loader) {
      loader = new DataLoader<K, V>(batch, { maxBatchSize: 500, batchScheduleFn: (run) => setImmediate(run) });
      this.loaders.set(name, loader);
    }
    return loader;
  }
}
