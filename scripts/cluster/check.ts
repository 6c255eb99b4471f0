/**
 * `npm run cluster -- check`: the fleet's checks, through the load balancer and each node, with a table of figures.
 *
 * 1. The API through the load balancer: a post created, read and an image uploaded, each through another node.
 * 2. 1,000 read-after-write rounds: a write through one node, read at once through another: stale answers counted.
 * 3. One rate limit for the whole fleet: failed logins spread over the nodes.
 * 4. Media: uploaded through node A, read through B, deleted through C, gone from the bucket.
 * 5. kill -9 of an API node, then of the writer database node, under a steady read/write load: failed requests,
 *    acknowledged writes missing afterwards, and the node back (rejoined, synced, ready).
 * 6. Several writers at once (multi-writer Galera): posts of one title created at the same time through API nodes
 *    on each database node: every slug distinct, and a write that lost every certification round refused with 503.
 * 6b. Writes made outside the API (SQL on each database node, as a WordPress sharing the database writes): the stamp
 *    triggers (installed by the nodes' migrations, CMS_STAMP_TRIGGERS=install) move the versions, and every API node
 *    answers them at once.
 * 7. A Galera node cut off from the others (no quorum): the API on it answers 503 and reports not ready, naming
 *    the node's state, and serves again once the node has rejoined.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import sharp from 'sharp';
import {
  API_NODES,
  DB_NODES,
  DIR,
  ENV_FILE,
  log,
  readState,
  sql,
  startApiNode,
  startDbNode,
  stop,
  waitReady,
  waitSynced,
  writeState,
  wsrep,
} from './fleet';
import { readFileSync } from 'node:fs';

const API = '/cms-json/cms/v2';
/** Clients of the steady load (each has one request in flight at a time). */
const CLIENTS = 8;

interface Row {
  check: string;
  ok: boolean;
  figures: string;
}

function environment(): Record<string, string> {
  return Object.fromEntries(
    readFileSync(ENV_FILE, 'utf8')
      .trim()
      .split('\n')
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
}

async function json(res: Response): Promise<any> {
  const text = await res.text();
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** An application password for the administrator, made through the login route (cookie and nonce). */
async function basicAuth(base: string, user: string, password: string): Promise<string> {
  const login = await fetch(`${base}/cms-json/cms-auth/v1/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ username: user, password }),
  });
  if (login.status !== 200) throw new Error(`login: ${login.status} ${await login.text()}`);
  const cookie = String(login.headers.get('set-cookie')).split(';')[0];
  const nonce = (await json(login)).nonce as string;
  const made = await fetch(`${base}${API}/users/me/application-passwords`, {
    method: 'POST',
    headers: { Cookie: cookie, 'X-CMS-Nonce': nonce, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: `fleet check ${Date.now()}` }),
  });
  if (made.status !== 201) throw new Error(`application password: ${made.status} ${await made.text()}`);
  return `Basic ${Buffer.from(`${user}:${(await json(made)).password}`).toString('base64')}`;
}

export async function runChecks(): Promise<boolean> {
  const started = Date.now();
  const env = environment();
  const nodes = env.NODE_URLS.split(',');
  const lb = env.LB_URL;
  const auth = await basicAuth(lb, env.ADMIN_USER, env.ADMIN_PASSWORD);
  const rows: Row[] = [];
  const headers = { Authorization: auth, 'Content-Type': 'application/json' };
  const post = (base: string, path: string, body: unknown) =>
    fetch(`${base}${API}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
  const get = (base: string, path: string) => fetch(`${base}${API}${path}`, { headers: { Authorization: auth } });
  const upload = async (base: string, name: string) =>
    fetch(`${base}${API}/media`, {
      method: 'POST',
      headers: {
        Authorization: auth,
        'Content-Type': 'image/png',
        'Content-Disposition': `attachment; filename="${name}"`,
      },
      body: await sharp({ create: { width: 320, height: 240, channels: 3, background: { r: 40, g: 90, b: 200 } } })
        .png()
        .toBuffer(),
    });
  const s3 = new S3Client({
    endpoint: env.CMS_S3_ENDPOINT,
    region: env.CMS_S3_REGION,
    forcePathStyle: true,
    credentials: { accessKeyId: env.AWS_ACCESS_KEY_ID, secretAccessKey: env.AWS_SECRET_ACCESS_KEY },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  const bucketKeys = async () =>
    ((await s3.send(new ListObjectsV2Command({ Bucket: env.CMS_S3_BUCKET }))).Contents ?? []).map((o) => String(o.Key));
  const step = async (check: string, run: () => Promise<{ ok: boolean; figures: string }>) => {
    const t0 = Date.now();
    log(`check: ${check}`);
    try {
      const result = await run();
      rows.push({ check, ok: result.ok, figures: `${result.figures} (${((Date.now() - t0) / 1000).toFixed(1)} s)` });
    } catch (error) {
      rows.push({ check, ok: false, figures: `error: ${(error as Error).message}` });
    }
    log(`  ${rows[rows.length - 1].ok ? 'ok' : 'FAILED'}: ${rows[rows.length - 1].figures}`);
  };

  await step('API through the load balancer: create, read, upload on different nodes', async () => {
    const created = await post(nodes[0], '/posts', {
      title: 'Fleet post',
      status: 'publish',
      content: 'Written through node 1',
    });
    const body = await json(created);
    const read = await get(nodes[1], `/posts/${body.id}`);
    const viaLb = await fetch(`${lb}${API}/posts/${body.id}`);
    const media = await upload(nodes[2], 'fleet.png');
    const item = await json(media);
    const file = await fetch(item.source_url);
    const ok =
      created.status === 201 &&
      read.status === 200 &&
      (await json(read)).title.rendered === 'Fleet post' &&
      viaLb.status === 200 &&
      media.status === 201 &&
      file.status === 200;
    return {
      ok,
      figures: `create ${created.status} (node 1), read ${read.status} (node 2), LB ${viaLb.status}, upload ${media.status} (node 3), file ${file.status}`,
    };
  });

  await step('1,000 read-after-write rounds across nodes', async () => {
    const created = await json(await post(nodes[0], '/posts', { title: 'round -1', status: 'publish' }));
    let stale = 0;
    let failed = 0;
    const times: number[] = [];
    for (let i = 0; i < 1000; i++) {
      const writer = nodes[i % 3];
      const reader = nodes[(i + 1) % 3];
      const t0 = performance.now();
      const wrote = await post(writer, `/posts/${created.id}`, { title: `round ${i}` });
      await wrote.arrayBuffer();
      const read = await get(reader, `/posts/${created.id}?context=edit&_fields=title`);
      times.push(performance.now() - t0);
      if (wrote.status !== 200 || read.status !== 200) {
        failed++;
        continue;
      }
      if ((await json(read)).title.raw !== `round ${i}`) stale++;
    }
    times.sort((a, b) => a - b);
    return {
      ok: stale === 0 && failed === 0,
      figures: `${stale} stale, ${failed} failed of 1,000; write+read median ${times[500].toFixed(1)} ms, p99 ${times[990].toFixed(1)} ms`,
    };
  });

  await step('one rate limit for the whole fleet (failed logins over 3 nodes)', async () => {
    const name = `nobody-${Date.now()}`;
    const statuses: number[] = [];
    for (let i = 0; i < 15; i++) {
      const res = await fetch(`${nodes[i % 3]}/cms-json/cms-auth/v1/login`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ username: name, password: 'wrong' }),
      });
      statuses.push(res.status);
      await res.arrayBuffer();
    }
    const first429 = statuses.indexOf(429);
    // The default budget: 10 failures per name, counted by the fleet, so the 11th attempt, whichever node, is refused.
    return {
      ok: first429 === 10 && statuses.slice(10).every((s) => s === 429),
      figures: `first 429 at attempt ${first429 + 1} (budget 10, spread over 3 nodes): ${statuses.join(' ')}`,
    };
  });

  await step('media: uploaded through A, read through B, deleted through C, gone from the bucket', async () => {
    const made = await upload(nodes[0], 'round-trip.png');
    const item = await json(made);
    const month = String(item.media_details.file).slice(0, 8);
    const base = String(item.media_details.file)
      .slice(8)
      .replace(/\.png$/, '');
    const mine = async () => (await bucketKeys()).filter((key) => key.startsWith(`${month}${base}`));
    const stored = (await mine()).length;
    const read = await get(nodes[1], `/media/${item.id}`);
    const fetched = await fetch((await json(read)).source_url);
    await fetched.arrayBuffer();
    const deleted = await fetch(`${nodes[2]}${API}/media/${item.id}?force=true`, {
      method: 'DELETE',
      headers: { Authorization: auth },
    });
    const left = (await mine()).length;
    const gone = await get(nodes[0], `/media/${item.id}`);
    return {
      ok:
        made.status === 201 &&
        stored >= 2 &&
        read.status === 200 &&
        fetched.status === 200 &&
        deleted.status === 200 &&
        left === 0 &&
        gone.status === 404,
      figures: `upload ${made.status} (${stored} objects), read ${read.status} + file ${fetched.status}, delete ${deleted.status}, objects left ${left}, read after ${gone.status}`,
    };
  });

  const state = readState()!;
  for (const victim of ['api', 'db'] as const) {
    await step(
      `kill -9 of ${victim === 'api' ? 'an API node (node 2)' : 'the writer database node (db1)'} under a steady read/write load`,
      async () => {
        const load = steadyLoad(lb, auth, CLIENTS);
        await sleep(4000);
        const pid = victim === 'api' ? state.pids.api2 : state.pids.db1;
        const inFlight = load.inFlight();
        process.kill(pid, 'SIGKILL');
        const killedAt = Date.now();
        await sleep(8000);
        const result = await load.stop();
        // Back: restarted, rejoined and ready.
        const t0 = Date.now();
        if (victim === 'api') {
          state.pids.api2 = startApiNode(API_NODES[1], state.env);
          writeState(state);
          await waitReady(API_NODES[1].url);
        } else {
          state.pids.db1 = startDbNode(DB_NODES[0], false);
          writeState(state);
          await waitSynced(DB_NODES[0], 3);
        }
        const back = (Date.now() - t0) / 1000;
        const cluster = victim === 'db' ? wsrep(DB_NODES[0]) : null;
        // Every acknowledged write is there.
        let missing = 0;
        for (const id of result.acknowledged) {
          const res = await get(lb, `/posts/${id}?_fields=id`);
          await res.arrayBuffer();
          if (res.status !== 200) missing++;
        }
        const failedAfterKill = result.failures.filter((f) => f.at >= killedAt).length;
        // Only the requests in flight when the process died may fail: at most one per client.
        return {
          ok: missing === 0 && result.failures.length <= CLIENTS,
          figures:
            `${result.requests} requests, ${result.failures.length} failed (${failedAfterKill} after the kill; ${inFlight} in flight at the kill; ${describeFailures(result.failures)}), ` +
            `${result.acknowledged.length} writes acknowledged, ${missing} missing; back in ${back.toFixed(1)} s` +
            (cluster ? ` (${cluster.wsrep_local_state_comment}, cluster size ${cluster.wsrep_cluster_size})` : ''),
        };
      },
    );
  }

  await step(
    'writes made outside the API on each Galera node (stamp triggers), read at once through each API node',
    async () => {
      let stale = 0;
      let checked = 0;
      const rounds = 30;
      const quote = (text: string) => `'${text.replace(/'/g, "''")}'`;
      for (let i = 0; i < rounds; i++) {
        const dbNode = DB_NODES[i % 3];
        const title = `Outside ${Date.now()} ${i}`;
        // Every node's cache holds the front page first.
        for (const node of nodes) await (await fetch(`${node}${API}/posts?per_page=1`)).arrayBuffer();
        const date = new Date().toISOString().slice(0, 19).replace('T', ' ');
        const id = sql(
          dbNode,
          `INSERT INTO cms.cms_posts (post_author, post_date, post_date_gmt, post_content, post_title, post_excerpt, post_status, post_name, to_ping, pinged, post_modified, post_modified_gmt, post_content_filtered, post_type)
         VALUES (1, '${date}', '${date}', 'Written by SQL', ${quote(title)}, '', 'publish', 'outside-${i}-${Date.now()}', '', '', '${date}', '${date}', '', 'post'); SELECT LAST_INSERT_ID();`,
        ).trim();
        for (const node of nodes) {
          const first = (await json(await fetch(`${node}${API}/posts?per_page=1`)))[0];
          checked++;
          if (String(first?.id) !== id || first?.title?.rendered !== title) stale++;
        }
        sql(
          DB_NODES[(i + 1) % 3],
          `UPDATE cms.cms_posts SET post_content = 'Edited by SQL ${i}' WHERE ID = ${Number(id)}`,
        );
        for (const node of nodes) {
          const body = await json(await fetch(`${node}${API}/posts/${id}`));
          checked++;
          if (!String(body?.content?.rendered).includes(`Edited by SQL ${i}`)) stale++;
        }
      }
      const triggers = sql(
        DB_NODES[2],
        "SELECT COUNT(*) FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = 'cms' AND TRIGGER_NAME LIKE 'cms!_cms!_stamp!_%' ESCAPE '!'",
      ).trim();
      return {
        ok: stale === 0 && triggers === '33',
        figures: `${rounds} rounds of SQL writes on db1–db3, ${checked} reads through api1–api3, ${stale} stale; ${triggers} triggers on db3`,
      };
    },
  );

  await step(
    'several writers at once: posts of one title written through API nodes on db1, db2 and db3 directly',
    async () => {
      // Multi-writer Galera: each extra API node writes to another database node (not through the writer port).
      const extra = [2, 3].map((n, i) => ({
        n: 5 + i,
        port: 3105 + i,
        url: `http://127.0.0.1:${3105 + i}`,
        db: DB_NODES[n - 1],
      }));
      const pids = extra.map((node) => {
        const pid = startApiNode(node, {
          ...state.env,
          DATABASE_URL: state.env.DATABASE_URL.replace(/:\d+\/cms$/, `:${node.db.port}/cms`),
          DATABASE_REPLICA_URLS: '',
          CMS_MIGRATIONS_RUN: 'false',
        });
        state.pids[`api${node.n}`] = pid;
        return pid;
      });
      writeState(state);
      try {
        for (const node of extra) await waitReady(node.url);
        const writers = [nodes[0], ...extra.map((node) => node.url)];
        const title = `Same title ${Date.now()}`;
        const results = await Promise.all(
          Array.from({ length: 30 }, (_, i) => post(writers[i % 3], '/posts', { title, status: 'publish' })),
        );
        const created = await Promise.all(results.map(async (res) => ({ status: res.status, body: await json(res) })));
        const ids = created.filter((c) => c.status === 201).map((c) => c.body.id as number);
        const slugs = new Set<string>();
        for (const id of ids) slugs.add((await json(await get(lb, `/posts/${id}?_fields=slug`))).slug);
        const statuses = describeFailures(
          created.filter((c) => c.status !== 201).map((c) => ({ status: `${c.status} ${c.body.code}` })),
        );
        // Safe means: no duplicate, nothing half-written, and a write that lost every certification round is refused
        // with a 503 the client may send again (never a 500, never a duplicate slug).
        const refusedRetryably = created
          .filter((c) => c.status !== 201)
          .every((c) => c.status === 503 && c.body.code === 'rest_database_unavailable');
        return {
          ok: ids.length > 0 && slugs.size === ids.length && refusedRetryably,
          figures: `${ids.length} of 30 created, ${slugs.size} distinct slugs${statuses === 'none' ? '' : `; refused after the retries: ${statuses}`}`,
        };
      } finally {
        for (const pid of pids) await stop(pid);
      }
    },
  );

  await step(
    'a Galera node without quorum (db3 isolated): its API node answers 503 and is not ready, then serves again',
    async () => {
      // An API node of its own, on db3 alone (not through HAProxy, which would stop sending to db3).
      const node = { n: 4, port: 3104, url: 'http://127.0.0.1:3104' };
      const pid = startApiNode(node, {
        ...state.env,
        DATABASE_URL: state.env.DATABASE_URL.replace(/:\d+\/cms$/, `:${DB_NODES[2].port}/cms`),
        DATABASE_REPLICA_URLS: '',
        CMS_MIGRATIONS_RUN: 'false',
      });
      state.pids.api4 = pid;
      writeState(state);
      try {
        await waitReady(node.url);
        sql(DB_NODES[2], "SET GLOBAL wsrep_provider_options = 'gmcast.isolate=1'");
        await sleep(4000);
        const read = await fetch(`${node.url}${API}/posts?search=quorum`);
        const body = await json(read);
        const ready = await fetch(`${node.url}/health/ready`);
        const readiness = await json(ready);
        sql(DB_NODES[2], "SET GLOBAL wsrep_provider_options = 'gmcast.isolate=0'");
        const t0 = Date.now();
        await waitSynced(DB_NODES[2], 3);
        await waitReady(node.url);
        const after = await fetch(`${node.url}${API}/posts?search=quorum-after`);
        await after.arrayBuffer();
        return {
          ok:
            read.status === 503 &&
            body.code === 'rest_database_unavailable' &&
            ready.status === 503 &&
            after.status === 200,
          figures: `isolated: read ${read.status} ${body.code}, ready ${ready.status} (${readiness.error?.database?.message}); rejoined and ready in ${((Date.now() - t0) / 1000).toFixed(1)} s, read ${after.status}`,
        };
      } finally {
        sql(DB_NODES[2], "SET GLOBAL wsrep_provider_options = 'gmcast.isolate=0'");
        await stop(pid);
      }
    },
  );

  s3.destroy();
  const width = Math.max(...rows.map((r) => r.check.length));
  const table = [
    `| ${'check'.padEnd(width)} | ok | figures |`,
    `|${'-'.repeat(width + 2)}|----|---------|`,
    ...rows.map((r) => `| ${r.check.padEnd(width)} | ${r.ok ? 'ok' : '**NO**'} | ${r.figures} |`),
  ].join('\n');
  process.stdout.write(`\n${table}\n\nchecked in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  writeFileSync(
    join(DIR, 'check.json'),
    JSON.stringify({ at: new Date().toISOString(), seconds: (Date.now() - started) / 1000, rows }, null, 2),
  );
  return rows.every((r) => r.ok);
}

function describeFailures(failures: Array<{ status: number | string }>): string {
  const counts = new Map<string, number>();
  for (const f of failures) counts.set(String(f.status), (counts.get(String(f.status)) ?? 0) + 1);
  return [...counts].map(([status, n]) => `${n}× ${status}`).join(', ') || 'none';
}

/** `clients` clients in a loop through the load balancer: reads of the posts list and of a post, and post writes. */
function steadyLoad(base: string, auth: string, clients: number) {
  let running = true;
  let requests = 0;
  let flying = 0;
  const acknowledged: number[] = [];
  const failures: Array<{ at: number; status: number | string }> = [];
  const one = async (client: number, i: number) => {
    const kind = i % 3;
    flying++;
    try {
      let res: Response;
      if (kind === 0) {
        res = await fetch(`${base}${API}/posts`, {
          method: 'POST',
          headers: { Authorization: auth, 'Content-Type': 'application/json' },
          body: JSON.stringify({ title: `load ${client}-${i}`, status: 'publish' }),
          signal: AbortSignal.timeout(30_000),
        });
        const body = await json(res);
        if (res.status === 201) acknowledged.push(body.id);
      } else {
        res = await fetch(`${base}${API}/posts${kind === 1 ? '?per_page=10' : `?search=load&per_page=5`}`, {
          headers: kind === 2 ? { Authorization: auth } : {},
          signal: AbortSignal.timeout(30_000),
        });
        await res.arrayBuffer();
      }
      requests++;
      if (res.status >= 400)
        failures.push({ at: Date.now(), status: `${kind === 0 ? 'write' : 'read'} ${res.status}` });
    } catch (error) {
      requests++;
      failures.push({ at: Date.now(), status: `${kind === 0 ? 'write' : 'read'} ${(error as Error).name}` });
    } finally {
      flying--;
    }
  };
  const loops = Array.from({ length: clients }, async (_, client) => {
    for (let i = 0; running; i++) await one(client, i);
  });
  return {
    inFlight: () => flying,
    async stop() {
      running = false;
      await Promise.all(loops);
      return { requests, failures, acknowledged };
    },
  };
}
