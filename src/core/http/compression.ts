import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

/** The content codings the API answers in, besides `identity`. */
export type ContentCoding = 'br' | 'gzip';

/**
 * The coding to answer in, from `Accept-Encoding`: the acceptable one with the highest `q`, `br` before `gzip`
 * when they tie (smaller at the same cost, at the quality used here). `undefined` — identity — when neither is
 * acceptable, the header is absent or says `identity`.
 */
export function negotiateEncoding(header: string | undefined): ContentCoding | undefined {
  if (!header) return undefined;
  let br: number | undefined;
  let gzip: number | undefined;
  let any: number | undefined;
  for (const part of header.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    let q = 1;
    for (const param of params) {
      const m = /^\s*q\s*=\s*(\S*)\s*$/.exec(param);
      if (m) q = Number(m[1]);
    }
    if (!Number.isFinite(q)) q = 0;
    const coding = name.trim();
    if (coding === 'br') br = q;
    else if (coding === 'gzip' || coding === 'x-gzip') gzip = Math.max(gzip ?? 0, q);
    else if (coding === '*') any = q;
  }
  const brQ = br ?? any ?? 0;
  const gzipQ = gzip ?? any ?? 0;
  if (brQ <= 0 && gzipQ <= 0) return undefined;
  return brQ >= gzipQ ? 'br' : 'gzip';
}

/**
 * Compresses a body: brotli at quality 4 (about gzip's speed, a smaller result), gzip at zlib's default level.
 * Synchronous: an API answer is a few hundred kilobytes at most, a millisecond or two of work.
 */
export function compressBody(body: Buffer, coding: ContentCoding): Buffer {
  if (coding === 'br') {
    return brotliCompressSync(body, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: 4,
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
      },
    });
  }
  return gzipSync(body);
}

/** Adds `Accept-Encoding` to a `Vary` header value (once). */
export function varyOnEncoding(vary: string | undefined): string {
  if (!vary) return 'Accept-Encoding';
  if (vary.split(',').some((name) => name.trim().toLowerCase() === 'accept-encoding' || name.trim() === '*'))
    return vary;
  return `${vary}, Accept-Encoding`;
}
