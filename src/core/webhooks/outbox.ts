import { randomBytes } from 'node:crypto';
import type { DataSource, EntityManager } from 'typeorm';
import { WebhookEventEntity } from '../database/entities/webhook-event.entity';
import { WebhookEntity } from '../database/entities/webhook.entity';
import { subscribesTo, type WebhookEvent } from './webhook-events';

/** How long a process trusts its list of active subscriptions before reading it again (inside a write). */
export const SUBSCRIPTIONS_FRESH_MS = 1000;

/** An active subscription as the recorder needs it. */
interface ActiveSubscription {
  id: number;
  events: string[];
}

/** The recorder's state for one data source: the subscriptions' list, and who to wake after a recorded write. */
class OutboxState {
  private list: ActiveSubscription[] | null = null;
  private readAt = 0;

  constructor(private readonly wake: () => void) {}

  /** The active subscriptions: kept {@link SUBSCRIPTIONS_FRESH_MS}, else read through the write's own `em`. */
  async subscriptions(em: EntityManager): Promise<ActiveSubscription[]> {
    if (this.list && Date.now() - this.readAt < SUBSCRIPTIONS_FRESH_MS) return this.list;
    const rows = await em
      .getRepository(WebhookEntity)
      .find({ select: { id: true, events: true }, where: { active: 1 } });
    this.list = rows.map((row) => ({ id: Number(row.id), events: splitEvents(row.events) }));
    this.readAt = Date.now();
    return this.list;
  }

  /** Forgets the list (this process changed a subscription). */
  forget(): void {
    this.list = null;
  }

  nudge(): void {
    // The write commits after its work returns: the worker looks a moment later, and at its next poll anyway.
    setTimeout(this.wake, 20).unref();
  }
}

/** The recorders of the data sources whose webhooks module runs in this process. */
const STATES = new WeakMap<object, OutboxState>();

/**
 * Connects the outbox of a data source to this process's webhook worker: `wake` is called after a write recorded
 * an event. Until it is called (no webhooks module), {@link recordEvent} records nothing.
 */
export function openOutbox(dataSource: DataSource, wake: () => void): void {
  STATES.set(dataSource, new OutboxState(wake));
}

/** Disconnects the outbox of a data source (shutdown). */
export function closeOutbox(dataSource: DataSource): void {
  STATES.delete(dataSource);
}

/** Makes the recorder read the subscriptions again at the next write (a subscription changed in this process). */
export function subscriptionsChanged(dataSource: DataSource): void {
  STATES.get(dataSource)?.forget();
}

/**
 * Records webhook events in the outbox, inside the transaction of the write they report (`em` of
 * `writeTransaction`): a write rolled back records nothing, a committed one is delivered even if the process dies
 * right after the commit. One outbox row per active subscription that asks for the event; nothing at all (not even a
 * query, while the list is fresh) when none does. Only references are stored: the payload is rendered when it is
 * delivered.
 *
 * A subscription created on another node is seen by this one's writes within {@link SUBSCRIPTIONS_FRESH_MS}.
 *
 * @example await recordEvent(em, { event: 'post.created', objectType: 'post', subtype: 'post', id: 12 });
 */
export async function recordEvent(em: EntityManager, ...events: WebhookEvent[]): Promise<void> {
  const state = STATES.get(em.connection);
  if (!state || !events.length) return;
  const subscriptions = await state.subscriptions(em);
  if (!subscriptions.length) return;
  const now = Date.now();
  const rows: Array<Partial<WebhookEventEntity>> = [];
  for (const event of events) {
    for (const subscription of subscriptions) {
      if (!subscribesTo(subscription.events, event.event)) continue;
      rows.push(outboxRow(subscription.id, event, now));
    }
  }
  if (!rows.length) return;
  await em.getRepository(WebhookEventEntity).insert(rows);
  state.nudge();
}

/** The outbox row of an event for a subscription. */
export function outboxRow(
  webhookId: number,
  event: { event: string; objectType: string; id: number; subtype?: string },
  now: number,
  messageId = newMessageId(),
): Partial<WebhookEventEntity> {
  return {
    webhookId,
    messageId,
    event: event.event,
    objectType: event.objectType,
    objectSubtype: event.subtype ?? '',
    objectId: event.id,
    objectKey: `${event.objectType}:${event.id}`,
    state: 'pending',
    attempts: 0,
    nextAttemptAt: now,
    claimedUntil: 0,
    createdAt: now,
  };
}

/** A Standard Webhooks message id. */
export function newMessageId(): string {
  return `msg_${randomBytes(16).toString('base64url')}`;
}

/** A subscription's stored event list. */
export function splitEvents(events: string): string[] {
  return events
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
}
