import { constants as fsConstants, createReadStream, promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { MediaStorage } from '../../core/config/media-storage';

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
