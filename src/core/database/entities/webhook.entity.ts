import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/**
 * A webhook subscription, a row of `{prefix}cms_webhooks`: where events are sent (`url`), which (`events`, a
 * comma-separated list of event names or `*`), signed with `secret` (a Standard Webhooks `whsec_…` secret, never
 * shown after creation). `failing` and `failureReason` tell the administrator that a delivery ran out of attempts.
 */
@Entity('cms_webhooks')
export class WebhookEntity {
  @PrimaryGeneratedColumn({ name: 'id', type: 'bigint', unsigned: true })
  id!: number;

  @Column({ name: 'url', type: 'varchar', length: 2048 })
  url!: string;

  @Column({ name: 'events', type: 'text' })
  events!: string;

  @Column({ name: 'secret', type: 'varchar', length: 191 })
  secret!: string;

  @Column({ name: 'active', type: 'tinyint', default: 1 })
  active!: number;

  @Column({ name: 'failing', type: 'tinyint', default: 0 })
  failing!: number;

  @Column({ name: 'failure_reason', type: 'varchar', length: 1024, default: '' })
  failureReason!: string;

  @Column({ name: 'created_at', type: 'bigint' })
  createdAt!: number;

  @Column({ name: 'updated_at', type: 'bigint' })
  updatedAt!: number;
}
