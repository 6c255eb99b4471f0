import { Inject, Injectable } from '@nestjs/common';
import { CMS_OPTIONS, ResolvedCmsOptions } from '../config/cms-options';
import { DataSource, EntityManager } from 'typeorm';
import { CMS_DATA_SOURCE } from '../database/cms-data-source';
import { OptionEntity } from '../database/entities/option.entity';
import { UserMetaEntity } from '../database/entities/user-meta.entity';
import { UserEntity } from '../database/entities/user.entity';
import { formatMysqlDate } from '../database/mysql-date';
import { maybeSerialize, maybeUnserialize } from '../formatting/php-serialize';
import { TablePrefix } from '../database/table-prefix';
import { RestException } from '../errors/rest.exception';
import { hashPassword } from './password-hash';
import { RoleDefinition, RolesService } from './roles.service';
import { writeTransaction } from '../database/write-transaction';
import { isMySql } from '../database/query-helpers';
import { checkNewUser, uniqueNicename } from './new-user-rules';
import { generatePassword, getUserMeta, invalidUser, lockUser, updateUserMeta } from './user-records';
import { takeRolesTurn, UserManagerScope, userManagers } from './user-managers';

/** Input of {@link UserAccountsService.createUser} (the fields of `wp_insert_user()` this server writes). */
export interface CreateUserInput {
  /** `user_login`: 1–60 characters among letters, digits, space and `_ . - @` (`sanitize_user( $login, true )`). */
  login: string;
  /** `user_email` (checked like WordPress's `is_email()`). */
  email: string;
  /** Plain password, hashed in the configured format (`passwordHash` option); a random one when absent. */
  password?: string;
  /** Roles (default: the `default_role` option, `subscriber` on a new site). `[]` gives the user no role. */
  roles?: string[];
  /** `display_name` (default: "first last", first, last, or the login, as WordPress does). */
  displayName?: string;
  /** `user_nicename` (default: the login made URL-safe, at most 50 characters, unique with `-2`, `-3`, ...). */
  nicename?: string;
  firstName?: string;
  lastName?: string;
  /** `nickname` meta (default: the login). */
  nickname?: string;
  /** `user_url` (at most 100 characters). */
  url?: string;
  description?: string;
  locale?: string;
}

/** A user as listed by {@link UserAccountsService.listUsers}. */
export interface UserSummary {
  id: number;
  login: string;
  email: string;
  displayName: string;
  /** The user's roles that exist on the site, in stored order. */
  roles: string[];
}

/**
 * Creates users and manages their roles and passwords, writing exactly the rows WordPress writes
 * (`wp_insert_user()`, `WP_User::set_role()`, `wp_set_password()`), so that a WordPress sharing the database sees the
 * same users. Their application passwords are {@link ApplicationPasswords}'.
 */
@Injectable()
export class UserAccountsService {
  constructor(
    @Inject(CMS_DATA_SOURCE) private readonly dataSource: DataSource,
    private readonly prefix: TablePrefix,
    private readonly roles: RolesService,
    @Inject(CMS_OPTIONS) private readonly options: ResolvedCmsOptions,
  ) {}

  private get capabilitiesKey(): string {
    return this.prefix.capabilitiesKey;
  }

  private get userLevelKey(): string {
    return `${this.prefix.value}user_level`;
  }

  private get isMysql(): boolean {
    return isMySql(this.dataSource);
  }

  /** Runs `work` in the given manager, or in a new transaction. */
  private inTransaction<T>(
    manager: EntityManager | undefined,
    work: (manager: EntityManager) => Promise<T>,
  ): Promise<T> {
    return manager ? work(manager) : writeTransaction(this.dataSource, work);
  }

  /** `WHERE column = value`, case-insensitive on SQLite as MySQL's collation is. */
  private equalsIgnoreCase(alias: string, column: string): string {
    return this.isMysql ? `${alias}.${column} = :value` : `LOWER(${alias}.${column}) = LOWER(:value)`;
  }

  /** The site's role definitions, read fresh from the `<prefix>user_roles` option (in the transaction). */
  private async roleDefinitions(manager: EntityManager): Promise<Record<string, RoleDefinition>> {
    const row = await manager
      .getRepository(OptionEntity)
      .findOne({ where: { name: `${this.prefix.value}user_roles` } });
    const value = row ? maybeUnserialize(row.value) : null;
    const stored =
      value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, RoleDefinition>) : {};
    // Roles extensions register in code count too (a stored one of the same name wins).
    return { ...this.roles.registeredRoles(), ...stored };
  }

  private async checkRoles(manager: EntityManager, roles: readonly string[]): Promise<Record<string, RoleDefinition>> {
    const known = await this.roleDefinitions(manager);
    for (const role of roles) {
      if (!Object.prototype.hasOwnProperty.call(known, role)) {
        throw new RestException('rest_user_invalid_role', 'Sorry, you are not allowed to give users that role.', 400, {
          role,
        });
      }
    }
    return known;
  }

  /** `WP_User::update_user_level_from_caps()`: the highest `level_N` among the capabilities of the roles and user. */
  private static userLevel(grants: Record<string, unknown>, known: Record<string, RoleDefinition>): number {
    let level = 0;
    const keys = Object.keys(grants);
    for (const name of keys) if (known[name]) keys.push(...Object.keys(known[name].capabilities ?? {}));
    for (const key of keys) {
      const match = /^level_(10|[0-9])$/i.exec(key);
      if (match) level = Math.max(level, Number(match[1]));
    }
    return level;
  }

  private get managerScope(): UserManagerScope {
    return {
      dataSource: this.dataSource,
      capabilitiesKey: this.capabilitiesKey,
      rolesOption: `${this.prefix.value}user_roles`,
    };
  }

  /**
   * Runs `change`, a write in `manager`'s transaction that may take away what lets the user manage users (their roles,
   * their `<prefix>capabilities`, the user), and refuses it when the user could manage users and nobody could any
   * more: the transaction rolls back. A site left without such an administrator could only be repaired outside the
   * API. Such writes take turns, on every node (the `<prefix>user_roles` option's row is locked first), and the users
   * who remain are read as committed, with a locking read: two administrators demoting each other at once cannot both
   * succeed.
   *
   * @throws RestException `rest_user_last_administrator` (403).
   */
  async keepingUserManager<T>(manager: EntityManager, userId: number, change: () => Promise<T>): Promise<T> {
    const scope = this.managerScope;
    await takeRolesTurn(manager, scope);
    const known = await this.roleDefinitions(manager);
    const wasManager = (await userManagers(manager, scope, known, userId)).length > 0;
    const result = await change();
    if (wasManager && !(await userManagers(manager, scope, known)).length) {
      throw new RestException(
        'rest_user_last_administrator',
        'Sorry, this would leave the site without an administrator who can manage users.',
        403,
        { user: userId },
      );
    }
    return result;
  }

  // -------------------------------------------------------------------------------------------------------------------
  // Users
  // -------------------------------------------------------------------------------------------------------------------

  /**
   * Creates a user like `wp_insert_user()`: the `<prefix>users` row and the usermeta rows WordPress writes, in
   * its order (nickname, first_name, last_name, description, rich_editing, syntax_highlighting,
   * comment_shortcuts, admin_color, use_ssl, show_admin_bar_front, locale, `<prefix>capabilities`,
   * `<prefix>user_level`), all in one transaction (the given manager's, or a new one).
   *
   * @throws RestException (400) `empty_user_login`, `user_login_too_long`, `invalid_username`,
   *   `existing_user_login`, `empty_email`, `invalid_email`, `existing_user_email`, `user_nicename_too_long`,
   *   `user_url_too_long`, `rest_user_invalid_role`.
   */
  async createUser(input: CreateUserInput, manager?: EntityManager): Promise<UserEntity> {
    const { login, email, url, nicename: wanted } = checkNewUser(input);
    const pass = hashPassword(input.password ?? generatePassword(24), this.options.passwordHash);

    return this.inTransaction(manager, async (em) => {
      const users = em.getRepository(UserEntity);
      const loginTaken = await users
        .createQueryBuilder('u')
        .where(this.equalsIgnoreCase('u', 'user_login'), { value: login })
        .getExists();
      if (loginTaken) throw new RestException('existing_user_login', 'Sorry, that username already exists!', 400);
      const emailTaken = await users
        .createQueryBuilder('u')
        .where(this.equalsIgnoreCase('u', 'user_email'), { value: email })
        .getExists();
      if (emailTaken) throw new RestException('existing_user_email', 'Sorry, that email address is already used!', 400);

      let roles = input.roles;
      if (roles === undefined) {
        const option = await em.getRepository(OptionEntity).findOne({ where: { name: 'default_role' } });
        roles = option?.value ? [option.value] : [];
      }
      roles = [...new Set(roles)];
      const known = await this.checkRoles(em, roles);

      const nicename = await uniqueNicename(wanted, (candidate) =>
        users
          .createQueryBuilder('u')
          .where('u.user_nicename = :candidate AND u.user_login != :login', { candidate, login })
          .getExists(),
      );

      const firstName = input.firstName ?? '';
      const lastName = input.lastName ?? '';
      const displayName =
        input.displayName || (firstName && lastName ? `${firstName} ${lastName}` : firstName || lastName || login);

      const result = await users.insert({
        login,
        pass,
        nicename,
        email,
        url,
        registered: formatMysqlDate(new Date()),
        activationKey: '',
        status: 0,
        displayName,
      });
      const id = Number(result.identifiers[0]?.id ?? (result.raw as { insertId?: number }).insertId);

      const grants = Object.fromEntries(roles.map((role) => [role, true]));
      const meta: [string, unknown][] = [
        ['nickname', input.nickname || login],
        ['first_name', firstName],
        ['last_name', lastName],
        ['description', input.description ?? ''],
        ['rich_editing', 'true'],
        ['syntax_highlighting', 'true'],
        ['comment_shortcuts', 'false'],
        ['admin_color', 'fresh'],
        ['use_ssl', 0],
        ['show_admin_bar_front', 'true'],
        ['locale', input.locale ?? ''],
        [this.capabilitiesKey, grants],
        [this.userLevelKey, UserAccountsService.userLevel(grants, known)],
      ];
      await em
        .createQueryBuilder()
        .insert()
        .into(UserMetaEntity)
        .values(meta.map(([key, value]) => ({ userId: id, key, value: maybeSerialize(value) })))
        .updateEntity(false)
        .execute();
      return users.findOneByOrFail({ id });
    });
  }

  /**
   * Replaces the user's roles like `WP_User::set_role()` (+ `add_role()` for further roles): role entries of
   * `<prefix>capabilities` are replaced, capabilities granted to the user directly are kept, and
   * `<prefix>user_level` is recomputed.
   *
   * @throws RestException `rest_user_invalid_id` (404), `rest_user_invalid_role` (400).
   */
  async setRoles(userId: number, roles: string[], manager?: EntityManager): Promise<void> {
    await this.inTransaction(manager, async (em) => {
      await lockUser(em, userId, this.isMysql);
      const wanted = [...new Set(roles)];
      const known = await this.checkRoles(em, wanted);
      const row = await getUserMeta(em, userId, this.capabilitiesKey);
      const stored = row ? maybeUnserialize(row.value) : null;
      const grants: Record<string, unknown> = {};
      if (stored && typeof stored === 'object') {
        for (const [key, value] of Object.entries(stored as Record<string, unknown>)) {
          if (!Object.prototype.hasOwnProperty.call(known, key)) grants[key] = value;
        }
      }
      for (const role of wanted) grants[role] = true;
      await updateUserMeta(em, userId, this.capabilitiesKey, grants);
      await updateUserMeta(em, userId, this.userLevelKey, UserAccountsService.userLevel(grants, known));
    });
  }

  /**
   * `wp_set_password()`: stores the current WordPress hash (`$wp$2y$...`) and clears `user_activation_key`.
   *
   * @throws RestException `rest_user_invalid_id` (404).
   */
  async setPassword(userId: number, password: string): Promise<void> {
    const pass = hashPassword(password, this.options.passwordHash);
    const result = await this.dataSource.getRepository(UserEntity).update({ id: userId }, { pass, activationKey: '' });
    if (!result.affected) {
      if (!(await this.dataSource.getRepository(UserEntity).existsBy({ id: userId }))) throw invalidUser();
    }
  }

  /** A user by login (case-insensitive, as on MySQL), or `null`. */
  async findUserByLogin(login: string): Promise<UserEntity | null> {
    return this.dataSource
      .getRepository(UserEntity)
      .createQueryBuilder('u')
      .where(this.equalsIgnoreCase('u', 'user_login'), { value: login })
      .orderBy('u.id', 'ASC')
      .getOne();
  }

  /** All users by ID with their roles (those the site defines). */
  async listUsers(): Promise<UserSummary[]> {
    const users = await this.dataSource.getRepository(UserEntity).find({ order: { id: 'ASC' } });
    const metaRows = await this.dataSource
      .getRepository(UserMetaEntity)
      .find({ where: { key: this.capabilitiesKey }, order: { id: 'ASC' } });
    const grantsByUser = new Map<number, unknown>();
    for (const row of metaRows)
      if (!grantsByUser.has(Number(row.userId))) grantsByUser.set(Number(row.userId), maybeUnserialize(row.value));
    const known = await this.roles.roles();
    return users.map((user) => {
      const grants = grantsByUser.get(Number(user.id));
      const roles =
        grants && typeof grants === 'object'
          ? Object.entries(grants as Record<string, unknown>)
              .filter(([name, granted]) => granted && Object.prototype.hasOwnProperty.call(known, name))
              .map(([name]) => name)
          : [];
      return { id: Number(user.id), login: user.login, email: user.email, displayName: user.displayName, roles };
    });
  }

  /** Number of users. */
  countUsers(): Promise<number> {
    return this.dataSource.getRepository(UserEntity).count();
  }
}
