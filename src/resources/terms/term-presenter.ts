import type { OptionsService } from '../../core/options/options.service';
import type { ContentRegistry } from '../../core/registry/content-registry.service';
import type { TaxonomyObject } from '../../core/registry/content-types';
import { ExposedMetaKey, metaResponse } from '../../core/rest/meta-fields';
import type { RestRequest } from '../../core/rest/rest-request';
import { LinkMap, linkMap } from '../../core/rest/rest-response';
import type { RestServer } from '../../core/rest/rest-server.service';
import { termLoader, termMetaLoader } from './term-loaders';
import type { TermRow, TermsService } from './terms.service';

/** What preparing a set of terms loads once (see {@link TermPresenter.batchOf}). */
export interface TermBatch {
  home: string;
  meta: Map<number, Record<string, unknown[]>>;
  ancestors: Map<number, TermRow>;
}

/** What a taxonomy's terms resource tells its presenter. */
export interface TermView {
  taxonomy: TaxonomyObject;
  namespace: string;
  restBase: string;
  registeredMeta: () => ExposedMetaKey[];
}

/**
 * The fields and links of a taxonomy's terms (the reference's `prepare_item_for_response()` and `prepare_links()`),
 * from what is loaded once for a set of them: the home URL, registered meta and ancestors.
 */
export class TermPresenter {
  private readonly taxonomy: TaxonomyObject;

  constructor(
    private readonly deps: {
      options: OptionsService;
      terms: TermsService;
      content: ContentRegistry;
      server: RestServer;
    },
    private readonly view: TermView,
  ) {
    this.taxonomy = view.taxonomy;
  }

  /** What preparing terms needs, loaded for all of them at once: home URL, registered meta, ancestors. */
  async batchOf(terms: TermRow[], req: RestRequest): Promise<TermBatch> {
    const home = String((await this.deps.options.get('home', req.ctx.baseUrl)) ?? req.ctx.baseUrl).replace(/\/+$/, '');
    const metaKeys = this.view.registeredMeta().map((m) => m.key);
    const metaLoader = termMetaLoader(req, this.deps.terms, this.taxonomy.name, metaKeys);
    const meta = new Map<number, Record<string, unknown[]>>();
    if (metaKeys.length && terms.length) {
      const values = await metaLoader.loadMany(terms.map((t) => t.termId));
      terms.forEach((t, i) => meta.set(t.termId, values[i] instanceof Error ? {} : values[i]));
    }
    const ancestors = this.taxonomy.hierarchical ? await this.ancestorsOf(terms, req) : new Map<number, TermRow>();
    return { home, meta, ancestors };
  }

  /**
   * One term's fields. Whatever this (or {@link links}) reads of the request, the term or the batch must be among
   * its {@link inputs}, or a reused item would miss the change.
   */
  data(term: TermRow, batch: TermBatch): Record<string, unknown> {
    const data: Record<string, unknown> = {
      id: term.termId,
      count: term.count,
      description: term.description,
      link: this.termLink(term, batch.home, batch.ancestors),
      name: term.name,
      slug: term.slug,
      taxonomy: term.taxonomy,
    };
    if (this.taxonomy.hierarchical) data.parent = term.parent;
    data.meta = metaResponse(this.view.registeredMeta(), batch.meta.get(term.termId) ?? {});
    return data;
  }

  /** What a term's item is made from: the request's API URL and context, the term's row, link and meta. */
  inputs(term: TermRow, req: RestRequest, batch: TermBatch): unknown[] {
    return [
      req.ctx.restUrl(''),
      req.context,
      this.termLink(term, batch.home, batch.ancestors),
      term.termId,
      term.count,
      term.description,
      term.name,
      term.slug,
      term.taxonomy,
      term.parent,
      batch.ancestors.has(term.parent),
      batch.meta.size ? JSON.stringify(batch.meta.get(term.termId) ?? null) : '',
    ];
  }

  /** Ancestors of hierarchical terms (for links and `up`), loaded level by level. */
  private async ancestorsOf(terms: TermRow[], req: RestRequest): Promise<Map<number, TermRow>> {
    const known = new Map<number, TermRow>(terms.map((t) => [t.termId, t]));
    let wanted = [...new Set(terms.map((t) => t.parent).filter((id) => id > 0 && !known.has(id)))];
    for (let depth = 0; wanted.length && depth < 20; depth++) {
      const rows = (await termLoader(req, this.deps.terms, this.taxonomy.name).loadMany(wanted)).filter(
        (r): r is TermRow => Boolean(r) && !(r instanceof Error),
      );
      for (const row of rows) known.set(row.termId, row);
      wanted = [...new Set(rows.map((t) => t.parent).filter((id) => id > 0 && !known.has(id)))];
    }
    return known;
  }

  /** `get_term_link()` with `/%postname%/` permalinks. */
  private termLink(term: TermRow, home: string, ancestors: Map<number, TermRow>): string {
    const rewrite = this.taxonomy.rewrite;
    if (!rewrite) {
      return this.taxonomy.query_var
        ? `${home}/?${this.taxonomy.query_var}=${term.slug}`
        : `${home}/?taxonomy=${this.taxonomy.name}&term=${term.slug}`;
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

  links(term: TermRow, req: RestRequest, ancestors: Map<number, TermRow>): LinkMap {
    const { namespace: ns, restBase } = this.view;
    const url = (path: string) => req.ctx.restUrl(path);
    const links = linkMap({
      self: { href: url(`${ns}/${restBase}/${term.termId}`) },
      collection: { href: url(`${ns}/${restBase}`) },
      about: { href: url(`${ns}/taxonomies/${this.taxonomy.name}`) },
    });
    if (term.parent > 0 && ancestors.has(term.parent)) {
      links.set('up', [{ href: url(`${ns}/${restBase}/${term.parent}`), attributes: { embeddable: true } }]);
    }
    const types = this.taxonomy.object_type
      .map((name) => this.deps.content.postType(name))
      .filter((t) => t?.show_in_rest);
    if (types.length) {
      const rel = `${this.deps.server.options.linkRelBase}post_type`;
      links.set(
        rel,
        types.map((t) => ({
          href: url(`${t!.rest_namespace}/${t!.rest_base || t!.name}?${restBase}=${term.termId}`),
          attributes: {},
        })),
      );
    }
    return links;
  }
}
