import { Injectable } from '@nestjs/common';
import { RestException } from '../../core/errors/rest.exception';
import { HookRegistry } from '../../core/hooks/hook-registry.service';
import { ItemSchema, RouteArg } from '../../core/json-schema/json-schema';
import { RestResource } from '../../core/rest/rest-resource';
import { RestRequest } from '../../core/rest/rest-request';
import { RestResponse } from '../../core/rest/rest-response';
import { RestServer } from '../../core/rest/rest-server.service';
import { CmsExtensionRegistry } from '../../extensions/extension-registry.service';
import { PostFormatSearcher } from './post-format-searcher';
import { PostSearcher } from './post-searcher';
import { SearchArgs, searchArgs, searchItemSchema, SearchKinds } from './search-schema';
import { ANY_SUBTYPE, Searcher } from './searcher';
import { TermSearcher } from './term-searcher';

/**
 * `search`: one search across posts of every public type, terms and post formats (mirrors WP_REST_Search_Controller,
 * WordPress 5.0+; routes in SearchHandlers). The `type` argument picks the handler that searches; results carry the
 * found object's route as an embeddable `self` link.
 */
@Injectable()
export class SearchResource extends RestResource {
  readonly restBase = 'search';
  /** The handlers, by type, in WordPress's order (`wp_rest_search_handlers`). */
  private readonly searchers: ReadonlyMap<string, Searcher>;

  constructor(
    server: RestServer,
    extensions: CmsExtensionRegistry,
    hooks: HookRegistry,
    posts: PostSearcher,
    terms: TermSearcher,
    formats: PostFormatSearcher,
  ) {
    super(server, extensions, hooks);
    this.searchers = new Map<string, Searcher>([posts, terms, formats].map((s) => [s.type, s as Searcher]));
  }

  /** The handlers' types and subtypes, each once. */
  private kinds(): SearchKinds {
    const searchers = [...this.searchers.values()];
    return {
      types: [...new Set(searchers.map((s) => s.type))],
      subtypes: [...new Set(searchers.flatMap((s) => s.subtypes()))],
    };
  }

  protected baseSchema(): ItemSchema {
    return searchItemSchema(this.kinds());
  }

  readonly listArgs = (): Record<string, RouteArg> => ({
    ...this.getCollectionParams(),
    ...searchArgs(this.kinds(), (description) => this.idListArg(description)),
  });

  /** The handler of the request's `type` (`get_search_handler()`). */
  private searcherOf(type: string | undefined): Searcher {
    const searcher = type ? this.searchers.get(type) : undefined;
    if (!searcher) throw new RestException('rest_search_invalid_type', 'Invalid type parameter.', 400);
    return searcher;
  }

  /** `sanitize_subtypes()`: `any` wins over the others; otherwise the handler's subtypes among those asked. */
  private subtypesOf(asked: string[], searcher: Searcher): string[] {
    if (asked.includes(ANY_SUBTYPE)) return [ANY_SUBTYPE];
    const own = new Set(searcher.subtypes());
    return asked.filter((subtype) => own.has(subtype));
  }

  async getItems(req: RestRequest): Promise<RestResponse> {
    const args = req.args<SearchArgs>();
    const searcher = this.searcherOf(args.type);
    const page = args.page ?? 1;
    const perPage = args.per_page ?? 10;
    // PHP's `! empty()`: no search for '' or '0'.
    const search = args.search && args.search !== '0' ? args.search : undefined;
    const { found, total } = await searcher.search({
      req,
      subtypes: this.subtypesOf(args.subtype ?? [ANY_SUBTYPE], searcher),
      search,
      include: args.include ?? [],
      exclude: args.exclude ?? [],
      page,
      perPage,
    });
    const collection = req.ctx.restUrl(`${this.namespace}/${this.restBase}`);
    const items: unknown[] = [];
    for (const { data, links } of await searcher.prepare(found, req)) {
      // Additional fields, the context, then the links; no `rest_prepare_*` filter (WordPress applies none here).
      const response = new RestResponse(this.filterByContext(await this.addAdditionalFields(data, req), req.context));
      response.addLinks(links).addLink('collection', collection);
      items.push(this.server.toCollectionItem(response));
    }
    const maxPages = Math.ceil(total / perPage);
    if (page > maxPages && total > 0) {
      throw new RestException(
        'rest_search_invalid_page_number',
        'The page number requested is larger than the number of pages available.',
        400,
      );
    }
    return this.paginate(new RestResponse(items), req, total, `${this.namespace}/${this.restBase}`, {
      prevUnclamped: true,
    });
  }
}
