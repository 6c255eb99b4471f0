import { Injectable } from '@nestjs/common';
import { textOf } from '../../core/formatting/php-serialize';
import { HookRegistry } from '../../core/hooks/hook-registry.service';
import { OptionsService } from '../../core/options/options.service';
import { ContentRegistry } from '../../core/registry/content-registry.service';
import type { RestRequest } from '../../core/rest/rest-request';
import { SearchService } from './search.service';
import { PreparedResult, Searcher, SearchRequest, SearchResult } from './searcher';
import { termLink } from './term-searcher';

/** `get_post_format_strings()`: each format's slug and name, in WordPress's order. */
const POST_FORMATS: ReadonlyArray<readonly [string, string]> = [
  ['standard', 'Standard'],
  ['aside', 'Aside'],
  ['chat', 'Chat'],
  ['gallery', 'Gallery'],
  ['link', 'Link'],
  ['image', 'Image'],
  ['quote', 'Quote'],
  ['status', 'Status'],
  ['video', 'Video'],
  ['audio', 'Audio'],
];

const FORMAT_NAMES = new Map(POST_FORMATS);

/** The arguments of a post format search, as `rest_post_format_search_query` filters them. */
export interface PostFormatSearchQuery {
  search?: string;
}

/**
 * Searches the post formats by slug and name (mirrors WP_REST_Post_Format_Search_Handler, WordPress 5.6+): the formats
 * that have a term (`get_post_format_link()` gives no address to the others), their slug as the id, no links.
 */
@Injectable()
export class PostFormatSearcher implements Searcher<string> {
  readonly type = 'post-format';

  constructor(
    private readonly content: ContentRegistry,
    private readonly sql: SearchService,
    private readonly options: OptionsService,
    private readonly hooks: HookRegistry,
  ) {}

  subtypes(): string[] {
    return [];
  }

  async search(s: SearchRequest): Promise<SearchResult<string>> {
    const query: PostFormatSearchQuery = s.search ? { search: s.search } : {};
    const { search } = await this.hooks.applyFilters('rest_post_format_search_query', query, s.req);
    const needle = search?.toLowerCase();
    // stripos() on the slug and on the name.
    const matching = POST_FORMATS.filter(
      ([slug, name]) => !needle || slug.toLowerCase().includes(needle) || name.toLowerCase().includes(needle),
    ).map(([slug]) => slug);
    const withTerm = await this.sql.postFormatTerms(matching.map((slug) => `post-format-${slug}`));
    const found = matching.filter((slug) => withTerm.has(`post-format-${slug}`));
    const start = (s.page - 1) * s.perPage;
    return { found: found.slice(start, start + s.perPage), total: found.length };
  }

  async prepare(slugs: string[], req: RestRequest): Promise<PreparedResult[]> {
    const home = textOf(await this.options.get('home', req.ctx.baseUrl)).replace(/\/+$/, '');
    const taxonomy = this.content.taxonomy('post_format');
    return slugs.map((slug) => ({
      data: {
        id: slug,
        title: FORMAT_NAMES.get(slug) ?? '',
        // The term's link, `post-format-` taken out of it (`_post_format_link()`).
        url: taxonomy ? termLink({ slug, parent: 0 }, taxonomy, home, new Map()) : '',
        type: this.type,
      },
      links: new Map(),
    }));
  }
}
