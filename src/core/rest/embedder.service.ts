import { Inject, Injectable } from '@nestjs/common';
import { parse as parseQuery } from 'qs';
import { CMS_OPTIONS, ResolvedCmsOptions } from '../config/cms-options';
import type { RequestContext } from '../auth/request-context';
import { HookRegistry } from '../hooks/hook-registry.service';
import { AnswerSources } from '../cache/answer-sources';
import { storable } from '../cache/response-cache';
import { JsonText, toJsonBytes, withMembers } from './json-text';
import { compactLinks } from './links';
import { RestRequest } from './rest-request';
import type { RestResponse } from './rest-response';
import { RestServer } from './rest-server.service';
import { simpleQuery } from './simple-query';
import { textOf } from '../formatting/php-serialize';

/**
 * Links and `_embed`: compacts a response's links into `_links`, and embeds the linked resources a request asks
 * for through internal sub-requests of the same route table (guards run for each; interceptors do not).
 */
@Injectable()
export class Embedder {
  constructor(
    private readonly server: RestServer,
    private readonly hooks: HookRegistry,
    @Inject(CMS_OPTIONS) private readonly options: ResolvedCmsOptions,
  ) {}

  /**
   * Compacts a response's links into its data (`_links`) and embeds linked resources when asked. `asText`: items
   * and what is embedded in them may come as JSON text (`RestRequest.itemsAsText`, for the request and its
   * sub-requests).
   */
  async responseToData(
    response: RestResponse,
    embed: false | true | string[],
    ctx: RequestContext,
    asText = false,
  ): Promise<unknown> {
    let data = response.data;
    if (response.links.size && (isPlainObject(data) || data instanceof JsonText)) {
      const fields = data instanceof JsonText ? (JSON.parse(data.text) as Record<string, unknown>) : data;
      data = { ...fields, _links: compactLinks(response.links, this.options.linkRelBase, this.options.wire.curie) };
    }
    if (embed !== false && !response.isError) {
      if (Array.isArray(data)) data = await this.embedAll(data, embed, ctx, asText);
      else if (isPlainObject(data) || data instanceof JsonText)
        [data] = await this.embedAll([data], embed, ctx, asText);
    }
    return data;
  }

  /**
   * Embeds the embeddable links of every item. All sub-requests of all items are started together and each
   * distinct URL is requested once, so request-scoped loaders batch them into a fixed number of queries.
   */
  private async embedAll(
    items: unknown[],
    embed: true | string[],
    ctx: RequestContext,
    asText: boolean,
  ): Promise<unknown[]> {
    const pending = new Map<string, Promise<unknown>>();
    // As WordPress's embed_links: any embeddable link, `self` included (search results embed what they found).
    const wanted = (rel: string) => embed === true || embed.includes(rel);
    for (const item of items) {
      const links = linksOf(item);
      if (!links) continue;
      for (const [rel, list] of Object.entries(links)) {
        if (!wanted(rel) || !Array.isArray(list)) continue;
        for (const link of list) {
          const href = String(link.href);
          if (link.embeddable && !pending.has(href)) pending.set(href, this.embedOne(href, ctx, asText));
        }
      }
    }
    if (!pending.size) return items;
    const results = new Map<string, unknown>();
    await Promise.all([...pending].map(async ([href, p]) => results.set(href, await p)));
    return items.map((item) => {
      const links = linksOf(item);
      if (!links) return item;
      const embedded: Record<string, unknown[]> = {};
      for (const [rel, list] of Object.entries(links)) {
        if (!wanted(rel) || !Array.isArray(list)) continue;
        const values = list.map((link) => (link.embeddable ? results.get(String(link.href)) : []));
        if (values.some((v) => !isEmpty(v))) embedded[rel] = values;
      }
      if (!Object.keys(embedded).length) return item;
      if (item instanceof JsonText) return withMembers(item, { _embedded: embedded });
      // Embedded JSON text goes into JSON text only: an object item keeps objects.
      if (asText) return withMembers(new JsonText(JSON.stringify(item)), { _embedded: embedded });
      return { ...(item as object), _embedded: embedded };
    });
  }

  /**
   * One sub-request. For a request whose answer may be cached, its answer comes from the response cache when kept
   * there (see `ResponseCache.embeddedAnswers`), and is kept there once built: what it is made from is noted apart,
   * then on the request's sources.
   */
  private async embedOne(href: string, ctx: RequestContext, asText: boolean): Promise<unknown> {
    const target = this.requestFromUrl(href, ctx);
    if (!target) return [];
    if (target.query.context === undefined) target.query.context = 'embed';
    target.itemsAsText = asText && !this.hooks.hasHook('rest_post_dispatch');
    const kept = ctx.embeddedAnswers;
    const query = kept && { ...target.query };
    if (kept && query) {
      const found = await kept.find(target.route, query);
      if (found) return asText ? JsonText.fromBytes(found) : JSON.parse(found.toString('utf8'));
      target.ownSources = new AnswerSources();
    }
    let response = await this.server.dispatch(target);
    response = await this.hooks.applyFilters('rest_post_dispatch', response, target);
    const data = await this.responseToData(response, false, ctx, target.itemsAsText);
    const sources = target.ownSources;
    if (kept && query && sources) {
      ctx.sources.merge(sources);
      if (response.status === 200 && !response.isError && !sources.uncacheable && storable(response.headers))
        kept.keep(target.route, query, sources, toJsonBytes(data));
    }
    return data;
  }

  /** Builds an internal GET request from an API URL (pretty or `?rest_route=` form); `null` if not ours. */
  requestFromUrl(href: string, ctx: RequestContext): RestRequest | null {
    const simple = simpleApiUrl(href, ctx.restUrl(''));
    if (simple) return new RestRequest({ method: 'GET', route: simple.route, query: simple.query }, ctx);
    let url: URL;
    try {
      url = new URL(href, ctx.baseUrl);
    } catch {
      return null;
    }
    const query = parseQuery(url.search.replace(/^\?/, ''), { depth: 5, arrayLimit: 1000 }) as Record<string, unknown>;
    const prefix = `/${ctx.apiPrefix}`;
    let route: string | null = null;
    if (typeof query.rest_route === 'string') {
      route = query.rest_route;
      delete query.rest_route;
    } else if (url.pathname === prefix || url.pathname.startsWith(`${prefix}/`)) {
      route = url.pathname.slice(prefix.length) || '/';
    }
    if (route === null) return null;
    return new RestRequest({ method: 'GET', route: decodeURIComponent(route), query }, ctx);
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The `_links` of an item, as data or as they are in its JSON text. */
function linksOf(item: unknown): Record<string, Array<Record<string, unknown>>> | undefined {
  const links = item instanceof JsonText ? item.links : isPlainObject(item) ? item._links : undefined;
  return links as Record<string, Array<Record<string, unknown>>> | undefined;
}

function isEmpty(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (value instanceof JsonText) return value.text === '{}' || value.text === '[]';
  if (Array.isArray(value)) return value.length === 0;
  return isPlainObject(value) && Object.keys(value).length === 0;
}

/** `_embed` present → `true` (all) or the list of relations asked for. */
export function parseEmbedParam(value: unknown): false | true | string[] {
  if (value === undefined) return false;
  if (value === '' || value === '1' || value === 'true' || value === true) return true;
  const list = (Array.isArray(value) ? value.map(textOf) : textOf(value).split(','))
    .map((s) => s.trim())
    .filter(Boolean);
  return list.length ? list : true;
}

/**
 * The route and query of a link under the API's own URL (`base`) whose query is plain `key=value` pairs — the
 * links items carry (`users/7`, `categories?post=12`) — read without a URL parser or `qs`; `null` for anything
 * else (brackets, `+`, repeated keys, `rest_route`, bad escapes), which the full parsers read.
 */
export function simpleApiUrl(href: string, base: string): { route: string; query: Record<string, unknown> } | null {
  if (!href.startsWith(base) || /[#+[\]]/.test(href)) return null;
  const mark = href.indexOf('?', base.length);
  const query = simpleQuery(mark < 0 ? '' : href.slice(mark + 1));
  if (!query || 'rest_route' in query) return null;
  try {
    return {
      route: `/${decodeURIComponent(mark < 0 ? href.slice(base.length) : href.slice(base.length, mark))}`,
      query,
    };
  } catch {
    return null;
  }
}
