import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { CMS_OPTIONS, ResolvedCmsOptions } from '../config/cms-options';
import { CMS_DATA_SOURCE } from '../database/cms-data-source';
import { UserEntity } from '../database/entities/user.entity';
import { RestException } from '../errors/rest.exception';
import type { RouteArg } from '../json-schema/json-schema';
import { parseCookies } from '../http/request-headers';
import { RestRequest } from '../rest/rest-request';
import { RestResponse } from '../rest/rest-response';
import { PlainText } from '../rest/plain-text';
import {
  dummyPasswordHash,
  hashPassword,
  isSlowPasswordHash,
  needsRehash,
  PasswordHashFormat,
  verifyWordPressPassword,
} from '../auth/password-hash';
import { logFailedAuthentication } from '../auth/auth-log';
import { RateLimiter, rateLimitSubject } from '../auth/rate-limiter.service';
import { SESSION_COOKIE, SESSION_SECONDS, SessionService } from '../auth/session.service';
import { UserIdentityService } from '../auth/user-identity.service';

/**
 * Namespace of the session routes. It is this server's own (WordPress logs in through `wp-login.php`), so it keeps
 * its name with WordPress's wire names too: `/wp-json/cms-auth/v1/login`.
 */
export const AUTH_NAMESPACE = 'cms-auth/v1';

/**
 * Cookie login for browsers: `POST cms-auth/v1/login` checks a user's password (rate-limited per IP and account,
 * at the same hashing cost for names that are no user), upgrades an old password hash, sets an HttpOnly SameSite
 * session cookie and answers the nonce that cookie-authenticated requests must send (in the body and the nonce
 * header); `GET cms-auth/v1/nonce` answers a fresh nonce for the session cookie alone, as plain text (what
 * WordPress's `admin-ajax.php?action=rest-nonce` answers, and api-fetch's `nonceEndpoint` reads);
 * `POST cms-auth/v1/logout` ends the session. Routes in SessionHandlers.
 */
@Injectable()
export class SessionLogin {
  constructor(
    private readonly sessions: SessionService,
    private readonly identity: UserIdentityService,
    private readonly limiter: RateLimiter,
    @Inject(CMS_DATA_SOURCE) private readonly dataSource: DataSource,
    @Inject(CMS_OPTIONS) private readonly options: ResolvedCmsOptions,
  ) {}

  /** The login route's arguments. */
  static readonly loginArgs: Record<string, RouteArg> = {
    username: { type: 'string', required: true, description: 'Login name or email address.' },
    password: { type: 'string', required: true, description: "The user's password." },
  };

  /** Logging out needs a logged-in caller. */
  canLogout(req: RestRequest): true | RestException {
    return req.ctx.isLoggedIn || new RestException('rest_not_logged_in', 'You are not currently logged in.', 401);
  }

  async login(req: RestRequest): Promise<RestResponse> {
    const name = String(req.get('username'));
    const password = String(req.get('password'));
    const ip = req.ctx.ip;
    await this.limiter.assertAllowed(ip);
    const user = await this.identity.findByLoginOrEmail(name);
    // Failures count against the account, whichever of its names was typed (or against the name, if no user).
    const subject = rateLimitSubject(user, name);
    await this.limiter.assertAllowed(ip, subject);
    // The same hashing work whether or not the user exists, so response times do not tell.
    if (!checkPasswordEvenly(password, user?.pass, this.options.passwordHash) || !user) {
      await this.limiter.recordFailure(ip, subject);
      logFailedAuthentication('login', ip, subject);
      throw new RestException('invalid_credentials', 'The username or password is incorrect.', 401);
    }
    await this.limiter.recordSuccess(subject);
    if (needsRehash(user.pass, this.options.passwordHash)) {
      // Old hashes are replaced by the configured format on a successful login.
      user.pass = hashPassword(password, this.options.passwordHash);
      await this.dataSource.getRepository(UserEntity).update({ id: user.id }, { pass: user.pass });
    }
    const session = await this.sessions.create(user, ip, req.header('user-agent') ?? '');
    const current = await this.identity.toCurrentUser(user);
    const nonce = await this.sessions.createNonce(user.id, session.token);
    const response = new RestResponse({
      id: user.id,
      username: user.login,
      name: user.displayName,
      roles: current.roles,
      nonce,
    });
    response.header('Set-Cookie', this.cookie(session.cookie, SESSION_SECONDS, req));
    response.header(this.options.wire.nonceHeader, nonce);
    return response;
  }

  /**
   * A fresh nonce for the session of the request's cookie, as the bare text: the cookie alone is enough (a client
   * whose nonce expired asks here for a new one), but never from a page of another origin. Never cached: the
   * no-cache headers are the handler's own, so the response cache does not keep it.
   */
  async nonce(req: RestRequest): Promise<RestResponse> {
    const cookie = parseCookies(req.header('cookie'))[SESSION_COOKIE];
    const session = cookie && !req.ctx.crossOrigin ? await this.sessions.verify(cookie) : null;
    if (!session) throw new RestException('rest_not_logged_in', 'You are not currently logged in.', 401);
    const nonce = await this.sessions.createNonce(session.user.id, session.token);
    const response = new RestResponse(new PlainText(nonce));
    response.header('Content-Type', 'text/plain; charset=UTF-8');
    response.header('Cache-Control', 'no-cache, must-revalidate, max-age=0');
    response.header(this.options.wire.nonceHeader, nonce);
    return response;
  }

  async logout(req: RestRequest): Promise<RestResponse> {
    const cookie = parseCookies(req.header('cookie'))[SESSION_COOKIE];
    const session = cookie ? await this.sessions.verify(cookie) : null;
    if (session) await this.sessions.destroy(session.user.id, session.token);
    const response = new RestResponse({ logged_out: true });
    response.header('Set-Cookie', this.cookie('', 0, req));
    return response;
  }

  private cookie(value: string, maxAge: number, req: RestRequest): string {
    const secure = (this.options.baseUrl ?? req.ctx.baseUrl).startsWith('https:');
    return `${SESSION_COOKIE}=${encodeURIComponent(value)}; Path=/; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
  }
}

/**
 * Checks a login password with the same hashing work whether or not the user exists: against the stored hash when
 * it is a slow one; otherwise — no user, no hash, a malformed one, or the legacy bare MD5 — against the dummy hash
 * of the configured format and cost first (which never matches), then against the MD5, if any.
 */
function checkPasswordEvenly(password: string, stored: string | null | undefined, format: PasswordHashFormat): boolean {
  if (stored && isSlowPasswordHash(stored)) return verifyWordPressPassword(password, stored);
  verifyWordPressPassword(password, dummyPasswordHash(format));
  return Boolean(stored) && verifyWordPressPassword(password, stored as string);
}
