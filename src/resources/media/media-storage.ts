import { constants as fsConstants, createReadStream, promises as fs } from 'node:fs';
import * as path from 'node:path';

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
  body: import('node:stream').Readable;
  size: number;
  contentType?: string;
  etag?: string;
  lastModified?: Date;
  /** Set when a range was asked for and answered (`bytes 0-99/1234`). */
  contentRange?: string;
}

/** The Nest token of the storage in use. */
export const MEDIA_STORAGE = Symbol('MEDIA_STORAGE');

/** A relative upload path that stays inside the root: no `..`, no absolute path, no backslash, no NUL. */
export function safeRelativePath(relativePath: string): string {
  const normalized = path.posix.normalize(relativePath);
  if (
    !normalized ||
    normalized.startsWith('/') ||
    normalized.startsWith('..') ||
    /[\\\0]/.test(relativePath) ||
    normalized.split('/').includes('..')
  ) {
    throw new Error(`Refusing an upload path outside the uploads directory: ${JSON.stringify(relativePath)}`);
  }
  return normalized;
}

/** Files on the local disk under a root directory (`CMS_UPLOAD_DIR`). */
export class LocalDiskStorage implements MediaStorage {
  constructor(readonly root: string) {}

  private full(relativePath: string): string {
    return path.join(path.resolve(this.root), ...safeRelativePath(relativePath).split('/'));
  }

  async put(relativePath: string, source: Buffer | { path: string }): Promise<void> {
    const file = this.full(relativePath);
    await fs.mkdir(path.dirname(file), { recursive: true });
    // Never overwrite a file another request stored under the same name meanwhile.
    if (Buffer.isBuffer(source)) await fs.writeFile(file, source, { flag: 'wx', mode: 0o644 });
    else {
      await fs.copyFile(source.path, file, fsConstants.COPYFILE_EXCL);
      await fs.chmod(file, 0o644);
    }
  }

  async exists(relativePath: string): Promise<boolean> {
    try {
      await fs.access(this.full(relativePath));
      return true;
    } catch (error) {
      // Only a missing file is free: a name too long, a folder that cannot be read, is the error it is.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw error;
    }
  }

  async remove(relativePaths: readonly string[]): Promise<void> {
    await Promise.all(relativePaths.map((p) => fs.rm(this.full(p), { force: true })));
  }

  read(relativePath: string): NodeJS.ReadableStream {
    return createReadStream(this.full(relativePath));
  }
}
