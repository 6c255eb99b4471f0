import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { CMS_OPTIONS, ResolvedCmsOptions } from '../../config/cms-options';
import { RestException } from '../../errors/rest.exception';
import { AuthenticationInput, AuthenticationService } from '../authentication.service';
import { CurrentUser } from '../current-user';
import { SESSION_COOKIE, SessionService } from '../session.service';
import { UserIdentityService } from '../user-identity.service';

/**
 * Cookie sessions, with the reference's CSRF rule: a request carrying a valid session cookie is authenticated only
 * when it also sends the nonce (`X-CMS-Nonce` header or `_cmsnonce` parameter, or WordPress's `X-WP-Nonce` and
 * `_wpnonce`, which WordPress clients send; with WordPress's wire names only those); without one it is anonymous,
 * and a wrong one is refused with 403 `rest_cookie_invalid_nonce`. Requests from pages of other origins never gain
 * access through the cookie. Each authenticated response carries a fresh nonce in `X-CMS-Nonce` (`X-WP-Nonce`).
 */
@Injectable()
export class CookieAuthenticator implements OnModuleInit {
  constructor(
    private readonly auth: AuthenticationService,
    private readonly sessions: SessionService,
    private readonly identity: UserIdentityService,
    @Inject(CMS_OPTIONS) private readonly options: ResolvedCmsOptions,
  ) {}

  onModuleInit(): void {
    this.auth.register(
      (input) => this.authenticate(input),
      undefined,
      (input) => this.recognizes(input),
    );
  }

  /** Only a request carrying the session cookie, from a page of this site, may be recognised. */
  recognizes(input: AuthenticationInput): boolean {
    return !input.crossOrigin && Boolean(input.cookies[SESSION_COOKIE]);
  }

  async authenticate(input: AuthenticationInput): Promise<CurrentUser | null | RestException> {
    if (!this.recognizes(input)) return null;
    const session = await this.sessions.verify(input.cookies[SESSION_COOKIE]);
    if (!session) return null;
    const nonce = this.nonceOf(input);
    if (!nonce) return null;
    if (!(await this.sessions.verifyNonce(nonce, session.user.id, session.token))) {
      return new RestException('rest_cookie_invalid_nonce', 'Cookie nonce is invalid', 403);
    }
    input.setResponseHeader(
      this.options.wire.nonceHeader,
      await this.sessions.createNonce(session.user.id, session.token),
    );
    return this.identity.toCurrentUser(session.user);
  }

  /** The nonce sent: the first of the accepted headers, then of the accepted parameters (query, then body). */
  private nonceOf(input: AuthenticationInput): string | undefined {
    const wire = this.options.wire;
    for (const name of wire.nonceHeadersAccepted) if (input.headers[name]) return input.headers[name];
    for (const name of wire.nonceParamsAccepted) {
      const value = stringParam(input.query[name]) ?? stringParam(input.body[name]);
      if (value) return value;
    }
    return undefined;
  }
}

function stringParam(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
