import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { CMS_DATA_SOURCE } from '../database/cms-data-source';
import { CommentEntity } from '../database/entities/comment.entity';
import { PostMetaEntity } from '../database/entities/post-meta.entity';
import { PostEntity } from '../database/entities/post.entity';
import { TermTaxonomyEntity } from '../database/entities/term-taxonomy.entity';
import { UserEntity } from '../database/entities/user.entity';
import { maybeUnserialize } from '../formatting/php-serialize';
import { OptionsService } from '../options/options.service';
import { ContentRegistry } from '../registry/content-registry.service';
import { CurrentUser } from './current-user';
import { mapMetaCap, userHasAllCaps } from './map-meta-cap';
import { CommentLike, MetaAuthRequest, MetaCapLookups, PostLike, TermLike, UserLike } from './meta-cap-lookups';

/** Maps a capability to the primitive capabilities it requires (an extension's override of the built-in mapping). */
export type MetaCapMapper = (user: CurrentUser, ...args: unknown[]) => Promise<string[]> | string[];

/** Decides whether a meta key may be written; gets WordPress's default (`false` for `_`-prefixed keys). */
export type MetaAuthCallback = (request: MetaAuthRequest) => Promise<boolean> | boolean;

/**
 * Answers "may this user do that?". Meta capabilities (`edit_post`, `read_post`, ...) are mapped to primitive
 * ones as WordPress 6.1's `map_meta_cap` does (see `map-meta-cap.ts`); primitive ones are looked up in the
 * user's capabilities. Every permission decision of the API goes through here.
 *
 * Rows are read with the CMS DataSource; each `userCan()` call caches its own reads (a post read for
 * `read_post` is not read again for the `edit_post` it maps to) and nothing is kept between calls. Callers that
 * already hold rows pass them instead of ids (`ctx.can('edit_post', postEntity)`) and cause no query.
 */
@Injectable()
export class CapabilityService {
  private readonly metaMappers = new Map<string, MetaCapMapper>();
  private readonly metaAuth = new Map<string, MetaAuthCallback>();

  constructor(
    private readonly registry: ContentRegistry,
    @Inject(CMS_DATA_SOURCE) private readonly dataSource: DataSource,
    private readonly options: OptionsService,
  ) {}

  /**
   * Registers how a capability maps to primitive ones, replacing the built-in mapping (also when the
   * capability is reached while mapping another one, e.g. `read_post` of a draft maps through `edit_post`).
   *
   * @example
   * caps.registerMetaCap('edit_post', async (user, postId) => ['edit_others_posts']);
   */
  registerMetaCap(cap: string, mapper: MetaCapMapper): void {
    this.metaMappers.set(cap, mapper);
  }

  /**
   * Registers who may write a meta key, like WordPress's `auth_{$objectType}_meta_{$metaKey}` filter (or
   * `..._for_{$subtype}` when `subtype` is given, which takes precedence). Without one, protected (`_`-prefixed)
   * keys are refused and other keys follow `edit_{$objectType}`.
   *
   * @example
   * caps.registerMetaAuth('post', '_my_flag', () => true, 'post');
   */
  registerMetaAuth(
    objectType: 'post' | 'comment' | 'term' | 'user',
    metaKey: string,
    callback: MetaAuthCallback,
    subtype?: string,
  ): void {
    this.metaAuth.set(subtype ? `${objectType}\0${metaKey}\0${subtype}` : `${objectType}\0${metaKey}`, callback);
  }

  /** The primitive capabilities `user` needs for `cap` (`do_not_allow` meaning nobody). */
  async mapMetaCap(user: CurrentUser, cap: string, ...args: unknown[]): Promise<string[]> {
    return mapMetaCap(cap, user, args, this.lookups(user));
  }

  /** `true` when the user holds every primitive capability `cap` maps to (WordPress's `user_can()`). */
  async userCan(user: CurrentUser, cap: string, ...args: unknown[]): Promise<boolean> {
    const required = await this.mapMetaCap(user, cap, ...args);
    return userHasAllCaps(user, required);
  }

  /** Lookups backed by the database, with a cache that lives as long as the returned object. */
  private lookups(current: CurrentUser): MetaCapLookups {
    const cache = new Map<string, Promise<unknown>>();
    const cached = <T>(key: string, load: () => Promise<T>): Promise<T> => {
      let hit = cache.get(key) as Promise<T> | undefined;
      if (!hit) {
        hit = load();
        cache.set(key, hit);
      }
      return hit;
    };
    const ds = this.dataSource;

    return {
      registry: this.registry,

      post: async (ref) => {
        if (typeof ref === 'object') return ref;
        return cached(`post:${ref}`, async (): Promise<PostLike | null> => {
          return ds.getRepository(PostEntity).findOne({
            where: { id: ref },
            select: { id: true, author: true, status: true, type: true, parent: true },
          });
        });
      },

      comment: async (ref) => {
        if (typeof ref === 'object') return ref;
        return cached(`comment:${ref}`, async (): Promise<CommentLike | null> => {
          return ds.getRepository(CommentEntity).findOne({
            where: { id: ref },
            select: { id: true, postId: true, userId: true },
          });
        });
      },

      user: async (ref) => {
        if (typeof ref === 'object') return ref;
        if (ref === current.id && current.isLoggedIn) return { id: current.id };
        return cached(`user:${ref}`, async (): Promise<UserLike | null> => {
          return ds.getRepository(UserEntity).findOne({ where: { id: ref }, select: { id: true } });
        });
      },

      termTaxonomy: async (ref) => {
        if (typeof ref === 'object') return ref;
        return cached(`term:${ref}`, async (): Promise<TermLike | null> => {
          const row = await ds.getRepository(TermTaxonomyEntity).findOne({
            where: { termId: ref },
            select: { id: true, termId: true, taxonomy: true },
            order: { id: 'ASC' },
          });
          return row ? { termId: Number(row.termId), taxonomy: row.taxonomy } : null;
        });
      },

      option: (name) => cached(`option:${name}`, () => this.options.get<unknown>(name, undefined)),

      postMeta: (postId, key) =>
        cached(`postmeta:${postId}:${key}`, async () => {
          const row = await ds.getRepository(PostMetaEntity).findOne({
            where: { postId, key },
            select: { id: true, value: true },
            order: { id: 'ASC' },
          });
          return row ? maybeUnserialize(row.value ?? '') : undefined;
        }),

      override: (cap, user, args) => {
        const mapper = this.metaMappers.get(cap);
        return mapper ? mapper(user as CurrentUser, ...args) : undefined;
      },

      authMeta: (request) => {
        const callback =
          this.metaAuth.get(`${request.objectType}\0${request.metaKey}\0${request.objectSubtype}`) ??
          this.metaAuth.get(`${request.objectType}\0${request.metaKey}`);
        return callback ? callback(request) : request.allowed;
      },
    };
  }
}
