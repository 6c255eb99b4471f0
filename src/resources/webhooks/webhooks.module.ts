import { Module } from '@nestjs/common';
import { CmsInternalsModule } from '../../core/internals/cms-internals.module';
import { WebhookDeliveryWorker } from '../../core/webhooks/delivery-worker';
import { WebhookPayloadRenderer } from '../../core/webhooks/payload-renderer';
import { WebhooksHandlers } from './webhooks.handlers';
import { WebhooksResource } from './webhooks.resource';
import { WebhooksService } from './webhooks.service';

/** Webhooks: the subscriptions' routes, and the outbox's delivery worker (every node). */
@Module({
  imports: [CmsInternalsModule],
  providers: [WebhooksService, WebhooksResource, WebhooksHandlers, WebhookPayloadRenderer, WebhookDeliveryWorker],
  exports: [WebhooksService],
})
export class WebhooksModule {}
