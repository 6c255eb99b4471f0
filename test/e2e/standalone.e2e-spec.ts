import { ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dropTestDatabase, testDatabaseUrl } from '../utils/test-db';

const MAIN = join(__dirname, '..', '..', 'dist', 'main.js');

/** Runs the built server (`node dist/main`) with an environment and collects its output. */
function startServer(env: Record<string, string>): { child: ChildProcess; output: () => string } {
  let output = '';
  const child = spawn(process.execPath, [MAIN], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (d) => (output += String(d)));
  child.stderr?.on('data', (d) => (output += String(d)));
  return { child, output: () => output };
}

async function waitForServer(url: string, server: { child: ChildProcess; output: () => string }): Promise<Response> {
  for (let i = 0; i < 100; i++) {
    if (server.child.exitCode !== null) throw new Error(`server exited: ${server.output()}`);
    try {
      return await fetch(url);
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error(`server did not start: ${server.output()}`);
}

describe('standalone server (node dist/main)', () => {
  beforeAll(() => {
    if (!existsSync(MAIN)) throw new Error('dist/main.js is missing: npm test builds it first (pretest)');
  });
  afterAll(() => dropTestDatabase('standalone'));

  it('starts from the environment, migrates an empty database and serves the API', async () => {
    const port = String(40000 + Math.floor(Math.random() * 10000));
    const databaseUrl = await testDatabaseUrl('standalone');
    const server = startServer({
      PORT: port,
      DATABASE_URL: databaseUrl,
      CMS_TABLE_PREFIX: 'cms_',
      CMS_SITE_TITLE: 'Standalone',
    });
    try {
      const res = await waitForServer(`http://127.0.0.1:${port}/cms-json/`, server);
      expect(res.status).toBe(200);
      const body = (await res.json()) as { name: string; url: string; namespaces: string[] };
      expect(body).toMatchObject({
        name: 'Standalone',
        url: `http://localhost:${port}`,
        namespaces: ['cms/v2', 'cms-auth/v1'],
      });
      const types = await fetch(`http://127.0.0.1:${port}/cms-json/cms/v2/types`);
      expect(Object.keys((await types.json()) as object)).toEqual(['post', 'page', 'attachment']);
      // Requests outside the API prefix still reach the app: the home page and the `?rest_route=` form.
      const home = await fetch(`http://127.0.0.1:${port}/`);
      expect(home.headers.get('link')).toBe(`<http://127.0.0.1:${port}/cms-json/>; rel="https://api.w.org/"`);
      expect(((await home.json()) as { api: string }).api).toBe(`http://127.0.0.1:${port}/cms-json/`);
      const viaQuery = await fetch(`http://127.0.0.1:${port}/?rest_route=/cms/v2/types/post`);
      expect(((await viaQuery.json()) as { slug: string }).slug).toBe('post');
    } finally {
      server.child.kill('SIGTERM');
      await once(server.child, 'exit');
    }
  });

  it('serves from several worker processes with CMS_WORKERS, and stops them all on SIGTERM', async () => {
    const port = String(40000 + Math.floor(Math.random() * 10000));
    const databaseUrl = await testDatabaseUrl('standalone');
    const server = startServer({ PORT: port, DATABASE_URL: databaseUrl, CMS_TABLE_PREFIX: 'cms_', CMS_WORKERS: '2' });
    try {
      await waitForServer(`http://127.0.0.1:${port}/cms-json/`, server);
      for (let i = 0; i < 50 && !server.output().includes('with 2 workers'); i++)
        await new Promise((r) => setTimeout(r, 100));
      expect(server.output()).toContain('with 2 workers');
      const answers = await Promise.all(
        Array.from({ length: 10 }, () => fetch(`http://127.0.0.1:${port}/cms-json/cms/v2/posts`)),
      );
      expect(answers.map((r) => r.status)).toEqual(new Array(10).fill(200));
      // Two processes besides the supervisor have started Nest (the log is JSON lines: stdout is no terminal).
      // Nest's lines wait for the logger: a worker's appear once its app is created.
      const started = () =>
        new Set(
          server
            .output()
            .split('\n')
            .filter((line) => line.includes('"msg":"Nest application successfully started"'))
            .map((line) => (JSON.parse(line) as { pid: number }).pid),
        );
      for (let i = 0; i < 100 && started().size < 2; i++) await new Promise((r) => setTimeout(r, 100));
      expect(started().size).toBe(2);
    } finally {
      server.child.kill('SIGTERM');
      const [code] = await once(server.child, 'exit');
      expect(code).toBe(0);
    }
  });

  it('serves uploaded files at /wp-content/uploads/ with their type, a long cache life, ETag and ranges', async () => {
    const port = String(40000 + Math.floor(Math.random() * 10000));
    const databaseUrl = await testDatabaseUrl('standalone');
    const uploadDir = mkdtempSync(join(tmpdir(), 'cms-standalone-uploads-'));
    const server = startServer({
      PORT: port,
      DATABASE_URL: databaseUrl,
      CMS_TABLE_PREFIX: 'cms_',
      CMS_UPLOAD_DIR: uploadDir,
      CMS_ADMIN_USER: 'owner',
      CMS_ADMIN_PASSWORD: 'owner-password-1',
    });
    const base = `http://127.0.0.1:${port}`;
    try {
      await waitForServer(`${base}/cms-json/`, server);
      const login = await fetch(`${base}/cms-json/cms-auth/v1/login`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ username: 'owner', password: 'owner-password-1' }),
      });
      expect(login.status).toBe(200);
      const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0];
      const { nonce } = (await login.json()) as { nonce: string };
      const text = Buffer.from('id,name\n1,one\n2,two\n');
      const created = await fetch(`${base}/cms-json/cms/v2/media`, {
        method: 'POST',
        headers: {
          Cookie: cookie,
          'X-CMS-Nonce': nonce,
          'Content-Type': 'text/csv',
          'Content-Disposition': 'attachment; filename="table.csv"',
        },
        body: text,
      });
      expect(created.status).toBe(201);
      const { source_url: url } = (await created.json()) as { source_url: string };
      const path = new URL(url).pathname;
      expect(path).toMatch(/^\/wp-content\/uploads\/\d{4}\/\d{2}\/table\.csv$/);
      const file = await fetch(`${base}${path}`);
      expect(file.status).toBe(200);
      expect(file.headers.get('content-type')).toMatch(/^text\/csv/);
      expect(file.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(file.headers.get('x-content-type-options')).toBe('nosniff');
      const etag = file.headers.get('etag');
      expect(etag).toBeTruthy();
      expect(Buffer.from(await file.arrayBuffer())).toEqual(text);
      // (Node's http: fetch adds `Cache-Control: no-cache` to a conditional request, which makes it unconditional.)
      const conditional = await new Promise<number>((done, fail) =>
        httpGet(`${base}${path}`, { headers: { 'If-None-Match': etag! } }, (res) => {
          res.resume();
          done(res.statusCode ?? 0);
        }).on('error', fail),
      );
      expect(conditional).toBe(304);
      const range = await fetch(`${base}${path}`, { headers: { Range: 'bytes=0-6' } });
      expect(range.status).toBe(206);
      expect(await range.text()).toBe('id,name');
      expect((await fetch(`${base}/wp-content/uploads/../../etc/passwd`)).status).toBe(404);
    } finally {
      server.child.kill('SIGTERM');
      await once(server.child, 'exit');
      rmSync(uploadDir, { recursive: true, force: true });
    }
  });

  it.each([
    ['CMS_WORKERS', 'many'],
    ['PORT', 'abc'],
    ['DATABASE_URL', 'postgres://localhost/x'],
    ['CMS_TABLE_PREFIX', 'wp-'],
    ['CMS_BODY_LIMIT', 'lots'],
    ['CMS_UPLOAD_LIMIT', 'huge'],
    ['CMS_UPLOADS_URL', 'cdn.example.com'],
  ])('refuses to start when %s is invalid, naming the variable', async (name, value) => {
    const server = startServer({
      [name]: value,
      DATABASE_URL: 'sqlite::memory:',
      ...(name === 'DATABASE_URL' ? { DATABASE_URL: value } : {}),
    });
    const [code] = await once(server.child, 'exit');
    expect(code).toBe(1);
    expect(server.output()).toContain(name);
  });
});
