import { Inject, Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { CMS_OPTIONS, ResolvedCmsOptions } from '../config/cms-options';
import { HookRegistry } from '../hooks/hook-registry.service';
import { ByteLru, LruEntry } from '../memory/byte-lru';
import { AnswerSources } from './answer-sources';
import { contentSequence, Stamps, VersionStamps } from '../database/version-stamps';
import { WireNames } from '../wire-names';
import type { EmbeddedAnswers } from '../auth/request-context';
import { servedFromTwoServers, sharedReadDone, sharedReadMark } from '../database/replica-routing';

/** The mark of the keys of `_embed` sub-requests' answers (see {@link ResponseCache.embeddedAnswers}). */
const EMBEDDED = 'embedded\n';

/** Approximate bytes of an answer besides its body and key: the entry, its headers. */
const ENTRY_BYTES = 512;

/** An answer to keep: its status (200) and headers (none) as written, its body, the route pattern that served it. */
export interface StoredAnswer {
  status?: number;
  headers?: Record<string, string>;
  body: Buffer;
  matchedRoute?: string;
}

/** One answer kept: its status, headers and body as written, under the stamps it was built with. */
export class CachedAnswer implements LruEntry {
  used = 0;

  constructor(
    private readonly owner: ResponseCache,
    readonly key: string,
    readonly token: string,
    /** The posts' content version it was built under. */
    readonly built: number,
    /**
     * The posts' content version it is valid under: checked as is when {@link posts} is `null`; else moved on once
     * the posts it shows are found unwritten since {@link built}.
     */
    public content: number,
    /** The posts it shows, when it depends on posts' content through them alone. */
    readonly posts: ReadonlySet<number> | null,
    readonly status: number,
    readonly headers: Readonly<Record<string, string>>,
    readonly body: Buffer,
    readonly etag: string,
    public size: number,
    readonly matchedRoute: string | undefined,
    readonly hooks: number,
  ) {}

  /** The body compressed, per coding, made on first use and counted in the entry's size. */
  private readonly encoded: { br?: Buffer; gzip?: Buffer } = {};

  /** The body in `coding`, compressed once by `compress` and kept with the answer. */
  encodedBody(coding: 'br' | 'gzip', compress: (body: Buffer) => Buffer): Buffer {
    let body = this.encoded[coding];
    if (!body) {
      body = this.encoded[coding] = compress(this.body);
      this.owner.pool.resize(this, this.size + body.length);
    }
    return body;
  }

  evicted(): void {
    this.owner.forget(this);
  }
}

/**
 * The response cache: answers to anonymous GETs in `view`/`embed` context, which depend on public data only, kept
 * per process within a byte bound (`responseCache.maxBytes`, 16 MiB by default) and served only while the version
 * stamps they were built under are still current (see {@link VersionStamps}): never stale, on any node.
 *
 * Its ETags come from the key and the stamps, so a revalidation (`If-None-Match`) is answered with `304` without
 * rows or a body, even after the answer itself was evicted.
 */
@Injectable()
export class ResponseCache {
  private readonly entries = new Map<string, CachedAnswer>();
  readonly pool: ByteLru<CachedAnswer>;
  private readonly checks: Array<() => boolean | Promise<boolean>> = [];

  constructor(
    private readonly stamps: VersionStamps,
    private readonly hooks: HookRegistry,
    @Inject(CMS_OPTIONS) options: ResolvedCmsOptions,
  ) {
    this.pool = new ByteLru<CachedAnswer>('responses', options.responseCache ? options.responseCache.maxBytes : 0);
  }

  /** Whether answers are cached (configured on, and the stamps are kept). */
  get enabled(): boolean {
    return this.stamps.enabled;
  }

  /**
   * Registers a check run before any answer is looked up, for content that changes with time alone (a scheduled
   * post whose time has come): it publishes what is due and answers `true` when it wrote, and the stamps are then
   * read again. A check that knows at once that nothing is due answers `false` without a promise.
   */
  addFreshnessCheck(check: () => boolean | Promise<boolean>): void {
    this.checks.push(check);
  }

  /** The current stamps, after the freshness checks. */
  async currentStamps(): Promise<Stamps> {
    // With read replicas, stamps read by another request (the read is shared) may be another server's: an answer
    // built under them is not kept (see replica-routing.ts).
    const mark = sharedReadMark();
    let stamps = await this.stamps.current();
    if (mark >= 0) sharedReadDone(mark);
    for (const check of this.checks) {
      const wrote = check();
      // A check that wrote sent the request to the primary: its answer is not kept either way.
      if (wrote === true || (wrote !== false && (await wrote))) stamps = await this.stamps.current();
    }
    return stamps;
  }

  /**
   * The key of a GET: the wire names (`cms` or `wordpress`: headers, namespaces and curies differ), the base URL and
   * API root (links are written with them), the route, and the query as sent.
   */
  keyOf(
    baseUrl: string,
    mount: string,
    route: string,
    query: Record<string, unknown>,
    wire: WireNames = WireNames.of('cms'),
  ): string {
    // The query keeps the order it was sent in: the Link header repeats it.
    return `${wire.mode}\n${baseUrl}\n${mount}\n${route}\n${JSON.stringify(query)}`;
  }

  /**
   * The ETag of the answer to `key` under `stamps` (and the hooks registered now: they shape answers too). The
   * groups' versions and the posts' content version name one state of the data, so one answer: an answer kept
   * across an edit of posts it does not show keeps the tag it was built with.
   */
  etagOf(key: string, stamps: Pick<Stamps, 'token' | 'content'>): string {
    return `"${createHash('sha1').update(key).update('\0').update(stamps.token).update(`\0${stamps.content}\0${this.hooks.generation}`).digest('base64url')}"`;
  }

  /**
   * The answer kept for `key`, if it was built under the groups' versions of `stamps` and the hooks registered now,
   * and none of the posts it shows was written since (by an edit in place, which moves the posts' content version
   * alone). That is told from the posts' versions read with the stamps; only an answer last checked before those
   * reach back reads the versions of its posts (one statement).
   */
  lookup(key: string, stamps: Stamps): CachedAnswer | undefined | Promise<CachedAnswer | undefined> {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.token !== stamps.token || entry.hooks !== this.hooks.generation) return this.dropped(entry);
    if (entry.content !== stamps.content) {
      if (!entry.posts) return this.dropped(entry);
      const written = this.stamps.postsWrittenAfter(entry.posts, entry.built, entry.content);
      if (written === undefined)
        return this.showsUnchanged(entry).then((same) => (same ? this.hit(entry, stamps) : this.dropped(entry)));
      return written ? this.dropped(entry) : this.hit(entry, stamps);
    }
    return this.hit(entry, stamps);
  }

  private hit(entry: CachedAnswer, stamps: Stamps): CachedAnswer {
    // Checked: valid under this content version (a later move is checked again).
    entry.content = stamps.content;
    this.pool.touch(entry);
    return entry;
  }

  private dropped(entry: CachedAnswer): undefined {
    this.drop(entry);
    return undefined;
  }

  /**
   * Whether none of the posts an answer shows was written by an edit in place after the content version it was built
   * under: it was built from rows read after that version's commit, so it shows each of them as it is.
   */
  private async showsUnchanged(entry: CachedAnswer): Promise<boolean> {
    if (!entry.posts?.size) return entry.posts !== null;
    const place = contentSequence(entry.built);
    for (const version of (await this.stamps.posts([...entry.posts])).values())
      if (contentSequence(version) > place) return false;
    return true;
  }

  /**
   * Whether answers may depend on posts' content through the posts they show alone: not while an extension shapes
   * answers (a `rest_prepare_*` or `rest_post_dispatch` listener may read any post).
   */
  private contentShapedElsewhere(): boolean {
    return this.hooks.hasHookPrefix('rest_prepare_') || this.hooks.hasHook('rest_post_dispatch');
  }

  /**
   * Keeps an answer built under `stamps` from `sources` (not kept when larger than an eighth of the bound, nor when
   * it went through an endpoint that may not be cached, nor when it was made from rows of two servers: a read
   * replica's and the primary's, see replica-routing.ts). An answer that depends on posts' content through the posts
   * it shows alone is kept with their ids: if one of them is found written after `stamps` were read (before the
   * answer read it, or since), the answer is dropped at its next lookup.
   */
  store(key: string, stamps: Stamps, sources: AnswerSources, answer: StoredAnswer): CachedAnswer | undefined {
    const { status = 200, headers = {}, body, matchedRoute } = answer;
    // An answer made from rows of a read replica and of the primary (a request that wrote) names no one state.
    if (sources.uncacheable || servedFromTwoServers()) return undefined;
    const posts =
      this.stamps.postVersions && !sources.readsAllContent && !this.contentShapedElsewhere()
        ? new Set(sources.posts)
        : null;
    const size = ENTRY_BYTES + key.length * 2 + body.length + headerBytes(headers) + (posts ? posts.size * 24 : 0);
    const entry = new CachedAnswer(
      this,
      key,
      stamps.token,
      stamps.content,
      stamps.content,
      posts,
      status,
      headers,
      body,
      this.etagOf(key, stamps),
      size,
      matchedRoute,
      this.hooks.generation,
    );
    const old = this.entries.get(key);
    if (old) this.drop(old);
    if (this.pool.admit(entry)) this.entries.set(key, entry);
    return entry;
  }

  /**
   * The answers of `_embed` sub-requests of a request whose own answer may be cached (an anonymous GET in a public
   * context), read and kept under its stamps: an answer built again (a page of posts with `_embed` after an edit of
   * one of them) finds those of the links that did not change. They are kept apart from the answers to requests
   * (their key is marked), as their headers are not kept; what each was made from is noted on `into`, the request's
   * sources, whether found or built.
   */
  embeddedAnswers(
    baseUrl: string,
    mount: string,
    wire: WireNames,
    stamps: Stamps,
    into: AnswerSources,
  ): EmbeddedAnswers {
    const keyOf = (route: string, query: Record<string, unknown>) =>
      `${EMBEDDED}${this.keyOf(baseUrl, mount, route, query, wire)}`;
    const found = (entry: CachedAnswer | undefined) => {
      if (!entry) return undefined;
      into.noteKept(entry.posts);
      return entry.body;
    };
    return {
      find: (route, query) => {
        const entry = this.lookup(keyOf(route, query), stamps);
        return entry instanceof Promise ? entry.then(found) : found(entry);
      },
      keep: (route, query, sources, body) => {
        this.store(keyOf(route, query), stamps, sources, { body });
      },
    };
  }

  /** Forgets every answer kept (tests that measure what building an answer costs start from none). */
  clear(): void {
    this.entries.clear();
    this.pool.clear();
  }

  /** Bytes and entries held (for the tests and the bench). */
  usage(): { bytes: number; entries: number; maxBytes: number } {
    return { bytes: this.pool.bytes, entries: this.pool.entries, maxBytes: this.pool.maxBytes };
  }

  /** Forgets an answer the pool dropped. */
  forget(entry: CachedAnswer): void {
    if (this.entries.get(entry.key) === entry) this.entries.delete(entry.key);
  }

  private drop(entry: CachedAnswer): void {
    this.forget(entry);
    this.pool.remove(entry);
  }
}

/**
 * Whether a handler's headers let its answer be shared: none that marks it per caller or per request (a cookie, or
 * what says how it may be cached).
 */
export function storable(headers: Record<string, string>): boolean {
  for (const name in headers) {
    const lower = name.toLowerCase();
    if (lower === 'set-cookie' || lower === 'vary' || lower === 'cache-control') return false;
  }
  return true;
}

function headerBytes(headers: Record<string, string>): number {
  let n = 0;
  for (const name in headers) n += (name.length + headers[name].length) * 2;
  return n;
}

/** A strong ETag of a body written without the cache: its SHA-1. */
export function bodyEtag(body: Buffer): string {
  return `"${createHash('sha1').update(body).digest('base64url')}"`;
}

/**
 * The ETag of a compressed representation: the identity one with the coding appended (`"abc"` → `"abc-gzip"`), so
 * that caches tell the representations apart.
 */
export function encodedEtag(etag: string, coding: 'br' | 'gzip'): string {
  return `${etag.slice(0, -1)}-${coding}"`;
}

/** Whether a tag a client sent names `etag`, as is or as one of its compressed representations. */
function namesEtag(tag: string, etag: string): boolean {
  if (tag === etag) return true;
  const m = /^(.*)-(?:gzip|br)"$/.exec(tag);
  return m !== null && `${m[1]}"` === etag;
}

/** Whether `If-None-Match` names `etag` (weak comparison, `*` matches any), in any coding. */
export function noneMatchHits(header: string | undefined, etag: string): boolean {
  return noneMatchTag(header, etag) !== undefined;
}

/** The tag of `If-None-Match` that names `etag` (in any coding; `etag` itself for `*`), if one does. */
export function noneMatchTag(header: string | undefined, etag: string): string | undefined {
  if (!header) return undefined;
  if (header.trim() === '*') return etag;
  for (const part of header.split(',')) {
    const tag = part.trim().replace(/^W\//, '');
    if (namesEtag(tag, etag)) return tag;
  }
  return undefined;
}

/** Whether `If-Match` names `etag` (strong comparison, `*` matches any), in any coding. */
export function matchHits(header: string, etag: string): boolean {
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => namesEtag(tag.trim(), etag));
}
