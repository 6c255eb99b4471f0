import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { CMS_DATA_SOURCE } from '../database/cms-data-source';
import { UserEntity } from '../database/entities/user.entity';
import { UserMetaEntity } from '../database/entities/user-meta.entity';
import { maybeUnserialize } from '../formatting/php-serialize';
import { hydrate, rawQuery } from '../database/raw-query';
import { TablePrefix } from '../database/table-prefix';
import { CurrentUser } from './current-user';
import { RolesService } from './roles.service';

/**
 * Loads users as the request's `CurrentUser`: the row of `<prefix>users`, the roles and extra capabilities of
 * the `<prefix>capabilities` user meta, and the capabilities those roles grant.
 */
@Injectable()
export class UserIdentityService {
  constructor(
    @Inject(CMS_DATA_SOURCE) private readonly dataSource: DataSource,
    private readonly prefix: TablePrefix,
    private readonly roles: RolesService,
  ) {}

  /** A user by login, or by e-mail when the name contains `@`. */
  findByLoginOrEmail(name: string): Promise<UserEntity | null> {
    const repo = this.dataSource.getRepository(UserEntity);
    return repo.findOne({ where: name.includes('@') ? [{ login: name }, { email: name }] : { login: name } });
  }

  /**
   * A user by login, or by e-mail when the name contains `@` (a login that matches comes first, as WordPress tries
   * the login before the e-mail), with the stored text of the first row of each of `metaKeys` (`null`: none), in
   * one statement.
   */
  async findWithMeta(
    name: string,
    metaKeys: readonly string[],
  ): Promise<{ user: UserEntity; meta: Map<string, string | null> } | null> {
    const users = this.dataSource.getMetadata(UserEntity);
    const usermeta = this.dataSource.getMetadata(UserMetaEntity).tableName;
    const columns = metaKeys.map(
      (_, i) =>
        `(SELECT m.meta_value FROM ${usermeta} m WHERE m.user_id = u.ID AND m.meta_key = ? ORDER BY m.umeta_id LIMIT 1) AS x_meta_${i}`,
    );
    const byEmail = name.includes('@');
    const rows = await rawQuery<Record<string, unknown>>(
      this.dataSource,
      `SELECT u.*${columns.map((c) => `, ${c}`).join('')} FROM ${users.tableName} u
       WHERE u.user_login = ?${byEmail ? ' OR u.user_email = ?' : ''}${byEmail ? ' ORDER BY CASE WHEN u.user_login = ? THEN 0 ELSE 1 END, u.ID' : ''} LIMIT 1`,
      [...metaKeys, name, ...(byEmail ? [name, name] : [])],
    );
    if (!rows.length) return null;
    const [user] = hydrate<UserEntity>(users, rows);
    const meta = new Map(
      metaKeys.map((key, i) => [
        key,
        rows[0][`x_meta_${i}`] === null || rows[0][`x_meta_${i}`] === undefined ? null : String(rows[0][`x_meta_${i}`]),
      ]),
    );
    return { user, meta };
  }

  /** One user meta value (unserialized), or `undefined`. */
  async meta(userId: number, key: string): Promise<unknown> {
    const row = await this.dataSource.getRepository(UserMetaEntity).findOne({ where: { userId, key } });
    return row ? maybeUnserialize(row.value) : undefined;
  }

  /** `capabilities`: the stored `<prefix>capabilities` text when the caller read it already (`null`: none). */
  async toCurrentUser(
    user: UserEntity,
    applicationPassword?: string,
    capabilities?: { stored: string | null },
  ): Promise<CurrentUser> {
    const stored = capabilities
      ? capabilities.stored === null
        ? undefined
        : maybeUnserialize(capabilities.stored)
      : await this.meta(user.id, this.prefix.capabilitiesKey);
    const grants = stored && typeof stored === 'object' ? (stored as Record<string, unknown>) : {};
    const known = await this.roles.roles();
    const roleNames = Object.keys(grants).filter((k) => grants[k] && known[k]);
    const caps = await this.roles.capabilitiesOf(roleNames);
    for (const [cap, granted] of Object.entries(grants)) if (!known[cap]) caps[cap] = Boolean(granted);
    return new CurrentUser(user.id, user.login, roleNames, caps, applicationPassword);
  }
}
