import { Injectable } from '@nestjs/common';
import { CMS_NAMESPACE } from '../../core/config/cms-options';
import type { PostEntity } from '../../core/database/entities/post.entity';
import { HookRegistry } from '../../core/hooks/hook-registry.service';
import { OptionsService } from '../../core/options/options.service';
import { ContentRegistry } from '../../core/registry/content-registry.service';
import type { PostTypeObject } from '../../core/registry/content-types';
import { permalink, PLAIN_LINK_STATUSES } from '../../core/rest/permalink';
import { restRouteOf } from '../../core/rest/rest-base';
import type { RestRequest } from '../../core/rest/rest-request';
import { linkMap } from '../../core/rest/rest-response';
import { filterText } from '../../core/text/text-filter-pool';
import { textOf } from '../../core/formatting/php-serialize';
import { PostQuery, PostReads, PostsService, PostTypeResources } from '../posts';
import { ANY_SUBTYPE, PreparedResult, Searcher, SearchRequest, SearchResult } from './searcher';

/**
 * Searches published posts of the public REST post types but attachments (mirrors WP_REST_Post_Search_Handler):
 * by relevance when there is a search (WP_Query's default order for a search), newest first otherwise.
 */
@Injectable()
export class PostSearcher implements Searcher<PostEntity> {
  readonly type = 'post';

  constructor(
    private readonly content: ContentRegistry,
    private readonly postTypes: PostTypeResources,
    private readonly posts: PostsService,
    private readonly reads: PostReads,
    private readonly options: OptionsService,
    private readonly hooks: HookRegistry,
  ) {}

  subtypes(): string[] {
    return this.content
      .allPostTypes()
      .filter((t) => t.public && t.show_in_rest && t.name !== 'attachment')
      .map((t) => t.name);
  }

  async search(s: SearchRequest): Promise<SearchResult<PostEntity>> {
    await this.postTypes.future.catchUp();
    const asked = s.subtypes.includes(ANY_SUBTYPE) ? this.subtypes() : s.subtypes;
    // WP_Query reads an empty list of post types as `post`.
    const types = asked.length ? asked : ['post'];
    const query: PostQuery = {
      type: types[0],
      types,
      statuses: ['publish'],
      include: s.include,
      exclude: s.exclude,
      authors: [],
      authorsExclude: [],
      parents: [],
      parentsExclude: [],
      slugs: [],
      search: s.search,
      terms: [],
      taxRelation: 'AND',
      orderby: s.search ? 'relevance' : 'date',
      order: 'DESC',
      limit: s.perPage,
      offset: (s.page - 1) * s.perPage,
    };
    const filtered = await this.hooks.applyFilters('rest_post_search_query', query, s.req);
    if (filtered.search && filtered.protectedSearch === undefined)
      filtered.protectedSearch = await this.protectedSearch(filtered.types ?? [filtered.type], s.req);
    const { posts, total } = await this.posts.list(filtered);
    // The rows read are those the embedded posts (`_embed`, through `self`) load: they need not be read again.
    const loader = this.reads.loader(s.req);
    for (const post of posts) loader.prime(post.id, post);
    // WP_Query leaves `found_posts` at 0 when the page it read is empty (a page past the last one).
    return { found: posts, total: posts.length ? total : 0 };
  }

  /**
   * Whose password-protected posts the search may find, over several types: what the caller may find in every one
   * of them (see `PostPolicies.protectedSearch`), so no type's protected words are found by a caller who cannot
   * edit them.
   */
  private async protectedSearch(names: string[], req: RestRequest): Promise<PostQuery['protectedSearch']> {
    let all = true;
    for (const name of names) {
      const type = this.content.postType(name);
      if (!type) return undefined;
      const open = await this.postTypes.of(type).policies.protectedSearch(req);
      if (open === undefined) return undefined;
      if (open !== 'all') all = false;
    }
    return all ? 'all' : { author: req.ctx.user.id };
  }

  async prepare(posts: PostEntity[], req: RestRequest): Promise<PreparedResult[]> {
    const home = textOf(await this.options.get('home', req.ctx.baseUrl)).replace(/\/+$/, '');
    const parents = await this.ancestors(posts);
    const out: PreparedResult[] = [];
    for (const post of posts) {
      const type = this.content.postType(post.type);
      const data: Record<string, unknown> = { id: post.id };
      // get_the_title() without the "Protected: " prefix (the handler's protected_title_format).
      data.title =
        type && type.supports.title !== undefined
          ? await filterText('renderTitle', post.title, post.status, post.password)
          : '';
      data.url = type ? permalink(post, type, home, parents, !PLAIN_LINK_STATUSES.includes(post.status)) : '';
      data.type = this.type;
      data.subtype = post.type;
      out.push({ data, links: this.links(post, type, req) });
    }
    return out;
  }

  /** `self` (the post's route, embeddable) and `about` (its type), as `prepare_item_links()` makes them. */
  private links(post: PostEntity, type: PostTypeObject | undefined, req: RestRequest) {
    const route = type?.show_in_rest ? restRouteOf(type) : null;
    return linkMap({
      ...(route && {
        self: { href: req.ctx.restUrl(`${route.namespace}/${route.restBase}/${post.id}`), embeddable: true },
      }),
      about: { href: req.ctx.restUrl(`${CMS_NAMESPACE}/types/${post.type}`) },
    });
  }

  /** The ancestors of the hierarchical posts found (their addresses), loaded level by level. */
  private async ancestors(posts: PostEntity[]): Promise<Map<number, PostEntity>> {
    const known = new Map<number, PostEntity>(posts.map((p) => [p.id, p]));
    const hierarchical = (p: PostEntity) => this.content.postType(p.type)?.hierarchical === true;
    let wanted = [...new Set(posts.filter(hierarchical).map((p) => p.parent))].filter((id) => id > 0 && !known.has(id));
    for (let depth = 0; wanted.length && depth < 20; depth++) {
      const rows = await this.posts.findByIds(wanted);
      for (const row of rows) known.set(row.id, row);
      wanted = [...new Set(rows.map((p) => p.parent))].filter((id) => id > 0 && !known.has(id));
    }
    return known;
  }
}
