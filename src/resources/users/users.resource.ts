import { UserEntity } from '../../core/database/entities/user.entity';
import { Injectable } from '@nestjs/common';
import { RolesService } from '../../core/auth/roles.service';
import { sanitizeTextField, sanitizeUserLogin } from '../../core/formatting/sanitize-text';
import { sanitizeSavedName, sanitizeSavedUrl } from '../../core/formatting/esc-url';
import { wpFilterKses } from '../../core/formatting/kses';
import { MAX_PASSWORD_BYTES } from '../../core/auth/password-hash';
import { DESCRIPTION_BYTES, TEXT_COLUMN_BYTES } from '../../core/text/text-limits';
import { sanitizeTitle } from '../../core/formatting';
import { TablePrefix } from '../../core/database/table-prefix';
import { HookRegistry } from '../../core/hooks/hook-registry.service';
import { RestException } from '../../core/errors/rest.exception';
import { OptionsService } from '../../core/options/options.service';
import { ContentRegistry } from '../../core/registry/content-registry.service';
import { CollectionArgs, CollectionQuery, offsetArg } from '../../core/rest/collection-query';
import { RestResource } from '../../core/rest/rest-resource';
import { RestRequest } from '../../core/rest/rest-request';
import { RestResponse } from '../../core/rest/rest-response';
import { RestServer } from '../../core/rest/rest-server.service';
import { Methods } from '../../core/rest/route-types';
import { validateArgs } from '../../core/rest/request-args';
import { isBooleanLike, parseList, toBoolean } from '../../core/json-schema/schema-values';
import type { UsersDialect } from '../../core/wire-dialect';
import { exposedMetaKeys, metaSchemaProperties } from '../../core/rest/meta-fields';
import { ItemSchema, RouteArg } from '../../core/json-schema/json-schema';
import { CmsExtensionRegistry } from '../../extensions/extension-registry.service';
import { USER_SCHEMA } from './users.schema';
import { DEFAULT_ROLES } from '../../core/database/site-install';
import { loadUser } from './user-loader';
import { UserPresenter } from './user-presenter';
import { UserWriter } from './user-writer.service';
import { authorPostTypes, UserQuery } from './user-query';
import { UsersService } from './users.service';

/** The arguments of `GET /users`, as {@link UsersResource.collectionArgs} declares them. */
interface UserListArgs extends CollectionArgs {
  orderby?: UserQuery['orderby'];
  roles?: string[];
  capabilities?: string[];
  who?: 'authors';
  has_published_posts?: boolean | string[];
}

/**
 * `users`, `users/<id>` and `users/me` (the reference's users controller): the public-user rule, role checks,
 * WordPress's meta layout (`<prefix>capabilities`, profile meta), hooks `rest_insert_user`, `rest_delete_user` and
 * `rest_prepare_user`. Collections load every user's meta in one query. Who may do what is UserPolicies'; users are
 * prepared by its UserPresenter and written by UserWriter.
 */
@Injectable()
export class UsersResource extends RestResource {
  readonly restBase = 'users';
  private readonly presenter: UserPresenter;

  constructor(
    server: RestServer,
    private readonly extensionRegistry: CmsExtensionRegistry,
    hooks: HookRegistry,
    private readonly users: UsersService,
    private readonly roles: RolesService,
    options: OptionsService,
    private readonly content: ContentRegistry,
    private readonly prefix: TablePrefix,
    private readonly writer: UserWriter,
  ) {
    super(server, extensionRegistry, hooks);
    this.presenter = new UserPresenter(
      { users, roles, options, prefix, extensions: extensionRegistry },
      {
        namespace: this.namespace,
        ...this.responseBuilders<UserEntity>('user'),
      },
    );
  }

  /** The dialect's own user meta (WordPress 6.1's `persisted_preferences`), registered as an extension's would be. */
  override onModuleInit(): void {
    super.onModuleInit();
    for (const { key, prefixed, definition } of this.dialect.builtInUserMeta) {
      const stored = prefixed ? `${this.prefix.value}${key}` : key;
      // A key an extension registered first keeps its registration.
      if (!this.extensions.metaKeys('user').some(([registered]) => registered === stored))
        this.extensionRegistry.registerMeta('user', stored, definition);
    }
  }

  private get dialect(): UsersDialect {
    return this.server.options.wire.dialect.users;
  }

  protected baseSchema(): ItemSchema {
    const schema = structuredClone(USER_SCHEMA);
    // The reference's argument options: username and password checks, text and slug sanitising.
    const p = schema.properties;
    // WordPress checks both with their sanitize callbacks (check_username, check_user_password): in its second pass.
    p.username.arg_options = {
      checkedFirst: false,
      validate: (v) =>
        (typeof v === 'string' && v !== '' && sanitizeUserLogin(v) === v) ||
        'This username is invalid because it uses illegal characters. Please enter only alphanumeric, _, space, ., -, *, and @.',
    };
    p.password.arg_options = {
      checkedFirst: false,
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
    // arguments are (rest_invalid_param). WordPress's have no enum: UserWriter refuses an unknown role.
    if (!this.dialect.rolesEnum) return schema;
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
    if (!roles || !this.dialect.rolesEnum) return schema;
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
      offset: offsetArg(),
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
        items: { type: 'string', enum: this.publishedEnum() },
        // As rest_sanitize_value_from_schema() with the value's best type: a boolean when it is one, else a list.
        sanitize: (v) => (isBooleanLike(v) ? toBoolean(v) : parseList(v).map(String)),
      },
    };
  }

  // --- handlers ---

  private authorTypeNames(): string[] {
    return authorPostTypes(this.content, this.dialect).map((t) => t.name);
  }

  /**
   * `has_published_posts`' enum: a list (the spec's), or WordPress's PHP associative array (`name => name`, a JSON
   * object), which the validation does not read as an enum: {@link checkPublishedTypes} checks it.
   */
  private publishedEnum(): readonly unknown[] {
    const names = this.authorTypeNames();
    if (this.dialect.authorPostTypes !== 'listed') return names;
    return Object.fromEntries(names.map((n) => [n, n])) as unknown as readonly unknown[];
  }

  /** `has_published_posts` against the listed types, where its enum is an object; the argument's own 400. */
  private checkPublishedTypes(req: RestRequest): void {
    const sent = req.get('has_published_posts');
    if (this.dialect.authorPostTypes !== 'listed' || !Array.isArray(sent)) return;
    const arg: RouteArg = { type: ['boolean', 'array'], items: { type: 'string', enum: this.authorTypeNames() } };
    validateArgs(req, [['has_published_posts', arg]], new Set());
  }

  async getItems(req: RestRequest): Promise<RestResponse> {
    this.checkPublishedTypes(req);
    // As the reference: a non-empty offset wins over page, and the page shown in links follows it.
    const q = CollectionQuery.of<UserListArgs>(req);
    const query: UserQuery = {
      include: q.include,
      exclude: q.exclude,
      search: q.search,
      slugs: q.slugs,
      roles: q.args.roles ?? [],
      authorsOnly: q.args.who === 'authors',
      publishedIn: await this.publishedFilter(req, q.args),
      restrictedSearch: !(await req.ctx.can('list_users')),
      capabilities: q.args.capabilities ?? [],
      orderby: q.orderby('name'),
      order: q.args.order ?? 'asc',
      limit: q.limit,
      offset: q.offset,
    };
    const filtered = await this.hooks.applyFilters('rest_user_query', query, req);
    const { users, total } = await this.users.list(filtered);
    const response = new RestResponse(await this.presenter.collectionItems(users, req));
    return this.paginate(response, req, total, `${this.namespace}/users`, {
      page: Math.ceil(q.offset / q.perPage + 1),
    });
  }

  /** Callers without `list_users` only see authors of published posts; `has_published_posts` asks for it too. */
  private async publishedFilter(req: RestRequest, args: UserListArgs): Promise<string[] | undefined> {
    if (!(await req.ctx.can('list_users')) && args.who !== 'authors') return this.authorTypeNames();
    const asked: unknown = args.has_published_posts;
    if (asked === true || asked === 'true' || asked === '1') return this.authorTypeNames();
    if (Array.isArray(asked) && asked.length) return asked.map(String);
    return undefined;
  }

  async getItem(req: RestRequest): Promise<RestResponse> {
    const user = await loadUser(req, this.users);
    if (this.itemsAsText(req, 'user')) return new RestResponse((await this.presenter.collectionItems([user], req))[0]);
    return this.presenter.prepareOne(user, req);
  }

  async getCurrent(req: RestRequest): Promise<RestResponse> {
    if (!req.ctx.isLoggedIn) throw new RestException('rest_not_logged_in', 'You are not currently logged in.', 401);
    const user = await this.users.findById(req.ctx.user.id);
    if (!user) throw new RestException('rest_not_logged_in', 'You are not currently logged in.', 401);
    return this.presenter.prepareOne(user, req);
  }

  async createItem(req: RestRequest): Promise<RestResponse> {
    const user = await this.writer.create(req);
    await this.updateAdditionalFields(user, req);
    await this.hooks.doAction('rest_insert_user', user, req, true);
    const response = await this.presenter.prepareOne(user, withContext(req, 'edit'));
    return this.created(response, req, `${this.namespace}/users/${user.id}`);
  }

  async updateItem(req: RestRequest): Promise<RestResponse> {
    const updated = await this.writer.update(req);
    await this.updateAdditionalFields(updated, req);
    await this.hooks.doAction('rest_insert_user', updated, req, false);
    return this.presenter.prepareOne(updated, withContext(req, 'edit'));
  }

  async deleteItem(req: RestRequest): Promise<RestResponse> {
    const { user, reassign } = await this.writer.toDelete(req);
    const previous = await this.presenter.prepareOne(user, withContext(req, 'edit'));
    await this.writer.delete(user, reassign);
    await this.hooks.doAction('rest_delete_user', user, previous, req);
    return this.deleted(req, previous);
  }
}

/** The same request, answered in another context (create/update/delete answer in `edit`). */
function withContext(req: RestRequest, context: string): RestRequest {
  req.set('context', context);
  return req;
}

const USER_ID: RouteArg = { description: 'Unique identifier for the user.', type: 'integer' };
