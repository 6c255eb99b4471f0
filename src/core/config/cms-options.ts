import type { Type } from '@nestjs/common';
import { WireNames, WireNamesMode } from '../wire-names';
import type { MediaStorage } from './media-storage';
import { resolveWebhookOptions, type ResolvedWebhookOptions, type WebhookOptions } from './webhook-options';

/** Smallest body compressed by default: below about a kilobyte, headers and framing cost more than gzip saves. */
export const DEFAULT_COMPRESSION_THRESHOLD = 1024;

/** Options of `CmsModule.forRoot()`. Every field has a default. */
export interface CmsModuleOptions {
  /** Public base URL of the site, e.g. `https://example.com` (default: taken from each request's Host). */
  baseUrl?: string;
  /** Path segment of the API root (default `cms-json`; `wp-json` with `wireNames: 'wordpress'`). */
  routePrefix?: string;
  /**
   * The names on the wire: the spec's (`cms`, default: `cms-json`, `cms/v2`, `X-CMS-*`, curie `cms`) or WordPress's
   * (`wordpress`: `wp-json`, `wp/v2`, `X-WP-*`, curie `wp`), for front-ends written for a WordPress site. See
   * {@link WireNames}.
   */
  wireNames?: WireNamesMode;
  /** Table prefix of the WordPress schema (default: the DataSource's `entityPrefix`, else `cms_`). */
  tablePrefix?: string;
  /** Name of the TypeORM DataSource to use (default: the default one). */
  dataSourceName?: string;
  /** Run the schema migrations and the first-start site set-up when the module starts (default `true`). */
  runMigrations?: boolean;
  /** Address written as `siteurl`/`home` on first start of an empty database (default `baseUrl`). */
  siteUrl?: string;
  /** Site title written on first start of an empty database. */
  siteTitle?: string;
  /** Directory for uploaded media (default `./uploads`). */
  uploadDir?: string;
  /**
   * Base URL of uploaded files (default `<siteurl>/wp-content/uploads`, where WordPress serves them): a CDN or an
   * object store's public address.
   */
  uploadsUrl?: string;
  /** Where uploaded files are kept (default: the local disk under `uploadDir`); an object store implements the same interface. */
  mediaStorage?: MediaStorage;
  /**
   * Keep uploaded files in an S3-compatible bucket (AWS S3, MinIO, Ceph, R2, ...) instead of the local disk: every
   * node of a fleet then serves the same files. Credentials come from the AWS SDK's usual chain
   * (`AWS_ACCESS_KEY_ID` / `AWS_SECRET_ACCESS_KEY`, a profile, an instance role) unless given here. Set `uploadsUrl`
   * to the bucket's or a CDN's public address. Ignored when `mediaStorage` is given.
   */
  objectStorage?: ObjectStorageOptions;
  /**
   * A Redis server (`redis://[:password@]host:port[/db]`, `rediss://` for TLS) for what every node of a fleet
   * must share: the counters of the authentication rate limits. Without it, each process counts on its own. When
   * it cannot be reached, each process falls back to its own counters (a warning, and a readiness detail).
   */
  redisUrl?: string;
  /** Prefix of the API's keys in that Redis (default `cms:`): one per site when several share a Redis. */
  redisKeyPrefix?: string;
  /**
   * The secret that signs session cookies and nonces (at least 32 characters). Default: one generated on first
   * start and kept in the `cms_auth_secret` option. Given here (`CMS_AUTH_SECRET`), rotating it is an operator's
   * act: every node must get the same value, and changing it logs every cookie session out.
   */
  authSecret?: string;
  /**
   * After a caller writes (any request that is not a read), how many seconds its reads still go to the primary
   * database rather than a read replica, so that it reads its own writes (default 5). Only matters with read
   * replicas (`buildDataSourceOptions({ replicaUrls })`).
   */
  readAfterWriteSeconds?: number;
  /** Scriptable types (`svg`, `html`, `js`, ...) uploads may have too; refused by default. */
  allowScriptableUploads?: boolean;
  /** Largest accepted upload (a file sent to a route that takes files), in bytes (default 64 MiB). */
  uploadLimit?: number;
  /** Largest accepted request body, in bytes (default 10 MiB). */
  bodyLimit?: number;
  /** Base URI of link relations that are compacted with the `cms` curie (default `https://api.w.org/`). */
  linkRelBase?: string;
  /** Administrator created on first start when the database has no users. */
  initialAdmin?: { login: string; password: string; email?: string };
  /** Failed logins / application-password failures allowed per IP and per user within the window (default 10 per 900 s). */
  rateLimit?: { max: number; windowSeconds: number };
  /**
   * Hash format for new login passwords: `bcrypt` (WordPress 6.8+, default) or `phpass` when a WordPress older than
   * 6.8 shares the database (it cannot read the newer hashes). Old hashes are upgraded to this format on login.
   */
  passwordHash?: 'bcrypt' | 'phpass';
  /**
   * Answer `GET /` with a small JSON page about the site (with the API discovery `Link` header), for a server
   * that is only this API. Hosts that serve their own home page leave it off (default `false`).
   */
  serveSiteRoot?: boolean;
  /**
   * Serve the `/?rest_route=/…` form of the API on the host's `/` (WordPress's form without pretty permalinks).
   * The standalone server turns it on; hosts opt in (default `false`).
   */
  restRouteQuery?: boolean;
  /**
   * The response cache of anonymous reads, validated by version stamps (default on, 16 MiB per process): `false`
   * turns it off — as it must be when anything but this API writes to the database (a WordPress sharing it, SQL by
   * hand) and the stamp triggers are not installed ({@link stampTriggers}), since those writes do not move the stamps.
   */
  responseCache?: boolean | { maxBytes?: number };
  /**
   * The data memos — collection totals, options, authors, posts' extras, verified callers — kept until a version stamp
   * moves (the stamps are read once per read request). `false`: no stamps at all; the memos are kept for a moment
   * (totals a second, recounted in the background; options five seconds) and the response cache is off too.
   * Default: on when the response cache is on.
   */
  memos?: boolean;
  /**
   * Applied with the migrations: `'install'` puts triggers on WordPress's tables (MySQL/MariaDB, SQLite) that move
   * the version stamps in the writer's own transaction, whoever writes — WordPress, SQL by hand, a plugin — so the
   * caches stay exact; `'remove'` drops them. Unset: left as they are (`npm run cms -- triggers install|remove`).
   */
  stampTriggers?: 'install' | 'remove';
  /**
   * gzip / brotli compression of API answers of at least `threshold` bytes (default 1 KiB) for clients whose
   * `Accept-Encoding` allows it, with `Vary: Accept-Encoding` and an ETag per coding. Off by default: a host
   * usually compresses its responses itself; the standalone server turns it on (`CMS_COMPRESSION`).
   */
  compression?: boolean | { threshold?: number };
  /** Nest modules of extensions (custom routes, fields, meta, hooks) loaded with the API. */
  extensions?: Type<unknown>[];
  /** Webhook delivery: the worker, retries, bounds and the SSRF guard (see docs/webhooks.md). */
  webhooks?: WebhookOptions;
}

/** Options that stay unset when not given (no default). */
type UnsetOptions =
  | 'baseUrl'
  | 'dataSourceName'
  | 'tablePrefix'
  | 'siteTitle'
  | 'siteUrl'
  | 'initialAdmin'
  | 'uploadsUrl'
  | 'mediaStorage'
  | 'objectStorage'
  | 'redisUrl'
  | 'authSecret'
  | 'stampTriggers';

/** The options after defaults are applied. */
export type ResolvedCmsOptions = Required<
  Omit<CmsModuleOptions, 'responseCache' | 'compression' | 'webhooks' | UnsetOptions>
> &
  Pick<CmsModuleOptions, UnsetOptions> & {
    /** `false` when off. */
    responseCache: false | { maxBytes: number };
    /** The names of {@link CmsModuleOptions.wireNames}. */
    wire: WireNames;
    /** `false` when off. */
    compression: false | { threshold: number };
    webhooks: ResolvedWebhookOptions;
  };

/** An S3-compatible bucket for media (see {@link CmsModuleOptions.objectStorage}). */
export interface ObjectStorageOptions {
  bucket: string;
  /** The service's address for an S3-compatible server (`http://127.0.0.1:9000`); default: AWS S3's. */
  endpoint?: string;
  /** Region (default `AWS_REGION`, else `us-east-1`). */
  region?: string;
  /** Path-style addresses (`endpoint/bucket/key`), which most S3-compatible servers need (default `true` with an endpoint). */
  forcePathStyle?: boolean;
  /** A key prefix inside the bucket (`uploads/`); default none. */
  prefix?: string;
  /** Credentials; default: the AWS SDK's chain (environment, profile, instance role). */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
}

export const CMS_OPTIONS = Symbol('CMS_OPTIONS');

/** The namespace the API's own routes are declared in (served as `wp/v2` with `wireNames: 'wordpress'`). */
export const CMS_NAMESPACE = 'cms/v2';

export const DEFAULT_BODY_LIMIT = 10 * 1024 * 1024;
export const DEFAULT_UPLOAD_LIMIT = 64 * 1024 * 1024;
/** Bytes of responses the response cache keeps per process, by default. */
export const DEFAULT_RESPONSE_CACHE_BYTES = 16 * 1024 * 1024;

/** Seconds a caller's reads stay on the primary after it wrote, by default. */
export const DEFAULT_READ_AFTER_WRITE_SECONDS = 5;

export function resolveCmsOptions(options: CmsModuleOptions): ResolvedCmsOptions {
  if (options.authSecret !== undefined && options.authSecret.length < 32)
    throw new Error('authSecret must be at least 32 characters');
  if (options.objectStorage && !options.objectStorage.bucket) throw new Error('objectStorage.bucket must be set');
  if (options.wireNames !== undefined && !WireNames.isMode(options.wireNames))
    throw new Error(`wireNames must be 'cms' or 'wordpress', not ${JSON.stringify(options.wireNames)}`);
  const wire = WireNames.of(options.wireNames ?? 'cms');
  if (
    options.stampTriggers !== undefined &&
    options.stampTriggers !== 'install' &&
    options.stampTriggers !== 'remove'
  ) {
    throw new Error(`stampTriggers must be 'install' or 'remove', not ${JSON.stringify(options.stampTriggers)}`);
  }
  // The answer cache is validated by the stamps: without memos (no stamps) it is off too.
  const memos = options.memos ?? options.responseCache !== false;
  return {
    ...options,
    wireNames: wire.mode,
    wire,
    routePrefix: (options.routePrefix ?? wire.root).replace(/^\/+|\/+$/g, ''),
    runMigrations: options.runMigrations ?? true,
    uploadDir: options.uploadDir ?? './uploads',
    bodyLimit: options.bodyLimit ?? DEFAULT_BODY_LIMIT,
    uploadLimit: options.uploadLimit ?? DEFAULT_UPLOAD_LIMIT,
    linkRelBase: options.linkRelBase ?? 'https://api.w.org/',
    extensions: options.extensions ?? [],
    rateLimit: options.rateLimit ?? { max: 10, windowSeconds: 900 },
    serveSiteRoot: options.serveSiteRoot ?? false,
    restRouteQuery: options.restRouteQuery ?? false,
    passwordHash: options.passwordHash ?? 'bcrypt',
    readAfterWriteSeconds: options.readAfterWriteSeconds ?? DEFAULT_READ_AFTER_WRITE_SECONDS,
    redisKeyPrefix: options.redisKeyPrefix ?? 'cms:',
    allowScriptableUploads: options.allowScriptableUploads ?? false,
    memos,
    responseCache:
      options.responseCache === false || !memos
        ? false
        : {
            maxBytes:
              (typeof options.responseCache === 'object' && options.responseCache.maxBytes) ||
              DEFAULT_RESPONSE_CACHE_BYTES,
          },
    compression: resolveCompression(options.compression),
    webhooks: resolveWebhookOptions(options.webhooks),
    uploadsUrl: options.uploadsUrl?.replace(/\/+$/, ''),
    baseUrl: options.baseUrl?.replace(/\/+$/, ''),
  };
}

function resolveCompression(option: CmsModuleOptions['compression']): ResolvedCmsOptions['compression'] {
  if (!option) return false;
  const threshold = typeof option === 'object' ? option.threshold : undefined;
  return { threshold: threshold !== undefined && threshold >= 0 ? threshold : DEFAULT_COMPRESSION_THRESHOLD };
}
