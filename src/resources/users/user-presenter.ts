import type { ResponseBuilders } from '../../core/rest/rest-resource';
import { RolesService, capabilitiesOf, RoleDefinition } from '../../core/auth/roles.service';
import { UserEntity } from '../../core/database/entities/user.entity';
import { TablePrefix } from '../../core/database/table-prefix';
import { avatarUrls, showAvatars } from '../../core/formatting/avatar';
import { textOf } from '../../core/formatting/php-serialize';
import { OptionsService } from '../../core/options/options.service';
import { ItemMemo } from '../../core/rest/json-text';
import { exposedMetaKeys, metaResponse } from '../../core/rest/meta-fields';
import { RestRequest } from '../../core/rest/rest-request';
import { linkMap, RestResponse } from '../../core/rest/rest-response';
import { CmsExtensionRegistry } from '../../extensions/extension-registry.service';
import { UsersService } from './users.service';

const PROFILE_KEYS = ['first_name', 'last_name', 'nickname', 'description', 'locale'];

/** Per-request site facts used to prepare users. */
interface UserPrepareContext {
  home: string;
  locale: string;
  showAvatars: boolean;
  avatarDefault: string;
  avatarRating: string;
}

/** What preparing a set of users loads once (see `UserPresenter.batchOf`). */
interface UserBatch {
  meta: Map<number, Record<string, unknown[]>>;
  site: UserPrepareContext;
  roles: Record<string, RoleDefinition>;
  registered: ReturnType<typeof exposedMetaKeys>;
}

/** The properties of a user's row that its response is made from (inputs of reused items). */
const USER_PROPERTIES = ['id', 'login', 'displayName', 'email', 'url', 'nicename', 'registered'] as const;

/** What the presenter is given by its resource: its route and the base class's builders. */
export interface UserView extends ResponseBuilders<UserEntity> {
  namespace: string;
}

/**
 * Users as the response gives them (made by UsersResource): the site's facts, what a set of users needs loaded at
 * once (their meta in one query, the site's options and roles), each user's fields, roles, capabilities, avatars,
 * meta and `_links`.
 */
export class UserPresenter {
  /** Collection items kept as JSON text, by user and context (see {@link collectionItems}). */
  private readonly memo = new ItemMemo();

  constructor(
    private readonly deps: {
      users: UsersService;
      roles: RolesService;
      options: OptionsService;
      prefix: TablePrefix;
      extensions: CmsExtensionRegistry;
    },
    private readonly view: UserView,
  ) {}

  private async siteContext(req: RestRequest): Promise<UserPrepareContext> {
    const o = await this.deps.options.getMany(['home', 'WPLANG', 'show_avatars', 'avatar_default', 'avatar_rating']);
    return {
      home: textOf(o.home ?? req.ctx.baseUrl).replace(/\/+$/, ''),
      locale: textOf(o.WPLANG || 'en_US'),
      showAvatars: showAvatars(o.show_avatars),
      avatarDefault: textOf(o.avatar_default ?? 'mystery'),
      avatarRating: textOf(o.avatar_rating ?? 'G'),
    };
  }

  /** One user's response (its meta in one query). */
  async prepareOne(user: UserEntity, req: RestRequest): Promise<RestResponse> {
    return this.prepareItem(user, req, await this.batchOf([user], req));
  }

  /**
   * Users as collection items; as JSON text while nothing looks into them afterwards (`itemsAsText`), each reused
   * while everything it is made from is unchanged: the request's API URL and context, the site's options and
   * roles, the user's row and meta.
   */
  async collectionItems(users: UserEntity[], req: RestRequest): Promise<unknown[]> {
    const batch = await this.batchOf(users, req);
    const { site } = batch;
    return this.view.reuse(this.memo, users, req, {
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

  /** What preparing users needs, loaded for all of them at once: their meta, the site's options and roles. */
  private async batchOf(users: UserEntity[], req: RestRequest): Promise<UserBatch> {
    const registered = exposedMetaKeys(this.deps.extensions, 'user');
    const keys = [...PROFILE_KEYS, this.capsKey(), ...registered.map((r) => r.key)];
    // Through a request-wide loader: users embedded in a page of posts read their meta in one query.
    const loaded = await req.ctx
      .loader<number, Record<string, unknown[]>>('users-meta', async (ids) => {
        const found = await this.deps.users.metaOf([...ids], keys);
        return ids.map((id) => found.get(id) ?? {});
      })
      .loadMany(users.map((u) => u.id));
    const meta = new Map(users.map((u, i) => [u.id, loaded[i] instanceof Error ? {} : loaded[i]]));
    return { meta, site: await this.siteContext(req), roles: await this.deps.roles.roles(), registered };
  }

  private capsKey(): string {
    return this.deps.prefix.capabilitiesKey;
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
      self: { href: req.ctx.restUrl(`${this.view.namespace}/users/${user.id}`) },
      collection: { href: req.ctx.restUrl(`${this.view.namespace}/users`) },
    });
    return this.view.respond(data, req, links, user);
  }
}

function str(value: unknown): string {
  return value === undefined || value === null ? '' : textOf(value);
}
