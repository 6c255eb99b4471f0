/**
 * The sizes of the texts a request may write, checked with the request's arguments before any filter runs (a
 * route argument's `maxBytes`), so that the cost of filtering a field is bounded by its size.
 */

/** Bytes of MySQL's `TEXT` column, which holds a post's title and excerpt in WordPress's schema. */
export const TEXT_COLUMN_BYTES = 65_535;

/** Bytes of a post's content (any post type; media's description) that a request may write. */
export const POST_CONTENT_BYTES = 2 * 1024 * 1024;

/** Bytes of a term's description, a user's description and other free texts filtered by kses. */
export const DESCRIPTION_BYTES = TEXT_COLUMN_BYTES;

/**
 * The UTF-8 bytes of a value's strings (a string, or the strings inside an object such as `{ raw }` or a list),
 * counted up to just past `limit`.
 */
export function textBytes(value: unknown, limit: number): number {
  if (typeof value === 'string') return Buffer.byteLength(value);
  if (value === null || typeof value !== 'object') return 0;
  let bytes = 0;
  for (const item of Array.isArray(value) ? value : Object.values(value)) {
    bytes += textBytes(item, limit - bytes);
    if (bytes > limit) break;
  }
  return bytes;
}
