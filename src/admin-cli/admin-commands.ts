import { INestApplicationContext } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { MigrationExecutor } from 'typeorm/migration/MigrationExecutor';
import { ApplicationPasswords } from '../core/auth/application-passwords.service';
import { UserAccountsService } from '../core/auth/user-accounts.service';
import { generatePassword } from '../core/auth/user-records';
import { CMS_DATA_SOURCE } from '../core/database/cms-data-source';
import { PostEntity } from '../core/database/entities/post.entity';
import { UserEntity } from '../core/database/entities/user.entity';
import { UserMetaEntity } from '../core/database/entities/user-meta.entity';
import { writeTransaction } from '../core/database/write-transaction';
import { OptionsService } from '../core/options/options.service';
import { ContentRegistry } from '../core/registry/content-registry.service';
import { UsersService } from '../resources/users/users.service';
import { CliError, Invocation, table } from './command-line';

/** Where the CLI writes (replaceable in tests). */
export interface CliOutput {
  out(text: string): void;
  err(text: string): void;
  /** The terminal progress bars are drawn on (stderr on a terminal, outside CI); without it, plain lines. */
  progress?: NodeJS.WriteStream;
}

const get = <T>(app: INestApplicationContext, token: unknown): T => app.get<T>(token as never, { strict: false });

/** A user by ID (digits) or login, or a {@link CliError} naming it. */
export async function resolveUser(app: INestApplicationContext, ref: string): Promise<UserEntity> {
  const accounts = get<UserAccountsService>(app, UserAccountsService);
  const byLogin = await accounts.findUserByLogin(ref);
  if (byLogin) return byLogin;
  if (/^\d+$/.test(ref)) {
    const byId = await get<DataSource>(app, CMS_DATA_SOURCE)
      .getRepository(UserEntity)
      .findOneBy({ id: Number(ref) });
    if (byId) return byId;
  }
  throw new CliError(`Unknown user "${ref}".`);
}

/** The user commands other than `create` and `list`. */
export async function runUserCommand(app: INestApplicationContext, inv: Invocation, output: CliOutput): Promise<void> {
  const accounts = get<UserAccountsService>(app, UserAccountsService);
  const user = await resolveUser(app, String(inv.values.user));
  const id = Number(user.id);
  switch (inv.spec.name) {
    case 'user delete': {
      const dataSource = get<DataSource>(app, CMS_DATA_SOURCE);
      let reassign: UserEntity | null = null;
      if (inv.options.reassign !== undefined) {
        if (inv.flags.has('delete-content'))
          throw new CliError('Pass either --reassign or --delete-content, not both.');
        reassign = await resolveUser(app, inv.options.reassign);
        if (Number(reassign.id) === id)
          throw new CliError(`Cannot reassign the posts of "${user.login}" to the same user.`);
      }
      // Types whose posts go with their author (wp_delete_user(): delete_with_user, or post_type_supports author).
      const deleteWithUser = get<ContentRegistry>(app, ContentRegistry)
        .allPostTypes()
        .filter((t) => t.delete_with_user === true || (t.delete_with_user == null && t.supports.author !== undefined))
        .map((t) => t.name);
      const posts = await dataSource.getRepository(PostEntity).countBy({ author: id });
      if (posts && !reassign && !inv.flags.has('delete-content')) {
        throw new CliError(
          `User "${user.login}" has ${posts} post(s): pass --reassign <user> to give them to another user, or --delete-content to delete them.`,
        );
      }
      await get<UsersService>(app, UsersService).delete(id, reassign ? Number(reassign.id) : null, deleteWithUser);
      const what = !posts
        ? ''
        : reassign
          ? `; ${posts} post(s) reassigned to "${reassign.login}"`
          : '; their posts were deleted';
      output.out(`Deleted user ${id} "${user.login}"${what}.\n`);
      return;
    }
    case 'user set-role': {
      await accounts.setRoles(id, [String(inv.values.role)]);
      output.out(`User ${id} "${user.login}" now has the role ${inv.values.role}.\n`);
      return;
    }
    case 'user reset-password': {
      const generated = inv.options.password === undefined ? generatePassword(24) : undefined;
      const password = inv.options.password ?? (generated as string);
      if (!password) throw new CliError('The password cannot be empty.');
      await accounts.setPassword(id, password);
      // A new password ends the user's login sessions (WordPress's reset_password() destroys them too).
      await writeTransaction(get<DataSource>(app, CMS_DATA_SOURCE), (em) =>
        em.getRepository(UserMetaEntity).delete({ userId: id, key: 'session_tokens' }),
      );
      output.out(`Reset the password of user ${id} "${user.login}".\n`);
      if (generated) output.out(`Password: ${generated}\n`);
      return;
    }
  }
}

const iso = (unix: number | null) => (unix ? new Date(unix * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z') : '-');

/** `app-password list|revoke`. */
export async function runAppPasswordCommand(
  app: INestApplicationContext,
  inv: Invocation,
  output: CliOutput,
): Promise<void> {
  const accounts = get<ApplicationPasswords>(app, ApplicationPasswords);
  const user = await resolveUser(app, String(inv.values.username));
  const id = Number(user.id);
  if (inv.spec.name === 'app-password list') {
    const items = await accounts.listApplicationPasswords(id);
    output.out(
      table(
        ['UUID', 'NAME', 'CREATED', 'LAST USED', 'LAST IP'],
        items.map((i) => [i.uuid, i.name, iso(i.created), iso(i.last_used), i.last_ip ?? '-']),
      ),
    );
    return;
  }
  const uuid = inv.values.uuid;
  if (inv.flags.has('all')) {
    if (uuid !== undefined) throw new CliError('Pass either a UUID or --all, not both.');
    const count = await accounts.deleteAllApplicationPasswords(id);
    output.out(`Revoked ${count} application password(s) of "${user.login}".\n`);
    return;
  }
  if (uuid === undefined)
    throw new CliError('Missing <uuid> (or --all). Usage: app-password revoke <username> [uuid] [--all]');
  if (!(await accounts.deleteApplicationPassword(id, uuid)))
    throw new CliError(`Unknown application password "${uuid}" of "${user.login}".`);
  output.out(`Revoked the application password ${uuid} of "${user.login}".\n`);
}

/** `migrate:status`: every migration the build knows, applied or pending (nothing is written). */
export async function runMigrateStatus(app: INestApplicationContext, output: CliOutput): Promise<void> {
  const dataSource = get<DataSource>(app, CMS_DATA_SOURCE);
  const executor = new MigrationExecutor(dataSource);
  const runner = dataSource.createQueryRunner();
  let applied = new Set<string>();
  try {
    const tableName = dataSource.options.migrationsTableName ?? 'migrations';
    if (await runner.hasTable(tableName))
      applied = new Set((await executor.getExecutedMigrations()).map((m) => m.name));
  } finally {
    await runner.release();
  }
  const all = dataSource.migrations.map((m) => m.name ?? m.constructor.name);
  output.out(
    table(
      ['MIGRATION', 'STATUS'],
      all.map((name) => [name, applied.has(name) ? 'applied' : 'pending']),
    ),
  );
  const pending = all.filter((n) => !applied.has(n)).length;
  output.out(pending ? `${pending} pending: run "npm run cms -- migrate".\n` : 'Schema up to date.\n');
}

/** Option names as WordPress keeps them (`option_name` is a varchar(191)). */
const OPTION_NAME_MAX = 191;

/** `option get|set`. */
export async function runOptionCommand(
  app: INestApplicationContext,
  inv: Invocation,
  output: CliOutput,
): Promise<void> {
  const options = get<OptionsService>(app, OptionsService);
  const name = String(inv.values.name);
  if (!name.trim() || name.length > OPTION_NAME_MAX)
    throw new CliError(`Invalid option name "${name}": 1 to ${OPTION_NAME_MAX} characters.`);
  const missing = Symbol('missing');
  if (inv.spec.name === 'option get') {
    const value = await options.get<unknown>(name, missing);
    if (value === missing) throw new CliError(`Unknown option "${name}".`);
    output.out(
      `${value !== null && typeof value === 'object' ? JSON.stringify(value, null, 2) : value === false ? '' : String(value)}\n`,
    );
    return;
  }
  let value: unknown = inv.values.value;
  if (inv.flags.has('json')) {
    try {
      value = JSON.parse(String(inv.values.value));
    } catch (error) {
      throw new CliError(`Invalid JSON value for "${name}": ${(error as Error).message}`);
    }
    if (value === null)
      throw new CliError(`Invalid value for "${name}": null cannot be stored (use "" for an empty option).`);
  }
  await options.set(name, value);
  output.out(`Set option "${name}".\n`);
}
