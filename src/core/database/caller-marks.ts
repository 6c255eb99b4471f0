import { createHash } from 'node:crypto';

/**
 * The marks of callers who wrote lately (read-after-write): shared by every node of a fleet when it is a shared store
 * (Redis), else kept in this process.
 */
export interface CallerMarks {
  /** Marks `key` for `ms` milliseconds. */
  mark(key: string, ms: number): Promise<void>;
  /** Whether `key` is marked now. */
  isMarked(key: string): Promise<boolean>;
  /** Releases what the store holds (a connection), when the data source is destroyed. */
  close?(): Promise<void>;
}

/** {@link CallerMarks} kept in this process, bounded in entries (the oldest marks are dropped first). */
export class MemoryCallerMarks implements CallerMarks {
  private readonly until = new Map<string, number>();

  constructor(private readonly maxEntries = 100_000) {}

  async mark(key: string, ms: number): Promise<void> {
    this.until.delete(key);
    this.until.set(key, Date.now() + ms);
    while (this.until.size > this.maxEntries) this.until.delete(this.until.keys().next().value as string);
  }

  async isMarked(key: string): Promise<boolean> {
    const until = this.until.get(key);
    if (until === undefined) return false;
    if (until > Date.now()) return true;
    this.until.delete(key);
    return false;
  }

  /** How many marks are kept (expired ones included until looked up or pushed out). */
  get size(): number {
    return this.until.size;
  }
}

/** The session cookies that name a caller (the API's own, WordPress's logged-in cookie). */
const AUTH_COOKIE = /(?:^|;\s*)((?:cms_logged_in|wordpress_logged_in_[0-9a-f]*)=[^;]*)/gi;

/**
 * The key of a caller, known at the start of a request without a database query: a digest of the client's address,
 * its `Authorization` header and its session cookies. Two requests of one caller share it; the digest keeps the
 * credentials themselves out of any store.
 */
export function callerKeyOf(ip: string, authorization: string | undefined, cookie: string | undefined): string {
  const hash = createHash('sha256')
    .update(ip)
    .update('\0')
    .update(authorization ?? '')
    .update('\0');
  if (cookie) for (const match of cookie.matchAll(AUTH_COOKIE)) hash.update(match[1]).update(';');
  return `cms:raw:${hash.digest('base64url')}`;
}
