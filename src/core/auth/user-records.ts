/**
 * The rows of a user that the account services (`UserAccountsService`, `ApplicationPasswords`) read and write as
 * WordPress does: the user's row, locked while a transaction changes the user, and its meta.
 */
import { randomInt } from 'node:crypto';
import { EntityManager } from 'typeorm';
import { UserMetaEntity } from '../database/entities/user-meta.entity';
import { UserEntity } from '../database/entities/user.entity';
import { maybeSerialize } from '../formatting/php-serialize';
import { RestException } from '../errors/rest.exception';

const ALPHANUMERIC = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** `wp_generate_password( length, false )`: random letters and digits. */
export function generatePassword(length = 24): string {
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHANUMERIC[randomInt(ALPHANUMERIC.length)];
  return out;
}

export const invalidUser = (): RestException => new RestException('rest_user_invalid_id', 'Invalid user ID.', 404);

/** The first row of a user meta key, or `null`. */
export async function getUserMeta(manager: EntityManager, userId: number, key: string): Promise<UserMetaEntity | null> {
  return manager.getRepository(UserMetaEntity).findOne({ where: { userId, key }, order: { id: 'ASC' } });
}

/** `update_user_meta()`: updates the first row of the key, or adds one. */
export async function updateUserMeta(
  manager: EntityManager,
  userId: number,
  key: string,
  value: unknown,
): Promise<void> {
  const stored = maybeSerialize(value);
  const row = await getUserMeta(manager, userId, key);
  if (row) {
    if (row.value !== stored) await manager.getRepository(UserMetaEntity).update({ id: row.id }, { value: stored });
  } else {
    await manager.getRepository(UserMetaEntity).insert({ userId, key, value: stored });
  }
}

/**
 * The user's row, locked until the transaction ends on MySQL (SQLite's write transactions take turns already).
 *
 * @throws RestException `rest_user_invalid_id` (404).
 */
export async function lockUser(manager: EntityManager, userId: number, isMysql: boolean): Promise<UserEntity> {
  const qb = manager.getRepository(UserEntity).createQueryBuilder('u').where('u.id = :userId', { userId });
  if (isMysql) qb.setLock('pessimistic_write');
  const user = await qb.getOne();
  if (!user) throw invalidUser();
  return user;
}
