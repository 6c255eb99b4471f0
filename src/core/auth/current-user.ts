/**
 * The user a request acts as. Anonymous callers are `CurrentUser.anonymous()`, never `undefined`.
 */
export class CurrentUser {
  constructor(
    readonly id: number,
    readonly login: string,
    readonly roles: readonly string[],
    /** Every primitive capability the user holds (`allcaps`), from roles and user-specific grants. */
    readonly allcaps: Readonly<Record<string, boolean>>,
    /** The application password (uuid) the request authenticated with, if any. */
    readonly applicationPassword?: string,
  ) {}

  static anonymous(): CurrentUser {
    return new CurrentUser(0, '', [], {});
  }

  get isLoggedIn(): boolean {
    return this.id > 0;
  }

  /** `true` when the user holds the primitive capability. */
  hasCap(cap: string): boolean {
    return this.allcaps[cap] === true;
  }
}
