/**
 * What large posts being written do to everyone else: `npm run bench:large-writes [-- options]`.
 *
 * Starts a built server (`node dist/main`, one worker) on a small seeded SQLite site, then measures the latency of a
 * cheap anonymous read (`GET types`, autocannon) alone, and again while contributors write large posts (markup
 * filtered by kses, then rendered for the answer). Prints p50, p99 and the maximum of both, the writes' times, and
 * the server's resident memory at start, after the writes and after 30 s idle.
 * `--main` runs another build (e.g. an older checkout's `dist/main.js`) to compare builds.
 */
import autocannon from 'autocannon';
import { ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { prepareDatabase, seedDatabase } from './seed';

const USAGE = `Usage: npm run bench:large-writes -- [options]
  --main FILE      the built server to run (default dist/main.js)
  --seconds S      seconds of each phase (default 20)
  --bytes N        size of each post's content in bytes (default 1000000)
  --writers N      posts written at once (default 2)
  --connections N  concurrent readers (default 4)`;

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? fallback : (process.argv[at + 1] ?? fallback);
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function waitUp(url: string, child: ChildProcess): Promise<void> {
  const until = Date.now() + 60_000;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`the server exited (${child.exitCode})`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error('the server did not answer within 60 s');
}

/** The server's resident memory in MB (Linux). */
function rssMb(pid: number | undefined): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
}

async function json(res: Response): Promise<Record<string, unknown>> {
  const body = (await res.json()) as Record<string, unknown>;
  if (!res.ok) throw new Error(`${res.status} ${JSON.stringify(body).slice(0, 300)}`);
  return body;
}

function reads(url: string, seconds: number, connections: number): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon({ url, connections, duration: seconds }, (error: Error | null, result) =>
      error ? reject(error) : resolve(result),
    );
  });
}

async function main(): Promise<void> {
  if (process.argv.includes('--help')) {
    console.log(USAGE);
    return;
  }
  const mainFile = path.resolve(option('main', path.join(__dirname, '..', 'dist', 'main.js')));
  const seconds = Number(option('seconds', '20'));
  const bytes = Number(option('bytes', '1000000'));
  const writers = Number(option('writers', '2'));
  const connections = Number(option('connections', '4'));
  if (!fs.existsSync(mainFile)) throw new Error(`${mainFile} is missing: npx nest build`);

  const database = await prepareDatabase('sqlite');
  const seed = await seedDatabase({ databaseUrl: database.databaseUrl, posts: 200 });
  const port = await freePort();
  const base = `http://127.0.0.1:${port}/cms-json/cms/v2`;
  const child = spawn(process.execPath, [mainFile], {
    env: {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'production',
      PORT: String(port),
      DATABASE_URL: database.databaseUrl,
      CMS_WORKERS: '1',
      CMS_REQUEST_LOG: 'off',
      CMS_UPLOAD_DIR: path.join(os.tmpdir(), `cms-large-writes-${port}`),
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  try {
    await waitUp(`${base}/types`, child);
    const admin = `Basic ${Buffer.from(`${seed.admin.login}:${seed.admin.applicationPassword}`).toString('base64')}`;
    const post = (path: string, authorization: string, body: unknown) =>
      fetch(`${base}/${path}`, {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const user = await json(
      await post('users', admin, {
        username: 'writer',
        email: 'writer@example.org',
        password: 'a long password',
        roles: ['contributor'],
      }),
    );
    const app = await json(await post(`users/${String(user.id)}/application-passwords`, admin, { name: 'bench' }));
    const contributor = `Basic ${Buffer.from(`writer:${String(app.password)}`).toString('base64')}`;
    const unit = '<p>Some <b>text</b> [gallery] <!-- a --> &amp; <a href="https://example.org/">a link</a></p>\n';
    const content = unit.repeat(Math.ceil(bytes / unit.length));

    const rssStart = rssMb(child.pid);
    const alone = await reads(`${base}/types`, seconds, connections);
    let writing = true;
    const writeTimes: number[] = [];
    const statuses = new Map<number, number>();
    const loops = Array.from({ length: writers }, async () => {
      while (writing) {
        const started = Date.now();
        const res = await post('posts', contributor, { title: 'A large post', content });
        await res.arrayBuffer();
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        writeTimes.push(Date.now() - started);
      }
    });
    const during = await reads(`${base}/types`, seconds, connections);
    writing = false;
    await Promise.all(loops);
    const rssAfter = rssMb(child.pid);
    await new Promise((resolve) => setTimeout(resolve, 30_000));
    const rssIdle = rssMb(child.pid);

    const row = (name: string, r: autocannon.Result) =>
      `| ${name} | ${r.requests.total} | ${r.latency.p50} | ${r.latency.p99} | ${r.latency.max} |`;
    writeTimes.sort((a, b) => a - b);
    console.log(
      `\nserver ${mainFile}; ${writers} writers of ${content.length} bytes; ${connections} readers; ${seconds} s each\n`,
    );
    console.log('| GET types | answers | p50 ms | p99 ms | max ms |\n|---|---|---|---|---|');
    console.log(row('alone', alone));
    console.log(row('while large posts are written', during));
    console.log(
      `\nwrites: ${writeTimes.length} (${[...statuses].map(([s, n]) => `${n} × ${s}`).join(', ')}), median ${writeTimes[writeTimes.length >> 1] ?? '-'} ms`,
    );
    console.log(`server RSS: ${rssStart} MB at start, ${rssAfter} MB after the writes, ${rssIdle} MB after 30 s idle`);
  } finally {
    child.kill('SIGTERM');
    await database.drop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
