import { createHash } from 'node:crypto';
import { ByteLru, LruEntry } from '../memory/byte-lru';
import { VERIFIED_CALLERS_CACHE } from '../memory/cache-limits';
import { CurrentUser } from './current-user';
import { RateLimitSubject } from './rate-limiter.service';

/** A caller whose application password was verified: who they are, and what to check again without the database. */
export interface VerifiedCaller {
  user: CurrentUser;
  /** The rate limiter's subject of the account. */
  subject: RateLimitSubject;
  /** The application password's `last_used` when verified (seconds): once a day it is written again. */
  lastUsed: number;
}

class Entry implements LruEntry {
  used = 0;
  constructor(
    private readonly owner: VerifiedCallers,
    readonly key: string,
    readonly caller: VerifiedCaller,
    readonly size: number,
  ) {}

  evicted(): void {
    this.owner.forget(this);
  }
}

/**
 * Application-password callers verified by this process, kept while the version stamps of users and options (the
 * roles) do not move — on any node — so that an authenticated read is its rows alone instead of the user's row, the
 * application passwords and the capabilities first. It is used only when the stamps were read after the request
 * arrived (reads: see `ApiHttpService.serve`) and only once they are on ({@link validated}); writes always check
 * the database. The key is a digest of the login and the password as typed; entries are bounded in bytes.
 */
export class VerifiedCallers {
  /** Set once the version stamps keep this cache exact (never otherwise: it has no time bound of its own). */
  validated = false;
  private readonly entries = new Map<string, Entry>();
  private readonly pool = new ByteLru<Entry>(
    'verified-callers',
    VERIFIED_CALLERS_CACHE.bytes,
    VERIFIED_CALLERS_CACHE.entries,
  );
  /** Moves on every {@link clear}: a check that started before one is not kept (it may have read what changed). */
  private clears = 0;

  /** Taken before a check reads the database, and given to {@link set}. */
  get generation(): number {
    return this.clears;
  }

  get(login: string, password: string): VerifiedCaller | undefined {
    if (!this.validated) return undefined;
    const entry = this.entries.get(keyOf(login, password));
    if (!entry) return undefined;
    this.pool.touch(entry);
    return entry.caller;
  }

  set(login: string, password: string, caller: VerifiedCaller, generation: number): void {
    if (!this.validated || generation !== this.clears) return;
    const key = keyOf(login, password);
    const old = this.entries.get(key);
    if (old) this.drop(old);
    const entry = new Entry(this, key, caller, sizeOf(key, caller.user));
    if (this.pool.admit(entry)) this.entries.set(key, entry);
  }

  /** Drops the caller of `login` and `password` (a failed or changed check). */
  delete(login: string, password: string): void {
    const entry = this.entries.get(keyOf(login, password));
    if (entry) this.drop(entry);
  }

  clear(): void {
    this.clears++;
    this.entries.clear();
    this.pool.clear();
  }

  /** @internal the pool evicted it. */
  forget(entry: Entry): void {
    if (this.entries.get(entry.key) === entry) this.entries.delete(entry.key);
  }

  private drop(entry: Entry): void {
    this.entries.delete(entry.key);
    this.pool.remove(entry);
  }
}

function keyOf(login: string, password: string): string {
  return createHash('sha256').update(`${login}\0${password}`).digest('base64');
}

/** Approximate bytes: the entry, its key, and the user with its capability names. */
function sizeOf(key: string, user: CurrentUser): number {
  let size = 200 + key.length * 2 + user.login.length * 2 + (user.applicationPassword?.length ?? 0) * 2;
  for (const role of user.roles) size += 40 + role.length * 2;
  for (const cap in user.allcaps) size += 48 + cap.length * 2;
  return size;
}
