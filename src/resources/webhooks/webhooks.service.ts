import { Inject, Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { CMS_OPTIONS, type ResolvedCmsOptions } from '../../core/config/cms-options';
import { CMS_DATA_SOURCE } from '../../core/database/cms-data-source';
import { WebhookDeliveryEntity } from '../../core/database/entities/webhook-delivery.entity';
import { WebhookEventEntity } from '../../core/database/entities/webhook-event.entity';
import { WebhookEntity } from '../../core/database/entities/webhook.entity';
import { insertRow } from '../../core/database/query-helpers';
import { writeTransaction } from '../../core/database/write-transaction';
import { RestException } from '../../core/errors/rest.exception';
import { assertOutboundUrl, OutboundRequestError } from '../../core/http/outbound';
import { outboxRow, splitEvents, subscriptionsChanged } from '../../core/webhooks/outbox';

/** A subscription as given to create or update it. */
export interface WebhookInput {
  url?: string;
  events?: string[];
  secret?: string;
  active?: boolean;
}

/**
 * Webhook subscriptions and their delivery logs: create (the URL checked against the SSRF guard, a secret generated
 * when none is given), update, delete, list, and redeliver an event (a new outbox row with the same message id).
 */
@Injectable()
export class WebhooksService {
  constructor(
    @Inject(CMS_DATA_SOURCE) private readonly dataSource: DataSource,
    @Inject(CMS_OPTIONS) private readonly options: ResolvedCmsOptions,
  ) {}

  list(): Promise<WebhookEntity[]> {
    return this.dataSource.getRepository(WebhookEntity).find({ order: { id: 'ASC' }, take: 1000 });
  }

  async get(id: number): Promise<WebhookEntity> {
    const hook = id > 0 ? await this.dataSource.getRepository(WebhookEntity).findOneBy({ id }) : null;
    if (!hook) throw new RestException('rest_webhook_invalid_id', 'Invalid webhook ID.', 404);
    return hook;
  }

  /** Creates a subscription; returns it with its secret (the only time it is shown). */
  async create(input: WebhookInput): Promise<WebhookEntity> {
    const url = this.checkedUrl(input.url ?? '');
    const now = Date.now();
    const row = {
      url,
      events: (input.events?.length ? [...new Set(input.events)] : ['*']).join(','),
      secret: input.secret ?? `whsec_${randomBytes(32).toString('base64')}`,
      active: input.active === false ? 0 : 1,
      failing: 0,
      failureReason: '',
      createdAt: now,
      updatedAt: now,
    };
    const id = await writeTransaction(this.dataSource, (em) => insertRow(em, WebhookEntity, row));
    subscriptionsChanged(this.dataSource);
    return { ...row, id };
  }

  async update(id: number, input: WebhookInput): Promise<WebhookEntity> {
    const hook = await this.get(id);
    const changes: Partial<WebhookEntity> = { updatedAt: Date.now() };
    if (input.url !== undefined) changes.url = this.checkedUrl(input.url);
    if (input.events !== undefined)
      changes.events = (input.events.length ? [...new Set(input.events)] : ['*']).join(',');
    if (input.secret !== undefined) changes.secret = input.secret;
    if (input.active !== undefined) {
      changes.active = input.active ? 1 : 0;
      // Turning a subscription on again clears its failure.
      if (input.active) Object.assign(changes, { failing: 0, failureReason: '' });
    }
    await writeTransaction(this.dataSource, (em) => em.getRepository(WebhookEntity).update({ id }, changes));
    subscriptionsChanged(this.dataSource);
    return { ...hook, ...changes };
  }

  /** Deletes a subscription, its pending events and its log. */
  async delete(id: number): Promise<WebhookEntity> {
    const hook = await this.get(id);
    await writeTransaction(this.dataSource, async (em) => {
      await em.getRepository(WebhookEntity).delete({ id });
      await em.getRepository(WebhookEventEntity).delete({ webhookId: id });
      await em.getRepository(WebhookDeliveryEntity).delete({ webhookId: id });
    });
    subscriptionsChanged(this.dataSource);
    return hook;
  }

  /** The newest delivery log lines of a subscription, a page at a time. */
  async deliveries(id: number, page: number, perPage: number): Promise<[WebhookDeliveryEntity[], number]> {
    await this.get(id);
    return this.dataSource.getRepository(WebhookDeliveryEntity).findAndCount({
      where: { webhookId: id },
      order: { id: 'DESC' },
      skip: (page - 1) * perPage,
      take: perPage,
    });
  }

  /** Sends a logged delivery's event again: a new outbox row, same message id (receivers may deduplicate). */
  async redeliver(id: number, deliveryId: number): Promise<WebhookDeliveryEntity> {
    await this.get(id);
    const delivery = await this.dataSource
      .getRepository(WebhookDeliveryEntity)
      .findOneBy({ id: deliveryId, webhookId: id });
    const event = delivery
      ? await this.dataSource.getRepository(WebhookEventEntity).findOneBy({ id: delivery.eventId })
      : null;
    if (!delivery || !event)
      throw new RestException('rest_webhook_delivery_invalid', 'Invalid delivery ID (or its event was pruned).', 404);
    const row = outboxRow(
      id,
      { event: event.event, objectType: event.objectType, id: Number(event.objectId), subtype: event.objectSubtype },
      Date.now(),
      event.messageId,
    );
    await writeTransaction(this.dataSource, (em) => em.getRepository(WebhookEventEntity).insert(row));
    return delivery;
  }

  /** The subscription's URL, refused with a 400 when it is not http(s) or targets a private address. */
  private checkedUrl(url: string): string {
    try {
      return assertOutboundUrl(url, this.options.webhooks.allowPrivate).toString();
    } catch (error) {
      if (!(error instanceof OutboundRequestError)) throw error;
      throw new RestException('rest_invalid_param', `Invalid parameter(s): url`, 400, {
        params: { url: error.message },
        details: { url: { code: error.code, message: error.message, data: null } },
      });
    }
  }

  /** A subscription's stored event list. */
  eventsOf(hook: WebhookEntity): string[] {
    return splitEvents(hook.events);
  }
}
