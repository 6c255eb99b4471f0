/** Options of the webhooks (`CmsModuleOptions.webhooks`; `CMS_WEBHOOKS_*` in the standalone server). */
export interface WebhookOptions {
  /** Whether this process delivers the outbox (default `true`; events are recorded either way). */
  worker?: boolean;
  /** Milliseconds between two looks at the outbox (default 1000); a local write also wakes the worker at once. */
  pollMs?: number;
  /** Attempts of one event before it is given up and its subscription marked failing (default 8). */
  maxAttempts?: number;
  /** Delay before the first retry, doubled at each attempt with ±50 % jitter (default 10 000 ms). */
  backoffMs?: number;
  /** Longest delay between two attempts (default one hour). */
  maxBackoffMs?: number;
  /** Deadline of one delivery (default 10 000 ms). */
  timeoutMs?: number;
  /** Bytes of a receiver's answer read and logged at most (default 4096). */
  maxResponseBytes?: number;
  /** Deliveries in flight at once in this process (default 8). */
  concurrency?: number;
  /** Delivery log rows kept per subscription (default 100). */
  logsKept?: number;
  /** Whether private, loopback and link-local targets may be subscribed (default `false`: SSRF guard). */
  allowPrivate?: boolean;
}

/** Webhook options after defaults. */
export type ResolvedWebhookOptions = Required<WebhookOptions>;

/** Applies the defaults of {@link WebhookOptions}; throws on a value out of range. */
export function resolveWebhookOptions(options: WebhookOptions = {}): ResolvedWebhookOptions {
  const resolved: ResolvedWebhookOptions = {
    worker: options.worker ?? true,
    pollMs: options.pollMs ?? 1000,
    maxAttempts: options.maxAttempts ?? 8,
    backoffMs: options.backoffMs ?? 10_000,
    maxBackoffMs: options.maxBackoffMs ?? 3_600_000,
    timeoutMs: options.timeoutMs ?? 10_000,
    maxResponseBytes: options.maxResponseBytes ?? 4096,
    concurrency: options.concurrency ?? 8,
    logsKept: options.logsKept ?? 100,
    allowPrivate: options.allowPrivate ?? false,
  };
  for (const key of ['pollMs', 'maxAttempts', 'timeoutMs', 'concurrency', 'logsKept'] as const) {
    const value = resolved[key];
    if (!Number.isInteger(value) || value < 1) throw new Error(`webhooks.${key} must be a positive integer`);
  }
  for (const key of ['backoffMs', 'maxBackoffMs', 'maxResponseBytes'] as const) {
    const value = resolved[key];
    if (!Number.isInteger(value) || value < 0) throw new Error(`webhooks.${key} must be a non-negative integer`);
  }
  return resolved;
}
