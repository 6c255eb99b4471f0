import { Injectable, Module, OnModuleInit } from '@nestjs/common';
import { CmsExtensionRegistry } from '../../src';
import { UserEntity } from '../../src/core/database/entities/user.entity';
import { UserMetaEntity } from '../../src/core/database/entities/user-meta.entity';
import { maybeSerialize, maybeUnserialize } from '../../src/core/formatting/php-serialize';
import { createUser, TestUser } from '../factories/user.factory';
import { createTestApp, expectRestError, TEST_PREFIX, TestApp } from '../utils/test-app';

/**
 * No request leaves the site without an administrator who can manage users (`edit_users` and `promote_users`):
 * not an empty `roles` list on oneself, not a demotion or a deletion of the last such user (by a caller who may
 * promote or delete users without managing them), not a write of `<prefix>capabilities` through `meta`, and not two
 * administrators demoting or deleting each other at once.
 */

const API = '/cms-json/cms/v2';
const CAPS_KEY = `${TEST_PREFIX}capabilities`;

/** Roles that may change roles (`promoter`) or delete users (`remover`) without managing users; a `meta` key for the capabilities. */
@Injectable()
class LockoutFixtures implements OnModuleInit {
  constructor(private readonly cms: CmsExtensionRegistry) {}
  onModuleInit(): void {
    this.cms.registerRole('promoter', {
      name: 'Promoter',
      capabilities: { read: true, list_users: true, promote_users: true },
    });
    this.cms.registerRole('remover', {
      name: 'Remover',
      capabilities: { read: true, list_users: true, delete_users: true },
    });
    this.cms.registerMeta('user', CAPS_KEY, {
      type: 'object',
      single: true,
      showInRest: { schema: { type: 'object', additionalProperties: { type: 'boolean' }, properties: {} } },
    });
  }
}

@Module({ providers: [LockoutFixtures] })
class LockoutFixturesModule {}

let t: TestApp;
let serial = 0;

const call = (method: 'get' | 'put' | 'delete', path: string, who: TestUser, body?: object) => {
  const req = t.http[method](`${API}${path}`).set('Authorization', who.authorization);
  return body ? req.send(body) : req;
};

function fresh(role: string): Promise<TestUser> {
  return createUser(t.dataSource, TEST_PREFIX, `lockout${++serial}`, role);
}

/** The user's roles as stored (`<prefix>capabilities`), or `null` when the user is gone. */
async function storedRoles(user: TestUser): Promise<string[] | null> {
  if (!(await t.dataSource.getRepository(UserEntity).existsBy({ id: user.id }))) return null;
  const row = await t.dataSource.getRepository(UserMetaEntity).findOne({ where: { userId: user.id, key: CAPS_KEY } });
  const grants = (row ? maybeUnserialize(row.value) : {}) as Record<string, boolean>;
  return Object.keys(grants).filter((k) => grants[k]);
}

/** Gives every administrator but `keep` the editor role in the database for the time of `run`. */
async function withoutOtherAdministrators<T>(keep: TestUser[], run: () => Promise<T>): Promise<T> {
  const repo = t.dataSource.getRepository(UserMetaEntity);
  const kept = new Set(keep.map((u) => u.id));
  const rows = (await repo.find({ where: { key: CAPS_KEY } })).filter(
    (r) => !kept.has(Number(r.userId)) && String(r.value).includes('"administrator"'),
  );
  for (const row of rows) await repo.update({ id: row.id }, { value: maybeSerialize({ editor: true }) });
  try {
    return await run();
  } finally {
    for (const row of rows) await repo.update({ id: row.id }, { value: row.value });
  }
}

beforeAll(async () => {
  t = await createTestApp('admin_lockout', { extensions: [LockoutFixturesModule] });
});

afterAll(() => t.close());

describe('an empty roles list', () => {
  it('cannot take all of an administrator’s own roles: 403, still an administrator, settings still readable', async () => {
    const admin = await fresh('administrator');
    for (const roles of [[], '']) {
      expectRestError(await call('put', '/users/me', admin, { roles }), 'rest_user_invalid_role', 403);
      expectRestError(await call('put', `/users/${admin.id}`, admin, { roles }), 'rest_user_invalid_role', 403);
    }
    expect(await storedRoles(admin)).toEqual(['administrator']);
    await call('get', '/settings', admin).expect(200);
  });

  it('still refuses a role without edit_users on oneself', async () => {
    const admin = await fresh('administrator');
    expectRestError(await call('put', '/users/me', admin, { roles: ['editor'] }), 'rest_user_invalid_role', 403);
    expectRestError(
      await call('put', '/users/me', admin, { roles: ['administrator', 'editor'] }),
      'rest_user_invalid_role',
      403,
    );
    expect(await storedRoles(admin)).toEqual(['administrator']);
  });

  it('is a change of roles: a subscriber needs promote_users to strip its own role', async () => {
    const subscriber = await fresh('subscriber');
    expectRestError(await call('put', '/users/me', subscriber, { roles: [] }), 'rest_cannot_edit_roles', 403);
    expect(await storedRoles(subscriber)).toEqual(['subscriber']);
  });

  it("takes another user's roles away, as WordPress does, while another administrator remains", async () => {
    const other = await fresh('administrator');
    const res = await call('put', `/users/${other.id}`, t.users.administrator, { roles: [] }).expect(200);
    expect(res.body.roles).toEqual([]);
    expect(await storedRoles(other)).toEqual([]);
  });
});

describe('the last administrator who can manage users', () => {
  it('cannot be demoted by a caller who may only promote users', async () => {
    const promoter = await fresh('promoter');
    const admin = await fresh('administrator');
    await withoutOtherAdministrators([admin], async () => {
      for (const roles of [['subscriber'], [], ['promoter']]) {
        expectRestError(
          await call('put', `/users/${admin.id}`, promoter, { roles }),
          'rest_user_last_administrator',
          403,
        );
      }
      expect(await storedRoles(admin)).toEqual(['administrator']);
      await call('get', '/settings', admin).expect(200);
    });
    // With another administrator, the same change goes through.
    await call('put', `/users/${admin.id}`, promoter, { roles: ['subscriber'] }).expect(200);
    expect(await storedRoles(admin)).toEqual(['subscriber']);
  });

  it('cannot delete itself, nor be deleted by a caller who may only delete users', async () => {
    const remover = await fresh('remover');
    const admin = await fresh('administrator');
    await withoutOtherAdministrators([admin], async () => {
      expectRestError(
        await call('delete', '/users/me?force=true&reassign=false', admin),
        'rest_user_last_administrator',
        403,
      );
      expectRestError(
        await call('delete', `/users/${admin.id}?force=true&reassign=false`, admin),
        'rest_user_last_administrator',
        403,
      );
      expectRestError(
        await call('delete', `/users/${admin.id}?force=true&reassign=false`, remover),
        'rest_user_last_administrator',
        403,
      );
      expect(await storedRoles(admin)).toEqual(['administrator']);
    });
    // With another administrator, an administrator may delete itself (as in WordPress).
    await call('delete', '/users/me?force=true&reassign=false', admin).expect(200);
    expect(await storedRoles(admin)).toBeNull();
  });

  it('cannot lose its capabilities through meta', async () => {
    const admin = await fresh('administrator');
    await withoutOtherAdministrators([admin], async () => {
      const res = await call('put', '/users/me', admin, {
        first_name: 'Changed',
        meta: { [CAPS_KEY]: { subscriber: true } },
      });
      expectRestError(res, 'rest_user_last_administrator', 403);
      expect(await storedRoles(admin)).toEqual(['administrator']);
      // The whole update is undone.
      expect(
        await t.dataSource.getRepository(UserMetaEntity).findOne({ where: { userId: admin.id, key: 'first_name' } }),
      ).toBeNull();
      // A capability denied directly counts too.
      expectRestError(
        await call('put', '/users/me', admin, { meta: { [CAPS_KEY]: { administrator: true, promote_users: false } } }),
        'rest_user_last_administrator',
        403,
      );
      expect(await storedRoles(admin)).toEqual(['administrator']);
    });
    // With another administrator, the write goes through.
    await call('put', '/users/me', admin, { meta: { [CAPS_KEY]: { editor: true } } }).expect(200);
    expect(await storedRoles(admin)).toEqual(['editor']);
  });

  it('survives two administrators demoting each other at once: one change goes through, the other is refused', async () => {
    for (let round = 0; round < 3; round++) {
      const a = await fresh('administrator');
      const b = await fresh('administrator');
      await withoutOtherAdministrators([a, b], async () => {
        const [first, second] = await Promise.all([
          call('put', `/users/${b.id}`, a, { roles: ['editor'] }),
          call('put', `/users/${a.id}`, b, { roles: ['editor'] }),
        ]);
        expect([first.status, second.status].sort()).toEqual([200, 403]);
        const refused = first.status === 403 ? first : second;
        expectRestError(refused, 'rest_user_last_administrator', 403);
        const roles = [await storedRoles(a), await storedRoles(b)];
        expect(roles.filter((r) => r?.includes('administrator'))).toHaveLength(1);
      });
      // Leave no extra administrator behind for the next round.
      for (const user of [a, b])
        await t.dataSource
          .getRepository(UserMetaEntity)
          .update({ userId: user.id, key: CAPS_KEY }, { value: maybeSerialize({ editor: true }) });
    }
  });

  it('survives two administrators deleting themselves at once', async () => {
    for (let round = 0; round < 3; round++) {
      const a = await fresh('administrator');
      const b = await fresh('administrator');
      await withoutOtherAdministrators([a, b], async () => {
        const answers = await Promise.all(
          [a, b].map((who) => call('delete', '/users/me?force=true&reassign=false', who)),
        );
        expect(answers.map((r) => r.status).sort()).toEqual([200, 403]);
        expect((await Promise.all([storedRoles(a), storedRoles(b)])).filter((r) => r !== null)).toEqual([
          ['administrator'],
        ]);
      });
      for (const user of [a, b])
        await t.dataSource
          .getRepository(UserMetaEntity)
          .update({ userId: user.id, key: CAPS_KEY }, { value: maybeSerialize({ editor: true }) });
    }
  });
});
