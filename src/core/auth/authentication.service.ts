import { Injectable } from '@nestjs/common';
import { RestException } from '../http/rest.exception';
import { CurrentUser } from './current-user';

/** What an authenticator sees of an HTTP request. */
export interface AuthenticationInput {
  method: string;
  headers: Record<string, string>;
  query: Record<string, unknown>;
  /** Parsed body parameters (form or JSON). */
  body: Record<string, unknown>;
  /** Parsed `Cookie` header. */
  cookies: Record<string, string>;
  ip: string;
  /** `true` when a browser sent the request from a page of another origin: cookies must not authenticate it. */
  crossOrigin: boolean;
  /** Adds a header to the response (e.g. a fresh nonce). */
  setResponseHeader: (name: string, value: string) => void;
}

/**
 * Resolves the user of a request: returns a user, `null` when the request carries none of its credentials,
 * or throws/returns a RestException when the credentials it handles are wrong.
 */
export type Authenticator = (input: AuthenticationInput) => Promise<CurrentUser | null | RestException> | CurrentUser | null | RestException;

/**
 * Runs the registered authenticators in order; the first that recognises the request decides. Without any,
 * every caller is anonymous.
 */
@Injectable()
export class AuthenticationService {
  private readonly authenticators: Authenticator[] = [];

  register(authenticator: Authenticator): void {
    this.authenticators.push(authenticator);
  }

  async authenticate(input: AuthenticationInput): Promise<CurrentUser> {
    for (const authenticate of this.authenticators) {
      const result = await authenticate(input);
      if (result instanceof RestException) throw result;
      if (result) return result;
    }
    return CurrentUser.anonymous();
  }
}
