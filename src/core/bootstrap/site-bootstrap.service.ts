import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { CMS_OPTIONS, ResolvedCmsOptions } from '../config/cms-options';
import { UserAccountsService } from '../auth/user-accounts.service';
import { CMS_DATA_SOURCE } from '../database/cms-data-source';
import { UserEntity } from '../database/entities/user.entity';
import { afterDataSourceInit } from '../database/data-source-options';
import { installStampTriggers, removeStampTriggers } from '../database/stamp-triggers';
import { MigrationLock } from '../database/cluster-lock';
import { retryLostReads } from '../database/read-retry';
import { installSite } from '../database/site-install';
import { TablePrefix } from '../database/table-prefix';
import { isMySql } from '../database/query-helpers';
import { hasNoUsers, NO_USERS_HINT, siteUrlWarning } from './start-up-checks';

/** What {@link SiteBootstrapService.bootstrap} did. */
export interface BootstrapReport {
  /** Names of the migrations that ran (empty when the schema was up to date). */
  migrations: string[];
  /** Whether the default site (options, roles, default category) was written. */
  siteInstalled: boolean;
  /** Login of the administrator created from `initialAdmin`, or `null`. */
  adminCreated: string | null;
}

/**
 * Brings the database up to date when the module starts: runs the schema migrations (which never alter
 * existing WordPress tables), on an empty database writes the default site (options, roles, the default
 * category) and, when `initialAdmin` is set and there are no users, creates that administrator. Disabled with
 * `runMigrations: false`; {@link bootstrap} runs the same steps on demand (the `migrate` CLI command).
 */
@Injectable()
export class SiteBootstrapService implements OnModuleInit {
  private readonly logger = new Logger('CmsBootstrap');

  /** What the start-up run did (`null` when `runMigrations` is off). */
  lastReport: BootstrapReport | null = null;

  constructor(
    @Inject(CMS_DATA_SOURCE) private readonly dataSource: DataSource,
    @Inject(CMS_OPTIONS) private readonly options: ResolvedCmsOptions,
    private readonly prefix: TablePrefix,
    private readonly accounts: UserAccountsService,
  ) {}

  async onModuleInit(): Promise<void> {
    await afterDataSourceInit(this.dataSource);
    retryLostReads(this.dataSource);
    if (!this.options.runMigrations) return;
    this.lastReport = await this.bootstrap();
    await this.checkSite();
  }

  /**
   * The start-up checks, once the site is set up: a warning when the stored site address (`home`, `siteurl`) is not
   * `baseUrl`, naming the command that changes it, and with no users, the ways to create an administrator. A check
   * that fails (a table an outside writer dropped) is logged and does not stop the start.
   */
  private async checkSite(): Promise<void> {
    try {
      const warning = await siteUrlWarning(this.dataSource, this.options.baseUrl);
      if (warning) this.logger.warn(warning);
      if (await hasNoUsers(this.dataSource)) this.logger.log(NO_USERS_HINT);
    } catch (error) {
      this.logger.warn(`Could not check the site address and users: ${(error as Error).message}`);
    }
  }

  /**
   * Runs the migrations, installs the site on an empty database and creates the initial administrator, under the
   * `migrations` lock row of `{prefix}cms_locks` (see {@link MigrationLock}): with several nodes starting at once,
   * one does the work while the others wait for it, then find nothing left to do.
   */
  async bootstrap(): Promise<BootstrapReport> {
    const lock = new MigrationLock(this.dataSource);
    return lock.run(() => this.bootstrapUnlocked(), {
      onWait: (holder) =>
        this.logger.log(
          `Waiting for ${holder} to finish the migrations and the first-start set-up (the migrations lock row)`,
        ),
      onTakeOver: (holder) =>
        this.logger.warn(`Took over the migrations lock row from ${holder}, whose process is gone`),
    });
  }

  private async bootstrapUnlocked(): Promise<BootstrapReport> {
    const ran = await this.dataSource.runMigrations({ transaction: 'each' });
    if (ran.length) this.logger.log(`Applied ${ran.length} migration(s): ${ran.map((m) => m.name).join(', ')}`);
    const siteInstalled = await installSite(this.dataSource, {
      tablePrefix: this.prefix.value,
      siteUrl: this.options.siteUrl ?? this.options.baseUrl ?? 'http://localhost:3000',
      title: this.options.siteTitle,
    });
    if (siteInstalled) this.logger.log('Installed a new site with default options, roles and the default category.');
    const adminCreated = await this.createInitialAdmin();
    if (this.options.stampTriggers === 'install') {
      this.logger.log(
        `Installed ${await installStampTriggers(this.dataSource)} stamp triggers (stampTriggers: 'install').`,
      );
    } else if (this.options.stampTriggers === 'remove') {
      const removed = await removeStampTriggers(this.dataSource);
      if (removed) this.logger.log(`Removed ${removed} stamp triggers (stampTriggers: 'remove').`);
    }
    return { migrations: ran.map((m) => m.name), siteInstalled, adminCreated };
  }

  /**
   * Creates `options.initialAdmin` as an administrator when the users table is empty. The emptiness check and
   * the insert share a transaction; on MySQL the check locks the table's range (`SELECT ... FOR UPDATE`), so
   * servers starting together on one empty database create a single administrator: the other transactions wait,
   * or fail with a deadlock / busy error and are run again, and then find the user.
   */
  private async createInitialAdmin(): Promise<string | null> {
    const admin = this.options.initialAdmin;
    if (!admin) return null;
    const isMysql = isMySql(this.dataSource);
    const count = (manager = this.dataSource.manager, lock = false) => {
      const qb = manager.getRepository(UserEntity).createQueryBuilder('u');
      if (lock && isMysql) qb.setLock('pessimistic_write');
      return qb.getCount();
    };
    if ((await count()) > 0) return null;
    for (let attempt = 1; ; attempt++) {
      try {
        const created = await this.dataSource.transaction(async (manager) => {
          if ((await count(manager, true)) > 0) return null;
          return this.accounts.createUser(
            {
              login: admin.login,
              email: admin.email || `${admin.login}@localhost.localdomain`,
              password: admin.password,
              roles: ['administrator'],
            },
            manager,
          );
        });
        if (!created) return null;
        this.logger.log(
          `Created the administrator "${created.login}" (user ${created.id}) from the initial admin settings.`,
        );
        return created.login;
      } catch (error) {
        // Another server won the race: its transaction was chosen to commit (MySQL deadlock victim, SQLite busy
        // snapshot). Try again: the locking count waits for its commit and then finds the user.
        if (attempt < 5 && isLockConflict(error)) continue;
        if ((await count()) > 0) return null;
        throw error;
      }
    }
  }
}

/** A deadlock or lock/busy error after which the transaction can simply be run again. */
function isLockConflict(error: unknown): boolean {
  const seen = new Set<unknown>();
  for (
    let e = error as { code?: unknown; driverError?: unknown } | undefined;
    e && !seen.has(e);
    e = e.driverError as typeof e
  ) {
    seen.add(e);
    if (
      typeof e.code === 'string' &&
      /^(ER_LOCK_DEADLOCK|ER_LOCK_WAIT_TIMEOUT|SQLITE_BUSY\w*|SQLITE_LOCKED\w*)$/.test(e.code)
    )
      return true;
  }
  return false;
}
