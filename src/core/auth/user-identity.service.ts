import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { CMS_DATA_SOURCE } from '../database/cms-data-source';
import { UserEntity } from '../database/entities/user.entity';
import { UserMetaEntity } from '../database/entities/user-meta.entity';
import { maybeUnserialize } from '../database/php-serialize';
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

  /** One user meta value (unserialized), or `undefined`. */
  async meta(userId: number, key: string): Promise<unknown> {
    const row = await this.dataSource.getRepository(UserMetaEntity).findOne({ where: { userId, key } });
    return row ? maybeUnserialize(row.value) : undefined;
  }

  async toCurrentUser(user: UserEntity, applicationPassword?: string): Promise<CurrentUser> {
    const stored = await this.meta(user.id, `${this.prefix.value}capabilities`);
    const grants = stored && typeof stored === 'object' ? (stored as Record<string, unknown>) : {};
    const known = await this.roles.roles();
    const roleNames = Object.keys(grants).filter((k) => grants[k] && known[k]);
    const caps = await this.roles.capabilitiesOf(roleNames);
    for (const [cap, granted] of Object.entries(grants)) if (!known[cap]) caps[cap] = Boolean(granted);
    return new CurrentUser(user.id, user.login, roleNames, caps, applicationPassword);
  }
}
