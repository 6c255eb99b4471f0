import { plainToInstance } from 'class-transformer';
import {
  IsDefined,
  IsIn,
  IsOptional,
  IsString,
  Matches,
  MinLength,
  ValidateBy,
  ValidateIf,
  validateSync,
} from 'class-validator';
import { LOG_LEVELS, LogLevel } from './logging';
import { IsIntegerWithin, IsWordPressEmail, IsWordPressLogin } from './env-validators';

export {
  initialAdminFromEnvironment,
  objectStorageFromEnvironment,
  parseSize,
  replicaUrlsFromEnvironment,
  webhooksFromEnvironment,
} from './env-options';

/** The administrator variables are validated together: any of them needs CMS_ADMIN_USER and CMS_ADMIN_PASSWORD. */
function adminVariablesUsed(env: CmsEnvironment): boolean {
  return env.CMS_ADMIN_USER !== undefined || env.CMS_ADMIN_PASSWORD !== undefined || env.CMS_ADMIN_EMAIL !== undefined;
}

/**
 * The environment of the standalone server, validated at start-up. A bad value stops the server with a message
 * naming the variable and what is allowed.
 */
export class CmsEnvironment {
  /** HTTP port. */
  @IsIntegerWithin('PORT must be an integer between 1 and 65535', 1, 65535)
  PORT = 3000;

  /** Processes serving requests on the port (Node cluster); `0` means one per CPU. */
  @IsIntegerWithin('CMS_WORKERS must be an integer between 0 and 64 (0: one per CPU)', 0, 64)
  CMS_WORKERS = 1;

  /** Public base URL of the site (links are built from it); default: the address of each request. */
  @IsOptional()
  @Matches(/^https?:\/\/[^\s/]+(\/[^\s]*)?$/, {
    message: 'CMS_BASE_URL must be an http(s) URL such as https://example.com',
  })
  CMS_BASE_URL?: string;

  /** `sqlite:<path>`, `sqlite::memory:` or `mysql://user:pass@host:port/db`. */
  @Matches(/^(sqlite:.+|(mysql|mariadb):\/\/.+)$/, {
    message: 'DATABASE_URL must be sqlite:<path>, sqlite::memory: or mysql://user:pass@host:port/database',
  })
  DATABASE_URL = 'sqlite:./data/cms.sqlite';

  /** Prefix of the WordPress-schema tables (`wp_` for an existing WordPress database). */
  @Matches(/^[A-Za-z0-9_]{0,32}$/, { message: 'CMS_TABLE_PREFIX may contain only letters, digits and _ (at most 32)' })
  CMS_TABLE_PREFIX = 'cms_';

  /** Directory for uploaded media. */
  @IsString()
  CMS_UPLOAD_DIR = './uploads';

  /** Largest upload (media): bytes, or a number with kb/mb/gb (e.g. `64mb`). */
  @Matches(/^\d+(\.\d+)?\s*(b|kb|mb|gb)?$/i, {
    message: 'CMS_UPLOAD_LIMIT must be a size such as 64mb, 512kb or 1048576',
  })
  CMS_UPLOAD_LIMIT = '64mb';

  /**
   * The answer cache of anonymous reads. `off` when anything but this API writes to the database (a WordPress sharing
   * it, SQL by hand) and the stamp triggers are not installed (`CMS_STAMP_TRIGGERS`).
   */
  @IsIn(['on', 'off'], { message: 'CMS_RESPONSE_CACHE must be on or off' })
  CMS_RESPONSE_CACHE: 'on' | 'off' = 'on';

  /**
   * The data memos (totals, options, authors, posts' extras, verified callers) kept until a version stamp moves: `on`,
   * or `off` (no stamps: kept for a moment, and no answer cache). Default: as `CMS_RESPONSE_CACHE`.
   */
  @IsOptional()
  @IsIn(['on', 'off'], { message: 'CMS_MEMOS must be on or off' })
  CMS_MEMOS?: 'on' | 'off';

  /**
   * With the migrations: `install` the triggers that move the version stamps on every writer's writes (WordPress, SQL
   * by hand), or `remove` them; unset leaves them as they are.
   */
  @IsOptional()
  @IsIn(['install', 'remove'], { message: 'CMS_STAMP_TRIGGERS must be install or remove' })
  CMS_STAMP_TRIGGERS?: 'install' | 'remove';

  @Matches(/^\d+(\.\d+)?\s*(b|kb|mb|gb)?$/i, {
    message: 'CMS_RESPONSE_CACHE_BYTES must be a size such as 64mb, 512kb or 1048576',
  })
  CMS_RESPONSE_CACHE_BYTES = '16mb';

  /** Base URL of uploaded files, e.g. a CDN (default `<site URL>/wp-content/uploads`, served by this server). */
  @IsOptional()
  @Matches(/^https?:\/\/\S+$/, { message: 'CMS_UPLOADS_URL must be an http(s) URL' })
  CMS_UPLOADS_URL?: string;

  /** Serve the upload directory at `/wp-content/uploads/` (`true`/`false`). */
  @IsIn(['true', 'false'], { message: 'CMS_SERVE_UPLOADS must be true or false' })
  CMS_SERVE_UPLOADS = 'true';

  /** Largest request body: bytes, or a number with kb/mb (e.g. `10mb`). */
  @Matches(/^\d+(\.\d+)?\s*(b|kb|mb|gb)?$/i, {
    message: 'CMS_BODY_LIMIT must be a size such as 10mb, 512kb or 1048576',
  })
  CMS_BODY_LIMIT = '10mb';

  /**
   * Read replicas (`mysql://…`, comma-separated) of the MySQL/MariaDB DATABASE_URL: reads go to one of them, writes
   * and a writer's next reads to the primary (see docs/deploy.md).
   */
  @IsOptional()
  @Matches(/^(mysql|mariadb):\/\/[^,\s]+(,\s*(mysql|mariadb):\/\/[^,\s]+)*$/, {
    message: 'DATABASE_REPLICA_URLS must be mysql://user:pass@host:port/database URLs separated by commas',
  })
  DATABASE_REPLICA_URLS?: string;

  /** Seconds of replication lag past which a replica is skipped (reads go to the others, or the primary). */
  @IsIntegerWithin('CMS_REPLICA_MAX_LAG must be a number of seconds (an integer between 0 and 3600)', 0, 3600)
  CMS_REPLICA_MAX_LAG = 5;

  /** Seconds after a caller's write during which its reads stay on the primary (read-your-writes). */
  @IsIntegerWithin('CMS_READ_AFTER_WRITE must be a number of seconds (an integer between 0 and 3600)', 0, 3600)
  CMS_READ_AFTER_WRITE = 5;

  /** Redis shared by every node (`redis://host:6379`): the authentication rate limits' counters. */
  @IsOptional()
  @Matches(/^rediss?:\/\/\S+$/, { message: 'CMS_REDIS_URL must be a redis:// or rediss:// URL' })
  CMS_REDIS_URL?: string;

  /** Prefix of the API's keys in that Redis: one per site when several share a Redis. */
  @Matches(/^[A-Za-z0-9:_.-]{1,64}$/, {
    message: 'CMS_REDIS_PREFIX may contain only letters, digits and : _ . - (at most 64)',
  })
  CMS_REDIS_PREFIX = 'cms:';

  /** Secret signing session cookies and nonces, the same on every node (at least 32 characters). */
  @IsOptional()
  @MinLength(32, { message: 'CMS_AUTH_SECRET must be at least 32 characters' })
  CMS_AUTH_SECRET?: string;

  /** Keep media in this S3-compatible bucket instead of CMS_UPLOAD_DIR. */
  @IsOptional()
  @Matches(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, {
    message: 'CMS_S3_BUCKET must be a bucket name (3 to 63 lower-case letters, digits, dots and hyphens)',
  })
  CMS_S3_BUCKET?: string;

  /** Address of an S3-compatible server (MinIO, Ceph, R2, ...); default AWS S3. */
  @IsOptional()
  @Matches(/^https?:\/\/\S+$/, { message: 'CMS_S3_ENDPOINT must be an http(s) URL' })
  CMS_S3_ENDPOINT?: string;

  /** The bucket's region (default AWS_REGION, else us-east-1). */
  @IsOptional()
  @Matches(/^[a-z0-9-]{1,64}$/, { message: 'CMS_S3_REGION must be a region name such as us-east-1' })
  CMS_S3_REGION?: string;

  /** Path-style addresses (`endpoint/bucket/key`), which most S3-compatible servers need; default true with an endpoint. */
  @IsOptional()
  @IsIn(['true', 'false'], { message: 'CMS_S3_FORCE_PATH_STYLE must be true or false' })
  CMS_S3_FORCE_PATH_STYLE?: 'true' | 'false';

  /** A key prefix inside the bucket (e.g. `uploads/`). */
  @IsOptional()
  @Matches(/^[A-Za-z0-9!_.*'()/-]{1,200}$/, {
    message: "CMS_S3_PREFIX may contain only letters, digits and !_.*'()/-",
  })
  CMS_S3_PREFIX?: string;

  /** Site title written on first start. */
  @IsOptional()
  @IsString()
  CMS_SITE_TITLE?: string;

  /** Run migrations and first-start set-up on start (`true`/`false`). */
  @IsIn(['true', 'false'], { message: 'CMS_MIGRATIONS_RUN must be true or false' })
  CMS_MIGRATIONS_RUN = 'true';

  /**
   * Answer API requests straight from Node's server, ahead of Nest's router (`true`, faster), or through the API's
   * Nest route as an embedding host does (`false`).
   */
  @IsIn(['true', 'false'], { message: 'CMS_SERVE_API_FIRST must be true or false' })
  CMS_SERVE_API_FIRST = 'true';

  /** Login of the administrator created on first start when the database has no users (with CMS_ADMIN_PASSWORD). */
  @ValidateIf(adminVariablesUsed)
  @IsWordPressLogin({
    message: 'CMS_ADMIN_USER must be 1 to 60 characters: letters, digits, space, _ . - @ (no space at either end)',
  })
  @IsDefined({ message: 'CMS_ADMIN_USER must be set when CMS_ADMIN_PASSWORD or CMS_ADMIN_EMAIL is set' })
  CMS_ADMIN_USER?: string;

  /** Password of that administrator (at least 8 characters; never logged). */
  @ValidateIf(adminVariablesUsed)
  @MinLength(8, { message: 'CMS_ADMIN_PASSWORD must be at least 8 characters' })
  @IsDefined({ message: 'CMS_ADMIN_PASSWORD must be set when CMS_ADMIN_USER or CMS_ADMIN_EMAIL is set' })
  CMS_ADMIN_PASSWORD?: string;

  /** E-mail of that administrator (default `<CMS_ADMIN_USER>@localhost.localdomain`). */
  @IsOptional()
  @IsWordPressEmail({ message: 'CMS_ADMIN_EMAIL must be an e-mail address such as admin@example.com' })
  CMS_ADMIN_EMAIL?: string;

  /** Failed authentications allowed per IP and per user within the window. */
  @IsIntegerWithin('CMS_RATE_LIMIT_MAX must be an integer of at least 1', 1)
  CMS_RATE_LIMIT_MAX = 10;

  /** Length of the rate-limit window, in seconds. */
  @IsIntegerWithin('CMS_RATE_LIMIT_WINDOW must be a number of seconds (an integer of at least 1)', 1)
  CMS_RATE_LIMIT_WINDOW = 900;

  /**
   * Names on the wire: `cms` (the spec's: `cms-json`, `cms/v2`, `X-CMS-*`) or `wordpress` (`wp-json`, `wp/v2`,
   * `X-WP-*`, curie `wp`), for front-ends and apps written for a WordPress site.
   */
  @IsIn(['cms', 'wordpress'], { message: 'CMS_WIRE_NAMES must be cms or wordpress' })
  CMS_WIRE_NAMES: 'cms' | 'wordpress' = 'cms';

  /** Hash format of new login passwords: `bcrypt` (WordPress 6.8+) or `phpass` (a WordPress before 6.8 shares the database). */
  @IsIn(['bcrypt', 'phpass'], { message: 'CMS_PASSWORD_HASH must be bcrypt or phpass' })
  CMS_PASSWORD_HASH: 'bcrypt' | 'phpass' = 'bcrypt';

  /** Least severe level logged (see logging.ts). */
  @IsIn(LOG_LEVELS, { message: `LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}` })
  LOG_LEVEL: LogLevel = 'info';

  /** One log line per request (`on`/`off`: off when a proxy in front logs them already). */
  @IsIn(['on', 'off'], { message: 'CMS_REQUEST_LOG must be on or off' })
  CMS_REQUEST_LOG: 'on' | 'off' = 'on';

  /** Seconds in-flight requests get to finish on SIGTERM/SIGINT before their connections are closed. */
  @IsIntegerWithin('CMS_SHUTDOWN_TIMEOUT must be a number of seconds (an integer between 0 and 3600)', 0, 3600)
  CMS_SHUTDOWN_TIMEOUT = 10;

  /** Seconds a client gets to send a whole request, head and body (Node's `server.requestTimeout`); `0`: no limit. */
  @IsIntegerWithin('CMS_REQUEST_TIMEOUT must be a number of seconds (an integer between 0 and 3600)', 0, 3600)
  CMS_REQUEST_TIMEOUT = 300;

  /** Seconds a client gets to send the request head (`server.headersTimeout`), at most CMS_REQUEST_TIMEOUT. */
  @IsIntegerWithin('CMS_HEADERS_TIMEOUT must be a number of seconds (an integer between 1 and 3600)', 1, 3600)
  @ValidateBy(
    {
      name: 'headersWithinRequest',
      validator: {
        validate: (v, args) =>
          !(args?.object as CmsEnvironment).CMS_REQUEST_TIMEOUT ||
          v <= (args?.object as CmsEnvironment).CMS_REQUEST_TIMEOUT,
      },
    },
    { message: 'CMS_HEADERS_TIMEOUT must not be longer than CMS_REQUEST_TIMEOUT' },
  )
  CMS_HEADERS_TIMEOUT = 60;

  /** Seconds an idle keep-alive connection stays open (`server.keepAliveTimeout`). */
  @IsIntegerWithin('CMS_KEEPALIVE_TIMEOUT must be a number of seconds (an integer between 1 and 3600)', 1, 3600)
  CMS_KEEPALIVE_TIMEOUT = 5;

  /**
   * Milliseconds of request work between two turns of the event loop, when requests wait (request-pacing.ts): the
   * server accepts new connections between two; `0`: no pacing.
   */
  @IsIntegerWithin('CMS_EVENT_LOOP_SLICE must be a number of milliseconds (an integer between 0 and 1000)', 0, 1000)
  CMS_EVENT_LOOP_SLICE = 5;

  /** Largest request head (request line and headers, `server.maxHeaderSize`): bytes, or a number with kb. */
  @Matches(/^\d+(\.\d+)?\s*(b|kb|mb)?$/i, { message: 'CMS_MAX_HEADER_SIZE must be a size such as 16kb or 8192' })
  CMS_MAX_HEADER_SIZE = '16kb';

  /** Seconds a request waits for the database (MySQL: connecting, each query; SQLite: another process's lock) before a 503. */
  @IsIntegerWithin('CMS_DB_TIMEOUT must be a number of seconds (an integer between 1 and 600)', 1, 600)
  CMS_DB_TIMEOUT = 10;

  /** gzip/br compression of API answers and served uploads (`on`/`off`). */
  @IsIn(['on', 'off'], { message: 'CMS_COMPRESSION must be on or off' })
  CMS_COMPRESSION: 'on' | 'off' = 'on';

  /** Smallest body compressed: bytes, or a number with kb/mb. */
  @Matches(/^\d+(\.\d+)?\s*(b|kb|mb|gb)?$/i, {
    message: 'CMS_COMPRESSION_THRESHOLD must be a size such as 1kb or 2048',
  })
  CMS_COMPRESSION_THRESHOLD = '1kb';

  /** `off`: this process does not deliver webhooks (events are still recorded; another node delivers them). */
  @IsOptional()
  @IsIn(['on', 'off'], { message: 'CMS_WEBHOOKS_WORKER must be on or off' })
  CMS_WEBHOOKS_WORKER?: 'on' | 'off';

  /** `true`: webhooks may target private, loopback and link-local addresses (default refused: SSRF guard). */
  @IsOptional()
  @IsIn(['true', 'false'], { message: 'CMS_WEBHOOKS_ALLOW_PRIVATE must be true or false' })
  CMS_WEBHOOKS_ALLOW_PRIVATE?: 'true' | 'false';

  /** Attempts of one webhook event before its subscription is marked failing (default 8). */
  @IsOptional()
  @IsIntegerWithin('CMS_WEBHOOKS_MAX_ATTEMPTS must be an integer between 1 and 100', 1, 100)
  CMS_WEBHOOKS_MAX_ATTEMPTS?: number;

  /** Milliseconds before the first webhook retry, doubled at each attempt, with jitter (default 10000). */
  @IsOptional()
  @IsIntegerWithin('CMS_WEBHOOKS_BACKOFF_MS must be an integer between 0 and 3600000', 0, 3_600_000)
  CMS_WEBHOOKS_BACKOFF_MS?: number;

  /** Milliseconds between two looks at the webhooks' outbox (default 1000). */
  @IsOptional()
  @IsIntegerWithin('CMS_WEBHOOKS_POLL_MS must be an integer between 10 and 60000', 10, 60_000)
  CMS_WEBHOOKS_POLL_MS?: number;
}

/** Reads and validates the environment; throws one Error listing every bad variable. */
export function loadEnvironment(source: NodeJS.ProcessEnv = process.env): CmsEnvironment {
  const defined = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v !== ''));
  const env = plainToInstance(CmsEnvironment, defined, { enableImplicitConversion: false });
  for (const name of [
    'PORT',
    'CMS_WORKERS',
    'CMS_RATE_LIMIT_MAX',
    'CMS_RATE_LIMIT_WINDOW',
    'CMS_SHUTDOWN_TIMEOUT',
    'CMS_REQUEST_TIMEOUT',
    'CMS_HEADERS_TIMEOUT',
    'CMS_KEEPALIVE_TIMEOUT',
    'CMS_EVENT_LOOP_SLICE',
    'CMS_DB_TIMEOUT',
    'CMS_REPLICA_MAX_LAG',
    'CMS_READ_AFTER_WRITE',
    'CMS_WEBHOOKS_MAX_ATTEMPTS',
    'CMS_WEBHOOKS_BACKOFF_MS',
    'CMS_WEBHOOKS_POLL_MS',
  ] as const) {
    const text = defined[name];
    if (typeof text === 'string')
      env[name] = /^\d+$/.test(text) && Number.isSafeInteger(Number(text)) ? Number(text) : NaN;
  }
  const errors = validateSync(env, { skipMissingProperties: false, stopAtFirstError: true });
  if (errors.length) {
    const lines = [...new Set(errors.flatMap((e) => Object.values(e.constraints ?? {})))];
    throw new Error(`Invalid configuration:\n  - ${lines.join('\n  - ')}`);
  }
  return env;
}
