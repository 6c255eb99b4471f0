import { Injectable } from '@nestjs/common';
import { Passport, Strategy } from 'passport';
import { Strategy as CustomStrategy } from 'passport-custom';
import { RestException } from '../errors/rest.exception';
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
export type Authenticator = (
  input: AuthenticationInput,
) => Promise<CurrentUser | null | RestException> | CurrentUser | null | RestException;

const INPUT = Symbol('cms-auth-input');

/** The request object passport strategies see: the headers, plus the full input for our own strategies. */
interface StrategyRequest {
  headers: Record<string, string>;
  query: Record<string, unknown>;
  body: Record<string, unknown>;
  [INPUT]: AuthenticationInput;
}

/** The authentication input behind a request handed to a passport strategy. */
export function authenticationInputOf(req: unknown): AuthenticationInput {
  return (req as StrategyRequest)[INPUT];
}

/**
 * Authenticates requests with passport: strategies run in registration order; the first that recognises the
 * request decides (a user, or an error for wrong credentials), and a request none recognises is anonymous.
 * Plain authenticator functions are wrapped in `passport-custom` strategies.
 */
/**
 * Tells, from the request alone, whether a strategy may recognise it: `false` only when the strategy would certainly
 * pass it on to the next (no credentials of its kind). A strategy without one is always asked.
 */
export type Recognizes = (input: AuthenticationInput) => boolean;

@Injectable()
export class AuthenticationService {
  private readonly passport = new Passport();
  private readonly strategies: Array<{ name: string; recognizes?: Recognizes }> = [];

  /**
   * Registers a passport strategy; its `verify` must answer a CurrentUser, `false`, or an error. With `recognizes`,
   * requests it says the strategy would pass on skip it (an anonymous read carrying no credentials runs none).
   */
  useStrategy(name: string, strategy: Strategy, recognizes?: Recognizes): void {
    this.passport.use(name, strategy);
    this.strategies.push({ name, recognizes });
  }

  /** Registers an authenticator function (see {@link useStrategy} for `recognizes`). */
  register(
    authenticator: Authenticator,
    name = `cms-authenticator-${this.strategies.length + 1}`,
    recognizes?: Recognizes,
  ): void {
    this.useStrategy(
      name,
      new CustomStrategy((req, done) => {
        Promise.resolve()
          .then(() => authenticator(authenticationInputOf(req)))
          .then((result) => (result instanceof RestException ? done(result) : done(null, result ?? false)), done);
      }),
      recognizes,
    );
  }

  authenticate(input: AuthenticationInput): Promise<CurrentUser> {
    // The strategies that may recognise the request, in order (the others would pass it on).
    let names: string[] | undefined;
    for (const { name, recognizes } of this.strategies) if (!recognizes || recognizes(input)) (names ??= []).push(name);
    if (!names) return Promise.resolve(CurrentUser.anonymous());
    const req: StrategyRequest = { headers: input.headers, query: input.query, body: input.body, [INPUT]: input };
    const strategies = names;
    return new Promise((resolve, reject) => {
      type Middleware = (req: StrategyRequest, res: object, next: (error?: unknown) => void) => void;
      const middleware = this.passport.authenticate(strategies, { session: false }, (error: unknown, user: unknown) => {
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- a strategy's error, as it came
        if (error) reject(error);
        else resolve(user instanceof CurrentUser ? user : CurrentUser.anonymous());
      }) as Middleware;
      middleware(req, {}, (error: unknown) => {
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- a strategy's error, as it came
        if (error) reject(error);
        else resolve(CurrentUser.anonymous());
      });
    });
  }
}
