import { Injectable } from '@nestjs/common';
import { RestRequest } from '../../core/rest/rest-request';
import { Allow, RestRoute } from '../../core/rest/rest-route.decorator';
import { SearchResource } from './search.resource';

/**
 * Whether an answer of `GET search` depends on posts' content (for the response cache): a post search does (titles,
 * the search's matches, the newest posts); terms and post formats do not.
 */
function searchReadsPostContent(query: Record<string, unknown>): boolean {
  return query.type !== 'term' && query.type !== 'post-format';
}

/** The route of `search` (mirrors WP_REST_Search_Controller::register_routes): public, as WordPress's. */
@Injectable()
export class SearchHandlers {
  constructor(readonly search: SearchResource) {}

  @RestRoute('/search', {
    methods: 'GET',
    args: (h: SearchHandlers) => h.search.listArgs(),
    schema: (h: SearchHandlers) => h.search.getPublicItemSchema(),
    readsPostContent: searchReadsPostContent,
    returns: 'list',
  })
  @Allow.public()
  list(req: RestRequest) {
    return this.search.getItems(req);
  }
}
