import type { Readable } from 'node:stream';

/**
 * Where uploaded files live. Paths are relative to the uploads root, with `/` separators (`2026/11/photo.jpg`), as
 * WordPress stores them in `_wp_attached_file`. The local disk is the default; an object store implements the same
 * four operations and is provided under {@link MEDIA_STORAGE}.
 */
export interface MediaStorage {
  /**
   * Stores bytes under the path (replacing nothing: callers pick a free name first), from memory or from a local
   * file (an upload received into a temporary file is copied, never read whole).
   */
  put(relativePath: string, source: Buffer | { path: string }, mimeType: string): Promise<void>;
  /** Whether something is stored under the path. */
  exists(relativePath: string): Promise<boolean>;
  /** Removes what is stored under the paths (a missing one is not an error). */
  remove(relativePaths: readonly string[]): Promise<void>;
  /** The stored bytes, as a stream (for serving). */
  read?(relativePath: string): NodeJS.ReadableStream;
  /**
   * The stored file with what serving it needs (`null` when nothing is stored under the path); `range` is an HTTP
   * `Range` header's value, answered as the store answers it (`contentRange` set).
   */
  open?(relativePath: string, range?: string): Promise<StoredFile | null>;
}

/** A stored file being read (see {@link MediaStorage.open}). */
export interface StoredFile {
  body: Readable;
  size: number;
  contentType?: string;
  etag?: string;
  lastModified?: Date;
  /** Set when a range was asked for and answered (`bytes 0-99/1234`). */
  contentRange?: string;
}

/** The Nest token of the storage in use. */
export const MEDIA_STORAGE = Symbol('MEDIA_STORAGE');
