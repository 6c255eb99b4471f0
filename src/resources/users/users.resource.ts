import { Injectable } from '@nestjs/common';
import { avatarUrls, showAvatars } from '../../core/formatting/avatar';
import { capabilitiesOf, RoleDefinition, RolesService } from '../../core/auth/roles.service';
import { UserAccountsService } from '../../core/auth/user-accounts.service';
import { sanitizeTextField, sanitizeUserLogin } from '../../core/formatting/sanitize-text';
import { sanitizeSavedName, sanitizeSavedUrl } from '../../core/formatting/esc-url';
import { wpFilterKses } from '../../core/formatting/kses';
import { MAX_PASSWORD_BYTES } from '../../core/auth/password-hash';
import { DESCRIPTION_BYTES, TEXT_COLUMN_BYTES } from '../../core/text/text-limits';
import { sanitizeTitle } from '../../core/formatting';
import { EntityManager } from 'typeorm';
import { UserEntity } from '../../core/database/entities/user.entity';
import { maybeSerialize, textOf } from '../../core/formatting/php-serialize';
import { TablePrefix } from '../../core/database/table-prefix';
import { HookRegistry } from '../../core/hooks/hook-registry.service';
import { RestException } from '../../core/errors/rest.exception';
import { OptionsService } from '../../core/options/options.service';
import { ContentRegistry } from '../../core/registry/content-registry.service';
import { ItemMemo } from '../../core/rest/json-text';
import { CollectionArgs, CollectionQuery } from '../../core/rest/collection-query';
import { RestResource } from '../../core/rest/rest-resource';
import { RestRequest } from '../../core/rest/rest-request';
import { linkMap, RestResponse } from '../../core/rest/rest-response';
import { RestServer } from '../../core/rest/rest-server.service';
import { Methods } from '../../core/rest/route-types';
import { exposedMetaKeys, metaInput, metaResponse, metaSchemaProperties } from '../../core/rest/meta-fields';
import { ItemSchema, RouteArg } from '../../core/json-schema/json-schema';
import { CmsExtensionRegistry } from '../../extensions/extension-registry.service';
import { USER_SCHEMA } from './users.schema';
import { DEFAULT_ROLES } from '../../core/database/site-install';
import { UserQuery, UsersService } from './users.service';

const PROFILE_KEYS = ['first_name', 'last_name', 'nickname', 'description', 'locale'];

/** Per-request site facts used to prepare users. */
interface UserPrepareContext {
  home: string;
  locale: string;
  showAvatars: boolean;
  avatarDefault: string;
  avatarRating: string;
}

/** What preparing a set of users loads once (see `UsersResource.batchOf`). */
interface UserBatch {
  meta: Map<number, Record<string, unknown[]>>;
  site: UserPrepareContext;
  roles: Record<string, RoleDefinition>;
  registered: ReturnType<typeof exposedMetaKeys>;
}

/** The properties of a user's row that its response is made from (inputs of reused items). */
const USER_PROPERTIES = ['id', 'login', 'displayName', 'email', 'url', 'nicename', 'registered'] as const;

/**
 * `users`, `users/<id>` and `users/me` (the reference's users controller): the public-user rule, role checks,
 * WordPress's meta layout (`<prefix>capabilities`, profile meta), hooks `rest_insert_user`, `rest_delete_user` and
 * `rest_prepare_user`. Collections load every user's meta in one query.
 */
/** The arguments of `GET /users`, as {@link UsersResource.collectionArgs} declares them. */
interface UserListArgs extends CollectionArgs {
  orderby?: UserQuery['orderby'];
  roles?: string[];
  capabilities?: string[];
  who?: 'authors';
  has_published_posts?: boolean | string[];
}

@Injectable()
export class UsersResource extends RestResource {
  readonly restBase = 'users';

  constructor(
    server: RestServer,
    extensions: CmsExtensionRegistry,
    hooks: HookRegistry,
    private readonly users: UsersService,
    private readonly accounts: UserAccountsService,
    private readonly roles: RolesService,
    private readonly options: OptionsService,
    private readonly content: ContentRegistry,
    private readonly prefix: TablePrefix,
  ) {
    super(server, extensions, hooks);
  }

  protected baseSchema(): ItemSchema {
    const schema = structuredClone(USER_SCHEMA);
    // The reference's argument options: username and password checks, text and slug sanitising.
    const p = schema.properties;
    p.username.arg_options = {
      validate: (v) =>
        (typeof v === 'string' && v !== '' && sanitizeUserLogin(v) === v) ||
        'This username is invalid because it uses illegal characters. Please enter only alphanumeric, _, space, ., -, *, and @.',
    };
    p.password.arg_options = {
      // phpass's bound (MAX_PASSWORD_BYTES): a longer password is never hashed.
      maxBytes: MAX_PASSWORD_BYTES,
      validate: (v) =>
        typeof v !== 'string' || v === ''
          ? 'Passwords cannot be empty.'
          : v.includes('\\')
            ? 'Passwords cannot contain the "\\" character.'
            : true,
    };
    // WordPress's save filters, whoever writes (pre_user_display_name, pre_user_first_name, …; pre_user_description;
    // pre_user_url): no markup in names, the short kses list in the bio, allowed protocols only in the URL.
    // Their sizes are bounded before the filters run (text-limits.ts).
    for (const key of ['name', 'first_name', 'last_name', 'nickname']) {
      p[key].arg_options = {
        sanitize: (v) => sanitizeSavedName(sanitizeTextField(String(v))),
        maxBytes: TEXT_COLUMN_BYTES,
      };
    }
    p.description.arg_options = { sanitize: (v) => wpFilterKses(String(v)), maxBytes: DESCRIPTION_BYTES };
    p.url.arg_options = { sanitize: (v) => sanitizeSavedUrl(String(v)), maxBytes: TEXT_COLUMN_BYTES };
    p.slug.arg_options = { sanitize: (v) => sanitizeTitle(String(v)), maxBytes: TEXT_COLUMN_BYTES };
    p.username.arg_options.maxBytes = TEXT_COLUMN_BYTES;
    p.email.arg_options = { ...p.email.arg_options, maxBytes: TEXT_COLUMN_BYTES };
    schema.properties.meta.properties = metaSchemaProperties(exposedMetaKeys(this.extensions, 'user'));
    // The spec: the allowed `roles` are the schema's enum, the site's roles (extensions' included), checked as
    // arguments are (rest_invalid_param).
    p.roles.items = { type: 'string', enum: this.roleNames() };
    p.roles.arg_options = { validate: (v, name) => this.validRoles(v, name) };
    return schema;
  }

  /**
   * The site's role names as this node last read them — every authenticated request reads them, before its arguments
   * are checked — and before the first read, WordPress's defaults with the registered ones. (Never read at start:
   * the tables may not exist before migrations.)
   */
  private roleNames(): string[] {
    return (
      this.roles.known ?? [...new Set([...Object.keys(DEFAULT_ROLES), ...Object.keys(this.content.registeredRoles())])]
    );
  }

  /** `roles`: a list of known role names. */
  private validRoles(value: unknown, name: string): true | string {
    const list = Array.isArray(value)
      ? value
      : typeof value === 'string'
        ? value.split(/[\s,]+/).filter(Boolean)
        : null;
    if (!list) return `${name} is not of type array.`;
    const known = this.roleNames();
    for (let i = 0; i < list.length; i++) {
      if (typeof list[i] !== 'string' || !known.includes(list[i] as string))
        return `${name}[${i}] is not one of ${known.join(', ')}.`;
    }
    return true;
  }

  /** The schema as published, with the role names as this node knows them now. */
  override getPublicItemSchema(): ItemSchema {
    const schema = super.getPublicItemSchema();
    const roles = schema.properties.roles;
    if (!roles) return schema;
    return {
      ...schema,
      properties: { ...schema.properties, roles: { ...roles, items: { type: 'string', enum: this.roleNames() } } },
    };
  }

  readonly readArgs = () => ({ id: USER_ID, context: this.getContextParam({ default: 'view' }) });
  readonly currentArgs = () => ({ context: this.getContextParam({ default: 'view' }) });
  readonly createArgs = () => this.getEndpointArgsForItemSchema(Methods.CREATABLE);
  readonly editArgs = () => this.getEndpointArgsForItemSchema(Methods.EDITABLE);
  readonly updateArgs = () => ({ id: USER_ID, ...this.editArgs() });
  readonly deleteArgs = (): Record<string, RouteArg> => ({
    force: { type: 'boolean', default: false, description: 'Required to be true, as users do not support trashing.' },
    reassign: {
      type: 'integer',
      required: true,
      description: "Reassign the deleted user's posts and links to this user ID.",
      // `false` (or empty) deletes the user's content instead of reassigning it.
      validate: (value) =>
        value === false ||
        value === 'false' ||
        value === '' ||
        /^\d+$/.test(String(value)) ||
        'reassign is not of type integer',
      sanitize: (value) =>
        value === false || value === 'false' || value === '' ? false : Math.abs(Math.trunc(Number(value))),
    },
  });
  readonly deleteByIdArgs = () => ({ id: USER_ID, ...this.deleteArgs() });

  collectionArgs(): Record<string, RouteArg> {
    const base = this.getCollectionParams();
    return {
      ...base,
      exclude: this.idListArg('Ensure result set excludes specific IDs.'),
      include: this.idListArg('Limit result set to specific IDs.'),
      offset: { description: 'Offset the result set by a specific number of items.', type: 'integer' },
      order: {
        default: 'asc',
        description: 'Order sort attribute ascending or descending.',
        enum: ['asc', 'desc'],
        type: 'string',
      },
      orderby: {
        default: 'name',
        description: 'Sort collection by user attribute.',
        enum: ['id', 'include', 'name', 'registered_date', 'slug', 'include_slugs', 'email', 'url'],
        type: 'string',
      },
      slug: {
        description: 'Limit result set to users with one or more specific slugs.',
        type: 'array',
        items: { type: 'string' },
      },
      roles: {
        description:
          'Limit result set to users matching at least one specific role provided. Accepts csv list or single role.',
        type: 'array',
        items: { type: 'string' },
      },
      capabilities: {
        description:
          'Limit result set to users matching at least one specific capability provided. Accepts csv list or single capability.',
        type: 'array',
        items: { type: 'string' },
      },
      who: { description: 'Limit result set to users who are considered authors.', type: 'string', enum: ['authors'] },
      has_published_posts: {
        description: 'Limit result set to users who have published posts.',
        type: ['boolean', 'array'],
        items: { type: 'string', enum: this.restTypeNames() },
      },
    };
  }

  // --- permission checks (the reference's *_permissions_check) ---

  async canList(req: RestRequest): Promise<true | RestException> {
    const code = req.ctx.authorizationRequiredCode;
    const listUsers = await req.ctx.can('list_users');
    if (nonEmpty(req.get('roles')) && !listUsers)
      return new RestException('rest_user_cannot_view', 'Sorry, you cannot filter by role.', code);
    if (nonEmpty(req.get('capabilities')) && !listUsers) {
      return new RestException('rest_user_cannot_view', 'Sorry, you cannot filter by capability.', code);
    }
    if (req.context === 'edit' && !listUsers) {
      return new RestException(
        'rest_forbidden_context',
        'Sorry, you cannot view this resource with edit context.',
        code,
      );
    }
    if (['email', 'registered_date'].includes(String(req.get('orderby'))) && !listUsers) {
      return new RestException('rest_forbidden_orderby', 'Sorry, you cannot order by this parameter.', code);
    }
    if (req.get('who') === 'authors') {
      for (const type of this.content.restPostTypes()) if (await req.ctx.can(type.cap.edit_posts)) return true;
      return new RestException(
        'rest_forbidden_who',
        'Sorry, you are not allowed to query users by this parameter.',
        code,
      );
    }
    return true;
  }

  /** The user of the route, through a request-wide loader (embedded authors of a page of posts cost one query). */
  private async loadUser(req: RestRequest): Promise<UserEntity> {
    const user = await req.ctx
      .loader<number, UserEntity | null>('users', async (ids) => {
        const found = await this.users.findByIds([...ids]);
        return ids.map((id) => found.find((u) => u.id === id) ?? null);
      })
      .load(Number(req.get('id')));
    if (!user) throw new RestException('rest_user_invalid_id', 'Invalid resource id.', 404);
    return user;
  }

  async canRead(req: RestRequest): Promise<true | RestException> {
    const user = await this.loadUser(req);
    if (req.ctx.user.id === user.id) return true;
    const code = req.ctx.authorizationRequiredCode;
    const listUsers = await req.ctx.can('list_users');
    if (req.context === 'edit' && !listUsers) {
      return new RestException(
        'rest_user_cannot_view',
        'Sorry, you cannot view this resource with edit context.',
        code,
      );
    }
    if (!listUsers && !(await req.ctx.can('edit_user', user.id))) {
      const published = await req.ctx
        .loader<number, boolean>('users-published', async (ids) => {
          const found = await this.users.withPublishedPosts([...ids], this.restTypeNames());
          return ids.map((id) => found.has(id));
        })
        .load(user.id);
      if (!published) return new RestException('rest_user_cannot_view', 'Sorry, you cannot view this resource.', code);
    }
    return true;
  }

  async canCreate(req: RestRequest): Promise<true | RestException> {
    if (await req.ctx.can('create_users')) return true;
    // 401 for every caller, logged in or not: the spec's error table gives this code 401 (WordPress answers 403 to
    // a logged-in caller). The one refusal that does not follow the 401/403 rule; docs/differences.md lists it.
    return new RestException('rest_cannot_create_user', 'Sorry, you are not allowed to create resource.', 401);
  }

  async canUpdate(req: RestRequest): Promise<true | RestException> {
    const user = await this.loadUser(req);
    const code = req.ctx.authorizationRequiredCode;
    // An empty list takes every role away: it is a change of roles too (the reference asks promote_user for a
    // non-empty list only, and lets anyone strip their own roles).
    const roles = req.has('roles');
    const promote = roles && (await req.ctx.can('promote_user', user.id));
    // The reference's order: edit_user first (rest_cannot_edit), then the roles. Changing only the roles needs
    // nothing more than promote_user.
    const rolesOnly =
      roles && !req.paramNames().some((n) => req.sent(n) && n !== 'id' && n !== 'roles' && n !== 'context');
    if (!(rolesOnly && promote) && !(await req.ctx.can('edit_user', user.id))) {
      return new RestException('rest_cannot_edit', 'Sorry, you are not allowed to edit resource.', code);
    }
    if (roles && !promote)
      return new RestException(
        'rest_cannot_edit_roles',
        'Sorry, you are not allowed to edit roles of this resource.',
        code,
      );
    return true;
  }

  async canDelete(req: RestRequest): Promise<true | RestException> {
    const user = await this.loadUser(req);
    if (await req.ctx.can('delete_user', user.id)) return true;
    return new RestException(
      'rest_user_cannot_delete',
      'Sorry, you are not allowed to delete this resource.',
      req.ctx.authorizationRequiredCode,
    );
  }

  /** `users/me` acts on the current user: anonymous callers get 401 `rest_not_logged_in`. */
  async withCurrentId(req: RestRequest, check: () => Promise<true | RestException>): Promise<true | RestException> {
    if (!req.ctx.isLoggedIn) return new RestException('rest_not_logged_in', 'You are not currently logged in.', 401);
    req.urlParams.id = String(req.ctx.user.id);
    return check();
  }

  // --- handlers ---

  private restTypeNames(): string[] {
    return this.content.restPostTypes().map((t) => t.name);
  }

  async getItems(req: RestRequest): Promise<RestResponse> {
    // As the reference: a non-empty offset wins over page, and the page shown in links follows it.
    const q = CollectionQuery.of<UserListArgs>(req);
    const query: UserQuery = {
      include: q.include,
      exclude: q.exclude,
      search: q.search,
      slugs: q.slugs,
      roles: q.args.roles ?? [],
      authorsOnly: q.args.who === 'authors',
      publishedIn: await this.publishedFilter(req),
      restrictedSearch: !(await req.ctx.can('list_users')),
      capabilities: q.args.capabilities ?? [],
      orderby: q.orderby('name'),
      order: q.args.order ?? 'asc',
      limit: q.limit,
      offset: q.offset,
    };
    const filtered = await this.hooks.applyFilters('rest_user_query', query, req);
    const { users, total } = await this.users.list(filtered);
    const response = new RestResponse(await this.collectionItems(users, req));
    return this.paginate(response, req, total, `${this.namespace}/users`, {
      page: Math.ceil(q.offset / q.perPage + 1),
    });
  }

  /** Callers without `list_users` only see authors of published posts; `has_published_posts` asks for it too. */
  private async publishedFilter(req: RestRequest): Promise<string[] | undefined> {
    if (!(await req.ctx.can('list_users')) && req.get('who') !== 'authors') return this.restTypeNames();
    const asked = req.get<unknown>('has_published_posts');
    if (asked === true || asked === 'true' || asked === '1') return this.restTypeNames();
    if (Array.isArray(asked)) return asked.map(String);
    return undefined;
  }

  async getItem(req: RestRequest): Promise<RestResponse> {
    const user = await this.loadUser(req);
    if (this.itemsAsText(req, 'user')) return new RestResponse((await this.collectionItems([user], req))[0]);
    return this.prepareOne(user, req);
  }

  async getCurrent(req: RestRequest): Promise<RestResponse> {
    if (!req.ctx.isLoggedIn) throw new RestException('rest_not_logged_in', 'You are not currently logged in.', 401);
    const user = await this.users.findById(req.ctx.user.id);
    if (!user) throw new RestException('rest_not_logged_in', 'You are not currently logged in.', 401);
    return this.prepareOne(user, req);
  }

  async createItem(req: RestRequest): Promise<RestResponse> {
    if (req.sentAtAll('id', true)) throw new RestException('rest_user_exists', 'Cannot create existing resource.', 400);
    const roles = req.has('roles') ? (req.get<string[]>('roles') ?? []).map(String) : undefined;
    if (roles) await this.checkRoleUpdate(req, 0, roles);
    const user = await this.accounts.createUser({
      login: String(req.get('username')),
      email: String(req.get('email')),
      password: String(req.get('password')),
      roles,
      displayName: req.get<string>('name'),
      nicename: req.get<string>('slug'),
      firstName: req.get<string>('first_name'),
      lastName: req.get<string>('last_name'),
      nickname: req.get<string>('nickname'),
      url: req.get<string>('url'),
      description: req.get<string>('description'),
      locale: req.get<string>('locale'),
    });
    await this.writeMeta(user.id, req);
    await this.updateAdditionalFields(user, req);
    await this.hooks.doAction('rest_insert_user', user, req, true);
    const response = await this.prepareOne(user, withContext(req, 'edit'));
    return this.created(response, req, `${this.namespace}/users/${user.id}`);
  }

  async updateItem(req: RestRequest): Promise<RestResponse> {
    const user = await this.loadUser(req);
    const email = req.get<string>('email');
    if (email !== undefined && email.toLowerCase() !== user.email.toLowerCase()) {
      const other = await this.users.findBy({ email });
      if (other && other.id !== user.id)
        throw new RestException('rest_user_invalid_email', 'Email address is invalid.', 400);
    }
    const username = req.get<string>('username');
    if (username && username !== user.login)
      throw new RestException('rest_user_invalid_argument', "Username isn't editable", 400);
    const slug = req.get<string>('slug');
    if (slug && slug !== user.nicename) {
      const other = await this.users.findBy({ nicename: slug });
      if (other && other.id !== user.id) throw new RestException('rest_user_invalid_slug', 'Slug is invalid.', 400);
    }
    const roles = req.has('roles') ? (req.get<string[]>('roles') ?? []).map(String) : undefined;
    if (roles) await this.checkRoleUpdate(req, user.id, roles);

    const meta = this.sentMeta(req);

    await this.users.transaction(async (em) => {
      const write = async () => {
        await this.writeUser(em, user, req, email, slug);
        if (roles) await this.accounts.setRoles(user.id, roles, em);
        if (meta) await this.users.setMeta(em, user.id, meta);
      };
      // A change of roles (or of the capabilities, through meta) is refused when it leaves nobody who can manage
      // users: it takes its turn first, and all of the update is undone.
      return roles || this.writesCapabilities(meta) ? this.accounts.keepingUserManager(em, user.id, write) : write();
    });
    if (req.has('password')) await this.accounts.setPassword(user.id, String(req.get('password')));
    const updated = (await this.users.findById(user.id)) as UserEntity;
    await this.updateAdditionalFields(updated, req);
    await this.hooks.doAction('rest_insert_user', updated, req, false);
    return this.prepareOne(updated, withContext(req, 'edit'));
  }

  async deleteItem(req: RestRequest): Promise<RestResponse> {
    if (req.get('force') !== true) {
      throw new RestException(
        'rest_trash_not_supported',
        "Users do not support trashing. Set 'force' to true to delete.",
        501,
      );
    }
    const user = await this.loadUser(req);
    const reassign = req.get('reassign') ? Number(req.get('reassign')) : null;
    if (reassign !== null && (reassign === user.id || !(await this.users.findById(reassign)))) {
      throw new RestException('rest_user_invalid_reassign', 'Invalid resource id for reassignment.', 400);
    }
    const previous = await this.prepareOne(user, withContext(req, 'edit'));
    const deleteWithUser = this.content
      .allPostTypes()
      .filter((t) => t.delete_with_user === true || (t.delete_with_user == null && t.supports.author !== undefined))
      .map((t) => t.name);
    // Refused when it would leave nobody who can manage users (WordPress lets the last administrator go).
    await this.users.transaction((em) =>
      this.accounts.keepingUserManager(em, user.id, () =>
        this.users.deleteWithin(em, user.id, reassign, deleteWithUser),
      ),
    );
    await this.hooks.doAction('rest_delete_user', user, previous, req);
    return previous;
  }

  /** Writes the sent columns of the user's row and their profile meta. */
  private async writeUser(
    em: EntityManager,
    user: UserEntity,
    req: RestRequest,
    email: string | undefined,
    slug: string | undefined,
  ): Promise<void> {
    const row: Partial<UserEntity> = {};
    if (email !== undefined) row.email = email;
    if (slug) row.nicename = slug;
    if (req.has('name')) row.displayName = String(req.get('name'));
    if (req.has('url')) row.url = String(req.get('url'));
    if (Object.keys(row).length) await em.getRepository(UserEntity).update({ id: user.id }, row);
    const meta: Record<string, string> = {};
    for (const [param, key] of [
      ['first_name', 'first_name'],
      ['last_name', 'last_name'],
      ['nickname', 'nickname'],
      ['description', 'description'],
      ['locale', 'locale'],
    ]) {
      if (req.has(param)) meta[key] = String(req.get(param));
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
  private sentMeta(req: RestRequest): Record<string, string> | null {
    const sent = metaInput(exposedMetaKeys(this.extensions, 'user'), req.get('meta'));
    if (!Object.keys(sent).length) return null;
    return Object.fromEntries(Object.entries(sent).map(([key, value]) => [key, maybeSerialize(value)]));
  }

  /** Whether meta values write `<prefix>capabilities` (an extension may expose it): a change of roles. */
  private writesCapabilities(meta: Record<string, string> | null): boolean {
    return meta !== null && Object.prototype.hasOwnProperty.call(meta, this.capsKey());
  }

  /** Stores the registered meta keys sent in `meta`. */
  private async writeMeta(userId: number, req: RestRequest): Promise<void> {
    const meta = this.sentMeta(req);
    if (!meta) return;
    await this.users.transaction((em) =>
      this.writesCapabilities(meta)
        ? this.accounts.keepingUserManager(em, userId, () => this.users.setMeta(em, userId, meta))
        : this.users.setMeta(em, userId, meta),
    );
  }

  // --- preparation ---

  private async siteContext(req: RestRequest): Promise<UserPrepareContext> {
    const o = await this.options.getMany(['home', 'WPLANG', 'show_avatars', 'avatar_default', 'avatar_rating']);
    return {
      home: textOf(o.home ?? req.ctx.baseUrl).replace(/\/+$/, ''),
      locale: textOf(o.WPLANG || 'en_US'),
      showAvatars: showAvatars(o.show_avatars),
      avatarDefault: textOf(o.avatar_default ?? 'mystery'),
      avatarRating: textOf(o.avatar_rating ?? 'G'),
    };
  }

  /** One user's response (its meta in one query). */
  private async prepareOne(user: UserEntity, req: RestRequest): Promise<RestResponse> {
    return this.prepareItem(user, req, await this.batchOf([user], req));
  }

  /**
   * Users as collection items; as JSON text while nothing looks into them afterwards (`itemsAsText`), each reused
   * while everything it is made from is unchanged: the request's API URL and context, the site's options and
   * roles, the user's row and meta.
   */
  private async collectionItems(users: UserEntity[], req: RestRequest): Promise<unknown[]> {
    const batch = await this.batchOf(users, req);
    const { site } = batch;
    return this.reusedItems(this.memo, users, req, 'user', {
      key: (user) => user.id,
      inputs: (user) => {
        const inputs: unknown[] = [
          req.ctx.restUrl(''),
          req.ctx.baseUrl,
          req.context,
          site.home,
          site.locale,
          site.showAvatars,
          site.avatarDefault,
          site.avatarRating,
          batch.roles,
        ];
        const record = user as unknown as Record<string, unknown>;
        for (const property of USER_PROPERTIES) inputs.push(record[property]);
        inputs.push(JSON.stringify(batch.meta.get(user.id) ?? null));
        return inputs;
      },
      build: (user) => this.prepareItem(user, req, batch),
    });
  }

  private readonly memo = new ItemMemo();

  /** What preparing users needs, loaded for all of them at once: their meta, the site's options and roles. */
  private async batchOf(users: UserEntity[], req: RestRequest): Promise<UserBatch> {
    const registered = exposedMetaKeys(this.extensions, 'user');
    const keys = [...PROFILE_KEYS, this.capsKey(), ...registered.map((r) => r.key)];
    // Through a request-wide loader: users embedded in a page of posts read their meta in one query.
    const loaded = await req.ctx
      .loader<number, Record<string, unknown[]>>('users-meta', async (ids) => {
        const found = await this.users.metaOf([...ids], keys);
        return ids.map((id) => found.get(id) ?? {});
      })
      .loadMany(users.map((u) => u.id));
    const meta = new Map(users.map((u, i) => [u.id, loaded[i] instanceof Error ? {} : loaded[i]]));
    return { meta, site: await this.siteContext(req), roles: await this.roles.roles(), registered };
  }

  private capsKey(): string {
    return this.prefix.capabilitiesKey;
  }

  /**
   * One user's response. Whatever this reads of the request, the user or the batch must be among the inputs of
   * {@link collectionItems}, or a reused item would miss the change.
   */
  private async prepareItem(user: UserEntity, req: RestRequest, batch: UserBatch): Promise<RestResponse> {
    const { site, roles: known } = batch;
    const capsKey = this.capsKey();
    const all = batch.meta.get(user.id) ?? {};
    // Profile meta is single-valued: its first row.
    const m = Object.fromEntries(Object.entries(all).map(([k, v]) => [k, v[0]]));
    const stored = m[capsKey] && typeof m[capsKey] === 'object' ? (m[capsKey] as Record<string, unknown>) : {};
    const roleNames = Object.keys(stored).filter((k) => stored[k] && known[k]);
    const allcaps = capabilitiesOf(known, roleNames);
    for (const [cap, granted] of Object.entries(stored)) if (!known[cap]) allcaps[cap] = Boolean(granted);
    const data: Record<string, unknown> = {
      id: user.id,
      username: user.login,
      name: user.displayName,
      first_name: str(m.first_name),
      last_name: str(m.last_name),
      email: user.email,
      url: user.url,
      description: str(m.description),
      link: `${site.home}/author/${user.nicename}/`,
      locale: str(m.locale) || site.locale,
      nickname: str(m.nickname),
      slug: user.nicename,
      roles: roleNames,
      registered_date: `${user.registered.replace(' ', 'T')}+00:00`,
      capabilities: allcaps,
      extra_capabilities: Object.fromEntries(Object.entries(stored).map(([k, v]) => [k, Boolean(v)])),
    };
    if (site.showAvatars) data.avatar_urls = avatarUrls(user.email, site, req.ctx.baseUrl.startsWith('https:'));
    data.meta = metaResponse(batch.registered, all);
    const links = linkMap({
      self: { href: req.ctx.restUrl(`${this.namespace}/users/${user.id}`) },
      collection: { href: req.ctx.restUrl(`${this.namespace}/users`) },
    });
    return this.prepareResponse(data, req, links, 'user', user);
  }
}

function str(value: unknown): string {
  return value === undefined || value === null ? '' : textOf(value);
}

function nonEmpty(value: unknown): boolean {
  return Array.isArray(value) ? value.length > 0 : value !== undefined && value !== null && value !== '';
}

/** The same request, answered in another context (create/update/delete answer in `edit`). */
function withContext(req: RestRequest, context: string): RestRequest {
  req.set('context', context);
  return req;
}

const USER_ID: RouteArg = { description: 'Unique identifier for the user.', type: 'integer' };
