import { MigrationInterface, QueryRunner } from 'typeorm';
import { isSqlite } from '../migration-helpers';

const MYSQL_TABLE = 'ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_520_ci';

/**
 * The webhooks' tables: `{prefix}cms_webhooks` (subscriptions), `{prefix}cms_webhook_events` (the outbox, written in
 * the transaction of each write) and `{prefix}cms_webhook_deliveries` (the delivery log). Keys: the worker's claim
 * (`state, next_attempt_at`), the per-object order check (`webhook_id, object_key, state`), the log of a
 * subscription (`webhook_id, id`) and the outbox's pruning (`state, created_at`). `down()` drops them.
 */
export class Webhooks1765411200000 implements MigrationInterface {
  name = 'Webhooks1765411200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const prefix = queryRunner.connection.options.entityPrefix ?? '';
    const hooks = `${prefix}cms_webhooks`;
    const events = `${prefix}cms_webhook_events`;
    const deliveries = `${prefix}cms_webhook_deliveries`;
    if (isSqlite(queryRunner)) {
      await queryRunner.query(
        `CREATE TABLE IF NOT EXISTS "${hooks}" ("id" integer PRIMARY KEY AUTOINCREMENT NOT NULL, "url" varchar(2048) NOT NULL, "events" text NOT NULL, "secret" varchar(191) NOT NULL, "active" tinyint NOT NULL DEFAULT 1, "failing" tinyint NOT NULL DEFAULT 0, "failure_reason" varchar(1024) NOT NULL DEFAULT '', "created_at" bigint NOT NULL, "updated_at" bigint NOT NULL)`,
      );
      await queryRunner.query(
        `CREATE TABLE IF NOT EXISTS "${events}" ("id" integer PRIMARY KEY AUTOINCREMENT NOT NULL, "webhook_id" bigint NOT NULL, "message_id" varchar(64) NOT NULL, "event" varchar(64) NOT NULL, "object_type" varchar(32) NOT NULL, "object_subtype" varchar(64) NOT NULL DEFAULT '', "object_id" bigint NOT NULL DEFAULT 0, "object_key" varchar(128) NOT NULL, "state" varchar(16) NOT NULL DEFAULT 'pending', "attempts" integer NOT NULL DEFAULT 0, "next_attempt_at" bigint NOT NULL, "claimed_until" bigint NOT NULL DEFAULT 0, "created_at" bigint NOT NULL)`,
      );
      await queryRunner.query(
        `CREATE INDEX IF NOT EXISTS "${events}__state_next" ON "${events}" ("state", "next_attempt_at")`,
      );
      await queryRunner.query(
        `CREATE INDEX IF NOT EXISTS "${events}__object_order" ON "${events}" ("webhook_id", "object_key", "state", "id")`,
      );
      await queryRunner.query(
        `CREATE INDEX IF NOT EXISTS "${events}__state_created" ON "${events}" ("state", "created_at")`,
      );
      await queryRunner.query(
        `CREATE TABLE IF NOT EXISTS "${deliveries}" ("id" integer PRIMARY KEY AUTOINCREMENT NOT NULL, "webhook_id" bigint NOT NULL, "event_id" bigint NOT NULL, "message_id" varchar(64) NOT NULL, "event" varchar(64) NOT NULL, "attempt" integer NOT NULL, "status" varchar(16) NOT NULL, "response_code" integer NOT NULL DEFAULT 0, "duration_ms" integer NOT NULL DEFAULT 0, "error" varchar(1024) NOT NULL DEFAULT '', "created_at" bigint NOT NULL)`,
      );
      await queryRunner.query(
        `CREATE INDEX IF NOT EXISTS "${deliveries}__webhook" ON "${deliveries}" ("webhook_id", "id")`,
      );
      return;
    }
    await queryRunner.query(
      `CREATE TABLE IF NOT EXISTS \`${hooks}\` (\`id\` bigint(20) unsigned NOT NULL AUTO_INCREMENT, \`url\` varchar(2048) NOT NULL, \`events\` text NOT NULL, \`secret\` varchar(191) NOT NULL, \`active\` tinyint(1) NOT NULL DEFAULT 1, \`failing\` tinyint(1) NOT NULL DEFAULT 0, \`failure_reason\` varchar(1024) NOT NULL DEFAULT '', \`created_at\` bigint(20) NOT NULL, \`updated_at\` bigint(20) NOT NULL, PRIMARY KEY (\`id\`)) ${MYSQL_TABLE}`,
    );
    await queryRunner.query(
      `CREATE TABLE IF NOT EXISTS \`${events}\` (\`id\` bigint(20) unsigned NOT NULL AUTO_INCREMENT, \`webhook_id\` bigint(20) unsigned NOT NULL, \`message_id\` varchar(64) NOT NULL, \`event\` varchar(64) NOT NULL, \`object_type\` varchar(32) NOT NULL, \`object_subtype\` varchar(64) NOT NULL DEFAULT '', \`object_id\` bigint(20) unsigned NOT NULL DEFAULT 0, \`object_key\` varchar(128) NOT NULL, \`state\` varchar(16) NOT NULL DEFAULT 'pending', \`attempts\` int(11) NOT NULL DEFAULT 0, \`next_attempt_at\` bigint(20) NOT NULL, \`claimed_until\` bigint(20) NOT NULL DEFAULT 0, \`created_at\` bigint(20) NOT NULL, PRIMARY KEY (\`id\`), KEY \`state_next\` (\`state\`, \`next_attempt_at\`), KEY \`object_order\` (\`webhook_id\`, \`object_key\`, \`state\`, \`id\`), KEY \`state_created\` (\`state\`, \`created_at\`)) ${MYSQL_TABLE}`,
    );
    await queryRunner.query(
      `CREATE TABLE IF NOT EXISTS \`${deliveries}\` (\`id\` bigint(20) unsigned NOT NULL AUTO_INCREMENT, \`webhook_id\` bigint(20) unsigned NOT NULL, \`event_id\` bigint(20) unsigned NOT NULL, \`message_id\` varchar(64) NOT NULL, \`event\` varchar(64) NOT NULL, \`attempt\` int(11) NOT NULL, \`status\` varchar(16) NOT NULL, \`response_code\` int(11) NOT NULL DEFAULT 0, \`duration_ms\` int(11) NOT NULL DEFAULT 0, \`error\` varchar(1024) NOT NULL DEFAULT '', \`created_at\` bigint(20) NOT NULL, PRIMARY KEY (\`id\`), KEY \`webhook\` (\`webhook_id\`, \`id\`)) ${MYSQL_TABLE}`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const prefix = queryRunner.connection.options.entityPrefix ?? '';
    for (const table of ['cms_webhook_deliveries', 'cms_webhook_events', 'cms_webhooks']) {
      const name = `${prefix}${table}`;
      await queryRunner.query(
        isSqlite(queryRunner) ? `DROP TABLE IF EXISTS "${name}"` : `DROP TABLE IF EXISTS \`${name}\``,
      );
    }
  }
}
