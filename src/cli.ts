import 'reflect-metadata';
import { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { RolesService } from './core/auth/roles.service';
import { generatePassword, UserAccountsService } from './core/auth/user-accounts.service';
import { BootstrapReport, SiteBootstrapService } from './core/database/site-bootstrap.service';
import { RestException } from './core/rest/rest.exception';
import { AppModule } from './standalone/app.module';
import { CmsEnvironment, loadEnvironment } from './standalone/env';

/**
 * Administration commands on the database of the standalone server (same environment variables):
 *
 *   npm run cms -- user create <username> <email> --role <role> [--password <password>]
 *   npm run cms -- user list
 *   npm run cms -- app-password create <username> [name]
 *   npm run cms -- migrate
 *   npm run cms -- help
 *
 * No HTTP server is started. Errors go to stderr with exit code 1.
 */

export const USAGE = `Usage: npm run cms -- <command>

Commands:
  user create <username> <email> [--role <role>] [--password <password>]
                         Create a user (role default: the site's default role, subscriber).
                         Without --password a password is generated and printed.
  user list              List users: ID, login, e-mail, roles.
  app-password create <username> [name]
                         Create an application password (name default: cli) and print only
                         the password, e.g. PASS=$(npm run -s cms -- app-password create admin)
  migrate                Run the schema migrations and the first-start set-up (default site,
                         CMS_ADMIN_USER administrator) and print what ran.
  help                   Show this help.

The database and options come from the server's environment variables (DATABASE_URL,
CMS_TABLE_PREFIX, ...).
`;

/** An error of the command line: printed as it is, exit code 1. */
export class CliError extends Error {}

/** A parsed command line: positional words and `--name value` / `--name=value` options. */
export interface ParsedArgs {
  positionals: string[];
  options: Record<string, string>;
}

/**
 * Splits `argv` into positionals and options. Only `allowed` option names are accepted, each taking a value;
 * `--` ends the options.
 */
export function parseArgs(argv: readonly string[], allowed: readonly string[] = []): ParsedArgs {
  const positionals: string[] = [];
  const options: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (arg.startsWith('--') && arg.length > 2) {
      const eq = arg.indexOf('=');
      const name = arg.slice(2, eq < 0 ? undefined : eq);
      if (!allowed.includes(name)) throw new CliError(`Unknown option --${name}.`);
      let value: string | undefined;
      if (eq >= 0) value = arg.slice(eq + 1);
      else if (i + 1 < argv.length) value = argv[++i];
      if (value === undefined) throw new CliError(`Option --${name} needs a value.`);
      options[name] = value;
      continue;
    }
    positionals.push(arg);
  }
  return { positionals, options };
}

/** Where the CLI writes (replaceable in tests). */
export interface CliOutput {
  out(text: string): void;
  err(text: string): void;
}

const processOutput: CliOutput = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
};

type Command =
  | { kind: 'help' }
  | { kind: 'migrate' }
  | { kind: 'user-list' }
  | { kind: 'user-create'; login: string; email: string; role?: string; password?: string }
  | { kind: 'app-password-create'; login: string; name: string };

/** Turns the arguments into a command, or throws a {@link CliError} saying what is wrong. */
export function parseCommand(argv: readonly string[]): Command {
  const [command, sub, ...rest] = argv;
  const expectNoMore = (extra: string[], usage: string) => {
    if (extra.length) throw new CliError(`Unexpected argument "${extra[0]}". Usage: ${usage}`);
  };
  switch (command) {
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      return { kind: 'help' };
    case 'migrate':
      expectNoMore(argv.slice(1), 'migrate');
      return { kind: 'migrate' };
    case 'user': {
      if (sub === 'list') {
        expectNoMore(rest, 'user list');
        return { kind: 'user-list' };
      }
      if (sub === 'create') {
        const usage = 'user create <username> <email> [--role <role>] [--password <password>]';
        const { positionals, options } = parseArgs(rest, ['role', 'password']);
        if (positionals.length < 2) throw new CliError(`Missing ${positionals.length ? '<email>' : '<username> and <email>'}. Usage: ${usage}`);
        expectNoMore(positionals.slice(2), usage);
        return { kind: 'user-create', login: positionals[0], email: positionals[1], role: options.role, password: options.password };
      }
      throw new CliError(sub ? `Unknown command "user ${sub}". Run "npm run cms -- help".` : 'Missing sub-command: user create | user list.');
    }
    case 'app-password': {
      if (sub === 'create') {
        const usage = 'app-password create <username> [name]';
        const { positionals } = parseArgs(rest);
        if (positionals.length < 1) throw new CliError(`Missing <username>. Usage: ${usage}`);
        expectNoMore(positionals.slice(2), usage);
        return { kind: 'app-password-create', login: positionals[0], name: positionals[1] ?? 'cli' };
      }
      throw new CliError(sub ? `Unknown command "app-password ${sub}". Run "npm run cms -- help".` : 'Missing sub-command: app-password create.');
    }
    default:
      throw new CliError(`Unknown command "${command}". Run "npm run cms -- help".`);
  }
}

/** Left-aligned text table. */
function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]))).join('  ').trimEnd();
  return [line(header), ...rows.map(line)].join('\n') + '\n';
}

function describeBootstrap(report: BootstrapReport): string {
  const lines = [
    report.migrations.length
      ? `Applied ${report.migrations.length} migration(s): ${report.migrations.join(', ')}`
      : 'Schema up to date: no migration to run.',
    report.siteInstalled ? 'Installed the default site (options, roles, Uncategorized category).' : 'Site already installed.',
  ];
  if (report.adminCreated) lines.push(`Created the administrator "${report.adminCreated}".`);
  return lines.join('\n') + '\n';
}

async function execute(app: INestApplicationContext, command: Command, output: CliOutput): Promise<void> {
  const accounts = app.get(UserAccountsService);
  switch (command.kind) {
    case 'migrate':
      output.out(describeBootstrap(await app.get(SiteBootstrapService).bootstrap()));
      return;
    case 'user-list': {
      const users = await accounts.listUsers();
      output.out(table(['ID', 'LOGIN', 'EMAIL', 'ROLES'], users.map((u) => [String(u.id), u.login, u.email, u.roles.join(',')])));
      return;
    }
    case 'user-create': {
      const generated = command.password === undefined ? generatePassword(24) : undefined;
      const user = await accounts.createUser({
        login: command.login,
        email: command.email,
        password: command.password ?? generated,
        roles: command.role === undefined ? undefined : [command.role],
      });
      const [summary] = (await accounts.listUsers()).filter((u) => u.id === Number(user.id));
      output.out(`Created user ${user.id} "${user.login}"${summary?.roles.length ? ` (${summary.roles.join(', ')})` : ''}.\n`);
      if (generated) output.out(`Password: ${generated}\n`);
      return;
    }
    case 'app-password-create': {
      const user = await accounts.findUserByLogin(command.login);
      if (!user) throw new CliError(`Unknown user "${command.login}".`);
      const { password } = await accounts.createApplicationPassword(Number(user.id), command.name);
      output.out(`${password}\n`);
      return;
    }
    case 'help':
      output.out(USAGE);
  }
}

/**
 * Runs one CLI invocation and returns the exit code. Boots the standalone app's Nest context (no HTTP server,
 * no Nest logs) from `env`; `migrate` always runs the migrations, whatever CMS_MIGRATIONS_RUN says.
 */
export async function runCli(argv: readonly string[], source: NodeJS.ProcessEnv = process.env, output: CliOutput = processOutput): Promise<number> {
  let command: Command;
  let env: CmsEnvironment;
  try {
    command = parseCommand(argv);
    if (command.kind === 'help') {
      (argv.length ? output.out : output.err)(USAGE);
      return argv.length ? 0 : 1;
    }
    env = loadEnvironment(source);
  } catch (error) {
    output.err(`Error: ${(error as Error).message}\n`);
    return 1;
  }
  // `migrate` runs the set-up itself, to report it; other commands migrate on start as the server does.
  if (command.kind === 'migrate') env = Object.assign(new CmsEnvironment(), env, { CMS_MIGRATIONS_RUN: 'false' });
  let app: INestApplicationContext | undefined;
  try {
    app = await NestFactory.createApplicationContext(AppModule.fromEnvironment(env), { logger: false, abortOnError: false });
    await execute(app, command, output);
    return 0;
  } catch (error) {
    if (error instanceof RestException && error.code === 'rest_user_invalid_role' && app) {
      const roles = Object.keys(await app.get(RolesService).roles());
      output.err(`Error: Unknown role "${String(error.data.role)}". Roles: ${roles.join(', ')}.\n`);
    } else {
      output.err(`Error: ${(error as Error)?.message ?? String(error)}\n`);
    }
    return 1;
  } finally {
    await app?.close().catch(() => undefined);
  }
}

if (require.main === module) {
  void runCli(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
