import { spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { dropTestDatabase } from '../utils/test-db';
import { assertBuilt, MAIN, serverDatabase, startServer, type StandaloneServer } from '../utils/standalone-server';

jest.setTimeout(90_000);

/**
 * The outbox survives kill -9: a write acknowledged by a process that never delivers (its worker off, then SIGKILLed
 * right after the answer) is delivered by the next process on the same database.
 */
describe('webhooks across kill -9 (node dist/main)', () => {
  const got: Array<{ headers: Record<string, string | string[] | undefined>; body: string }> = [];
  let receiver: Server;
  let receiverUrl = '';
  let database: { url: string; cleanup: () => void };
  let servers: StandaloneServer[] = [];

  beforeAll(async () => {
    assertBuilt();
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        got.push({ headers: req.headers, body });
        res.end('ok');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    database = await serverDatabase('webhooks_crash');
  });

  afterAll(async () => {
    for (const server of servers) if (server.child.exitCode === null) server.child.kill('SIGKILL');
    receiver.closeAllConnections();
    await new Promise((resolve) => receiver.close(resolve));
    database.cleanup();
    await dropTestDatabase('webhooks_crash');
  });

  const env = (worker: 'on' | 'off') => ({
    DATABASE_URL: database.url,
    CMS_TABLE_PREFIX: 'cms_',
    CMS_ADMIN_USER: 'admin',
    CMS_ADMIN_PASSWORD: 'crash-test-password-1',
    CMS_WEBHOOKS_WORKER: worker,
    CMS_WEBHOOKS_ALLOW_PRIVATE: 'true',
    CMS_WEBHOOKS_POLL_MS: '100',
    LOG_LEVEL: 'error',
  });

  it('delivers, after a restart, the event of a write acknowledged just before a SIGKILL', async () => {
    const first = await startServer(env('off'));
    servers.push(first);
    const cli = spawnSync(process.execPath, [join(MAIN, '..', 'cli.js'), 'app-password', 'create', 'admin'], {
      env: { PATH: process.env.PATH ?? '', ...env('off') },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(cli.status).toBe(0);
    const authorization = `Basic ${Buffer.from(`admin:${cli.stdout.trim()}`).toString('base64')}`;
    const headers = { authorization, 'content-type': 'application/json' };
    const hook = await fetch(`${first.base}/cms-json/cms/v2/webhooks`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ url: receiverUrl, events: ['term.created'] }),
    });
    expect(hook.status).toBe(201);
    const { secret } = (await hook.json()) as { secret: string };
    const tag = await fetch(`${first.base}/cms-json/cms/v2/tags`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: 'Survives the kill' }),
    });
    expect(tag.status).toBe(201);
    first.child.kill('SIGKILL');
    await first.exited();
    const { id } = (await tag.json()) as { id: number };
    expect(got).toHaveLength(0);

    const second = await startServer(env('on'));
    servers.push(second);
    const deadline = Date.now() + 15_000;
    while (!got.length && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(got).toHaveLength(1);
    const event = new Webhook(secret).verify(got[0].body, {
      'webhook-id': String(got[0].headers['webhook-id']),
      'webhook-timestamp': String(got[0].headers['webhook-timestamp']),
      'webhook-signature': String(got[0].headers['webhook-signature']),
    }) as { type: string; data: { id: number; object?: { name: string } } };
    expect(event.type).toBe('term.created');
    expect(event.data.id).toBe(id);
    expect(event.data.object?.name).toBe('Survives the kill');
    second.child.kill('SIGTERM');
    await second.exited();
    servers = [];
  });
});
