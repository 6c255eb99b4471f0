/**
 * The users who can manage users (`edit_users` and `promote_users`), read as committed, for
 * `UserAccountsService.keepingUserManager()`: a write never leaves the site without one.
 */
import { DataSource, EntityManager } from 'typeorm';
import { OptionEntity } from '../database/entities/option.entity';
import { UserMetaEntity } from '../database/entities/user-meta.entity';
import { UserEntity } from '../database/entities/user.entity';
import { escapeLike, isMySql } from '../database/query-helpers';
import { takeWriteTurn } from '../database/write-transaction';
import { maybeUnserialize } from '../formatting/php-serialize';
import { capabilitiesOf, RoleDefinition } from './roles.service';

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

/** Where the users who manage users are read: the data source, the site's `<prefix>capabilities` key and roles option. */
export interface UserManagerScope {
  dataSource: DataSource;
  capabilitiesKey: string;
  /** `<prefix>user_roles`. */
  rolesOption: string;
}

/**
 * MySQL: a row lock on the `<prefix>user_roles` option until the transaction ends, the turn of the writes that
 * may take away the power to manage users (or the writers' turn, {@link takeWriteTurn}, on a site without the
 * option). SQLite's write transactions take turns already.
 */
export async function takeRolesTurn(manager: EntityManager, scope: UserManagerScope): Promise<void> {
  if (!isMySql(scope.dataSource)) return;
  const row = await manager.getRepository(OptionEntity).findOne({
    where: { name: scope.rolesOption },
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
export async function userManagers(
  manager: EntityManager,
  scope: UserManagerScope,
  known: Record<string, RoleDefinition>,
  userId?: number,
): Promise<number[]> {
  const names = [
    ...MANAGE_USERS,
    ...Object.keys(known).filter((role) => MANAGE_USERS.some((cap) => known[role]?.capabilities?.[cap])),
  ];
  const meta = scope.dataSource.getMetadata(UserMetaEntity).tableName;
  const users = scope.dataSource.getMetadata(UserEntity).tableName;
  const params: unknown[] = [scope.capabilitiesKey, ...names.map((name) => `%"${escapeLike(name)}"%`)];
  if (userId !== undefined) params.push(userId);
  const rows: Array<{ id: number | string; value: string | null }> = await manager.query(
    `SELECT m.user_id AS id, m.meta_value AS value FROM ${meta} m INNER JOIN ${users} u ON u.ID = m.user_id
       WHERE m.meta_key = ? AND (${names.map(() => `m.meta_value LIKE ? ESCAPE '!'`).join(' OR ')})${userId !== undefined ? ' AND m.user_id = ?' : ''}
       ORDER BY m.umeta_id${isMySql(scope.dataSource) ? ' LOCK IN SHARE MODE' : ''}`,
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
