import type { ObjectStorageOptions } from '../core/config/cms-options';
import type { WebhookOptions } from '../core/config/webhook-options';
import type { CmsEnvironment } from './env';

/** The administrator to create on first start, from CMS_ADMIN_USER / CMS_ADMIN_PASSWORD / CMS_ADMIN_EMAIL. */
export function initialAdminFromEnvironment(
  env: CmsEnvironment,
): { login: string; password: string; email: string } | undefined {
  if (env.CMS_ADMIN_USER === undefined || env.CMS_ADMIN_PASSWORD === undefined) return undefined;
  return {
    login: env.CMS_ADMIN_USER,
    password: env.CMS_ADMIN_PASSWORD,
    email: env.CMS_ADMIN_EMAIL ?? `${env.CMS_ADMIN_USER}@localhost.localdomain`,
  };
}

/** The S3 bucket of CMS_S3_*, when CMS_S3_BUCKET is set. */
export function objectStorageFromEnvironment(env: CmsEnvironment): ObjectStorageOptions | undefined {
  if (!env.CMS_S3_BUCKET) return undefined;
  return {
    bucket: env.CMS_S3_BUCKET,
    endpoint: env.CMS_S3_ENDPOINT,
    region: env.CMS_S3_REGION,
    forcePathStyle: env.CMS_S3_FORCE_PATH_STYLE === undefined ? undefined : env.CMS_S3_FORCE_PATH_STYLE === 'true',
    prefix: env.CMS_S3_PREFIX,
  };
}

/** The replicas of DATABASE_REPLICA_URLS. */
export function replicaUrlsFromEnvironment(env: CmsEnvironment): string[] {
  return (env.DATABASE_REPLICA_URLS ?? '')
    .split(',')
    .map((url) => url.trim())
    .filter(Boolean);
}

/** Parses a size such as `10mb` into bytes. */
export function parseSize(value: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?$/i.exec(value.trim());
  if (!m) throw new Error(`Invalid size: ${value}`);
  const unit = (m[2] ?? 'b').toLowerCase();
  const factor = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 }[unit as 'b'];
  return Math.floor(Number(m[1]) * factor);
}

/** The webhook options of CMS_WEBHOOKS_* (see docs/webhooks.md). */
export function webhooksFromEnvironment(env: CmsEnvironment): WebhookOptions {
  return {
    worker: env.CMS_WEBHOOKS_WORKER === undefined ? undefined : env.CMS_WEBHOOKS_WORKER === 'on',
    allowPrivate: env.CMS_WEBHOOKS_ALLOW_PRIVATE === 'true',
    maxAttempts: env.CMS_WEBHOOKS_MAX_ATTEMPTS === undefined ? undefined : Number(env.CMS_WEBHOOKS_MAX_ATTEMPTS),
    backoffMs: env.CMS_WEBHOOKS_BACKOFF_MS === undefined ? undefined : Number(env.CMS_WEBHOOKS_BACKOFF_MS),
    pollMs: env.CMS_WEBHOOKS_POLL_MS === undefined ? undefined : Number(env.CMS_WEBHOOKS_POLL_MS),
  };
}
