import 'reflect-metadata';
import { ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource, In } from 'typeorm';
import { verifyWordPressPassword } from '../../src/core/auth/password-hash';
import { buildDataSourceOptions } from '../../src/core/database/data-source-options';
import { UserMetaEntity } from '../../src/core/database/entities/user-meta.entity';
import { UserEntity } from '../../src/core/database/entities/user.entity';
import { dropTestDatabase, testDatabaseKind, testDatabaseUrl, withTestDataSource } from '../utils/test-db';
import { createPost } from '../factories/post.factory';
import { PostEntity } from '../../src/core/database/entities/post.entity';
import { OptionEntity } from '../../src/core/database/entities/option.entity';
import { COMMANDS } from '../../src/admin-cli/commands';
import { freePort } from '../utils/standalone-server';
import { CliRun, runCliInProcess } from '../utils/cli-in-process';

/**
 * The administration CLI (`node dist/cli.js`, `npm run cms -- ...`) against a real database: arguments, help, exit
 * codes and `npm run` through the binary (`cli`), the commands' work through `runCli` in this process (`command`).
 */

const ROOT = join(__dirname, '..', '..');
/** The build under test: `dist/` (built by `npm test`'s pretest), or `CMS_TEST_DIST` (a private build). */
const DIST = process.env.CMS_TEST_DIST ?? join(ROOT, 'dist');
const CLI = join(DIST, 'cli.js');
const MAIN = join(DIST, 'main.js');
const PREFIX = 'cms_';

let dir: string;
let databaseUrl: string;

type Run = CliRun;

function baseEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? dir,
    DATABASE_URL: databaseUrl,
    CMS_TABLE_PREFIX: PREFIX,
    ...extra,
  };
}

/** Runs `node dist/cli.js <args>` and collects its exit code and output. */
function cli(args: string[], extra: Record<string, string> = {}): Run {
  const result = spawnSync(process.execPath, [CLI, ...args], { env: baseEnv(extra), encoding: 'utf8', timeout: 60000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** The same command run in this process (see runCliInProcess): the commands' own behaviour, without a spawn each. */
const command = (args: string[], extra: Record<string, string> = {}): Promise<Run> =>
  runCliInProcess(args, baseEnv(extra));

const withDataSource = <T>(work: (ds: DataSource) => Promise<T>) => withTestDataSource(databaseUrl, PREFIX, work);

function startServer(port: number): { child: ChildProcess; output: () => string } {
  let output = '';
  const child = spawn(process.execPath, [MAIN], {
    env: baseEnv({ PORT: String(port) }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
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
  if (!existsSync(CLI) || !existsSync(MAIN))
    throw new Error('dist/cli.js is missing: npm test builds it first (pretest), or run npx nest build');
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
    for (const command of ['user create', 'user list', 'app-password create', 'migrate', 'help'])
      expect(run.stdout).toContain(command);
    expect(cli(['--help']).code).toBe(0);
  });

  it('every command and command group answers --help on stdout with exit code 0', () => {
    const help = cli(['help']).stdout;
    for (const spec of COMMANDS) {
      expect(help).toContain(spec.name);
      // The three ways to ask, tried on one command; `--help` on every command.
      const ways =
        spec.name === 'user delete'
          ? [
              ['user', 'delete', '--help'],
              ['help', 'user', 'delete'],
              ['user', 'delete', 'x', '-h'],
            ]
          : [[...spec.name.split(' '), '--help']];
      for (const args of ways) {
        const run = cli(args);
        expect(run).toMatchObject({ code: 0, stderr: '' });
        expect(run.stdout).toContain(`Usage: npm run cms -- ${spec.name}`);
        expect(run.stdout).toContain(spec.summary);
        for (const option of [...Object.keys(spec.options ?? {}), ...Object.keys(spec.flags ?? {})])
          expect(run.stdout).toContain(`--${option}`);
      }
    }
    for (const group of ['user', 'app-password', 'option']) {
      const run = cli([group, '--help']);
      expect(run).toMatchObject({ code: 0, stderr: '' });
      for (const spec of COMMANDS.filter((c) => c.name.startsWith(`${group} `)))
        expect(run.stdout).toContain(spec.name);
    }
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
    [['user', 'frob', 'x'], 'Unknown command "user frob"'],
    [['user', 'delete'], 'Missing <user>'],
    [['user', 'set-role', 'x'], 'Missing <role>'],
    [['option', 'set', 'x', '1', '--json=yes'], 'Option --json takes no value'],
    [['export', '--format', 'json'], 'Unknown option --format'],
    [['import'], 'Missing <file>'],
    [['help', 'nothing'], 'Unknown command "nothing"'],
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

  it('migrate creates the schema and the site, then has nothing left to do', async () => {
    const first = await command(['migrate'], { CMS_MIGRATIONS_RUN: 'false' });
    expect(first).toMatchObject({ code: 0, stderr: '' });
    expect(first.stdout).toContain(
      'Applied 11 migration(s): InitialSchema1732147200000, SqliteCoveringKeys1763683200000, CommentQueryKeys1764028800000, VersionStamps1764633600000, PostVersions1764806400000, RevisionKeys1764892800000, PostVersionKeys1764979200000, ClusterLocks1765152000000, UploadJournal1765238400000, PostListKeys1765324800000, Webhooks1765411200000',
    );
    expect(first.stdout).toContain('Installed the default site');
    const again = await command(['migrate']);
    expect(again).toMatchObject({ code: 0, stderr: '' });
    expect(again.stdout).toBe('Schema up to date: no migration to run.\nSite already installed.\n');
  });

  it('user create makes a user of each role; a password is generated and printed when none is given', async () => {
    const admin = await command([
      'user',
      'create',
      'admin',
      'admin@example.com',
      '--role',
      'administrator',
      '--password',
      'admin-pass-1',
    ]);
    expect(admin).toMatchObject({ code: 0, stderr: '' });
    expect(admin.stdout).toBe('Created user 1 "admin" (administrator).\n');
    passwords.admin = 'admin-pass-1';
    for (const role of ROLES.slice(1)) {
      const run = await command(['user', 'create', `the-${role}`, `${role}@example.com`, `--role=${role}`]);
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
        expect((await meta.findOneByOrFail({ userId, key: `${PREFIX}user_level` })).value).toBe(
          levels[role as keyof typeof levels],
        );
      }
    });
  });

  it('user create without --role gives the default role (subscriber)', async () => {
    const run = await command(['user', 'create', 'plain', 'plain@example.com', '--password', 'plain-pass']);
    expect(run).toMatchObject({ code: 0, stderr: '', stdout: 'Created user 6 "plain" (subscriber).\n' });
  });

  it.each([
    [
      ['user', 'create', 'admin', 'other@example.com', '--role', 'editor'],
      'Error: Sorry, that username already exists!',
    ],
    [['user', 'create', 'ADMIN', 'other@example.com'], 'Error: Sorry, that username already exists!'],
    [['user', 'create', 'other', 'admin@example.com'], 'Error: Sorry, that email address is already used!'],
    [
      ['user', 'create', 'other', 'other@example.com', '--role', 'overlord'],
      'Error: Unknown role "overlord". Roles: administrator, editor, author, contributor, subscriber.',
    ],
    [['user', 'create', 'bad/name', 'bad@example.com'], 'illegal characters'],
    [['user', 'create', 'other', 'not-an-email'], 'The email address is not correct.'],
  ])('%j fails with exit code 1 and writes nothing', async (args, message) => {
    const run = await command(args);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr.trim()).toContain(message);
    await withDataSource(async (ds) => expect(await ds.getRepository(UserEntity).count()).toBe(6));
  });

  it('user list shows ID, login, e-mail and roles', async () => {
    const run = await command(['user', 'list']);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const lines = run.stdout
      .trimEnd()
      .split('\n')
      .map((line) => line.split(/\s{2,}/));
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
      const run = await command(['app-password', 'create', 'admin']);
      expect(run).toMatchObject({ code: 0, stderr: '' });
      expect(run.stdout).toMatch(/^[A-Za-z0-9]{24}\n$/);
      created.push(run.stdout.trim());
      // By ID as well as by login.
      const named = await command(['app-password', 'create', '2', 'deploy bot']);
      expect(named.stdout).toMatch(/^[A-Za-z0-9]{24}\n$/);
      created.push(named.stdout.trim());
      await withDataSource(async (ds) => {
        const row = await ds
          .getRepository(UserMetaEntity)
          .findOneByOrFail({ userId: 1, key: '_application_passwords' });
        expect(row.value).toMatch(
          /^a:1:\{i:0;a:7:\{s:4:"uuid";s:36:"[0-9a-f-]{36}";s:6:"app_id";s:0:"";s:4:"name";s:3:"cli";s:8:"password";s:34:"\$P\$B[./0-9A-Za-z]{30}";s:7:"created";i:\d+;s:9:"last_used";N;s:7:"last_ip";N;\}\}$/,
        );
      });
    });

    it('works through npm: PASS=$(npm run -s cms -- app-password create admin)', async () => {
      // `npm run cms` runs dist/cli.js; with a private build (CMS_TEST_DIST) the same shell capture runs that one.
      const command = process.env.CMS_TEST_DIST ? `node '${CLI}'` : 'npm run -s cms --';
      const stdout = execFileSync(
        'sh',
        ['-c', `PASS=$(${command} app-password create admin "from npm") && printf "[%s]" "$PASS"`],
        {
          cwd: ROOT,
          env: { ...process.env, ...baseEnv() },
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'ignore'],
          timeout: 60000,
        },
      );
      expect(stdout).toMatch(/^\[[A-Za-z0-9]{24}\]$/);
      created.push(stdout.slice(1, -1));
    });

    it.each([
      [['app-password', 'create', 'nobody'], 'Error: Unknown user "nobody".'],
      [['app-password', 'create', 'admin', 'CLI'], 'Error: Each application name should be unique.'],
      [
        ['app-password', 'create', 'admin', ' '],
        'Error: An application name is required to create an application password.',
      ],
    ])('%j fails with exit code 1', async (args, message) => {
      const run = await command(args);
      expect(run).toMatchObject({ code: 1, stdout: '' });
      expect(run.stderr.trim()).toBe(message);
    });

    it('the printed passwords authenticate against the server (node dist/main) on the same database', async () => {
      port = await freePort();
      server = startServer(port);
      try {
        await waitForServer(`http://127.0.0.1:${port}/cms-json/`, server);
        const url = `http://127.0.0.1:${port}/cms-json/cms/v2/types?context=edit`;
        for (const [login, password] of [
          ['admin', created[0]],
          ['the-editor', created[1]],
          ['admin', created[2]],
        ]) {
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

  describe('app-password list and revoke', () => {
    it('list shows UUID, name, dates and last IP, never a password or its hash', async () => {
      const run = await command(['app-password', 'list', 'admin']);
      expect(run).toMatchObject({ code: 0, stderr: '' });
      const lines = run.stdout
        .trimEnd()
        .split('\n')
        .map((line) => line.split(/\s{2,}/));
      expect(lines[0]).toEqual(['UUID', 'NAME', 'CREATED', 'LAST USED', 'LAST IP']);
      expect(lines.slice(1).map((l) => l[1])).toEqual(['cli', 'from npm']);
      for (const line of lines.slice(1)) {
        expect(line[0]).toMatch(/^[0-9a-f-]{36}$/);
        expect(line[2]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      }
      expect(run.stdout).not.toMatch(/\$P\$|\$wp\$|\$2y\$/);
      // By ID as well as by login.
      expect((await command(['app-password', 'list', '1'])).stdout).toBe(run.stdout);
    });

    it('revoke removes one password by UUID, or all with --all', async () => {
      const [uuid] = (await command(['app-password', 'list', 'admin'])).stdout.split('\n')[1].split(/\s+/);
      const run = await command(['app-password', 'revoke', 'admin', uuid]);
      expect(run).toMatchObject({
        code: 0,
        stderr: '',
        stdout: `Revoked the application password ${uuid} of "admin".\n`,
      });
      const left = (await command(['app-password', 'list', 'admin'])).stdout;
      expect(left).not.toContain(uuid);
      expect(left).toContain('from npm');
      expect(await command(['app-password', 'revoke', 'the-editor', '--all'])).toMatchObject({
        code: 0,
        stdout: 'Revoked 1 application password(s) of "the-editor".\n',
      });
      await withDataSource(async (ds) => {
        const row = await ds
          .getRepository(UserMetaEntity)
          .findOneByOrFail({ userId: 2, key: '_application_passwords' });
        expect(row.value).toBe('a:0:{}');
      });
    });

    it.each([
      [
        ['app-password', 'revoke', 'admin', '00000000-0000-4000-8000-000000000000'],
        'Error: Unknown application password "00000000-0000-4000-8000-000000000000" of "admin".',
      ],
      [['app-password', 'revoke', 'admin'], 'Error: Missing <uuid> (or --all).'],
      [['app-password', 'revoke', 'admin', 'x', '--all'], 'Error: Pass either a UUID or --all, not both.'],
      [['app-password', 'list', 'nobody'], 'Error: Unknown user "nobody".'],
    ])('%j fails with exit code 1', async (args, message) => {
      const run = await command(args);
      expect(run).toMatchObject({ code: 1, stdout: '' });
      expect(run.stderr).toContain(message);
    });
  });

  describe('user set-role, reset-password and delete', () => {
    it('set-role replaces the roles and the user level', async () => {
      const run = await command(['user', 'set-role', 'the-subscriber', 'author']);
      expect(run).toMatchObject({ code: 0, stderr: '', stdout: 'User 5 "the-subscriber" now has the role author.\n' });
      await withDataSource(async (ds) => {
        const meta = ds.getRepository(UserMetaEntity);
        expect((await meta.findOneByOrFail({ userId: 5, key: `${PREFIX}capabilities` })).value).toBe(
          'a:1:{s:6:"author";b:1;}',
        );
        expect((await meta.findOneByOrFail({ userId: 5, key: `${PREFIX}user_level` })).value).toBe('2');
      });
      expect((await command(['user', 'list'])).stdout).toMatch(
        /\n5\s+the-subscriber\s+subscriber@example\.com\s+author\n/,
      );
    });

    it.each([
      [
        ['user', 'set-role', 'the-subscriber', 'overlord'],
        'Error: Unknown role "overlord". Roles: administrator, editor, author, contributor, subscriber.',
      ],
      [['user', 'set-role', 'nobody', 'author'], 'Error: Unknown user "nobody".'],
      [['user', 'reset-password', '99'], 'Error: Unknown user "99".'],
      [['user', 'reset-password', 'plain', '--password', ''], 'Error: The password cannot be empty.'],
    ])('%j fails with exit code 1', async (args, message) => {
      const run = await command(args);
      expect(run).toMatchObject({ code: 1, stdout: '' });
      expect(run.stderr.trim()).toBe(message);
    });

    it('reset-password prints a generated password (or takes --password) and ends the sessions', async () => {
      await withDataSource((ds) =>
        ds.getRepository(UserMetaEntity).insert({ userId: 6, key: 'session_tokens', value: 'a:0:{}' }),
      );
      const run = await command(['user', 'reset-password', 'plain']);
      expect(run).toMatchObject({ code: 0, stderr: '' });
      const match = /^Reset the password of user 6 "plain"\.\nPassword: ([A-Za-z0-9]{24})\n$/.exec(run.stdout);
      expect(match).not.toBeNull();
      await withDataSource(async (ds) => {
        const user = await ds.getRepository(UserEntity).findOneByOrFail({ id: 6 });
        expect(verifyWordPressPassword(match![1], user.pass)).toBe(true);
        expect(verifyWordPressPassword('plain-pass', user.pass)).toBe(false);
        expect(await ds.getRepository(UserMetaEntity).countBy({ userId: 6, key: 'session_tokens' })).toBe(0);
      });
      const given = await command(['user', 'reset-password', '6', '--password', 'chosen-pass-9']);
      expect(given).toMatchObject({ code: 0, stderr: '', stdout: 'Reset the password of user 6 "plain".\n' });
      await withDataSource(async (ds) =>
        expect(
          verifyWordPressPassword(
            'chosen-pass-9',
            (await ds.getRepository(UserEntity).findOneByOrFail({ id: 6 })).pass,
          ),
        ).toBe(true),
      );
    });

    it('delete refuses a user with posts unless told what to do with them', async () => {
      const ids = await withDataSource(async (ds) => [
        (await createPost(ds, { author: 3 })).id,
        (await createPost(ds, { author: 3, type: 'page' })).id,
      ]);
      const refused = await command(['user', 'delete', 'the-author']);
      expect(refused).toMatchObject({ code: 1, stdout: '' });
      expect(refused.stderr.trim()).toBe(
        'Error: User "the-author" has 2 post(s): pass --reassign <user> to give them to another user, or --delete-content to delete them.',
      );
      expect((await command(['user', 'delete', 'the-author', '--reassign', 'the-author'])).stderr.trim()).toBe(
        'Error: Cannot reassign the posts of "the-author" to the same user.',
      );
      expect((await command(['user', 'delete', 'the-author', '--reassign', 'nobody'])).stderr.trim()).toBe(
        'Error: Unknown user "nobody".',
      );
      expect((await command(['user', 'delete', 'the-author', '--reassign', 'admin', '--delete-content'])).code).toBe(1);
      await withDataSource(async (ds) => expect(await ds.getRepository(UserEntity).countBy({ id: 3 })).toBe(1));

      const run = await command(['user', 'delete', 'the-author', '--reassign', 'the-editor']);
      expect(run).toMatchObject({
        code: 0,
        stderr: '',
        stdout: 'Deleted user 3 "the-author"; 2 post(s) reassigned to "the-editor".\n',
      });
      await withDataSource(async (ds) => {
        expect(await ds.getRepository(UserEntity).countBy({ id: 3 })).toBe(0);
        expect(await ds.getRepository(UserMetaEntity).countBy({ userId: 3 })).toBe(0);
        const posts = await ds.getRepository(PostEntity).findBy({ id: In(ids) });
        expect(posts.map((p) => Number(p.author))).toEqual([2, 2]);
      });
    });

    it('delete --delete-content deletes their posts; a user without posts goes at once', async () => {
      const post = await withDataSource((ds) => createPost(ds, { author: 4 }));
      expect(await command(['user', 'delete', '4', '--delete-content'])).toMatchObject({
        code: 0,
        stderr: '',
        stdout: 'Deleted user 4 "the-contributor"; their posts were deleted.\n',
      });
      expect(await command(['user', 'delete', 'the-subscriber'])).toMatchObject({
        code: 0,
        stderr: '',
        stdout: 'Deleted user 5 "the-subscriber".\n',
      });
      await withDataSource(async (ds) => {
        expect(await ds.getRepository(PostEntity).countBy({ id: post.id })).toBe(0);
        expect((await ds.getRepository(UserEntity).find({ order: { id: 'ASC' } })).map((u) => u.login)).toEqual([
          'admin',
          'the-editor',
          'plain',
        ]);
      });
      expect((await command(['user', 'delete', 'the-subscriber'])).stderr.trim()).toBe(
        'Error: Unknown user "the-subscriber".',
      );
    });
  });

  describe('option get and set', () => {
    const versionOf = (ds: DataSource, group: string) =>
      ds
        .query(`SELECT version FROM ${PREFIX}cms_versions WHERE name = ?`, [group])
        .then((rows: Array<{ version: number | string }>) => Number(rows[0].version));

    it('get prints text as it is and PHP-serialized values as JSON', async () => {
      expect(await command(['option', 'get', 'blogname'])).toMatchObject({
        code: 0,
        stderr: '',
        stdout: 'My CMS Site\n',
      });
      const roles = await command(['option', 'get', `${PREFIX}user_roles`]);
      expect(roles.code).toBe(0);
      const parsed = JSON.parse(roles.stdout) as Record<
        string,
        { name: string; capabilities: Record<string, boolean> }
      >;
      expect(parsed.editor.name).toBe('Editor');
      expect(parsed.administrator.capabilities.manage_options).toBe(true);
    });

    it('set stores text, and --json structured values PHP-serialized; the options version moves', async () => {
      const before = await withDataSource((ds) => versionOf(ds, 'options'));
      expect(await command(['option', 'set', 'blogname', 'Renamed & <b>bold</b>'])).toMatchObject({
        code: 0,
        stderr: '',
        stdout: 'Set option "blogname".\n',
      });
      expect((await command(['option', 'get', 'blogname'])).stdout).toBe('Renamed & <b>bold</b>\n');
      expect((await command(['option', 'set', 'cms_test_list', '["a",{"b":1,"c":[true,2.5]}]', '--json'])).code).toBe(
        0,
      );
      expect(JSON.parse((await command(['option', 'get', 'cms_test_list'])).stdout)).toEqual([
        'a',
        { b: 1, c: [true, 2.5] },
      ]);
      await withDataSource(async (ds) => {
        const row = await ds.getRepository(OptionEntity).findOneByOrFail({ name: 'cms_test_list' });
        expect(row.value).toBe('a:2:{i:0;s:1:"a";i:1;a:2:{s:1:"b";i:1;s:1:"c";a:2:{i:0;b:1;i:1;d:2.5;}}}');
        // A new random value (see VersionStamps), not an increment.
        expect(await versionOf(ds, 'options')).not.toBe(before);
      });
    });

    it.each([
      [['option', 'get', 'no_such_option'], 'Error: Unknown option "no_such_option".'],
      [['option', 'set', 'cms_bad', '{"a":', '--json'], 'Error: Invalid JSON value for "cms_bad"'],
      [['option', 'set', 'cms_bad', 'null', '--json'], 'Error: Invalid value for "cms_bad": null cannot be stored'],
      [['option', 'set', 'x'.repeat(192), '1'], 'Error: Invalid option name'],
    ])('%j fails with exit code 1 and stores nothing', async (args, message) => {
      const run = await command(args);
      expect(run).toMatchObject({ code: 1, stdout: '' });
      expect(run.stderr).toContain(message);
      await withDataSource(async (ds) =>
        expect(await ds.getRepository(OptionEntity).countBy({ name: 'cms_bad' })).toBe(0),
      );
    });
  });

  describe('migrate:status', () => {
    it('lists every migration as applied once migrated', async () => {
      const run = await command(['migrate:status']);
      expect(run).toMatchObject({ code: 0, stderr: '' });
      const lines = run.stdout
        .trimEnd()
        .split('\n')
        .map((line) => line.split(/\s{2,}/));
      expect(lines[0]).toEqual(['MIGRATION', 'STATUS']);
      expect(lines.slice(1, 12)).toEqual(
        [
          'InitialSchema1732147200000',
          'SqliteCoveringKeys1763683200000',
          'CommentQueryKeys1764028800000',
          'VersionStamps1764633600000',
          'PostVersions1764806400000',
          'RevisionKeys1764892800000',
          'PostVersionKeys1764979200000',
          'ClusterLocks1765152000000',
          'UploadJournal1765238400000',
          'PostListKeys1765324800000',
          'Webhooks1765411200000',
        ].map((m) => [m, 'applied']),
      );
      expect(lines[12]).toEqual(['Schema up to date.']);
    });

    it('lists them as pending on an empty database, and writes nothing there', async () => {
      const url =
        testDatabaseKind() === 'sqlite' ? `sqlite:${join(dir, 'empty.sqlite')}` : await testDatabaseUrl('cli_status');
      try {
        const run = await command(['migrate:status'], { DATABASE_URL: url });
        expect(run).toMatchObject({ code: 0, stderr: '' });
        expect(run.stdout).toMatch(/\nInitialSchema1732147200000 +pending\n/);
        expect(run.stdout).toContain('11 pending: run "npm run cms -- migrate".');
        const ds = new DataSource(buildDataSourceOptions({ databaseUrl: url, tablePrefix: PREFIX }));
        await ds.initialize();
        try {
          const runner = ds.createQueryRunner();
          for (const table of ['posts', 'options', 'users', 'cms_migrations', 'cms_versions', 'cms_post_versions'])
            expect(await runner.hasTable(`${PREFIX}${table}`)).toBe(false);
          await runner.release();
        } finally {
          await ds.destroy();
        }
      } finally {
        await dropTestDatabase('cli_status');
      }
    });
  });
});
