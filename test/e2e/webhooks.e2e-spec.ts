import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { Webhook } from 'standardwebhooks';
import { testDatabaseKind, testDatabaseName } from '../utils/test-db';
import { createTestApp, expectRestError, TestApp } from '../utils/test-app';

const BASE = '/cms-json/cms/v2';

/** A local receiver: records what it gets; `failures` answers 503 that many times first. */
class Receiver {
  readonly got: Array<{ headers: IncomingHttpHeaders; body: string }> = [];
  failures = 0;
  private server!: Server;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        if (this.failures > 0) {
          this.failures--;
          res.writeHead(503).end('busy');
          return;
        }
        this.got.push({ headers: req.headers, body });
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  /** The parsed events received so far. */
  events(): Array<{ type: string; data: { id: number; type: string; object?: Record<string, unknown> } }> {
    return this.got.map((g) => JSON.parse(g.body) as ReturnType<Receiver['events']>[number]);
  }
}

/** Polls until `check` holds, for `ms` at most. */
async function until(check: () => boolean | Promise<boolean>, ms = 20000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const FAST = {
  allowPrivate: true,
  pollMs: 100,
  backoffMs: 50,
  maxBackoffMs: 200,
  maxAttempts: 3,
  timeoutMs: 2000,
  logsKept: 5,
};

describe('webhooks', () => {
  let t: TestApp;
  const receiver = new Receiver();
  const admin = () => ({ Authorization: t.users.administrator.authorization });

  beforeAll(async () => {
    await receiver.start();
    t = await createTestApp('webhooks', { cms: { webhooks: FAST } });
  });

  afterAll(async () => {
    await t?.close();
    await receiver.stop();
  });

  // Each test starts with no subscription and a receiver that answers (a failed test leaves none behind).
  afterEach(async () => {
    receiver.failures = 0;
    const hooks = (await t.http.get(`${BASE}/webhooks?per_page=100`).set(admin())).body as Array<{ id: number }>;
    for (const hook of hooks) await t.http.delete(`${BASE}/webhooks/${hook.id}`).set(admin());
  });

  async function subscribe(events: string[], url = receiver.url): Promise<{ id: number; secret: string }> {
    const res = await t.http.post(`${BASE}/webhooks`).set(admin()).send({ url, events });
    expect(res.status).toBe(201);
    return res.body as { id: number; secret: string };
  }

  it('lets administrators only manage subscriptions and read logs (401 anonymous, 403 editor)', async () => {
    expectRestError(await t.http.get(`${BASE}/webhooks`), 'rest_forbidden', 401);
    expectRestError(
      await t.http.get(`${BASE}/webhooks`).set('Authorization', t.users.editor.authorization),
      'rest_forbidden',
      403,
    );
    expectRestError(
      await t.http
        .post(`${BASE}/webhooks`)
        .set('Authorization', t.users.editor.authorization)
        .send({ url: receiver.url }),
      'rest_forbidden',
      403,
    );
    const hook = await subscribe(['term.created']);
    expectRestError(await t.http.get(`${BASE}/webhooks/${hook.id}/deliveries`), 'rest_forbidden', 401);
    expectRestError(
      await t.http.get(`${BASE}/webhooks/${hook.id}/deliveries`).set('Authorization', t.users.editor.authorization),
      'rest_forbidden',
      403,
    );
    // The secret is shown once: not in the item, nor in the list.
    expect(hook.secret).toMatch(/^whsec_/);
    const item = await t.http.get(`${BASE}/webhooks/${hook.id}`).set(admin()).query({ context: 'edit' });
    expect(item.status).toBe(200);
    expect(item.body.secret).toBeUndefined();
    expect(JSON.stringify((await t.http.get(`${BASE}/webhooks`).set(admin())).body)).not.toContain(hook.secret);
    // Served in the index and by OPTIONS.
    expect((await t.http.options(`${BASE}/webhooks`)).status).toBe(200);
    expect(Object.keys((await t.http.get('/cms-json/')).body.routes)).toContain('/cms/v2/webhooks');
    // No trash: DELETE deletes (force is not needed); a missing one is a 404.
    const deleted = await t.http.delete(`${BASE}/webhooks/${hook.id}`).set(admin());
    expect(deleted.status).toBe(200);
    expect(deleted.body.id).toBe(hook.id);
    expectRestError(await t.http.get(`${BASE}/webhooks/${hook.id}`).set(admin()), 'rest_webhook_invalid_id', 404);
    expectRestError(await t.http.delete(`${BASE}/webhooks/${hook.id}`).set(admin()), 'rest_webhook_invalid_id', 404);
  });

  it('delivers a published post, signed per Standard Webhooks, with its public view', async () => {
    const hook = await subscribe(['post.created', 'post.published']);
    const start = receiver.got.length;
    const res = await t.http
      .post(`${BASE}/posts`)
      .set(admin())
      .send({ title: 'Hello hooks', content: 'Public words', status: 'publish' });
    expect(res.status).toBe(201);
    await until(() => receiver.got.length >= start + 2);
    const mine = receiver.got.slice(start);
    const verifier = new Webhook(hook.secret);
    const events = mine.map((g) =>
      verifier.verify(g.body, {
        'webhook-id': String(g.headers['webhook-id']),
        'webhook-timestamp': String(g.headers['webhook-timestamp']),
        'webhook-signature': String(g.headers['webhook-signature']),
      }),
    ) as Array<{ type: string; data: { id: number; type: string; object?: { title: { rendered: string } } } }>;
    expect(events.map((e) => e.type)).toEqual(['post.created', 'post.published']);
    expect(events[0].data.id).toBe(res.body.id);
    expect(events[0].data.object?.title.rendered).toBe('Hello hooks');
    // A tampered body fails verification.
    expect(() =>
      verifier.verify(mine[0].body.replace('Hello', 'Hullo'), {
        'webhook-id': String(mine[0].headers['webhook-id']),
        'webhook-timestamp': String(mine[0].headers['webhook-timestamp']),
        'webhook-signature': String(mine[0].headers['webhook-signature']),
      }),
    ).toThrow();
    await t.http.delete(`${BASE}/webhooks/${hook.id}?force=true`).set(admin());
  });

  it('sends a draft as { id, type } only: its text never leaves the server', async () => {
    const hook = await subscribe(['post.created']);
    const start = receiver.got.length;
    const res = await t.http
      .post(`${BASE}/posts`)
      .set(admin())
      .send({ title: 'Secret draft title', content: 'DRAFT-TEXT-42', status: 'draft' });
    expect(res.status).toBe(201);
    await until(() => receiver.got.length >= start + 1);
    const got = receiver.got[start];
    expect(got.body).not.toContain('DRAFT-TEXT-42');
    expect(got.body).not.toContain('Secret draft title');
    const event = JSON.parse(got.body) as { type: string; data: Record<string, unknown> };
    expect(event.type).toBe('post.created');
    expect(event.data).toEqual({ id: res.body.id, type: 'post', subtype: 'post' });
    await t.http.delete(`${BASE}/webhooks/${hook.id}?force=true`).set(admin());
  });

  it('retries with backoff against a failing receiver, then delivers; the log shows each attempt', async () => {
    const hook = await subscribe(['term.created']);
    receiver.failures = 2;
    const start = receiver.got.length;
    const res = await t.http.post(`${BASE}/tags`).set(admin()).send({ name: 'Retried tag' });
    expect(res.status).toBe(201);
    await until(() => receiver.got.length >= start + 1);
    expect(receiver.events()[start]).toMatchObject({ type: 'term.created', data: { id: res.body.id, type: 'term' } });
    let log: Array<{ attempt: number; status: string; response_code: number }> = [];
    await until(async () => {
      log = (await t.http.get(`${BASE}/webhooks/${hook.id}/deliveries`).set(admin())).body;
      return log.length === 3;
    });
    expect(log.map((l) => [l.attempt, l.status, l.response_code])).toEqual([
      [3, 'success', 200],
      [2, 'retrying', 503],
      [1, 'retrying', 503],
    ]);
    // Redeliver sends the same message again.
    const firstId = receiver.got[start].headers['webhook-id'];
    const again = await t.http
      .post(`${BASE}/webhooks/${hook.id}/deliveries/${(log[0] as unknown as { id: number }).id}/redeliver`)
      .set(admin());
    expect(again.status).toBe(202);
    await until(() => receiver.got.length >= start + 2);
    expect(receiver.got[start + 1].headers['webhook-id']).toBe(firstId);
    await t.http.delete(`${BASE}/webhooks/${hook.id}?force=true`).set(admin());
  });

  it('marks the subscription failing, with the reason, when attempts run out', async () => {
    const hook = await subscribe(['term.created']);
    receiver.failures = 100;
    await t.http.post(`${BASE}/tags`).set(admin()).send({ name: 'Never delivered' });
    await until(async () => (await t.http.get(`${BASE}/webhooks/${hook.id}`).set(admin())).body.failing === true);
    const item = (await t.http.get(`${BASE}/webhooks/${hook.id}`).set(admin())).body;
    expect(item.failure_reason).toContain('503');
    receiver.failures = 0;
    await t.http.delete(`${BASE}/webhooks/${hook.id}?force=true`).set(admin());
  });

  it('bounds each delivery: a receiver that never answers times out, and the log keeps the newest lines only', async () => {
    // A receiver that takes the request and never answers.
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/hook`;
    try {
      const hook = await subscribe(['term.created'], url);
      await t.http.post(`${BASE}/tags`).set(admin()).send({ name: 'Never answered' }).expect(201);
      let log: Array<{ status: string; error: string; duration_ms: number }> = [];
      await until(async () => {
        log = (await t.http.get(`${BASE}/webhooks/${hook.id}/deliveries`).set(admin())).body;
        return log.length >= 1;
      });
      expect(log[log.length - 1].status).not.toBe('success');
      expect(log[log.length - 1].duration_ms).toBeGreaterThanOrEqual(1900);
      expect(log[log.length - 1].duration_ms).toBeLessThan(10000);
      await t.http.delete(`${BASE}/webhooks/${hook.id}?force=true`).set(admin());
    } finally {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
    const kept = await subscribe(['term.created']);
    const start = receiver.got.length;
    for (let i = 0; i < 7; i++)
      await t.http
        .post(`${BASE}/tags`)
        .set(admin())
        .send({ name: `Logged ${i}` });
    await until(() => receiver.got.length >= start + 7);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const lines = (await t.http.get(`${BASE}/webhooks/${kept.id}/deliveries?per_page=100`).set(admin())).body;
    expect(lines).toHaveLength(5);
    await t.http.delete(`${BASE}/webhooks/${kept.id}?force=true`).set(admin());
  });

  it('records nothing for a write rolled back after its event was recorded', async () => {
    const hook = await subscribe(['user.deleted', 'term.created']);
    const start = receiver.got.length;
    // The last administrator may not delete themself: refused inside the transaction, after the event is recorded.
    const me = t.users.administrator.id;
    const refused = await t.http.delete(`${BASE}/users/${me}?force=true&reassign=${t.users.editor.id}`).set(admin());
    expect(refused.status).toBeGreaterThanOrEqual(400);
    // A later write is delivered: the worker ran, and only that one arrived.
    await t.http.post(`${BASE}/tags`).set(admin()).send({ name: 'After the rollback' });
    await until(() => receiver.got.length >= start + 1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(
      receiver
        .events()
        .slice(start)
        .map((e) => e.type),
    ).toEqual(['term.created']);
    await t.http.delete(`${BASE}/webhooks/${hook.id}?force=true`).set(admin());
  });

  it('records an event for every kind of write: posts, terms, comments, media, users and settings', async () => {
    const hook = await subscribe(['*']);
    const start = receiver.got.length;
    const api = (method: 'post' | 'delete', path: string, body?: object) =>
      t.http[method](`${BASE}${path}`)
        .set(admin())
        .send(body ?? {});
    const post = (await api('post', '/posts', { title: 'Every event', status: 'draft' }).expect(201)).body.id;
    await api('post', `/posts/${post}`, { status: 'publish' }).expect(200);
    const comment = (await api('post', '/comments', { post, content: 'First!' }).expect(201)).body.id;
    await api('post', `/comments/${comment}`, { status: 'hold' }).expect(200);
    await api('delete', `/comments/${comment}?force=true`).expect(200);
    await api('post', `/posts/${post}`, { status: 'draft' }).expect(200);
    await api('delete', `/posts/${post}`).expect(200);
    await api('delete', `/posts/${post}?force=true`).expect(200);
    const tag = (await api('post', '/tags', { name: 'Every tag' }).expect(201)).body.id;
    await api('post', `/tags/${tag}`, { description: 'Described' }).expect(200);
    await api('delete', `/tags/${tag}?force=true`).expect(200);
    const image = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#336699' } })
      .png()
      .toBuffer();
    const media = (await t.http.post(`${BASE}/media`).set(admin()).attach('file', image, 'every.png').expect(201)).body
      .id;
    await api('post', `/media/${media}`, { alt_text: 'Blue' }).expect(200);
    await api('delete', `/media/${media}?force=true`).expect(200);
    await api('post', '/users/me', { first_name: 'Every' }).expect(200);
    await api('post', '/settings', { description: 'Every event' }).expect(200);
    const expected = {
      post: [
        'post.created',
        'post.updated',
        'post.published',
        'post.updated',
        'post.unpublished',
        'post.trashed',
        'post.deleted',
      ],
      term: ['term.created', 'term.updated', 'term.deleted'],
      // A status change is its own event (comment.updated is for edits of its fields).
      comment: ['comment.created', 'comment.unapproved', 'comment.deleted'],
      media: ['media.created', 'media.updated', 'media.deleted'],
      user: ['user.updated'],
      settings: ['settings.updated'],
    };
    const total = Object.values(expected).flat().length;
    await until(() => receiver.got.length >= start + total);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const got = receiver.events().slice(start);
    // In order per object; objects may interleave.
    const of = (id: number, prefix: string) =>
      got.filter((e) => e.data.id === id && e.type.startsWith(prefix)).map((e) => e.type);
    expect(of(post, 'post.')).toEqual(expected.post);
    expect(of(tag, 'term.')).toEqual(expected.term);
    expect(of(comment, 'comment.')).toEqual(expected.comment);
    expect(of(media, 'media.')).toEqual(expected.media);
    expect(of(t.users.administrator.id, 'user.')).toEqual(expected.user);
    expect(got.filter((e) => e.type === 'settings.updated')).toHaveLength(1);
    expect(got).toHaveLength(total);
    await t.http.delete(`${BASE}/webhooks/${hook.id}?force=true`).set(admin());
  });

  it('records user.created in the account’s own transaction: a refused account sends nothing', async () => {
    const hook = await subscribe(['user.created', 'term.created']);
    const start = receiver.got.length;
    const user = { username: 'hooked_user', email: 'hooked@example.org', password: 'x-Hooked-123' };
    const created = await t.http.post(`${BASE}/users`).set(admin()).send(user).expect(201);
    expect((await t.http.post(`${BASE}/users`).set(admin()).send(user)).status).toBe(400);
    await t.http.post(`${BASE}/tags`).set(admin()).send({ name: 'After the users' });
    await until(() => receiver.got.length >= start + 2);
    await new Promise((resolve) => setTimeout(resolve, 300));
    // Two objects: delivered in either order (the order holds per object).
    const events = receiver.events().slice(start);
    expect(events.map((e) => e.type).sort()).toEqual(['term.created', 'user.created']);
    const userEvent = events.find((e) => e.type === 'user.created');
    expect(userEvent).toMatchObject({ data: { id: created.body.id } });
    // No e-mail leaves the server.
    expect(JSON.stringify(userEvent)).not.toContain('hooked@example.org');
    await t.http.delete(`${BASE}/webhooks/${hook.id}?force=true`).set(admin());
  });

  it('two app instances on one database deliver each event once', async () => {
    // SQLite in memory cannot be shared by two apps: a file database is.
    const dir = testDatabaseKind() === 'sqlite' ? mkdtempSync(join(tmpdir(), 'hooks-')) : '';
    const url = dir ? `sqlite:${join(dir, 'db.sqlite')}` : undefined;
    const a = url ? await createTestApp('webhooks_fleet', { cms: { webhooks: FAST }, databaseUrl: url }) : t;
    const mysqlUrl = new URL(process.env.MYSQL_URL ?? 'mysql://root@127.0.0.1:3306');
    mysqlUrl.pathname = `/${testDatabaseName('webhooks')}`;
    const b = await createTestApp('webhooks_fleet_b', {
      cms: { webhooks: FAST },
      databaseUrl: url ?? mysqlUrl.toString(),
      users: a.users,
    });
    try {
      const auth = { Authorization: a.users.administrator.authorization };
      const created = await a.http
        .post(`${BASE}/webhooks`)
        .set(auth)
        .send({ url: receiver.url, events: ['term.created'] });
      const start = receiver.got.length;
      for (let i = 0; i < 12; i++)
        expect(
          (
            await (i % 2 ? a : b).http
              .post(`${BASE}/tags`)
              .set(auth)
              .send({ name: `Fleet ${i}` })
          ).status,
        ).toBe(201);
      await until(() => receiver.got.length >= start + 12);
      await new Promise((resolve) => setTimeout(resolve, 400));
      const ids = receiver.got.slice(start).map((g) => g.headers['webhook-id']);
      expect(ids.length).toBe(12);
      expect(new Set(ids).size).toBe(12);
      await a.http.delete(`${BASE}/webhooks/${created.body.id}?force=true`).set(auth);
    } finally {
      await b.app.close();
      if (a !== t) await a.app.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('webhooks: private targets refused', () => {
  let t: TestApp;
  const receiver = new Receiver();

  beforeAll(async () => {
    await receiver.start();
    t = await createTestApp('webhooks_ssrf', { cms: { webhooks: { ...FAST, allowPrivate: false } } });
  });

  afterAll(async () => {
    await t?.close();
    await receiver.stop();
  });

  it('refuses a loopback target at subscription time with a clear 400', async () => {
    const res = await t.http
      .post(`${BASE}/webhooks`)
      .set('Authorization', t.users.administrator.authorization)
      .send({ url: receiver.url, events: ['*'] });
    expectRestError(res, 'rest_invalid_param', 400);
    expect(res.body.data.params.url).toMatch(/private, loopback or link-local/);
  });

  it('refuses it at delivery time too (a name resolving to loopback), and says so in the log', async () => {
    const auth = { Authorization: t.users.administrator.authorization };
    // The machine's name is not caught by the early check of names; it resolves to loopback at connection time.
    const port = new URL(receiver.url).port;
    const created = await t.http
      .post(`${BASE}/webhooks`)
      .set(auth)
      .send({ url: `http://${hostname()}:${port}/hook`, events: ['term.created'] });
    expect(created.status).toBe(201);
    await t.http.post(`${BASE}/tags`).set(auth).send({ name: 'Refused at delivery' });
    let log: Array<{ status: string; error: string }> = [];
    await until(async () => {
      log = (await t.http.get(`${BASE}/webhooks/${created.body.id}/deliveries`).set(auth)).body;
      return log.length > 0;
    });
    expect(log[0]).toMatchObject({ status: 'failed' });
    expect(log[0].error).toMatch(/private, loopback or link-local/);
    expect(receiver.got).toHaveLength(0);
  });
});
