import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown, Optional } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import type { DataSource, EntityManager } from 'typeorm';
import { CMS_OPTIONS, type ResolvedCmsOptions } from '../config/cms-options';
import type { ResolvedWebhookOptions } from '../config/webhook-options';
import { CMS_DATA_SOURCE } from '../database/cms-data-source';
import { WebhookDeliveryEntity } from '../database/entities/webhook-delivery.entity';
import { WebhookEventEntity } from '../database/entities/webhook-event.entity';
import { WebhookEntity } from '../database/entities/webhook.entity';
import { isMySql } from '../database/query-helpers';
import { writeTransaction } from '../database/write-transaction';
import { outboundRequest, OutboundRequestError } from '../http/outbound';
import { closeOutbox, openOutbox } from './outbox';
import { WebhookPayloadRenderer } from './payload-renderer';

/** Delivered and failed outbox rows kept this long (a redelivery starts from them), then pruned. */
const FINISHED_KEPT_MS = 7 * 24 * 3600 * 1000;

/** The result of one attempt. */
interface Attempt {
  ok: boolean;
  /** No point trying again (a refused target). */
  permanent: boolean;
  status: number;
  durationMs: number;
  error: string;
}

/**
 * Delivers the webhooks' outbox, on every node: claims due rows (MySQL/MariaDB `FOR UPDATE SKIP LOCKED`, so that
 * nodes never claim the same row; SQLite has one writer), posts each signed per Standard Webhooks, and records the
 * attempt. At least once, in order per object and subscription: a row is not claimed while an earlier row of the
 * same object for the same subscription is pending (claimed or waiting for a retry). A claim is a lease: a node that
 * dies while delivering leaves rows that another node (or this one, restarted) claims again when it runs out.
 *
 * Retries back off exponentially with jitter; after `maxAttempts` the row is given up and its subscription marked
 * failing with the reason (a later success clears it). Looks every `pollMs`, and at once after a local write.
 */
@Injectable()
export class WebhookDeliveryWorker implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Webhooks');
  private readonly config: ResolvedWebhookOptions;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  private lastPrune = 0;
  /** This process's name in logs of claims. */
  readonly node = randomUUID();

  constructor(
    @Inject(CMS_DATA_SOURCE) private readonly dataSource: DataSource,
    @Inject(CMS_OPTIONS) options: ResolvedCmsOptions,
    @Optional() private readonly renderer?: WebhookPayloadRenderer,
  ) {
    this.config = options.webhooks;
  }

  onApplicationBootstrap(): void {
    openOutbox(this.dataSource, () => this.nudge());
    if (!this.config.worker) return;
    this.timer = setInterval(() => this.nudge(), this.config.pollMs);
    this.timer.unref();
    this.nudge();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    closeOutbox(this.dataSource);
    // Deliveries in flight end (each within its timeout); what they claimed and did not record is claimed again.
    await this.running;
  }

  /** Looks at the outbox now (or right after the look under way). */
  nudge(): void {
    if (this.stopped || !this.config.worker) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.drain()
      .catch((error: unknown) => this.logger.warn(`Outbox delivery failed: ${(error as Error).message}`))
      .finally(() => {
        this.running = null;
        if (this.again) {
          this.again = false;
          this.nudge();
        }
      });
  }

  /** Claims and delivers due rows until none is left (bounded to `concurrency` in flight). */
  private async drain(): Promise<void> {
    for (let round = 0; round < 100 && !this.stopped; round++) {
      // A plain read first: a claim is a write transaction, which an idle outbox must not cost every poll (it
      // would take SQLite's write lock and move what caches watch).
      if (!(await this.anyDue())) break;
      const rows = await this.claim(this.config.concurrency);
      if (!rows.length) break;
      await Promise.all(rows.map((row) => this.deliver(row)));
      // After the round's records committed: concurrent record transactions cannot see each other's lines
      // (MySQL's repeatable read), so a prune inside each would keep more than the bound.
      for (const webhookId of new Set(rows.map((row) => row.webhookId))) await this.pruneLog(webhookId);
    }
    if (Date.now() - this.lastPrune > 60_000) {
      this.lastPrune = Date.now();
      await this.pruneFinished();
    }
  }

  /** Whether a row is due (pending, its time come, not leased): one indexed read, outside any transaction. */
  private async anyDue(): Promise<boolean> {
    const now = Date.now();
    const rows = await this.dataSource.query<unknown[]>(
      `SELECT 1 AS due FROM ${this.table(WebhookEventEntity)} WHERE state = 'pending' AND next_attempt_at <= ? ` +
        `AND claimed_until <= ? LIMIT 1`,
      [now, now],
    );
    return rows.length > 0;
  }

  /** Claims up to `limit` due rows for this process: leased for the delivery's deadline and a margin. */
  async claim(limit: number): Promise<WebhookEventEntity[]> {
    const events = this.table(WebhookEventEntity);
    const mysql = isMySql(this.dataSource);
    return writeTransaction(this.dataSource, async (em) => {
      const now = Date.now();
      const found = await em.query<Array<{ id: number | string }>>(
        `SELECT e.id FROM ${events} e WHERE e.state = 'pending' AND e.next_attempt_at <= ? AND e.claimed_until <= ? ` +
          `AND NOT EXISTS (SELECT 1 FROM ${events} p WHERE p.webhook_id = e.webhook_id AND p.object_key = e.object_key ` +
          `AND p.state = 'pending' AND p.id < e.id) ORDER BY e.id LIMIT ${Math.max(1, Math.floor(limit))}` +
          (mysql ? ' FOR UPDATE SKIP LOCKED' : ''),
        [now, now],
      );
      if (!found.length) return [];
      const ids = found.map((row) => Number(row.id));
      const until = now + this.config.timeoutMs + 30_000;
      await em.query(
        `UPDATE ${events} SET claimed_until = ? WHERE id IN (${ids.map(() => '?').join(', ')}) AND claimed_until <= ?`,
        [until, ...ids, now],
      );
      return em
        .getRepository(WebhookEventEntity)
        .createQueryBuilder('e')
        .where('e.id IN (:...ids)', { ids })
        .andWhere('e.claimed_until = :until', { until })
        .orderBy('e.id')
        .getMany();
    });
  }

  /** Delivers one claimed row and records the attempt. */
  private async deliver(row: WebhookEventEntity): Promise<void> {
    const hook = await this.dataSource.getRepository(WebhookEntity).findOneBy({ id: row.webhookId });
    if (!hook || !hook.active) {
      // Deleted or paused since: nothing to send.
      await this.dataSource
        .getRepository(WebhookEventEntity)
        .update({ id: row.id }, { state: 'skipped', claimedUntil: 0 });
      return;
    }
    const attempt = await this.send(hook, row);
    await writeTransaction(this.dataSource, (em) => this.record(em, hook, row, attempt));
  }

  /** One POST of the event to the subscription's URL. */
  private async send(hook: WebhookEntity, row: WebhookEventEntity): Promise<Attempt> {
    const started = Date.now();
    try {
      const timestamp = new Date();
      const data = this.renderer ? await this.renderer.render(row) : { id: Number(row.objectId), type: row.objectType };
      const body = JSON.stringify({ type: row.event, timestamp: timestamp.toISOString(), data });
      const signature = new Webhook(hook.secret).sign(row.messageId, timestamp, body);
      const response = await outboundRequest(hook.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'cms-api-webhooks',
          'webhook-id': row.messageId,
          'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
          'webhook-signature': signature,
        },
        body,
        timeoutMs: this.config.timeoutMs,
        maxBytes: this.config.maxResponseBytes,
        overflow: 'truncate',
        allowPrivate: this.config.allowPrivate,
      });
      const ok = response.status >= 200 && response.status < 300;
      return {
        ok,
        permanent: false,
        status: response.status,
        durationMs: Date.now() - started,
        error: ok ? '' : `The receiver answered ${response.status}.`,
      };
    } catch (error) {
      const refused = error instanceof OutboundRequestError && /refused|invalid/.test(error.code);
      return {
        ok: false,
        permanent: refused,
        status: 0,
        durationMs: Date.now() - started,
        error: error instanceof Error ? error.message : String(error),
      };
    }
  }

  /** Records an attempt: the row's state, the log line, the subscription's health. */
  private async record(em: EntityManager, hook: WebhookEntity, row: WebhookEventEntity, attempt: Attempt) {
    const attempts = row.attempts + 1;
    const exhausted = !attempt.ok && (attempt.permanent || attempts >= this.config.maxAttempts);
    const state = attempt.ok ? 'delivered' : exhausted ? 'failed' : 'pending';
    const now = Date.now();
    await em.getRepository(WebhookEventEntity).update(
      { id: row.id },
      {
        state,
        attempts,
        claimedUntil: 0,
        nextAttemptAt: state === 'pending' ? now + this.backoff(attempts) : row.nextAttemptAt,
      },
    );
    await em.getRepository(WebhookDeliveryEntity).insert({
      webhookId: hook.id,
      eventId: row.id,
      messageId: row.messageId,
      event: row.event,
      attempt: attempts,
      status: attempt.ok ? 'success' : exhausted ? 'failed' : 'retrying',
      responseCode: attempt.status,
      durationMs: attempt.durationMs,
      error: attempt.error.slice(0, 1000),
      createdAt: now,
    });
    if (exhausted) {
      const reason = `${row.event} (${row.messageId}) failed after ${attempts} attempt(s): ${attempt.error}`;
      await em
        .getRepository(WebhookEntity)
        .update({ id: hook.id }, { failing: 1, failureReason: reason.slice(0, 1000), updatedAt: now });
    } else if (attempt.ok && hook.failing) {
      await em.getRepository(WebhookEntity).update({ id: hook.id }, { failing: 0, failureReason: '', updatedAt: now });
    }
  }

  /** The delay before attempt `attempts + 1`: exponential, capped, with ±50 % jitter. */
  private backoff(attempts: number): number {
    const base = Math.min(this.config.maxBackoffMs, this.config.backoffMs * 2 ** Math.min(attempts - 1, 30));
    return Math.round(base * (0.5 + Math.random()));
  }

  /** Keeps the newest `logsKept` log lines of a subscription. */
  private async pruneLog(webhookId: number): Promise<void> {
    const table = this.table(WebhookDeliveryEntity);
    const edge = await this.dataSource.query<Array<{ id: number | string }>>(
      `SELECT id FROM ${table} WHERE webhook_id = ? ORDER BY id DESC LIMIT 1 OFFSET ${this.config.logsKept - 1}`,
      [webhookId],
    );
    if (edge.length) {
      await this.dataSource.query(`DELETE FROM ${table} WHERE webhook_id = ? AND id < ?`, [
        webhookId,
        Number(edge[0].id),
      ]);
    }
  }

  /** Drops outbox rows delivered, failed or skipped long ago. */
  private async pruneFinished(): Promise<void> {
    const table = this.table(WebhookEventEntity);
    const before = Date.now() - FINISHED_KEPT_MS;
    for (const state of ['delivered', 'failed', 'skipped']) {
      // Read first: a DELETE is a write even when it finds nothing.
      const found = await this.dataSource.query<unknown[]>(
        `SELECT 1 AS old FROM ${table} WHERE state = ? AND created_at < ? LIMIT 1`,
        [state, before],
      );
      if (found.length)
        await this.dataSource.query(`DELETE FROM ${table} WHERE state = ? AND created_at < ?`, [state, before]);
    }
  }

  private table(entity: typeof WebhookEventEntity | typeof WebhookDeliveryEntity): string {
    return this.dataSource.driver.escape(this.dataSource.getMetadata(entity).tableName);
  }
}
