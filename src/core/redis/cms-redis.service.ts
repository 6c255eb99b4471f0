import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import type Redis from 'ioredis';
import { CMS_OPTIONS, ResolvedCmsOptions } from '../config/cms-options';

/** How long a command may take before the caller falls back to what its process knows. */
export const REDIS_COMMAND_TIMEOUT_MS = 250;

/** A Redis URL without its password, for logs. */
export function redactRedisUrl(url: string): string {
  return url.replace(
    /^(rediss?:\/\/)([^@/]*)@/i,
    (_m, scheme: string, auth: string) => `${scheme}${auth.includes(':') ? `${auth.split(':')[0]}:***` : '***'}@`,
  );
}

/**
 * The connection to the Redis a fleet shares (`redisUrl`, `CMS_REDIS_URL`): one `ioredis` client per process, for
 * what every node must count together (the authentication rate limits) or know (the read-after-write marks).
 *
 * It never holds a request: commands are not queued while it is disconnected (`enableOfflineQueue: false`), time
 * out after {@link REDIS_COMMAND_TIMEOUT_MS}, and are not retried; it reconnects in the background. Users check
 * {@link available} and fall back to their process's own state meanwhile. Losing and regaining Redis is logged
 * once each (the URL's password never is).
 */
@Injectable()
export class CmsRedis implements OnApplicationShutdown {
  private readonly logger = new Logger('CmsRedis');
  /** The client, or `null` without `redisUrl`. */
  readonly client: Redis | null;
  /** Prefix of every key of the API (`cms:`), so that other users of the same Redis are left alone. */
  readonly keyPrefix: string;
  private wasReady = false;
  private warned = false;
  private lastError = '';

  constructor(@Inject(CMS_OPTIONS) options: ResolvedCmsOptions) {
    this.keyPrefix = options.redisKeyPrefix;
    if (!options.redisUrl) {
      this.client = null;
      return;
    }
    const where = redactRedisUrl(options.redisUrl);
    // Loaded only where a Redis URL is set.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { default: RedisClient } = require('ioredis') as typeof import('ioredis');
    this.client = new RedisClient(options.redisUrl, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
      connectTimeout: 2000,
      // Reconnects in the background, at most every 2 s.
      retryStrategy: (times) => Math.min(times * 200, 2000),
    });
    this.client.on('ready', () => {
      if (this.warned)
        this.logger.log(`Redis at ${where} is reachable again: limits and marks are shared by the fleet again`);
      this.wasReady = true;
      this.warned = false;
    });
    this.client.on('error', (error: Error) => {
      this.lastError = error.message.replace(options.redisUrl!, where);
    });
    const lost = () => {
      if (this.warned) return;
      this.warned = true;
      this.logger.warn(
        `Redis at ${where} cannot be reached${this.lastError ? ` (${this.lastError})` : ''}: each process counts its rate limits and keeps its read-after-write marks on its own until it is back`,
      );
    };
    this.client.on('close', () => {
      if (this.wasReady) lost();
    });
    // Never reached at start: said once, after the first attempt.
    const first = setTimeout(() => {
      if (!this.available) lost();
    }, 2500);
    first.unref();
  }

  /** Whether commands can be sent now. */
  get available(): boolean {
    return this.client?.status === 'ready';
  }

  /** Why Redis is not available (for readiness details). */
  get problem(): string {
    if (!this.client) return 'not configured';
    return this.available ? '' : `Redis cannot be reached${this.lastError ? `: ${this.lastError}` : ''}`;
  }

  async onApplicationShutdown(): Promise<void> {
    if (!this.client) return;
    this.client.removeAllListeners('close');
    this.client.disconnect();
  }
}
