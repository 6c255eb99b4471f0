import { Injectable } from '@nestjs/common';
import { CMS_NAMESPACE } from '../../core/config/cms-options';
import { textOf } from '../../core/formatting/php-serialize';
import { HookRegistry } from '../../core/hooks/hook-registry.service';
import { OptionsService } from '../../core/options/options.service';
import { ContentRegistry } from '../../core/registry/content-registry.service';
import type { TaxonomyObject } from '../../core/registry/content-types';
import { restRouteOf } from '../../core/rest/rest-base';
import type { RestRequest } from '../../core/rest/rest-request';
import { linkMap } from '../../core/rest/rest-response';
import { FoundTerm, SearchService, TermSearchQuery } from './search.service';
import { ANY_SUBTYPE, PreparedResult, Searcher, SearchRequest, SearchResult } from './searcher';

/**
 * Searches the terms of the public REST taxonomies by name and slug, by name (mirrors WP_REST_Term_Search_Handler,
 * WordPress 5.6+). Each result's `type` is its taxonomy and it has no `subtype`, as in WordPress 6.1.
 */
@Injectable()
export class TermSearcher implements Searcher<FoundTerm> {
  readonly type = 'term';

  constructor(
    private readonly content: ContentRegistry,
    private readonly sql: SearchService,
    private readonly options: OptionsService,
    private readonly hooks: HookRegistry,
  ) {}

  subtypes(): string[] {
    return this.content
      .allTaxonomies()
      .filter((t) => t.public && t.show_in_rest)
      .map((t) => t.name);
  }

  async search(s: SearchRequest): Promise<SearchResult<FoundTerm>> {
    const asked = s.subtypes.includes(ANY_SUBTYPE) ? this.subtypes() : s.subtypes;
    const query: TermSearchQuery = {
      // WP_Term_Query reads an empty list as every taxonomy: the handler's own are searched instead.
      taxonomies: asked.length ? asked : this.subtypes(),
      include: s.include,
      exclude: s.exclude,
      search: s.search,
      limit: s.perPage,
      offset: (s.page - 1) * s.perPage,
    };
    const filtered = await this.hooks.applyFilters('rest_term_search_query', query, s.req);
    const { terms, total } = await this.sql.terms(filtered);
    return { found: terms, total };
  }

  async prepare(terms: FoundTerm[], req: RestRequest): Promise<PreparedResult[]> {
    const home = textOf(await this.options.get('home', req.ctx.baseUrl)).replace(/\/+$/, '');
    const ancestors = await this.ancestors(terms);
    return terms.map((term) => {
      const taxonomy = this.content.taxonomy(term.taxonomy);
      const data: Record<string, unknown> = {
        id: term.termId,
        title: term.name,
        url: taxonomy ? termLink(term, taxonomy, home, ancestors) : '',
        type: term.taxonomy,
      };
      const route = taxonomy?.show_in_rest ? restRouteOf(taxonomy) : null;
      const links = linkMap({
        ...(route && {
          self: { href: req.ctx.restUrl(`${route.namespace}/${route.restBase}/${term.termId}`), embeddable: true },
        }),
        about: { href: req.ctx.restUrl(`${CMS_NAMESPACE}/taxonomies/${term.taxonomy}`) },
      });
      return { data, links };
    });
  }

  /** The ancestors of the terms of hierarchical rewrites (their addresses), loaded level by level. */
  private async ancestors(terms: FoundTerm[]): Promise<Map<number, FoundTerm>> {
    const known = new Map<number, FoundTerm>(terms.map((t) => [t.termId, t]));
    const nested = terms.filter((t) => {
      const rewrite = this.content.taxonomy(t.taxonomy)?.rewrite;
      return rewrite && rewrite.hierarchical;
    });
    const taxonomies = [...new Set(nested.map((t) => t.taxonomy))];
    let wanted = [...new Set(nested.map((t) => t.parent))].filter((id) => id > 0 && !known.has(id));
    for (let depth = 0; wanted.length && depth < 20; depth++) {
      const rows = await this.sql.termsByIds(taxonomies, wanted);
      for (const row of rows) known.set(row.termId, row);
      wanted = [...new Set(rows.map((t) => t.parent))].filter((id) => id > 0 && !known.has(id));
    }
    return known;
  }
}

/** `get_term_link()` with `/%postname%/` permalinks (as the terms resource writes a term's `link`). */
export function termLink(
  term: Pick<FoundTerm, 'slug' | 'parent'>,
  taxonomy: TaxonomyObject,
  home: string,
  ancestors: ReadonlyMap<number, Pick<FoundTerm, 'slug' | 'parent'>>,
): string {
  const rewrite = taxonomy.rewrite;
  if (!rewrite) {
    return taxonomy.query_var
      ? `${home}/?${taxonomy.query_var}=${term.slug}`
      : `${home}/?taxonomy=${taxonomy.name}&term=${term.slug}`;
  }
  const path = [term.slug];
  if (rewrite.hierarchical) {
    let parent = term.parent ? ancestors.get(term.parent) : undefined;
    for (let i = 0; parent && i < 20; i++) {
      path.unshift(parent.slug);
      parent = parent.parent ? ancestors.get(parent.parent) : undefined;
    }
  }
  return `${home}/${rewrite.slug}/${path.join('/')}/`;
}
