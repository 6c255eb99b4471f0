import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/**
 * A row of the webhooks' outbox, `{prefix}cms_webhook_events`: one event for one subscription, written in the
 * transaction of the write it reports. Only references are kept (event, object type, subtype, id); the payload is
 * rendered when it is delivered. `state` is `pending` until delivered (`delivered`) or out of attempts (`failed`);
 * a worker claims a pending row until `claimedUntil` (milliseconds since the epoch).
 */
@Entity('cms_webhook_events')
export class WebhookEventEntity {
  @PrimaryGeneratedColumn({ name: 'id', type: 'bigint', unsigned: true })
  id!: number;

  @Column({ name: 'webhook_id', type: 'bigint', unsigned: true })
  webhookId!: number;

  /** The Standard Webhooks message id (`msg_…`): the same for every attempt and for a redelivery. */
  @Column({ name: 'message_id', type: 'varchar', length: 64 })
  messageId!: string;

  @Column({ name: 'event', type: 'varchar', length: 64 })
  event!: string;

  @Column({ name: 'object_type', type: 'varchar', length: 32 })
  objectType!: string;

  /** The post type or taxonomy; empty for other objects. */
  @Column({ name: 'object_subtype', type: 'varchar', length: 64, default: '' })
  objectSubtype!: string;

  @Column({ name: 'object_id', type: 'bigint', unsigned: true, default: 0 })
  objectId!: number;

  /** `<type>:<id>`: events of one object are delivered in order. */
  @Column({ name: 'object_key', type: 'varchar', length: 128 })
  objectKey!: string;

  @Column({ name: 'state', type: 'varchar', length: 16, default: 'pending' })
  state!: string;

  @Column({ name: 'attempts', type: 'int', default: 0 })
  attempts!: number;

  @Column({ name: 'next_attempt_at', type: 'bigint' })
  nextAttemptAt!: number;

  @Column({ name: 'claimed_until', type: 'bigint', default: 0 })
  claimedUntil!: number;

  @Column({ name: 'created_at', type: 'bigint' })
  createdAt!: number;
}
