import { INestApplicationContext } from '@nestjs/common';
import { RestException } from '../core/errors/rest.exception';
import { WEBHOOK_EVENTS } from '../core/webhooks/webhook-events';
import { WebhooksService } from '../resources/webhooks/webhooks.service';
import type { CliOutput } from './admin-commands';
import { CliError, Invocation, table } from './command-line';

/** Runs a `webhook` command. */
export async function runWebhookCommand(
  app: INestApplicationContext,
  inv: Invocation,
  output: CliOutput,
): Promise<void> {
  const webhooks = app.get(WebhooksService, { strict: false });
  try {
    switch (inv.spec.name) {
      case 'webhook create': {
        const events = (inv.options.events ?? '*')
          .split(',')
          .map((e) => e.trim())
          .filter(Boolean);
        const known = new Set<string>(['*', ...WEBHOOK_EVENTS]);
        const unknown = events.filter((e) => !known.has(e));
        if (unknown.length) throw new CliError(`Unknown event(s): ${unknown.join(', ')}.`);
        const secret = inv.options.secret;
        if (secret !== undefined && !/^whsec_[A-Za-z0-9+/=]{20,200}$/.test(secret))
          throw new CliError('The secret must be whsec_ followed by base64.');
        const hook = await webhooks.create({ url: String(inv.values.url), events, secret });
        output.out(`Created webhook ${hook.id}.\nSecret: ${hook.secret}\n`);
        return;
      }
      case 'webhook list': {
        const rows = (await webhooks.list()).map((h) => [
          String(h.id),
          h.url,
          webhooks.eventsOf(h).join(','),
          !Number(h.active) ? 'paused' : Number(h.failing) ? `failing: ${h.failureReason}` : 'active',
        ]);
        output.out(table(['ID', 'URL', 'EVENTS', 'STATE'], rows));
        return;
      }
      case 'webhook delete': {
        const id = Number(inv.values.id);
        if (!Number.isInteger(id) || id <= 0) throw new CliError(`Invalid webhook ID "${inv.values.id}".`);
        await webhooks.delete(id);
        output.out(`Deleted webhook ${id}.\n`);
        return;
      }
      default:
        throw new CliError(`Unknown command "${inv.spec.name}".`);
    }
  } catch (error) {
    if (error instanceof RestException) {
      const details = (error.data.params as Record<string, string> | undefined)?.url;
      throw new CliError(details ?? error.message);
    }
    throw error;
  }
}
