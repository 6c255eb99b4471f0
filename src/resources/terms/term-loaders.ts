import type { RestRequest } from '../../core/rest/rest-request';
import type { TermRow, TermsService } from './terms.service';

/** Terms of a taxonomy by id, batched across a request and its embedded sub-requests. */
export function termLoader(req: RestRequest, terms: TermsService, taxonomy: string) {
  return req.ctx.loader<number, TermRow | null>(`terms:${taxonomy}`, async (ids) => {
    const rows = await terms.findByIds(taxonomy, ids);
    return ids.map((id) => rows.find((r) => r.termId === id) ?? null);
  });
}

/** The terms of a taxonomy of each post, batched: the `cms:term` links of a page of posts (`_embed`) cost one query. */
export function postTermsLoader(req: RestRequest, terms: TermsService, taxonomy: string) {
  return req.ctx.loader<number, TermRow[]>(`terms-of-post:${taxonomy}`, async (ids) => {
    const found = await terms.ofPosts(taxonomy, ids);
    return ids.map((id) => found.get(id) ?? []);
  });
}

/** The given meta keys of terms of a taxonomy, batched: the terms embedded for a page of posts read them in one query. */
export function termMetaLoader(req: RestRequest, terms: TermsService, taxonomy: string, keys: string[]) {
  return req.ctx.loader<number, Record<string, unknown[]>>(`term-meta:${taxonomy}`, async (ids) => {
    const found = await terms.metaOf([...ids], keys);
    return ids.map((id) => found.get(id) ?? {});
  });
}
