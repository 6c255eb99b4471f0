import { Injectable, OnModuleInit, Optional } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { RestException } from '../../errors/rest.exception';
import type { Request } from 'express';
import { BasicStrategy } from 'passport-http';
import { AuthenticationInput, AuthenticationService, authenticationInputOf } from '../authentication.service';
import { CurrentUser } from '../current-user';
import { isSlowPasswordHash, verifyWordPressPassword } from '../password-hash';
import { logFailedAuthentication } from '../auth-log';
import { RateLimiter, rateLimitSubject } from '../rate-limiter.service';
import {
  APPLICATION_PASSWORDS_META_KEY,
  ApplicationPasswords,
  dummyApplicationPasswordHash,
} from '../application-passwords.service';
import { UserIdentityService } from '../user-identity.service';
import { VersionStamps } from '../../database/version-stamps';
import { VerifiedCallers } from '../verified-callers';
import { TablePrefix } from '../../database/table-prefix';

interface StoredApplicationPassword {
  uuid: string;
  name: string;
  password: string;
  last_used?: number | null;
}

const DAY_SECONDS = 24 * 3600;

/**
 * HTTP Basic authentication with application passwords, stored as WordPress stores them (hashed, in the
 * `_application_passwords` user meta). Spaces in the password are ignored, as WordPress's UI shows them in groups.
 * A request without an `Authorization: Basic` header is left to other authenticators.
 */
@Injectable()
export class ApplicationPasswordAuthenticator implements OnModuleInit {
  constructor(
    private readonly auth: AuthenticationService,
    private readonly identity: UserIdentityService,
    private readonly limiter: RateLimiter,
    private readonly accounts: ApplicationPasswords,
    private readonly prefix: TablePrefix,
    @Optional() stamps?: VersionStamps,
  ) {
    // Users, their application passwords and capabilities; the roles are an option.
    stamps?.validate(this.callers, ['users', 'options']);
  }

  /** Callers verified by this process, reused by reads while the stamps allow. */
  private readonly callers = new VerifiedCallers();

  /** Recently verified (password, hash) pairs, keyed by a digest: hashing with bcrypt on every request would cost ~50 ms. */
  private readonly verified = new Map<string, number>();

  /** Whether the pair was verified within the last minutes (a digest lookup, no hashing). */
  private verifiedRecently(password: string, hash: string): boolean {
    const until = this.verified.get(verifiedKey(password, hash));
    return until !== undefined && until > Date.now();
  }

  private check(password: string, hash: string): boolean {
    if (this.verifiedRecently(password, hash)) return true;
    const key = verifiedKey(password, hash);
    const now = Date.now();
    if (!verifyWordPressPassword(password, hash)) return false;
    if (this.verified.size >= VERIFIED_MAX) this.verified.clear();
    this.verified.set(key, now + VERIFIED_TTL_MS);
    return true;
  }

  onModuleInit(): void {
    // passport-http parses `Authorization: Basic`; requests without it are left to the next strategy.
    this.auth.useStrategy(
      'application-password',
      new BasicCredentials((req, username, password, done) => {
        this.verify(authenticationInputOf(req), username, password).then(
          (result) => (result instanceof RestException ? done(result) : done(null, result)),
          done,
        );
      }),
      // passport-http passes a request without an `Authorization` header on.
      (input) => Boolean(input.headers.authorization),
    );
  }

  /**
   * Checks a login name (or e-mail) and application password (spaces ignored, as WordPress shows them in groups).
   * Failures are rate-limited per IP and per account — the login route's budget, whichever name was typed — and
   * a name that is no user, or a user without application passwords, costs the hashing work of a wrong password.
   */
  async verify(input: AuthenticationInput, login: string, typed: string): Promise<CurrentUser | RestException> {
    const password = typed.replace(/\s+/g, '');
    // A read's stamps were read after it arrived (and caches of users another node changed were cleared then): a
    // caller verified since is who they were. Writes check the database.
    const reads = input.method === 'GET' || input.method === 'HEAD';
    const known = reads ? this.callers.get(login, password) : undefined;
    if (known && Number(known.lastUsed) + DAY_SECONDS > Date.now() / 1000) {
      // The IP's and the account's counters in one look (one round trip with Redis); forgotten only if any.
      if (await this.limiter.assertAllowed(input.ip, known.subject)) await this.limiter.recordSuccess(known.subject);
      return known.user;
    }
    await this.limiter.assertAllowed(input.ip);
    this.callers.delete(login, password);
    const generation = this.callers.generation;
    // The user, their application passwords and their capabilities, in one statement.
    const capabilitiesKey = this.prefix.capabilitiesKey;
    const found = await this.identity.findWithMeta(login, [APPLICATION_PASSWORDS_META_KEY, capabilitiesKey]);
    const user = found?.user ?? null;
    const subject = rateLimitSubject(user, login);
    await this.limiter.assertAllowed(input.ip, subject);
    if (!found || !user) {
      spendDummyCheck(password);
      await this.limiter.recordFailure(input.ip, subject);
      logFailedAuthentication('application-password', input.ip, subject);
      return new RestException('invalid_username', 'Unknown username. Check again or try your email address.', 401);
    }
    // Deleting leaves gaps in the stored PHP array's keys, so read it through the accounts service.
    const list: StoredApplicationPassword[] = await this.accounts.listApplicationPasswords(user.id, {
      value: found.meta.get(APPLICATION_PASSWORDS_META_KEY) ?? null,
    });
    // A user may hold several application passwords: the one verified recently is found without hashing, and the
    // others are hashed against only when none was.
    const stored = list.filter((item) => item && typeof item.password === 'string');
    const used =
      stored.find((item) => this.verifiedRecently(password, item.password)) ??
      stored.find((item) => this.check(password, item.password));
    if (!used) {
      // No slow hash was checked (no application passwords, or only malformed or MD5 ones): as for an unknown name.
      if (!stored.some((item) => isSlowPasswordHash(item.password))) spendDummyCheck(password);
      await this.limiter.recordFailure(input.ip, subject);
      logFailedAuthentication('application-password', input.ip, subject);
      return invalid();
    }
    await this.limiter.recordSuccess(subject);
    // `last_used`/`last_ip` are written at most once a day, as WordPress does, so most requests write nothing.
    let lastUsed = Number(used.last_used ?? 0);
    if (lastUsed + DAY_SECONDS <= Date.now() / 1000) {
      await this.accounts.recordApplicationPasswordUse(user.id, used.uuid, input.ip || null);
      lastUsed = Math.floor(Date.now() / 1000);
    }
    const current = await this.identity.toCurrentUser(user, used.uuid, {
      stored: found.meta.get(capabilitiesKey) ?? null,
    });
    // Kept for reads only after a read (its stamps were read when it arrived, before this check).
    if (reads) this.callers.set(login, password, { user: current, subject, lastUsed }, generation);
    return current;
  }
}

/** What passport gives a strategy to end its attempt with. */
interface StrategyActions {
  success(user: unknown): void;
  fail(challenge: string | number): void;
  error(error: unknown): void;
}

type BasicVerify = (
  req: Request,
  username: string,
  password: string,
  done: (error: unknown, user?: unknown) => void,
) => void;

/**
 * passport-http's Basic strategy with two differences. The password is all that follows the first colon (RFC 7617,
 * and PHP's `PHP_AUTH_PW`, which WordPress reads), where passport-http stops at the next one and so accepted a
 * password followed by `:` and anything. The credentials are decoded with `Buffer.from`: passport-http's
 * `new Buffer()` is deprecated, and Node walks the whole stack at each call, for a process's first 10,000, to tell
 * whether to warn. The outcomes are passport-http's: no header or another scheme is a challenge, a malformed header
 * a 400, and either lets the next strategy try.
 */
class BasicCredentials extends BasicStrategy {
  constructor(private readonly check: BasicVerify) {
    super({ passReqToCallback: true }, check as never);
  }

  override authenticate(req: Request): void {
    const actions = this as unknown as StrategyActions;
    const authorization = req.headers.authorization;
    if (!authorization) return actions.fail(BASIC_CHALLENGE);
    const parts = authorization.split(' ');
    if (parts.length < 2) return actions.fail(400);
    if (!/Basic/i.test(parts[0])) return actions.fail(BASIC_CHALLENGE);
    const credentials = Buffer.from(parts[1], 'base64').toString();
    const colon = credentials.indexOf(':');
    if (colon < 0) return actions.fail(400);
    const username = credentials.slice(0, colon);
    const password = credentials.slice(colon + 1);
    if (!username || !password) return actions.fail(BASIC_CHALLENGE);
    this.check(req, username, password, (error, user) => {
      if (error) actions.error(error);
      else if (!user) actions.fail(BASIC_CHALLENGE);
      else actions.success(user);
    });
  }
}

/** passport-http's challenge, with its default realm. */
const BASIC_CHALLENGE = 'Basic realm="Users"';

const VERIFIED_TTL_MS = 5 * 60_000;
const VERIFIED_MAX = 10_000;

function verifiedKey(password: string, hash: string): string {
  return createHash('sha256').update(`${password}\0${hash}`).digest('hex');
}

/**
 * Checks the password against a dummy hash made as new application passwords are (`hashApplicationPassword`:
 * phpass `$P$B`), so that refusing a name without a user or without application passwords costs what refusing a
 * wrong application password costs. The result is ignored (it is never a match).
 */
function spendDummyCheck(password: string): void {
  verifyWordPressPassword(password, dummyApplicationPasswordHash());
}

function invalid(): RestException {
  return new RestException('incorrect_password', 'The provided password is an invalid application password.', 401);
}
