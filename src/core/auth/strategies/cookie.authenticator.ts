import { Injectable, OnModuleInit } from '@nestjs/common';
import { RestException } from '../../rest/rest.exception';
import { AuthenticationInput, AuthenticationService } from '../authentication.service';
import { CurrentUser } from '../current-user';
import { SESSION_COOKIE, SessionService } from '../session.service';
import { UserIdentityService } from '../user-identity.service';

/**
 * Cookie sessions, with the reference's CSRF rule: a request carrying a valid session cookie is authenticated only
 * when it also sends the nonce (`X-CMS-Nonce` header or `_cmsnonce` parameter); without one it is anonymous, and
 * a wrong one is refused with 403 `rest_cookie_invalid_nonce`. Requests from pages of other origins never gain
 * access through the cookie. Each authenticated response carries a fresh nonce in `X-CMS-Nonce`.
 */
@Injectable()
export class CookieAuthenticator implements OnModuleInit {
  constructor(
    private readonly auth: AuthenticationService,
    private readonly sessions: SessionService,
    private readonly identity: UserIdentityService,
  ) {}

  onModuleInit(): void {
    this.auth.register((input) => this.authenticate(input));
  }

  async authenticate(input: AuthenticationInput): Promise<CurrentUser | null | RestException> {
    const cookie = input.cookies[SESSION_COOKIE];
    if (!cookie || input.crossOrigin) return null;
    const session = await this.sessions.verify(cookie);
    if (!session) return null;
    const nonce = input.headers['x-cms-nonce'] ?? stringParam(input.query._cmsnonce) ?? stringParam(input.body._cmsnonce);
    if (!nonce) return null;
    if (!(await this.sessions.verifyNonce(nonce, session.user.id, session.token))) {
      return new RestException('rest_cookie_invalid_nonce', 'Cookie nonce is invalid', 403);
    }
    input.setResponseHeader('X-CMS-Nonce', await this.sessions.createNonce(session.user.id, session.token));
    return this.identity.toCurrentUser(session.user);
  }
}

function stringParam(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
