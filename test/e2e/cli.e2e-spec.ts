import 'reflect-metadata';
import { ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { AddressInfo, createServer } from 'node:net';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { verifyWordPressPassword } from '../../src/core/auth/password-hash';
import { buildDataSourceOptions } from '../../src/core/database/data-source-options';
import { UserMetaEntity } from '../../src/core/database/entities/user-meta.entity';
import { UserEntity } from '../../src/core/database/entities/user.entity';
import { dropTestDatabase, testDatabaseKind, testDatabaseUrl } from '../utils/test-db';

/** The administration CLI (`node dist/cli.js`, `npm run cms -- ...`) against a real database. */

const ROOT = join(__dirname, '..', '..');
/** The build under test: `dist/` (built by `npm test`'s pretest), or `CMS_TEST_DIST` (a private build). */
const DIST = process.env.CMS_TEST_DIST ?? join(ROOT, 'dist');
const CLI = join(DIST, 'cli.js');
const MAIN = join(DIST, 'main.js');
const PREFIX = 'cms_';

let dir: string;
let databaseUrl: string;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function baseEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? dir, DATABASE_URL: databaseUrl, CMS_TABLE_PREFIX: PREFIX, ...extra };
}

/** Runs `node dist/cli.js <args>` and collects its exit code and output. */
function cli(args: string[], extra: Record<string, string> = {}): Run {
  const result = spawnSync(process.execPath, [CLI, ...args], { env: baseEnv(extra), encoding: 'utf8', timeout: 60000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** A TCP port free at the time of the call (the OS picks it). */
async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}

async function withDataSource<T>(work: (ds: DataSource) => Promise<T>): Promise<T> {
  const ds = new DataSource(buildDataSourceOptions({ databaseUrl, tablePrefix: PREFIX }));
  await ds.initialize();
  try {
    return await work(ds);
  } finally {
    await ds.destroy();
  }
}

function startServer(port: number): { child: ChildProcess; output: () => string } {
  let output = '';
  const child = spawn(process.execPath, [MAIN], { env: baseEnv({ PORT: String(port) }), stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.on('data', (d) => (output += String(d)));
  child.stderr?.on('data', (d) => (output += String(d)));
  return { child, output: () => output };
}

async function waitForServer(url: string, server: { child: ChildProcess; output: () => string }): Promise<void> {
  for (let i = 0; i < 150; i++) {
    if (server.child.exitCode !== null) throw new Error(`server exited: ${server.output()}`);
    try {
      await fetch(url);
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error(`server did not start: ${server.output()}`);
}

const basic = (login: string, password: string) => `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`;

beforeAll(async () => {
  if (!existsSync(CLI) || !existsSync(MAIN)) throw new Error('dist/cli.js is missing: npm test builds it first (pretest), or run npx nest build');
  dir = mkdtempSync(join(tmpdir(), 'cms-cli-'));
  databaseUrl = testDatabaseKind() === 'sqlite' ? `sqlite:${join(dir, 'cms.sqlite')}` : await testDatabaseUrl('cli');
});

afterAll(async () => {
  await dropTestDatabase('cli');
  rmSync(dir, { recursive: true, force: true });
});

describe('arguments', () => {
  it('prints the help on stdout for "help"', () => {
    const run = cli(['help']);
    expect(run.code).toBe(0);
    for (const command of ['user create', 'user list', 'app-password create', 'migrate', 'help']) expect(run.stdout).toContain(command);
    expect(cli(['--help']).code).toBe(0);
  });

  it('prints the help on stderr and fails without a command', () => {
    const run = cli([]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('Usage:');
  });

  it.each([
    [['frobnicate'], 'Unknown command "frobnicate"'],
    [['user'], 'Missing sub-command'],
    [['user', 'delete', 'x'], 'Unknown command "user delete"'],
    [['user', 'create', 'solo'], 'Missing <email>'],
    [['user', 'create'], 'Missing <username> and <email>'],
    [['user', 'create', 'a', 'a@example.com', '--rol', 'editor'], 'Unknown option --rol'],
    [['user', 'create', 'a', 'a@example.com', '--role'], 'Option --role needs a value'],
    [['user', 'list', 'extra'], 'Unexpected argument "extra"'],
    [['app-password', 'create'], 'Missing <username>'],
    [['migrate', 'now'], 'Unexpected argument "now"'],
  ])('%j fails with exit code 1: %s', (args, message) => {
    const run = cli(args);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(message);
  });

  it('refuses a bad environment, naming the variable', () => {
    const run = cli(['user', 'list'], { DATABASE_URL: 'postgres://localhost/x' });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('DATABASE_URL');
  });
});

describe('commands on one database', () => {
  const passwords: Record<string, string> = {};
  const ROLES = ['administrator', 'editor', 'author', 'contributor', 'subscriber'];

  it('migrate creates the schema and the site, then has nothing left to do', () => {
    const first = cli(['migrate'], { CMS_MIGRATIONS_RUN: 'false' });
    expect(first).toMatchObject({ code: 0, stderr: '' });
    expect(first.stdout).toContain('Applied 4 migration(s): InitialSchema1732147200000, SqliteCoveringKeys1763683200000, CommentQueryKeys1764028800000, VersionStamps1764633600000');
    expect(first.stdout).toContain('Installed the default site');
    const again = cli(['migrate']);
    expect(again).toMatchObject({ code: 0, stderr: '' });
    expect(again.stdout).toBe('Schema up to date: no migration to run.\nSite already installed.\n');
  });

  it('user create makes a user of each role; a password is generated and printed when none is given', async () => {
    const admin = cli(['user', 'create', 'admin', 'admin@example.com', '--role', 'administrator', '--password', 'admin-pass-1']);
    expect(admin).toMatchObject({ code: 0, stderr: '' });
    expect(admin.stdout).toBe('Created user 1 "admin" (administrator).\n');
    passwords.admin = 'admin-pass-1';
    for (const role of ROLES.slice(1)) {
      const run = cli(['user', 'create', `the-${role}`, `${role}@example.com`, `--role=${role}`]);
      expect(run).toMatchObject({ code: 0, stderr: '' });
      const match = /^Created user (\d+) "the-[a-z]+" \(([a-z]+)\)\.\nPassword: ([A-Za-z0-9]{24})\n$/.exec(run.stdout);
      expect(match?.[2]).toBe(role);
      passwords[`the-${role}`] = match![3];
    }
    await withDataSource(async (ds) => {
      const users = await ds.getRepository(UserEntity).find({ order: { id: 'ASC' } });
      expect(users.map((u) => u.login)).toEqual(['admin', ...ROLES.slice(1).map((r) => `the-${r}`)]);
      for (const user of users) expect(verifyWordPressPassword(passwords[user.login], user.pass)).toBe(true);
      const meta = ds.getRepository(UserMetaEntity);
      const levels = { administrator: '10', editor: '7', author: '2', contributor: '1', subscriber: '0' };
      for (const [i, role] of ROLES.entries()) {
        const userId = users[i].id;
        expect((await meta.findOneByOrFail({ userId, key: `${PREFIX}capabilities` })).value).toBe(
          `a:1:{s:${role.length}:"${role}";b:1;}`,
        );
        expect((await meta.findOneByOrFail({ userId, key: `${PREFIX}user_level` })).value).toBe(levels[role as keyof typeof levels]);
      }
    });
  });

  it('user create without --role gives the default role (subscriber)', () => {
    const run = cli(['user', 'create', 'plain', 'plain@example.com', '--password', 'plain-pass']);
    expect(run).toMatchObject({ code: 0, stderr: '', stdout: 'Created user 6 "plain" (subscriber).\n' });
  });

  it.each([
    [['user', 'create', 'admin', 'other@example.com', '--role', 'editor'], 'Error: Sorry, that username already exists!'],
    [['user', 'create', 'ADMIN', 'other@example.com'], 'Error: Sorry, that username already exists!'],
    [['user', 'create', 'other', 'admin@example.com'], 'Error: Sorry, that email address is already used!'],
    [['user', 'create', 'other', 'other@example.com', '--role', 'overlord'], 'Error: Unknown role "overlord". Roles: administrator, editor, author, contributor, subscriber.'],
    [['user', 'create', 'bad/name', 'bad@example.com'], 'illegal characters'],
    [['user', 'create', 'other', 'not-an-email'], 'The email address is not correct.'],
  ])('%j fails with exit code 1 and writes nothing', async (args, message) => {
    const run = cli(args);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr.trim()).toContain(message);
    await withDataSource(async (ds) => expect(await ds.getRepository(UserEntity).count()).toBe(6));
  });

  it('user list shows ID, login, e-mail and roles', () => {
    const run = cli(['user', 'list']);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const lines = run.stdout.trimEnd().split('\n').map((line) => line.split(/\s{2,}/));
    expect(lines).toEqual([
      ['ID', 'LOGIN', 'EMAIL', 'ROLES'],
      ['1', 'admin', 'admin@example.com', 'administrator'],
      ['2', 'the-editor', 'editor@example.com', 'editor'],
      ['3', 'the-author', 'author@example.com', 'author'],
      ['4', 'the-contributor', 'contributor@example.com', 'contributor'],
      ['5', 'the-subscriber', 'subscriber@example.com', 'subscriber'],
      ['6', 'plain', 'plain@example.com', 'subscriber'],
    ]);
  });

  describe('app-password create', () => {
    let port: number;
    let server: ReturnType<typeof startServer>;
    const created: string[] = [];

    it('prints only the new password, with a trailing newline', async () => {
      const run = cli(['app-password', 'create', 'admin']);
      expect(run).toMatchObject({ code: 0, stderr: '' });
      expect(run.stdout).toMatch(/^[A-Za-z0-9]{24}\n$/);
      created.push(run.stdout.trim());
      const named = cli(['app-password', 'create', 'the-editor', 'deploy bot']);
      expect(named.stdout).toMatch(/^[A-Za-z0-9]{24}\n$/);
      created.push(named.stdout.trim());
      await withDataSource(async (ds) => {
        const row = await ds.getRepository(UserMetaEntity).findOneByOrFail({ userId: 1, key: '_application_passwords' });
        expect(row.value).toMatch(
          /^a:1:\{i:0;a:7:\{s:4:"uuid";s:36:"[0-9a-f-]{36}";s:6:"app_id";s:0:"";s:4:"name";s:3:"cli";s:8:"password";s:34:"\$P\$B[./0-9A-Za-z]{30}";s:7:"created";i:\d+;s:9:"last_used";N;s:7:"last_ip";N;\}\}$/,
        );
      });
    });

    it('works through npm: PASS=$(npm run -s cms -- app-password create admin)', () => {
      // `npm run cms` runs dist/cli.js; with a private build (CMS_TEST_DIST) the same shell capture runs that one.
      const command = process.env.CMS_TEST_DIST ? `node '${CLI}'` : 'npm run -s cms --';
      const stdout = execFileSync('sh', ['-c', `PASS=$(${command} app-password create admin "from npm") && printf "[%s]" "$PASS"`], {
        cwd: ROOT,
        env: { ...process.env, ...baseEnv() },
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
        timeout: 60000,
      });
      expect(stdout).toMatch(/^\[[A-Za-z0-9]{24}\]$/);
      created.push(stdout.slice(1, -1));
    });

    it.each([
      [['app-password', 'create', 'nobody'], 'Error: Unknown user "nobody".'],
      [['app-password', 'create', 'admin', 'CLI'], 'Error: Each application name should be unique.'],
      [['app-password', 'create', 'admin', ' '], 'Error: An application name is required to create an application password.'],
    ])('%j fails with exit code 1', (args, message) => {
      const run = cli(args);
      expect(run).toMatchObject({ code: 1, stdout: '' });
      expect(run.stderr.trim()).toBe(message);
    });

    it('the printed passwords authenticate against the server (node dist/main) on the same database', async () => {
      port = await freePort();
      server = startServer(port);
      try {
        await waitForServer(`http://127.0.0.1:${port}/cms-json/`, server);
        const url = `http://127.0.0.1:${port}/cms-json/cms/v2/types?context=edit`;
        for (const [login, password] of [['admin', created[0]], ['the-editor', created[1]], ['admin', created[2]]]) {
          const res = await fetch(url, { headers: { Authorization: basic(login, password) } });
          expect(res.status).toBe(200);
          expect(Object.keys((await res.json()) as object)).toContain('post');
        }
        expect((await fetch(url)).status).toBe(401);
        expect((await fetch(url, { headers: { Authorization: basic('admin', 'x'.repeat(24)) } })).status).toBe(401);
        // The login password is not an application password.
        expect((await fetch(url, { headers: { Authorization: basic('admin', passwords.admin) } })).status).toBe(401);
      } finally {
        server.child.kill('SIGTERM');
        if (server.child.exitCode === null) await once(server.child, 'exit');
      }
    });
  });
});
