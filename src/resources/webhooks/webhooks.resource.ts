import { Injectable } from '@nestjs/common';
import { RestException } from '../../core/errors/rest.exception';
import { HookRegistry } from '../../core/hooks/hook-registry.service';
import type { ItemSchema, RouteArg } from '../../core/json-schema/json-schema';
import { RestRequest } from '../../core/rest/rest-request';
import { linkMap, RestResponse } from '../../core/rest/rest-response';
import { RestResource } from '../../core/rest/rest-resource';
import { RestServer } from '../../core/rest/rest-server.service';
import { Methods } from '../../core/rest/route-types';
import type { WebhookDeliveryEntity } from '../../core/database/entities/webhook-delivery.entity';
import type { WebhookEntity } from '../../core/database/entities/webhook.entity';
import { CmsExtensionRegistry } from '../../extensions/extension-registry.service';
import { WEBHOOK_SCHEMA, type WebhookWriteArgs } from './webhook-schema';
import { WebhooksService } from './webhooks.service';

const ID: RouteArg = { description: 'Unique identifier for the subscription.', type: 'integer' };
const DELIVERY: RouteArg = { description: 'Unique identifier for the delivery.', type: 'integer' };

/**
 * `webhooks`, `webhooks/<id>`, `webhooks/<id>/deliveries` and `webhooks/<id>/deliveries/<delivery>/redeliver`:
 * subscriptions and their delivery logs, for administrators (`manage_options`) only.
 */
@Injectable()
export class WebhooksResource extends RestResource {
  readonly restBase = 'webhooks';

  constructor(
    server: RestServer,
    extensions: CmsExtensionRegistry,
    hooks: HookRegistry,
    private readonly webhooks: WebhooksService,
  ) {
    super(server, extensions, hooks);
  }

  protected baseSchema(): ItemSchema {
    return WEBHOOK_SCHEMA;
  }

  readonly listArgs = () => ({ context: this.getContextParam({ default: 'view' }) });
  readonly createArgs = () => this.getEndpointArgsForItemSchema(Methods.CREATABLE);
  readonly readArgs = () => this.itemReadArgs(ID);
  readonly updateArgs = () => this.itemUpdateArgs(ID);
  readonly deleteArgs = () =>
    this.itemDeleteArgs(ID, 'Accepted for clients that send it: a subscription has no trash and is deleted at once.');
  readonly deliveriesArgs = () => ({
    id: ID,
    page: { description: 'Current page of the collection.', type: 'integer' as const, default: 1, minimum: 1 },
    per_page: {
      description: 'Maximum number of items to be returned in result set.',
      type: 'integer' as const,
      default: 20,
      minimum: 1,
      maximum: 100,
    },
  });
  readonly redeliverArgs = () => ({ id: ID, delivery: DELIVERY });

  /** Administrators only: 401 for anonymous callers, 403 for others. */
  async canManage(req: RestRequest): Promise<true | RestException> {
    if (await req.ctx.can('manage_options')) return true;
    return new RestException(
      'rest_forbidden',
      'Sorry, you are not allowed to manage webhooks.',
      req.ctx.authorizationRequiredCode,
    );
  }

  async getItems(req: RestRequest): Promise<RestResponse> {
    const items: unknown[] = [];
    for (const hook of await this.webhooks.list())
      items.push(this.server.toCollectionItem(await this.prepare(hook, req)));
    return new RestResponse(items);
  }

  async getItem(req: RestRequest): Promise<RestResponse> {
    return this.prepare(await this.webhooks.get(this.id(req)), req);
  }

  async createItem(req: RestRequest): Promise<RestResponse> {
    const hook = await this.webhooks.create(req.args<WebhookWriteArgs>());
    req.set('context', 'edit');
    const response = await this.prepare(hook, req);
    // The secret is shown once, here.
    (response.data as Record<string, unknown>).secret = hook.secret;
    return this.created(response, req, `${this.namespace}/${this.restBase}/${hook.id}`);
  }

  async updateItem(req: RestRequest): Promise<RestResponse> {
    const hook = await this.webhooks.update(this.id(req), req.args<WebhookWriteArgs>());
    req.set('context', 'edit');
    return this.prepare(hook, req);
  }

  /** Deletes at once: a subscription has no trash (`force` is taken, and not needed). */
  async deleteItem(req: RestRequest): Promise<RestResponse> {
    const hook = await this.webhooks.delete(this.id(req));
    req.set('context', 'edit');
    return this.deleted(req, await this.prepare(hook, req));
  }

  async getDeliveries(req: RestRequest): Promise<RestResponse> {
    const { page = 1, per_page: perPage = 20 } = req.args<{ page?: number; per_page?: number }>();
    const id = this.id(req);
    const [rows, total] = await this.webhooks.deliveries(id, page, perPage);
    const response = new RestResponse(rows.map(deliveryData));
    return this.paginate(response, req, total, `${this.namespace}/${this.restBase}/${id}/deliveries`, {
      page,
      perPage,
    });
  }

  async redeliver(req: RestRequest): Promise<RestResponse> {
    const delivery = await this.webhooks.redeliver(this.id(req), Number(req.args<{ delivery?: number }>().delivery));
    return new RestResponse({ redelivered: true, message_id: delivery.messageId, event: delivery.event }, 202);
  }

  private id(req: RestRequest): number {
    return Number(req.args<{ id?: number }>().id);
  }

  private prepare(hook: WebhookEntity, req: RestRequest): Promise<RestResponse> {
    const path = `${this.namespace}/${this.restBase}`;
    const links = linkMap({
      self: { href: req.ctx.restUrl(`${path}/${hook.id}`) },
      collection: { href: req.ctx.restUrl(path) },
    });
    const data = {
      id: Number(hook.id),
      url: hook.url,
      events: this.webhooks.eventsOf(hook),
      active: Boolean(Number(hook.active)),
      failing: Boolean(Number(hook.failing)),
      failure_reason: hook.failureReason,
      date_created: new Date(Number(hook.createdAt)).toISOString().slice(0, 19),
    };
    return this.prepareResponse(data, req, links, 'webhook', hook);
  }
}

/** A delivery log line on the wire. */
function deliveryData(row: WebhookDeliveryEntity): Record<string, unknown> {
  return {
    id: Number(row.id),
    event: row.event,
    message_id: row.messageId,
    attempt: row.attempt,
    status: row.status,
    response_code: row.responseCode,
    duration_ms: row.durationMs,
    error: row.error,
    date: new Date(Number(row.createdAt)).toISOString().slice(0, 19),
  };
}
