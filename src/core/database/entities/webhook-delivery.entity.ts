import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** One delivery attempt of an outbox event, a row of `{prefix}cms_webhook_deliveries` (the admin's delivery log). */
@Entity('cms_webhook_deliveries')
export class WebhookDeliveryEntity {
  @PrimaryGeneratedColumn({ name: 'id', type: 'bigint', unsigned: true })
  id!: number;

  @Column({ name: 'webhook_id', type: 'bigint', unsigned: true })
  webhookId!: number;

  @Column({ name: 'event_id', type: 'bigint', unsigned: true })
  eventId!: number;

  @Column({ name: 'message_id', type: 'varchar', length: 64 })
  messageId!: string;

  @Column({ name: 'event', type: 'varchar', length: 64 })
  event!: string;

  @Column({ name: 'attempt', type: 'int' })
  attempt!: number;

  /** `success`, `retrying` or `failed`. */
  @Column({ name: 'status', type: 'varchar', length: 16 })
  status!: string;

  /** The receiver's HTTP status; 0 when there was no answer. */
  @Column({ name: 'response_code', type: 'int', default: 0 })
  responseCode!: number;

  @Column({ name: 'duration_ms', type: 'int', default: 0 })
  durationMs!: number;

  @Column({ name: 'error', type: 'varchar', length: 1024, default: '' })
  error!: string;

  @Column({ name: 'created_at', type: 'bigint' })
  createdAt!: number;
}
