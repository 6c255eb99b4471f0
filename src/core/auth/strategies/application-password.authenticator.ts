import { Injectable, OnModuleInit } from '@nestjs/common';
import { RestException } from '../../http/rest.exception';
import { AuthenticationInput, AuthenticationService } from '../authentication.service';
import { CurrentUser } from '../current-user';
import { verifyWordPressPassword } from '../password-hash';
import { UserIdentityService } from '../user-identity.service';

interface StoredApplicationPassword {
  uuid: string;
  name: string;
  password: string;
}

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
  ) {}

  onModuleInit(): void {
    this.auth.register((input) => this.authenticate(input));
  }

  async authenticate(input: AuthenticationInput): Promise<CurrentUser | null | RestException> {
    const header = input.headers.authorization ?? '';
    const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
    if (!match) return null;
    const decoded = Buffer.from(match[1], 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) return invalid();
    const login = decoded.slice(0, colon);
    const password = decoded.slice(colon + 1).replace(/\s+/g, '');
    const user = await this.identity.findByLoginOrEmail(login);
    if (!user) {
      return new RestException('invalid_username', 'Unknown username. Check again or try your email address.', 401);
    }
    const stored = await this.identity.meta(user.id, '_application_passwords');
    const list = Array.isArray(stored) ? (stored as StoredApplicationPassword[]) : [];
    if (!list.some((item) => item && typeof item.password === 'string' && verifyWordPressPassword(password, item.password))) {
      return invalid();
    }
    return this.identity.toCurrentUser(user);
  }
}

function invalid(): RestException {
  return new RestException('incorrect_password', 'The provided password is an invalid application password.', 401);
}
