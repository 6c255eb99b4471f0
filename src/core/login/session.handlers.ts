import { Injectable } from '@nestjs/common';
import { RestRequest } from '../rest/rest-request';
import { Allow, RestRoute } from '../rest/rest-route.decorator';
import { AUTH_NAMESPACE, SessionLogin } from './session-login.service';

/** Routes of cookie sessions: `POST cms-auth/v1/login`, `GET cms-auth/v1/nonce` and `POST cms-auth/v1/logout`. */
@Injectable()
export class SessionHandlers {
  constructor(readonly sessions: SessionLogin) {}

  @RestRoute('/login', { namespace: AUTH_NAMESPACE, methods: 'POST', args: SessionLogin.loginArgs })
  login(req: RestRequest) {
    return this.sessions.login(req);
  }

  @RestRoute('/nonce', { namespace: AUTH_NAMESPACE, methods: 'GET' })
  nonce(req: RestRequest) {
    return this.sessions.nonce(req);
  }

  @RestRoute('/logout', { namespace: AUTH_NAMESPACE, methods: 'POST' })
  @Allow((req, h: SessionHandlers) => h.sessions.canLogout(req))
  logout(req: RestRequest) {
    return this.sessions.logout(req);
  }
}
