import 'reflect-metadata';
import { ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { verifyWordPressPassword } from '../../src/core/auth/password-hash';
import { UserMetaEntity } from '../../src/core/database/entities/user-meta.entity';
import { UserEntity } from '../../src/core/database/entities/user.entity';
import { initialAdminFromEnvironment, loadEnvironment } from '../../src/standalone/env';
import { dropTestDatabase, testDatabaseKind, testDatabaseUrl, withTestDataSource } from '../utils/test-db';
import { freePort } from '../utils/standalone-server';

/**
 * First start of the standalone server (`node dist/main`) with CMS_ADMIN_USER / CMS_ADMIN_PASSWORD: the
 * administrator is created once, with WordPress's rows, and bad combinations of the variables stop the server.
 */

const DIST = process.env.CMS_TEST_DIST ?? join(__dirname, '..', '..', 'dist');
const MAIN = join(DIST, 'main.js');
const PREFIX = 'cms_';
const PASSWORD = 'Fs-secret-9x!';

let dir: string;
const databases: string[] = [];

/** A fresh empty database: a SQLite file in a temp dir, or a MySQL database `cms_e2e_<name>`. */
async function freshDatabase(name: string): Promise<string> {
  if (testDatabaseKind() === 'sqlite') return `sqlite:${join(dir, `${name}.sqlite`)}`;
  databases.push(name);
  return testDatabaseUrl(name);
}

interface Server {
  child: ChildProcess;
  output: () => string;
}

function startServer(env: Record<string, string>): Server {
  let output = '';
  const child = spawn(process.execPath, [MAIN], {
    env: { PATH: process.env.PATH ?? '', CMS_TABLE_PREFIX: PREFIX, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (d) => (output += String(d)));
  child.stderr?.on('data', (d) => (output += String(d)));
  return { child, output: () => output };
}

async function waitForServer(port: number, server: Server): Promise<void> {
  for (let i = 0; i < 150; i++) {
    if (server.child.exitCode !== null) throw new Error(`server exited: ${server.output()}`);
    try {
      await fetch(`http://127.0.0.1:${port}/cms-json/`);
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error(`server did not start: ${server.output()}`);
}

/** Starts the server, waits until it answers, stops it, and returns its output. */
async function runOnce(databaseUrl: string, env: Record<string, string>): Promise<string> {
  const port = await freePort();
  const server = startServer({ PORT: String(port), DATABASE_URL: databaseUrl, ...env });
  try {
    await waitForServer(port, server);
  } finally {
    server.child.kill('SIGTERM');
    if (server.child.exitCode === null) await once(server.child, 'exit');
  }
  return server.output();
}

const withDataSource = <T>(databaseUrl: string, work: (ds: DataSource) => Promise<T>) =>
  withTestDataSource(databaseUrl, PREFIX, work);

beforeAll(() => {
  if (!existsSync(MAIN))
    throw new Error('dist/main.js is missing: npm test builds it first (pretest), or run npx nest build');
  dir = mkdtempSync(join(tmpdir(), 'cms-first-start-'));
});

afterAll(async () => {
  for (const name of databases) await dropTestDatabase(name);
  rmSync(dir, { recursive: true, force: true });
});

describe('initial administrator from CMS_ADMIN_USER / CMS_ADMIN_PASSWORD', () => {
  let databaseUrl: string;

  beforeAll(async () => {
    databaseUrl = await freshDatabase('first_start');
  });

  it('is created on the first start of an empty database, logged by login only', async () => {
    const output = await runOnce(databaseUrl, { CMS_ADMIN_USER: 'boss', CMS_ADMIN_PASSWORD: PASSWORD });
    // The log is JSON lines (stdout is no terminal): the message's quotes are escaped.
    expect(output).toContain(JSON.stringify('Created the administrator "boss"').slice(1, -1));
    expect(output).not.toContain(PASSWORD);
  });

  it('has the administrator role and the usermeta rows wp_insert_user writes', async () => {
    await withDataSource(databaseUrl, async (ds) => {
      const users = await ds.getRepository(UserEntity).find();
      expect(users).toHaveLength(1);
      const [admin] = users;
      expect(admin).toMatchObject({
        login: 'boss',
        nicename: 'boss',
        email: 'boss@localhost.localdomain',
        displayName: 'boss',
        status: 0,
        url: '',
      });
      expect(admin.pass).toMatch(/^\$wp\$2y\$10\$/);
      expect(verifyWordPressPassword(PASSWORD, admin.pass)).toBe(true);
      const meta = await ds.getRepository(UserMetaEntity).find({ where: { userId: admin.id }, order: { id: 'ASC' } });
      expect(meta.map((m) => [m.key, m.value])).toEqual([
        ['nickname', 'boss'],
        ['first_name', ''],
        ['last_name', ''],
        ['description', ''],
        ['rich_editing', 'true'],
        ['syntax_highlighting', 'true'],
        ['comment_shortcuts', 'false'],
        ['admin_color', 'fresh'],
        ['use_ssl', '0'],
        ['show_admin_bar_front', 'true'],
        ['locale', ''],
        ['cms_capabilities', 'a:1:{s:13:"administrator";b:1;}'],
        ['cms_user_level', '10'],
      ]);
    });
  });

  it('is not created again on a second start (with the same or other values)', async () => {
    const same = await runOnce(databaseUrl, { CMS_ADMIN_USER: 'boss', CMS_ADMIN_PASSWORD: PASSWORD });
    expect(same).not.toContain('Created the administrator');
    const other = await runOnce(databaseUrl, { CMS_ADMIN_USER: 'another', CMS_ADMIN_PASSWORD: 'another-pass' });
    expect(other).not.toContain('Created the administrator');
    await withDataSource(databaseUrl, async (ds) => {
      expect((await ds.getRepository(UserEntity).find()).map((u) => u.login)).toEqual(['boss']);
      expect(
        verifyWordPressPassword(PASSWORD, (await ds.getRepository(UserEntity).findOneByOrFail({ login: 'boss' })).pass),
      ).toBe(true);
    });
  });

  it('takes CMS_ADMIN_EMAIL when given', async () => {
    const url = await freshDatabase('first_start_email');
    await runOnce(url, { CMS_ADMIN_USER: 'chief', CMS_ADMIN_PASSWORD: PASSWORD, CMS_ADMIN_EMAIL: 'chief@example.com' });
    await withDataSource(url, async (ds) => {
      expect((await ds.getRepository(UserEntity).find()).map((u) => [u.login, u.email])).toEqual([
        ['chief', 'chief@example.com'],
      ]);
    });
  });

  it('is not created without the variables, nor when the database already has users', async () => {
    const url = await freshDatabase('first_start_none');
    expect(await runOnce(url, {})).not.toContain('Created the administrator');
    await withDataSource(url, async (ds) => expect(await ds.getRepository(UserEntity).count()).toBe(0));
    // A user appears (e.g. made with the CLI): a later start with the variables leaves the table alone.
    await withDataSource(url, (ds) =>
      ds
        .getRepository(UserEntity)
        .insert({ login: 'existing', email: 'existing@example.com', registered: '2024-01-01 00:00:00' }),
    );
    expect(await runOnce(url, { CMS_ADMIN_USER: 'boss', CMS_ADMIN_PASSWORD: PASSWORD })).not.toContain(
      'Created the administrator',
    );
    await withDataSource(url, async (ds) =>
      expect((await ds.getRepository(UserEntity).find()).map((u) => u.login)).toEqual(['existing']),
    );
  });

  it('creates a single administrator when two servers start together on one empty database', async () => {
    const url = await freshDatabase('first_start_race');
    // Schema and site first (concurrent migrations are not what this test is about).
    await runOnce(url, {});
    const ports = [await freePort(), await freePort()];
    while (ports[1] === ports[0]) ports[1] = await freePort();
    const servers = ports.map((port, i) =>
      startServer({ PORT: String(port), DATABASE_URL: url, CMS_ADMIN_USER: `racer${i}`, CMS_ADMIN_PASSWORD: PASSWORD }),
    );
    try {
      await Promise.all(servers.map((server, i) => waitForServer(ports[i], server)));
    } finally {
      for (const server of servers) {
        server.child.kill('SIGTERM');
        if (server.child.exitCode === null) await once(server.child, 'exit');
      }
    }
    await withDataSource(url, async (ds) => {
      const users = await ds.getRepository(UserEntity).find();
      expect(users).toHaveLength(1);
      expect(users[0].login).toMatch(/^racer[01]$/);
    });
    expect(servers.filter((s) => s.output().includes('Created the administrator'))).toHaveLength(1);
  });
});

describe('with no users, the log says how to create an administrator', () => {
  const hint = (output: string) =>
    output
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { msg: string })
      .filter((line) => line.msg.startsWith('No users yet'));

  it('names the CLI command and the first-start variables, once', async () => {
    const url = await freshDatabase('first_start_hint');
    const lines = hint(await runOnce(url, {}));
    expect(lines).toHaveLength(1);
    expect(lines[0].msg).toContain('npm run cms -- user create <login> <email> --role administrator');
    expect(lines[0].msg).toContain('CMS_ADMIN_USER and CMS_ADMIN_PASSWORD');
    // Still no users on the next start: said again.
    expect(hint(await runOnce(url, {}))).toHaveLength(1);
  });

  it('is not logged once there is a user (created at that start, or before)', async () => {
    const url = await freshDatabase('first_start_no_hint');
    expect(hint(await runOnce(url, { CMS_ADMIN_USER: 'boss', CMS_ADMIN_PASSWORD: PASSWORD }))).toHaveLength(0);
    expect(hint(await runOnce(url, {}))).toHaveLength(0);
  });
});

describe('bad combinations refuse to start, naming the variable', () => {
  it.each([
    [{ CMS_ADMIN_USER: 'boss' }, 'CMS_ADMIN_PASSWORD must be set when CMS_ADMIN_USER or CMS_ADMIN_EMAIL is set'],
    [{ CMS_ADMIN_PASSWORD: PASSWORD }, 'CMS_ADMIN_USER must be set when CMS_ADMIN_PASSWORD or CMS_ADMIN_EMAIL is set'],
    [{ CMS_ADMIN_USER: 'boss', CMS_ADMIN_PASSWORD: 'short7!' }, 'CMS_ADMIN_PASSWORD must be at least 8 characters'],
    [{ CMS_ADMIN_USER: 'bad/name', CMS_ADMIN_PASSWORD: PASSWORD }, 'CMS_ADMIN_USER must be 1 to 60 characters'],
    [{ CMS_ADMIN_USER: 'x'.repeat(61), CMS_ADMIN_PASSWORD: PASSWORD }, 'CMS_ADMIN_USER must be 1 to 60 characters'],
    [
      { CMS_ADMIN_USER: 'boss', CMS_ADMIN_PASSWORD: PASSWORD, CMS_ADMIN_EMAIL: 'boss@localhost' },
      'CMS_ADMIN_EMAIL must be an e-mail address',
    ],
    [{ CMS_RATE_LIMIT_MAX: '0' }, 'CMS_RATE_LIMIT_MAX must be an integer of at least 1'],
    [{ CMS_RATE_LIMIT_WINDOW: '1.5' }, 'CMS_RATE_LIMIT_WINDOW must be a number of seconds'],
  ])('%j → "%s"', async (env, message) => {
    const server = startServer({ DATABASE_URL: 'sqlite::memory:', PORT: '1', ...env });
    const [code] = await once(server.child, 'exit');
    expect(code).toBe(1);
    expect(server.output()).toContain(message);
    expect(server.output()).not.toContain(PASSWORD);
    expect(server.output()).not.toContain('short7!');
  });
});

describe('loadEnvironment: administrator and rate-limit variables', () => {
  const message = (env: NodeJS.ProcessEnv): string => {
    try {
      loadEnvironment(env);
    } catch (error) {
      return (error as Error).message;
    }
    throw new Error(`accepted ${JSON.stringify(env)}`);
  };

  it('defaults: no administrator, 10 failures per 900 s', () => {
    const env = loadEnvironment({});
    expect(env).toMatchObject({ CMS_RATE_LIMIT_MAX: 10, CMS_RATE_LIMIT_WINDOW: 900 });
    expect(initialAdminFromEnvironment(env)).toBeUndefined();
  });

  it('reads the administrator, with the default e-mail <user>@localhost.localdomain', () => {
    expect(
      initialAdminFromEnvironment(loadEnvironment({ CMS_ADMIN_USER: 'boss', CMS_ADMIN_PASSWORD: '12345678' })),
    ).toEqual({
      login: 'boss',
      password: '12345678',
      email: 'boss@localhost.localdomain',
    });
    const env = loadEnvironment({
      CMS_ADMIN_USER: 'a.b-c_d@e',
      CMS_ADMIN_PASSWORD: 'x y z 1 2',
      CMS_ADMIN_EMAIL: 'ops@example.com',
    });
    expect(initialAdminFromEnvironment(env)).toEqual({
      login: 'a.b-c_d@e',
      password: 'x y z 1 2',
      email: 'ops@example.com',
    });
  });

  it('reads the rate limit as integers', () => {
    expect(loadEnvironment({ CMS_RATE_LIMIT_MAX: '1', CMS_RATE_LIMIT_WINDOW: '60' })).toMatchObject({
      CMS_RATE_LIMIT_MAX: 1,
      CMS_RATE_LIMIT_WINDOW: 60,
    });
  });

  it.each([
    [{ CMS_ADMIN_EMAIL: 'ops@example.com' }, ['CMS_ADMIN_USER must be set', 'CMS_ADMIN_PASSWORD must be set']],
    [{ CMS_ADMIN_USER: ' boss', CMS_ADMIN_PASSWORD: '12345678' }, ['CMS_ADMIN_USER must be 1 to 60 characters']],
    [{ CMS_ADMIN_USER: 'boss', CMS_ADMIN_PASSWORD: '1234567' }, ['CMS_ADMIN_PASSWORD must be at least 8 characters']],
    [
      { CMS_ADMIN_USER: 'boss', CMS_ADMIN_PASSWORD: '12345678', CMS_ADMIN_EMAIL: 'a@b.c' },
      ['CMS_ADMIN_EMAIL must be an e-mail address'],
    ],
    [{ CMS_RATE_LIMIT_MAX: 'ten' }, ['CMS_RATE_LIMIT_MAX must be an integer of at least 1']],
    [{ CMS_RATE_LIMIT_MAX: '-3' }, ['CMS_RATE_LIMIT_MAX must be an integer of at least 1']],
    [{ CMS_RATE_LIMIT_MAX: '99999999999999999999' }, ['CMS_RATE_LIMIT_MAX must be an integer of at least 1']],
    [{ CMS_RATE_LIMIT_WINDOW: '0' }, ['CMS_RATE_LIMIT_WINDOW must be a number of seconds']],
    [{ CMS_RATE_LIMIT_WINDOW: '15m' }, ['CMS_RATE_LIMIT_WINDOW must be a number of seconds']],
  ])('%j is refused', (env, parts) => {
    const text = message(env);
    for (const part of parts) expect(text).toContain(part);
  });

  it('names each bad administrator variable once', () => {
    const lines = message({ CMS_ADMIN_USER: 'bad/name' }).split('\n').slice(1);
    expect(lines).toEqual([
      '  - CMS_ADMIN_USER must be 1 to 60 characters: letters, digits, space, _ . - @ (no space at either end)',
      '  - CMS_ADMIN_PASSWORD must be set when CMS_ADMIN_USER or CMS_ADMIN_EMAIL is set',
    ]);
  });
});
