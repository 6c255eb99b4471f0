/**
 * Read-after-write with WordPress itself writing: `npm run wordpress-writes [-- --rounds N] [--control]`.
 *
 * Needs the WordPress of `../shared/wp-oracle` (or any WordPress whose `/tmp/wp-oracle.env` says where it is): its
 * REST API and its php-cli. Starts the built server (`dist/main.js`) on WordPress's own database with the response
 * cache and the memos on and `CMS_STAMP_TRIGGERS=install`, then, each round:
 *
 * 1. reads through cms-api (anonymous: cached answers; and logged in: memos) what it is about to change;
 * 2. WordPress writes — through its REST API (create, edit in place, retitle, trash a post; rename the site) and
 *    through `wp_insert_post` / `wp_update_post` / `update_option` in php-cli;
 * 3. reads the same through cms-api at once, and counts every answer that does not show the write (stale).
 *
 * The triggers are removed at the end: WordPress's database is left as it was found (but for cms-api's own tables).
 *
 * `--control` runs the same rounds with the triggers removed first (`CMS_STAMP_TRIGGERS=remove`): it shows the stale
 * answers the triggers prevent. Exit code 0 when no answer was stale (with `--control`: when some were), else 1.
 */
import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');

interface Oracle {
  base: string;
  auth: string;
  databaseUrl: string;
  prefix: string;
  port: string;
}

function oracle(file = process.env.ORACLE_ENV ?? '/tmp/wp-oracle.env'): Oracle {
  const env: Record<string, string> = {};
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const match = /^(\w+)=(.*)$/.exec(line.trim());
    if (match) env[match[1]] = match[2];
  }
  return {
    base: env.ORACLE_BASE,
    auth: `Basic ${Buffer.from(`${env.ORACLE_USER}:${env.ORACLE_APP_PASSWORD}`).toString('base64')}`,
    databaseUrl: env.ORACLE_DATABASE_URL,
    prefix: env.ORACLE_TABLE_PREFIX ?? 'wp_',
    port: new URL(env.ORACLE_BASE).port || '80',
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

async function startServer(o: Oracle, triggers: 'install' | 'remove'): Promise<{ child: ChildProcess; base: string }> {
  const port = await freePort();
  const child = spawn(process.execPath, [path.join(ROOT, 'dist', 'main.js')], {
    env: {
      PATH: process.env.PATH,
      NODE_ENV: 'production',
      PORT: String(port),
      DATABASE_URL: o.databaseUrl,
      CMS_TABLE_PREFIX: o.prefix,
      CMS_WORKERS: '1',
      CMS_STAMP_TRIGGERS: triggers,
      CMS_RESPONSE_CACHE: 'on',
      CMS_MEMOS: 'on',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 120; i++) {
    if (child.exitCode !== null) throw new Error(`the server exited (${child.exitCode})`);
    try {
      if ((await fetch(`${base}/health/ready`)).ok) return { child, base };
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  child.kill();
  throw new Error('the server did not start');
}

async function wp(o: Oracle, method: string, route: string, body?: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${o.base}/wp-json/wp/v2/${route}`, {
    method,
    headers: { Authorization: o.auth, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await response.json()) as Record<string, unknown>;
  if (!response.ok)
    throw new Error(`WordPress ${method} ${route}: ${response.status} ${JSON.stringify(json).slice(0, 200)}`);
  return json;
}

/** Runs PHP with WordPress loaded (as the oracle's own request would), returns its output. */
function php(o: Oracle, code: string): string {
  const boot = `$_SERVER["HTTP_HOST"] = "127.0.0.1:${o.port}"; $_SERVER["SERVER_NAME"] = "127.0.0.1"; $_SERVER["SERVER_PORT"] = "${o.port}";
$_SERVER["WORDPRESS_CONFIG"] = "wp-oracle-p${o.port}"; $_SERVER["REQUEST_URI"] = "/"; $_SERVER["REQUEST_METHOD"] = "GET";
require '/usr/share/wordpress/wp-load.php';`;
  const result = spawnSync('php', ['-d', 'display_errors=stderr'], {
    input: `<?php\n${boot}\n${code}\n`,
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`php: ${result.stderr}`);
  return result.stdout.trim();
}

interface Check {
  what: string;
  stale: boolean;
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const rounds = Number(args[args.indexOf('--rounds') + 1]) || 20;
  const control = args.includes('--control');
  const o = oracle();
  const server = await startServer(o, control ? 'remove' : 'install');
  const api = `${server.base}/cms-json/cms/v2`;
  const admin = o.auth;
  const read = async (route: string, auth?: string) => {
    const response = await fetch(`${api}/${route}`, { headers: auth ? { Authorization: auth } : {} });
    return { status: response.status, headers: response.headers, body: await response.json() };
  };
  const checks: Check[] = [];
  const check = (what: string, ok: boolean) => {
    checks.push({ what, stale: !ok });
    if (!ok) process.stdout.write(`  stale: ${what}\n`);
  };
  try {
    for (let round = 0; round < rounds; round++) {
      // Warm the cache and the memos with what is about to change.
      const list = await read('posts?per_page=1');
      await read('posts?per_page=1', admin);
      const total = Number(list.headers.get('x-cms-total'));

      // 1. A post created through WordPress's REST API.
      const created = await wp(o, 'POST', 'posts', {
        title: `WordPress round ${round}`,
        content: 'Written by WordPress',
        status: 'publish',
      });
      const id = Number(created.id);
      const after = await read('posts?per_page=1');
      check(
        `round ${round}: list after a REST create`,
        (after.body as Array<{ id: number }>)[0]?.id === id && Number(after.headers.get('x-cms-total')) === total + 1,
      );
      check(
        `round ${round}: total of a logged-in read after a REST create`,
        Number((await read('posts?per_page=1', admin)).headers.get('x-cms-total')) === total + 1,
      );

      // 2. Its text edited in place (WordPress also stores a revision), then its title.
      await read(`posts/${id}`);
      await wp(o, 'POST', `posts/${id}`, { content: `Edited by WordPress ${round}` });
      check(
        `round ${round}: post after a REST edit of its text`,
        ((await read(`posts/${id}`)).body as { content: { rendered: string } }).content.rendered.includes(
          `Edited by WordPress ${round}`,
        ),
      );
      await wp(o, 'POST', `posts/${id}`, { title: `Retitled by WordPress ${round}` });
      check(
        `round ${round}: list after a REST retitle`,
        ((await read('posts?per_page=1')).body as Array<{ title: { rendered: string } }>)[0]?.title.rendered ===
          `Retitled by WordPress ${round}`,
      );

      // 3. wp_insert_post and wp_update_post in php-cli.
      const inserted = Number(
        php(
          o,
          `echo wp_insert_post(['post_title' => 'php-cli round ${round}', 'post_content' => 'Inserted by wp_insert_post', 'post_status' => 'publish', 'post_author' => 1]);`,
        ),
      );
      check(
        `round ${round}: list after wp_insert_post`,
        ((await read('posts?per_page=1')).body as Array<{ id: number }>)[0]?.id === inserted,
      );
      await read(`posts/${inserted}`);
      php(o, `wp_update_post(['ID' => ${inserted}, 'post_content' => 'Updated by wp_update_post ${round}']);`);
      check(
        `round ${round}: post after wp_update_post`,
        ((await read(`posts/${inserted}`)).body as { content: { rendered: string } }).content.rendered.includes(
          `Updated by wp_update_post ${round}`,
        ),
      );

      // 4. Trashed through REST: gone from the list; its total too.
      await wp(o, 'DELETE', `posts/${id}`);
      const trashed = await read('posts?per_page=100');
      check(
        `round ${round}: list after a REST trash`,
        !(trashed.body as Array<{ id: number }>).some((p) => p.id === id) &&
          Number(trashed.headers.get('x-cms-total')) === total + 1,
      );
      php(o, `wp_delete_post(${inserted}, true);`);
      check(
        `round ${round}: total after wp_delete_post`,
        Number((await read('posts?per_page=1')).headers.get('x-cms-total')) === total,
      );

      // 5. The site's title: through REST settings, then update_option in php-cli.
      await read('');
      await wp(o, 'POST', 'settings', { title: `WordPress title ${round}` });
      const index = await fetch(`${server.base}/cms-json/`).then((r) => r.json() as Promise<{ name: string }>);
      check(`round ${round}: index after a REST settings write`, index.name === `WordPress title ${round}`);
      php(o, `update_option('blogname', 'php-cli title ${round}');`);
      const again = await fetch(`${server.base}/cms-json/`).then((r) => r.json() as Promise<{ name: string }>);
      check(`round ${round}: index after update_option`, again.name === `php-cli title ${round}`);
    }
  } finally {
    server.child.kill('SIGTERM');
    php(o, `update_option('blogname', 'WP Oracle');`);
    // WordPress's database is left without the triggers, as it was found.
    spawnSync(process.execPath, [path.join(ROOT, 'dist', 'cli.js'), 'triggers', 'remove'], {
      env: {
        PATH: process.env.PATH,
        DATABASE_URL: o.databaseUrl,
        CMS_TABLE_PREFIX: o.prefix,
        CMS_MIGRATIONS_RUN: 'false',
      },
      stdio: 'ignore',
    });
  }
  const stale = checks.filter((c) => c.stale).length;
  process.stdout.write(
    `${control ? 'Without the triggers (control)' : 'With the stamp triggers'}: ${checks.length} reads after WordPress's writes, ${stale} stale.\n`,
  );
  return control ? (stale > 0 ? 0 : 1) : stale === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    process.stderr.write(`${(error as Error).stack ?? error}\n`);
    process.exit(1);
  },
);
