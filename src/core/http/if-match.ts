import { matchHits, bodyEtag } from '../cache/response-cache';
import { toJsonBytes } from '../rest/json-text';
import { RestRequest } from '../rest/rest-request';
import { RestException } from '../errors/rest.exception';
import type { ResponsePipeline } from '../rest/response-pipeline';

/** Methods that write: `If-Match` is checked for them. */
export function checksIfMatch(method: string): boolean {
  return method !== 'GET' && method !== 'HEAD' && method !== 'OPTIONS';
}

/**
 * `If-Match` on a write: the target's current representation — a GET of the same route by the same caller, in
 * `edit` or `view` context — must carry one of the ETags given, or the write is refused with `412` before it
 * runs, so that two editors do not overwrite each other. When the caller cannot read the target at all, the
 * write's own checks answer (404, 401/403).
 */
export async function checkIfMatch(pipeline: ResponsePipeline, write: RestRequest, header: string): Promise<void> {
  let readable = false;
  for (const context of ['edit', 'view']) {
    const get = new RestRequest({ method: 'GET', route: write.route, query: { context } }, write.ctx);
    const served = await pipeline.serve(get);
    if (served.status !== 200) continue;
    readable = true;
    if (matchHits(header, bodyEtag(toJsonBytes(served.data)))) return;
  }
  if (readable)
    throw new RestException(
      'rest_precondition_failed',
      'The resource has changed since the ETag given in If-Match was sent.',
      412,
    );
}
