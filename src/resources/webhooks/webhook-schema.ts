import type { ItemSchema } from '../../core/json-schema/json-schema';
import { WEBHOOK_EVENTS } from '../../core/webhooks/webhook-events';

const EDIT: Array<'view' | 'embed' | 'edit'> = ['view', 'edit', 'embed'];

/** `POST webhooks` / `PUT webhooks/<id>`, validated. */
export interface WebhookWriteArgs {
  id?: number;
  url?: string;
  events?: string[];
  secret?: string;
  active?: boolean;
}

/** The item schema of `webhooks` (admin only; the secret is write-only, answered once by the create). */
export const WEBHOOK_SCHEMA: ItemSchema = {
  $schema: 'http://json-schema.org/draft-04/schema#',
  title: 'webhook',
  type: 'object',
  properties: {
    id: { description: 'Unique identifier for the subscription.', type: 'integer', context: EDIT, readonly: true },
    url: {
      description: 'The URL events are posted to (http or https).',
      type: 'string',
      format: 'uri',
      context: EDIT,
      required: true,
    },
    events: {
      description: 'The events sent: names such as post.published, or * for all.',
      type: 'array',
      items: { type: 'string', enum: ['*', ...WEBHOOK_EVENTS] },
      context: EDIT,
      default: ['*'],
    },
    secret: {
      description:
        'The Standard Webhooks signing secret (whsec_ followed by base64): generated when not given, shown only in the answer of the creation.',
      type: 'string',
      pattern: '^whsec_[A-Za-z0-9+/=]{20,200}$',
      context: [],
    },
    active: { description: 'Whether events are sent.', type: 'boolean', context: EDIT, default: true },
    failing: {
      description: 'Whether a delivery ran out of attempts since the last success.',
      type: 'boolean',
      context: EDIT,
      readonly: true,
    },
    failure_reason: {
      description: 'Why the last delivery that ran out of attempts failed.',
      type: 'string',
      context: EDIT,
      readonly: true,
    },
    date_created: {
      description: 'When the subscription was created (UTC).',
      type: 'string',
      format: 'date-time',
      context: EDIT,
      readonly: true,
    },
  },
};
