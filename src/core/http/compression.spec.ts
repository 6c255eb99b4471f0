import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { encodedEtag, matchHits, noneMatchHits, noneMatchTag } from '../cache/response-cache';
import { compressBody, negotiateEncoding, varyOnEncoding } from './compression';

describe('negotiateEncoding', () => {
  it.each([
    [undefined, undefined],
    ['', undefined],
    ['identity', undefined],
    ['deflate', undefined],
    ['gzip', 'gzip'],
    ['x-gzip', 'gzip'],
    ['br', 'br'],
    ['gzip, deflate, br', 'br'],
    ['gzip;q=1, br;q=0.8', 'gzip'],
    ['br;q=0, gzip', 'gzip'],
    ['gzip;q=0, br;q=0', undefined],
    ['*', 'br'],
    ['*;q=0.5, br;q=0', 'gzip'],
    ['GZIP ; Q=0.9', 'gzip'],
    ['gzip;q=abc', undefined],
  ])('%p → %p', (header, expected) => expect(negotiateEncoding(header)).toBe(expected));
});

describe('compressBody', () => {
  it('compresses in both codings to bodies that decode to the original', () => {
    const body = Buffer.from(JSON.stringify(Array.from({ length: 200 }, (_, id) => ({ id, title: 'A title' }))));
    const gzip = compressBody(body, 'gzip');
    const br = compressBody(body, 'br');
    expect(gunzipSync(gzip).equals(body)).toBe(true);
    expect(brotliDecompressSync(br).equals(body)).toBe(true);
    expect(br.length).toBeLessThan(body.length / 5);
  });
});

describe('Vary and ETags of compressed answers', () => {
  it('adds Accept-Encoding to Vary once', () => {
    expect(varyOnEncoding(undefined)).toBe('Accept-Encoding');
    expect(varyOnEncoding('Origin')).toBe('Origin, Accept-Encoding');
    expect(varyOnEncoding('Origin, accept-encoding')).toBe('Origin, accept-encoding');
  });

  it('suffixes the coding, and takes any representation of an ETag as naming it', () => {
    const etag = '"abc-br"'; // an identity tag may itself end like a coding (base64url)
    expect(encodedEtag(etag, 'gzip')).toBe('"abc-br-gzip"');
    for (const held of [etag, '"abc-br-gzip"', '"abc-br-br"', 'W/"abc-br-gzip"', '"other", "abc-br-br"', '*'])
      expect(noneMatchHits(held, etag)).toBe(true);
    for (const held of ['"abc"', '"abc-br-deflate"', '"xabc-br"']) expect(noneMatchHits(held, etag)).toBe(false);
    expect(noneMatchTag('"other", W/"abc-br-gzip"', etag)).toBe('"abc-br-gzip"');
    expect(matchHits('"abc-br-gzip"', etag)).toBe(true);
    expect(matchHits('W/"abc-br-gzip"', etag)).toBe(false);
  });
});
