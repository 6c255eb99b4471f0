import { recordEvent } from '../../core/webhooks/outbox';
import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { RolesService } from '../../core/auth/roles.service';
import { UserAccountsService } from '../../core/auth/user-accounts.service';
import { UserEntity } from '../../core/database/entities/user.entity';
import { TablePrefix } from '../../core/database/table-prefix';
import { RestException } from '../../core/errors/rest.exception';
import { maybeSerialize } from '../../core/formatting/php-serialize';
import { ContentRegistry } from '../../core/registry/content-registry.service';
import { exposedMetaKeys, metaInput, metaWriteChecks } from '../../core/rest/meta-fields';
import { RestRequest } from '../../core/rest/rest-request';
import { CmsExtensionRegistry } from '../../extensions/extension-registry.service';
import { loadUser } from './user-loader';
import { UsersService } from './users.service';
import type { UserCreateArgs, UserDeleteArgs, UserWriteArgs } from './users.schema';

/**
 * The writing path of the users resource (`create_item`, `update_item`, `delete_item` up to the stored rows): the
 * reference's checks of the sent fields and roles, the user's row and profile meta, roles, password and registered
 * meta, the deletion with the reassignment of the user's content — never leaving the site without someone who can
 * manage users. The responses (additional fields, `rest_insert_user`, `rest_delete_user`, the item) are the
 * resource's.
 */
@Injectable()
export class UserWriter {
  constructor(
    private readonly users: UsersService,
    private readonly accounts: UserAccountsService,
    private readonly roles: RolesService,
    private readonly content: ContentRegistry,
    private readonly prefix: TablePrefix,
    private readonly extensions: CmsExtensionRegistry,
  ) {}

  /** A new user from the request (`POST users`), stored with its registered meta. */
  async create(req: RestRequest): Promise<UserEntity> {
    if (req.sentAtAll('id', true)) throw new RestException('rest_user_exists', 'Cannot create existing resource.', 400);
    const args = req.args<UserCreateArgs>();
    const roles = args.roles;
    if (roles) await this.checkRoleUpdate(req, 0, roles);
    // Checked before anything is written.
    const meta = this.sentMeta(req, args);
    let created: UserEntity | undefined;
    // The account and its `user.created` event in one transaction: a rolled-back account sends nothing.
    await this.users.transaction(async (em) => {
      created = await this.accounts.createUser(
        {
          login: args.username,
          email: args.email,
          password: args.password,
          roles,
          displayName: args.name,
          nicename: args.slug,
          firstName: args.first_name,
          lastName: args.last_name,
          nickname: args.nickname,
          url: args.url,
          description: args.description,
          locale: args.locale,
        },
        em,
      );
      await recordEvent(em, { event: 'user.created', objectType: 'user', id: created.id });
    });
    const user = created as UserEntity;
    await this.writeMeta(user.id, meta);
    return user;
  }

  /** The user of the route with the sent fields, roles, meta and password written (`POST users/<id>`), read back. */
  async update(req: RestRequest): Promise<UserEntity> {
    const user = await loadUser(req, this.users);
    const args = req.args<UserWriteArgs>();
    const email = args.email;
    if (email !== undefined && email.toLowerCase() !== user.email.toLowerCase()) {
      const other = await this.users.findBy({ email });
      if (other && other.id !== user.id)
        throw new RestException('rest_user_invalid_email', 'Email address is invalid.', 400);
    }
    const username = args.username;
    if (username && username !== user.login)
      throw new RestException('rest_user_invalid_argument', "Username isn't editable", 400);
    const slug = args.slug;
    if (slug && slug !== user.nicename) {
      const other = await this.users.findBy({ nicename: slug });
      if (other && other.id !== user.id) throw new RestException('rest_user_invalid_slug', 'Slug is invalid.', 400);
    }
    const roles = args.roles;
    if (roles) await this.checkRoleUpdate(req, user.id, roles);

    const meta = this.sentMeta(req, args);

    await this.users.transaction(async (em) => {
      const write = async () => {
        await this.writeUser(em, user, args);
        if (roles) await this.accounts.setRoles(user.id, roles, em);
        if (meta) await this.users.setMeta(em, user.id, meta);
      };
      // A change of roles (or of the capabilities, through meta) is refused when it leaves nobody who can manage
      // users: it takes its turn first, and all of the update is undone.
      await recordEvent(em, { event: 'user.updated', objectType: 'user', id: user.id });
      return roles || this.writesCapabilities(meta) ? this.accounts.keepingUserManager(em, user.id, write) : write();
    });
    if (args.password !== undefined) await this.accounts.setPassword(user.id, args.password);
    const updated = (await this.users.findById(user.id)) as UserEntity;
    return updated;
  }

  /** The user `DELETE users/<id>` deletes, and who gets their content (`null`: it is deleted with them), checked. */
  async toDelete(req: RestRequest): Promise<{ user: UserEntity; reassign: number | null }> {
    const args = req.args<UserDeleteArgs>();
    if (args.force !== true) {
      throw new RestException(
        'rest_trash_not_supported',
        "Users do not support trashing. Set 'force' to true to delete.",
        501,
      );
    }
    const user = await loadUser(req, this.users);
    const reassign = args.reassign || null;
    if (reassign !== null && (reassign === user.id || !(await this.users.findById(reassign)))) {
      throw new RestException('rest_user_invalid_reassign', 'Invalid resource id for reassignment.', 400);
    }
    return { user, reassign };
  }

  /** Deletes the user, their content reassigned or deleted with them. */
  async delete(user: UserEntity, reassign: number | null): Promise<void> {
    const deleteWithUser = this.content
      .allPostTypes()
      .filter((t) => t.delete_with_user === true || (t.delete_with_user == null && t.supports.author !== undefined))
      .map((t) => t.name);
    // Refused when it would leave nobody who can manage users (WordPress lets the last administrator go).
    await this.users.transaction(async (em) => {
      await recordEvent(em, { event: 'user.deleted', objectType: 'user', id: user.id });
      await this.accounts.keepingUserManager(em, user.id, () =>
        this.users.deleteWithin(em, user.id, reassign, deleteWithUser),
      );
    });
  }

  /** Writes the sent columns of the user's row and their profile meta. */
  private async writeUser(em: EntityManager, user: UserEntity, args: UserWriteArgs): Promise<void> {
    const row: Partial<UserEntity> = {};
    if (args.email !== undefined) row.email = args.email;
    if (args.slug) row.nicename = args.slug;
    if (args.name !== undefined) row.displayName = args.name;
    if (args.url !== undefined) row.url = args.url;
    if (Object.keys(row).length) await em.getRepository(UserEntity).update({ id: user.id }, row);
    const meta: Record<string, string> = {};
    for (const key of ['first_name', 'last_name', 'nickname', 'description', 'locale'] as const) {
      const value = args[key];
      if (value !== undefined) meta[key] = value;
    }
    await this.users.setMeta(em, user.id, meta);
  }

  /**
   * The reference's role check: known roles only, no self-demotion below `edit_users` — nor to no role at all (the
   * reference checks non-empty lists only, so `[]` took every role of the caller away).
   */
  private async checkRoleUpdate(req: RestRequest, userId: number, roles: string[]): Promise<void> {
    const known = await this.roles.roles();
    const own = req.ctx.user.id === userId;
    const refused = () =>
      new RestException(
        'rest_user_invalid_role',
        'You cannot give resource that role.',
        req.ctx.authorizationRequiredCode,
      );
    for (const role of roles) {
      const def = known[role];
      if (!def) throw new RestException('rest_user_invalid_role', `The role ${role} does not exist.`, 400);
      if (own && !def.capabilities.edit_users) throw refused();
    }
    if (own && !roles.length) throw refused();
  }

  /** The registered meta keys sent in `meta`, as stored, or `null` when none is. */
  private sentMeta(req: RestRequest, args: UserWriteArgs): Record<string, string> | null {
    const sent = metaInput(exposedMetaKeys(this.extensions, 'user'), args.meta, metaWriteChecks(req.ctx.wire.dialect));
    if (!Object.keys(sent).length) return null;
    return Object.fromEntries(Object.entries(sent).map(([key, value]) => [key, maybeSerialize(value)]));
  }

  /** Whether meta values write `<prefix>capabilities` (an extension may expose it): a change of roles. */
  private writesCapabilities(meta: Record<string, string> | null): boolean {
    return meta !== null && Object.prototype.hasOwnProperty.call(meta, this.capsKey());
  }

  /** Stores the registered meta keys sent in `meta` (see {@link sentMeta}). */
  private async writeMeta(userId: number, meta: Record<string, string> | null): Promise<void> {
    if (!meta) return;
    await this.users.transaction((em) =>
      this.writesCapabilities(meta)
        ? this.accounts.keepingUserManager(em, userId, () => this.users.setMeta(em, userId, meta))
        : this.users.setMeta(em, userId, meta),
    );
  }

  private capsKey(): string {
    return this.prefix.capabilitiesKey;
  }
}
