/**
 * `wp_insert_user()`'s rules for a new user's fields: the checks that need no database, in WordPress's order, and
 * the de-duplication of the nicename.
 */
import { isEmail } from '../formatting/is-email';
import { phpTrim } from '../formatting/php-serialize';
import { sanitizeNicename, sanitizeUserLogin } from '../formatting/sanitize-text';
import { RestException } from '../errors/rest.exception';
import type { CreateUserInput } from './user-accounts.service';

/** `mb_strlen()` / `mb_substr()`: counts code points, not UTF-16 units. */
const mbLength = (text: string): number => [...text].length;
const mbSubstr = (text: string, length: number): string => [...text].slice(0, length).join('');

/** A new user's login, email, URL and (wanted) nicename, checked. */
export interface NewUserFields {
  login: string;
  email: string;
  url: string;
  nicename: string;
}

/**
 * The login (sanitized, which must leave it unchanged), the email, the URL and the nicename (the login made
 * URL-safe unless given) of a new user, checked.
 *
 * @throws RestException (400) `empty_user_login`, `user_login_too_long`, `invalid_username`, `empty_email`,
 *   `invalid_email`, `user_url_too_long`, `user_nicename_too_long`.
 */
export function checkNewUser(input: CreateUserInput): NewUserFields {
  const rawLogin = String(input.login ?? '');
  const login = phpTrim(sanitizeUserLogin(rawLogin));
  if (!login) throw new RestException('empty_user_login', 'Cannot create a user with an empty login name.', 400);
  if (mbLength(login) > 60) {
    throw new RestException('user_login_too_long', 'Username may not be longer than 60 characters.', 400);
  }
  if (login !== rawLogin) {
    throw new RestException(
      'invalid_username',
      'This username is invalid because it uses illegal characters. Please enter a valid username.',
      400,
    );
  }
  const email = String(input.email ?? '').trim();
  if (!email) throw new RestException('empty_email', 'Please type your email address.', 400);
  if (!isEmail(email) || email.length > 100) {
    throw new RestException('invalid_email', 'The email address is not correct.', 400);
  }
  const url = input.url ?? '';
  if (mbLength(url) > 100)
    throw new RestException('user_url_too_long', 'User URL may not be longer than 100 characters.', 400);
  const nicename = sanitizeNicename(input.nicename ? sanitizeUserLogin(input.nicename) : mbSubstr(login, 50));
  if (mbLength(nicename) > 50) {
    throw new RestException('user_nicename_too_long', 'Nicename may not be longer than 50 characters.', 400);
  }
  return { login, email, url, nicename };
}

/** The nicename, or when another user has it the first free of `<nicename>-2`, `-3`, … (at most 50 characters). */
export async function uniqueNicename(
  nicename: string,
  taken: (candidate: string) => Promise<boolean>,
): Promise<string> {
  if (!(await taken(nicename))) return nicename;
  let suffix = 2;
  let alternative: string;
  do {
    alternative = `${mbSubstr(nicename, 49 - String(suffix).length)}-${suffix}`;
    suffix++;
  } while (await taken(alternative));
  return alternative;
}
