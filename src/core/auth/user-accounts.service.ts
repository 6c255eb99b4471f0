import { Inject, Injectable } from '@nestjs/common';
import { CMS_OPTIONS, ResolvedCmsOptions } from '../config/cms-options';
import { randomInt, randomUUID } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { CMS_DATA_SOURCE } from '../database/cms-data-source';
import { OptionEntity } from '../database/entities/option.entity';
import { UserMetaEntity } from '../database/entities/user-meta.entity';
import { UserEntity } from '../database/entities/user.entity';
import { formatMysqlDate } from '../database/mysql-date';
import { maybeSerialize, maybeUnserialize, phpTrim } from '../formatting/php-serialize';
import { TablePrefix } from '../database/table-prefix';
import { RestException } from '../errors/rest.exception';
import { hashPassword, hashPhpass, verifyWordPressPassword } from './password-hash';
import { capabilitiesOf, RoleDefinition, RolesService } from './roles.service';
import { takeWriteTurn, writeTransaction } from '../database/write-transaction';

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
 * One application password, exactly as WordPress (5.6–6.x) keeps it in the `_application_passwords` user meta.
 * `password` is a hash, never the plain password.
 */
export interface ApplicationPasswordItem {
  uuid: string;
  app_id: string;
  name: string;
  password: string;
  /** Unix time of creation. */
  created: number;
  /** Unix time of the last (recorded) use, or `null`. */
  last_used: number | null;
  /** IP address of the last (recorded) use, or `null`. */
  last_ip: string | null;
}

/** Result of {@link UserAccountsService.createApplicationPassword}: the plain password is shown once, here only. */
export interface CreatedApplicationPassword {
  /** 24 characters `[A-Za-z0-9]` (`wp_generate_password( 24, false )`). */
  password: string;
  item: ApplicationPasswordItem;
}

/** User meta key of the application passwords (`WP_Application_Passwords::USERMETA_KEY_APPLICATION_PASSWORDS`). */
export const APPLICATION_PASSWORDS_META_KEY = '_application_passwords';
/** Site option set once any application password exists (`WP_Application_Passwords::OPTION_KEY_IN_USE`). */
export const APPLICATION_PASSWORDS_IN_USE_OPTION = 'using_application_passwords';
const DAY_IN_SECONDS = 24 * 60 * 60;
const ALPHANUMERIC = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** `wp_generate_password( length, false )`: random letters and digits. */
export function generatePassword(length = 24): string {
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHANUMERIC[randomInt(ALPHANUMERIC.length)];
  return out;
}

import { isEmail } from '../formatting/is-email';
import { sanitizeNicename, sanitizeTextField, sanitizeUserLogin } from '../formatting/sanitize-text';
import { escapeLike, isMySql } from '../database/query-helpers';

/** PHP 8 `strtolower()` (ASCII only). */
const asciiLower = (text: string): string => text.replace(/[A-Z]+/g, (c) => c.toLowerCase());

/** `mb_strlen()` / `mb_substr()`: counts code points, not UTF-16 units. */
const mbLength = (text: string): number => [...text].length;
const mbSubstr = (text: string, length: number): string => [...text].slice(0, length).join('');

/**
 * `PasswordHash(8, true)->HashPassword()`: the `$P$B` hash WordPress up to 6.7 stores for application passwords.
 * Every WordPress version (and {@link verifyWordPressPassword}) verifies it; application passwords are
 * 24 random characters, so a fast hash loses nothing (WordPress 6.8 moved them to an even faster one).
 */
export function hashApplicationPassword(password: string): string {
  return hashPhpass(password);
}

let dummyApplicationPassword: string | undefined;

/**
 * A {@link hashApplicationPassword} hash of a random, never-shown password, made once per process on first use.
 * Checking a password against it costs what checking one stored application password costs, and never succeeds:
 * HTTP Basic refuses a name without a user (or a user without application passwords) after that work, so that
 * response times do not tell which users exist.
 */
export function dummyApplicationPasswordHash(): string {
  return (dummyApplicationPassword ??= hashApplicationPassword(generatePassword(24)));
}

// ---------------------------------------------------------------------------------------------------------------------

/** The stored list with its PHP array keys (WordPress `unset()`s deleted items, leaving gaps in the keys). */
type StoredList = Map<number, ApplicationPasswordItem>;

const invalidUser = (): RestException => new RestException('rest_user_invalid_id', 'Invalid user ID.', 404);

/** What a user needs to manage users through the API: edit them (`edit_users`) and give them roles (`promote_users`). */
const MANAGE_USERS = ['edit_users', 'promote_users'] as const;

/** Whether stored `<prefix>capabilities` grants (roles, and capabilities given or denied directly) manage users. */
function managesUsers(stored: unknown, known: Record<string, RoleDefinition>): boolean {
  const grants = stored && typeof stored === 'object' ? (stored as Record<string, unknown>) : {};
  const has = (key: string) => Object.prototype.hasOwnProperty.call(known, key);
  const caps = capabilitiesOf(
    known,
    Object.keys(grants).filter((key) => grants[key] && has(key)),
  );
  // As WP_User::get_role_caps(): a capability given to the user directly adds to the roles', or takes away.
  for (const [key, granted] of Object.entries(grants)) if (!has(key)) caps[key] = Boolean(granted);
  return MANAGE_USERS.every((cap) => caps[cap]);
}

/**
 * Creates users and manages their roles, passwords and application passwords, writing exactly the rows
 * WordPress writes (`wp_insert_user()`, `WP_User::set_role()`, `wp_set_password()`, `WP_Application_Passwords`),
 * so that a WordPress sharing the database sees the same users.
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

  private async getMeta(manager: EntityManager, userId: number, key: string): Promise<UserMetaEntity | null> {
    return manager.getRepository(UserMetaEntity).findOne({ where: { userId, key }, order: { id: 'ASC' } });
  }

  /** `update_user_meta()`: updates the first row of the key, or adds one. */
  private async updateMeta(manager: EntityManager, userId: number, key: string, value: unknown): Promise<void> {
    const stored = maybeSerialize(value);
    const row = await this.getMeta(manager, userId, key);
    if (row) {
      if (row.value !== stored) await manager.getRepository(UserMetaEntity).update({ id: row.id }, { value: stored });
    } else {
      await manager.getRepository(UserMetaEntity).insert({ userId, key, value: stored });
    }
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

  private async lockUser(manager: EntityManager, userId: number): Promise<UserEntity> {
    const qb = manager.getRepository(UserEntity).createQueryBuilder('u').where('u.id = :userId', { userId });
    if (this.isMysql) qb.setLock('pessimistic_write');
    const user = await qb.getOne();
    if (!user) throw invalidUser();
    return user;
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
    await this.takeRolesTurn(manager);
    const known = await this.roleDefinitions(manager);
    const wasManager = (await this.userManagers(manager, known, userId)).length > 0;
    const result = await change();
    if (wasManager && !(await this.userManagers(manager, known)).length) {
      throw new RestException(
        'rest_user_last_administrator',
        'Sorry, this would leave the site without an administrator who can manage users.',
        403,
        { user: userId },
      );
    }
    return result;
  }

  /**
   * MySQL: a row lock on the `<prefix>user_roles` option until the transaction ends, the turn of the writes that
   * may take away the power to manage users (or the writers' turn, {@link takeWriteTurn}, on a site without the
   * option). SQLite's write transactions take turns already.
   */
  private async takeRolesTurn(manager: EntityManager): Promise<void> {
    if (!this.isMysql) return;
    const row = await manager.getRepository(OptionEntity).findOne({
      where: { name: `${this.prefix.value}user_roles` },
      lock: { mode: 'pessimistic_write' },
      select: { id: true },
    });
    if (!row) await takeWriteTurn(manager);
  }

  /**
   * The existing users (or the one given) who can manage users, by their `<prefix>capabilities` as committed (a
   * locking read on MySQL, which sees past the transaction's snapshot). Only rows naming a role that grants a
   * capability to manage users, or such a capability, are read.
   */
  private async userManagers(
    manager: EntityManager,
    known: Record<string, RoleDefinition>,
    userId?: number,
  ): Promise<number[]> {
    const names = [
      ...MANAGE_USERS,
      ...Object.keys(known).filter((role) => MANAGE_USERS.some((cap) => known[role]?.capabilities?.[cap])),
    ];
    const meta = this.dataSource.getMetadata(UserMetaEntity).tableName;
    const users = this.dataSource.getMetadata(UserEntity).tableName;
    const params: unknown[] = [this.capabilitiesKey, ...names.map((name) => `%"${escapeLike(name)}"%`)];
    if (userId !== undefined) params.push(userId);
    const rows: Array<{ id: number | string; value: string | null }> = await manager.query(
      `SELECT m.user_id AS id, m.meta_value AS value FROM ${meta} m INNER JOIN ${users} u ON u.ID = m.user_id
       WHERE m.meta_key = ? AND (${names.map(() => `m.meta_value LIKE ? ESCAPE '!'`).join(' OR ')})${userId !== undefined ? ' AND m.user_id = ?' : ''}
       ORDER BY m.umeta_id${this.isMysql ? ' LOCK IN SHARE MODE' : ''}`,
      params,
    );
    const seen = new Set<number>();
    const found: number[] = [];
    for (const row of rows) {
      const id = Number(row.id);
      if (seen.has(id)) continue;
      seen.add(id);
      if (managesUsers(maybeUnserialize(row.value), known)) found.push(id);
    }
    return found;
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
    const rawLogin = String(input.login ?? '');
    const login = phpTrim(sanitizeUserLogin(rawLogin));
    if (!login) throw new RestException('empty_user_login', 'Cannot create a user with an empty login name.', 400);
    if (mbLength(login) > 60) {
      throw new RestException('user_login_too_long', 'Username may not be longer than 60 characters.', 400);
    }
    if (login !== rawLogin) {
      throw new RestException(
        'invalid_username',
        'This username is invalid because it uses illegal characters. Please enter a valid username.',
        400,
      );
    }
    const email = String(input.email ?? '').trim();
    if (!email) throw new RestException('empty_email', 'Please type your email address.', 400);
    if (!isEmail(email) || email.length > 100) {
      throw new RestException('invalid_email', 'The email address is not correct.', 400);
    }
    const url = input.url ?? '';
    if (mbLength(url) > 100)
      throw new RestException('user_url_too_long', 'User URL may not be longer than 100 characters.', 400);
    let nicename = sanitizeNicename(input.nicename ? sanitizeUserLogin(input.nicename) : mbSubstr(login, 50));
    if (mbLength(nicename) > 50) {
      throw new RestException('user_nicename_too_long', 'Nicename may not be longer than 50 characters.', 400);
    }
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

      const nicenameTaken = (candidate: string) =>
        users
          .createQueryBuilder('u')
          .where('u.user_nicename = :candidate AND u.user_login != :login', { candidate, login })
          .getExists();
      if (await nicenameTaken(nicename)) {
        let suffix = 2;
        let alternative: string;
        do {
          alternative = `${mbSubstr(nicename, 49 - String(suffix).length)}-${suffix}`;
          suffix++;
        } while (await nicenameTaken(alternative));
        nicename = alternative;
      }

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
      await this.lockUser(em, userId);
      const wanted = [...new Set(roles)];
      const known = await this.checkRoles(em, wanted);
      const row = await this.getMeta(em, userId, this.capabilitiesKey);
      const stored = row ? maybeUnserialize(row.value) : null;
      const grants: Record<string, unknown> = {};
      if (stored && typeof stored === 'object') {
        for (const [key, value] of Object.entries(stored as Record<string, unknown>)) {
          if (!Object.prototype.hasOwnProperty.call(known, key)) grants[key] = value;
        }
      }
      for (const role of wanted) grants[role] = true;
      await this.updateMeta(em, userId, this.capabilitiesKey, grants);
      await this.updateMeta(em, userId, this.userLevelKey, UserAccountsService.userLevel(grants, known));
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

  // -------------------------------------------------------------------------------------------------------------------
  // Application passwords (WP_Application_Passwords)
  // -------------------------------------------------------------------------------------------------------------------

  /** Reads the stored list, keeping PHP's keys; items without uuid get one (as WordPress does on read). */
  private static parseList(value: string | null | undefined): { list: StoredList; repaired: boolean } {
    const data = maybeUnserialize(value);
    const list: StoredList = new Map();
    let repaired = false;
    if (!data || typeof data !== 'object') return { list, repaired };
    const entries = Array.isArray(data) ? data.map((item, i) => [String(i), item] as const) : Object.entries(data);
    for (const [key, item] of entries) {
      if (!item || typeof item !== 'object' || !/^-?\d+$/.test(key)) continue;
      const entry = { ...(item as ApplicationPasswordItem) };
      if (typeof entry.uuid !== 'string') {
        entry.uuid = randomUUID();
        repaired = true;
      }
      list.set(Number(key), entry);
    }
    return { list, repaired };
  }

  /** The value `serialize()` gives for the list: `a:n:{i:<key>;a:7:{...}...}`. */
  private static serializeList(list: StoredList): Map<string, ApplicationPasswordItem> {
    return new Map([...list].map(([key, item]) => [String(key), item]));
  }

  /**
   * The stored list; items without a uuid get one, saved at once (as `get_user_application_passwords()`).
   * `stored`: the meta's text when the caller read it already (`null`: none).
   */
  private async readList(userId: number, stored?: { value: string | null }): Promise<StoredList> {
    const row = stored ?? (await this.getMeta(this.dataSource.manager, userId, APPLICATION_PASSWORDS_META_KEY));
    const { list, repaired } = UserAccountsService.parseList(row?.value);
    if (!repaired) return list;
    return this.modifyList(userId, (current) => ({ result: current, save: false }));
  }

  /** Read-modify-write of the list in a transaction, the user row locked (MySQL) so concurrent writes queue. */
  private async modifyList<T>(
    userId: number,
    change: (
      list: StoredList,
      manager: EntityManager,
    ) => Promise<{ result: T; save: boolean }> | { result: T; save: boolean },
  ): Promise<T> {
    return writeTransaction(this.dataSource, async (em) => {
      await this.lockUser(em, userId);
      const row = await this.getMeta(em, userId, APPLICATION_PASSWORDS_META_KEY);
      const { list, repaired } = UserAccountsService.parseList(row?.value);
      const { result, save } = await change(list, em);
      if (save || repaired)
        await this.updateMeta(em, userId, APPLICATION_PASSWORDS_META_KEY, UserAccountsService.serializeList(list));
      return result;
    });
  }

  /**
   * `WP_Application_Passwords::create_new_application_password()`: a new 24-character password, stored hashed
   * (phpass `$P$B`, as WordPress 6.1) with a v4 UUID; also sets the `using_application_passwords` option.
   * The plain password is returned here only.
   *
   * @throws RestException `application_password_empty_name` (400), `application_password_duplicate_name` (409),
   *   `rest_user_invalid_id` (404).
   */
  async createApplicationPassword(userId: number, name: string, appId = ''): Promise<CreatedApplicationPassword> {
    const cleanName = sanitizeTextField(String(name ?? ''));
    if (!cleanName) {
      throw new RestException(
        'application_password_empty_name',
        'An application name is required to create an application password.',
        400,
      );
    }
    const password = generatePassword(24);
    const hash = hashApplicationPassword(password);
    const item = await this.modifyList(userId, async (list, em) => {
      if ([...list.values()].some((existing) => asciiLower(String(existing.name)) === asciiLower(cleanName))) {
        throw new RestException('application_password_duplicate_name', 'Each application name should be unique.', 409);
      }
      const created: ApplicationPasswordItem = {
        uuid: randomUUID(),
        app_id: appId || '',
        name: cleanName,
        password: hash,
        created: Math.floor(Date.now() / 1000),
        last_used: null,
        last_ip: null,
      };
      // PHP's `$passwords[] = $item`: the next integer key after the largest one.
      const nextKey = list.size ? Math.max(...list.keys()) + 1 : 0;
      list.set(Math.max(nextKey, 0), created);
      await this.markApplicationPasswordsInUse(em);
      return { result: created, save: true };
    });
    return { password, item };
  }

  /** `update_network_option( ..., 'using_application_passwords', true )` of a single site (autoload no). */
  private async markApplicationPasswordsInUse(em: EntityManager): Promise<void> {
    const repo = em.getRepository(OptionEntity);
    const row = await repo.findOne({ where: { name: APPLICATION_PASSWORDS_IN_USE_OPTION } });
    if (!row) {
      // Another request creating an application password may add it meanwhile.
      await repo
        .createQueryBuilder()
        .insert()
        .values({ name: APPLICATION_PASSWORDS_IN_USE_OPTION, value: '1', autoload: 'no' })
        .orIgnore()
        .execute();
    } else if (!row.value || row.value === '0') {
      await repo.update({ id: row.id }, { value: '1' });
    }
  }

  /** The user's application passwords (hashes included), in stored order. */
  async listApplicationPasswords(
    userId: number,
    stored?: { value: string | null },
  ): Promise<ApplicationPasswordItem[]> {
    return [...(await this.readList(userId, stored)).values()];
  }

  /** One application password by UUID, or `null`. */
  async getApplicationPassword(userId: number, uuid: string): Promise<ApplicationPasswordItem | null> {
    return (await this.listApplicationPasswords(userId)).find((item) => item.uuid === uuid) ?? null;
  }

  /**
   * Renames an application password (an empty name leaves it unchanged, as WordPress does).
   *
   * @returns the item, or `null` when the user has no application password with that UUID.
   * @throws RestException `application_password_duplicate_name` (409) when another one has that name.
   */
  async updateApplicationPassword(
    userId: number,
    uuid: string,
    update: { name?: string },
  ): Promise<ApplicationPasswordItem | null> {
    const name = update.name ? sanitizeTextField(update.name) : '';
    return this.modifyList(userId, (list) => {
      const entry = [...list].find(([, item]) => item.uuid === uuid);
      if (!entry) return { result: null, save: false };
      const [key, item] = entry;
      if (!name || item.name === name) return { result: item, save: false };
      for (const [otherKey, other] of list) {
        if (otherKey !== key && asciiLower(String(other.name)) === asciiLower(name)) {
          throw new RestException(
            'application_password_duplicate_name',
            'Each application name should be unique.',
            409,
          );
        }
      }
      const updated = { ...item, name };
      list.set(key, updated);
      return { result: updated, save: true };
    });
  }

  /** Deletes one application password; `false` when there is none with that UUID. Other items keep their keys, as with PHP's `unset()`. */
  async deleteApplicationPassword(userId: number, uuid: string): Promise<boolean> {
    return this.modifyList(userId, (list) => {
      const entry = [...list].find(([, item]) => item.uuid === uuid);
      if (!entry) return { result: false, save: false };
      list.delete(entry[0]);
      return { result: true, save: true };
    });
  }

  /** Deletes all the user's application passwords; returns how many there were. */
  async deleteAllApplicationPasswords(userId: number): Promise<number> {
    return this.modifyList(userId, (list) => {
      const count = list.size;
      list.clear();
      return { result: count, save: count > 0 };
    });
  }

  /**
   * `record_application_password_usage()`: stores the time and IP of a use, at most once a day per password.
   *
   * @returns `false` when the user has no application password with that UUID.
   */
  async recordApplicationPasswordUse(userId: number, uuid: string, ip: string | null): Promise<boolean> {
    const isDue = (item: ApplicationPasswordItem, now: number) => !(Number(item.last_used ?? 0) + DAY_IN_SECONDS > now);
    // Cheap read first: most uses are within the day and write nothing.
    const current = await this.getApplicationPassword(userId, uuid);
    if (!current) return false;
    if (!isDue(current, Math.floor(Date.now() / 1000))) return true;
    return this.modifyList(userId, (list) => {
      const entry = [...list].find(([, item]) => item.uuid === uuid);
      if (!entry) return { result: false, save: false };
      const now = Math.floor(Date.now() / 1000);
      if (!isDue(entry[1], now)) return { result: true, save: false };
      list.set(entry[0], { ...entry[1], last_used: now, last_ip: ip });
      return { result: true, save: true };
    });
  }

  /**
   * The application password of the user that `plainPassword` matches (characters other than letters and
   * digits are ignored, so the chunked form `abcd efgh ...` works), or `null`.
   */
  async findApplicationPassword(userId: number, plainPassword: string): Promise<ApplicationPasswordItem | null> {
    const password = plainPassword.replace(/[^a-z\d]/gi, '');
    if (!password) return null;
    for (const item of await this.listApplicationPasswords(userId)) {
      if (typeof item.password === 'string' && verifyWordPressPassword(password, item.password)) return item;
    }
    return null;
  }
}
