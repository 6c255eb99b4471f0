import { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import {
  resolveUser,
  runAppPasswordCommand,
  runMigrateStatus,
  runOptionCommand,
  runUserCommand,
  CliOutput,
} from './admin-commands';
import { CliError, Invocation, table } from './command-line';
import { runExport } from './wxr-export';
import { runImport } from './import-command';
import { runWebhookCommand } from './webhook-commands';
import { runSearchReplace, tablesOption } from './search-replace';
import { runSiteUrlGet, runSiteUrlSet } from './site-url';
import { RolesService } from '../core/auth/roles.service';
import { StampTriggersService } from '../core/database/stamp-triggers';
import { ApplicationPasswords } from '../core/auth/application-passwords.service';
import { UserAccountsService } from '../core/auth/user-accounts.service';
import { generatePassword } from '../core/auth/user-records';
import { BootstrapReport, SiteBootstrapService } from '../core/bootstrap/site-bootstrap.service';
import { RestException } from '../core/errors/rest.exception';
import { SiteModule } from '../standalone/site.module';
import { CmsEnvironment } from '../standalone/env';

/**
 * Runs one parsed command on the site's database (the CLI's entry, src/cli.ts, loads this module only once the
 * command line is valid: help and usage errors need none of it).
 */

function describeBootstrap(report: BootstrapReport): string {
  const lines = [
    report.migrations.length
      ? `Applied ${report.migrations.length} migration(s): ${report.migrations.join(', ')}`
      : 'Schema up to date: no migration to run.',
    report.siteInstalled
      ? 'Installed the default site (options, roles, Uncategorized category).'
      : 'Site already installed.',
  ];
  if (report.adminCreated) lines.push(`Created the administrator "${report.adminCreated}".`);
  return lines.join('\n') + '\n';
}

async function execute(app: INestApplicationContext, inv: Invocation, output: CliOutput): Promise<number> {
  const accounts = app.get(UserAccountsService);
  switch (inv.spec.name) {
    case 'migrate':
      output.out(describeBootstrap(await app.get(SiteBootstrapService).bootstrap()));
      return 0;
    case 'migrate:status':
      await runMigrateStatus(app, output);
      return 0;
    case 'triggers install':
      output.out(`Installed ${await app.get(StampTriggersService).install()} stamp triggers.\n`);
      return 0;
    case 'triggers remove':
      output.out(`Removed ${await app.get(StampTriggersService).remove()} stamp triggers.\n`);
      return 0;
    case 'triggers status': {
      const status = await app.get(StampTriggersService).status();
      output.out(
        status.state === 'installed'
          ? `Installed (${status.installed.length} triggers): writes made outside this API move the version stamps.\n`
          : status.state === 'absent'
            ? 'Not installed: only writes through this API move the version stamps.\n'
            : `Incomplete: ${status.installed.length} of ${status.installed.length + status.missing.length} triggers; missing ${status.missing.join(', ')}. Run "triggers install".\n`,
      );
      return 0;
    }
    case 'user list': {
      const users = await accounts.listUsers();
      output.out(
        table(
          ['ID', 'LOGIN', 'EMAIL', 'ROLES'],
          users.map((u) => [String(u.id), u.login, u.email, u.roles.join(',')]),
        ),
      );
      return 0;
    }
    case 'user create': {
      const password = inv.options.password;
      const generated = password === undefined ? generatePassword(24) : undefined;
      const user = await accounts.createUser({
        login: String(inv.values.username),
        email: String(inv.values.email),
        password: password ?? generated,
        roles: inv.options.role === undefined ? undefined : [inv.options.role],
      });
      const [summary] = (await accounts.listUsers()).filter((u) => u.id === Number(user.id));
      output.out(
        `Created user ${user.id} "${user.login}"${summary?.roles.length ? ` (${summary.roles.join(', ')})` : ''}.\n`,
      );
      if (generated) output.out(`Password: ${generated}\n`);
      return 0;
    }
    case 'user delete':
    case 'user set-role':
    case 'user reset-password':
      await runUserCommand(app, inv, output);
      return 0;
    case 'app-password create': {
      const user = await resolveUser(app, String(inv.values.username));
      const { password } = await app
        .get(ApplicationPasswords)
        .createApplicationPassword(Number(user.id), inv.values.name ?? 'cli');
      output.out(`${password}\n`);
      return 0;
    }
    case 'app-password list':
    case 'app-password revoke':
      await runAppPasswordCommand(app, inv, output);
      return 0;
    case 'webhook create':
    case 'webhook list':
    case 'webhook delete':
      await runWebhookCommand(app, inv, output);
      return 0;
    case 'option get':
    case 'option set':
      await runOptionCommand(app, inv, output);
      return 0;
    case 'site-url get':
      await runSiteUrlGet(app, output);
      return 0;
    case 'site-url set':
      await runSiteUrlSet(
        app,
        String(inv.values.url),
        {
          searchReplace: inv.flags.has('search-replace'),
          dryRun: inv.flags.has('dry-run'),
          tables: tablesOption(inv.options.tables),
        },
        output,
      );
      return 0;
    case 'search-replace':
      await runSearchReplace(
        app,
        String(inv.values.old),
        String(inv.values.new),
        { dryRun: inv.flags.has('dry-run'), tables: tablesOption(inv.options.tables) },
        (text) => output.out(text),
      );
      return 0;
    case 'import':
      return (await runImport(app, String(inv.values.file), output, inv)) ? 0 : 1;
    case 'export':
      await runExport(app, { output: inv.options.output, postTypes: inv.options['post-type'] }, output);
      return 0;
    default:
      throw new CliError(`Unknown command "${inv.spec.name}".`);
  }
}

/** Commands that only read: they start without running the migrations (`migrate` runs them itself, to report). */
const NO_MIGRATIONS = ['migrate', 'migrate:status', 'triggers status'];

/**
 * Runs a parsed invocation and returns the exit code. Boots the site's Nest context (SiteModule: no HTTP server, no
 * health checks, no Nest logs) from `env`; `migrate` always runs the migrations, whatever CMS_MIGRATIONS_RUN says.
 */
export async function runCommand(inv: Invocation, env: CmsEnvironment, output: CliOutput): Promise<number> {
  if (NO_MIGRATIONS.includes(inv.spec.name))
    env = Object.assign(new CmsEnvironment(), env, { CMS_MIGRATIONS_RUN: 'false' });
  let app: INestApplicationContext | undefined;
  try {
    app = await NestFactory.createApplicationContext(SiteModule.fromEnvironment(env), {
      logger: false,
      abortOnError: false,
    });
    return await execute(app, inv, output);
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
