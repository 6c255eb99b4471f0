import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { hashWordPressPassword } from '../../src/core/auth/password-hash';
import { UserEntity } from '../../src/core/database/entities/user.entity';
import { UserMetaEntity } from '../../src/core/database/entities/user-meta.entity';
import { maybeSerialize } from '../../src/core/formatting/php-serialize';

export interface TestUser {
  id: number;
  login: string;
  role: string;
  appPassword: string;
  /** The user's login password. */
  password: string;
  /** The `Authorization` header value for HTTP Basic with the application password. */
  authorization: string;
}

/** Writes a user with a role and an application password straight into the WordPress tables. */
export async function createUser(
  dataSource: DataSource,
  prefix: string,
  login: string,
  role: string,
): Promise<TestUser> {
  const appPassword = randomBytes(12).toString('base64url');
  const password = `password-${login}`;
  const saved = await dataSource.getRepository(UserEntity).save({
    login,
    pass: hashWordPressPassword(password),
    nicename: login,
    email: `${login}@example.org`,
    url: '',
    registered: '2024-01-01 00:00:00',
    activationKey: '',
    status: 0,
    displayName: login,
  });
  const meta = dataSource.getRepository(UserMetaEntity);
  await meta.save([
    { userId: saved.id, key: `${prefix}capabilities`, value: maybeSerialize({ [role]: true }) },
    { userId: saved.id, key: `${prefix}user_level`, value: '0' },
    {
      userId: saved.id,
      key: '_application_passwords',
      value: maybeSerialize([
        {
          uuid: `uuid-${login}`,
          app_id: '',
          name: 'tests',
          password: hashWordPressPassword(appPassword),
          created: 1,
          last_used: null,
          last_ip: null,
        },
      ]),
    },
  ]);
  return {
    id: saved.id,
    login,
    role,
    appPassword,
    password,
    authorization: `Basic ${Buffer.from(`${login}:${appPassword}`).toString('base64')}`,
  };
}
